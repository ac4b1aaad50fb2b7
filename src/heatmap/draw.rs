//! Draws one [`View`] as a seaborn-style heatmap on any plotters backend.
//!
//! Drawing happens in three pure-ish steps so that every backend shares them:
//! [`Layout::new`] places cells, labels and the colour bar for a canvas size;
//! [`Colors`] maps values to colours the way seaborn does; [`draw`] paints
//! through a `DrawingArea`. Large grids skip the per-cell shapes (one canvas
//! call per rectangle is too slow past a few thousand cells): the caller blits
//! the RGBA buffers of [`raster`] first, then `draw` adds the text on top.

use super::format::format_g2;
use super::palette::{self, by_name, text_color_f64, Colormap, Rgb};
use crate::math::kernels::min_max;
use crate::views::View;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Above this many cells, browsers draw cells through `raster` + `putImageData`.
pub const SHAPES_MAX_CELLS: usize = 1024;

const TEXT_DARK: Rgb = palette::TEXT_DARK;

/// How the page around the heatmap looks.
#[derive(Clone, Debug, PartialEq)]
pub struct Theme {
    /// Canvas background, also the colour of the gaps between cells (seaborn's white `linecolor`).
    pub background: Rgb,
    /// Titles, tick labels.
    pub text: Rgb,
    /// Outlines of highlighted cells.
    pub accent: Rgb,
}

impl Theme {
    pub fn light() -> Theme {
        Theme { background: [255, 255, 255], text: TEXT_DARK, accent: [0x09, 0x69, 0xda] }
    }

    pub fn dark() -> Theme {
        Theme { background: [0x16, 0x1b, 0x22], text: [0xe6, 0xed, 0xf3], accent: [0x58, 0xa6, 0xff] }
    }
}

/// Cell rectangles to outline, in cell coordinates: rows `r0..r1`, columns `c0..c1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Highlight {
    pub r0: usize,
    pub c0: usize,
    pub r1: usize,
    pub c1: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Style {
    /// Device pixels per CSS pixel: every size below is in CSS pixels and multiplied by it.
    pub dpr: f64,
    pub theme: Theme,
    /// A palette name for `palette::by_name`; `None` takes the view's default.
    pub palette: Option<String>,
    /// `None`: annotate when the text fits in the cells (seaborn's `annot=True` on a small grid).
    pub annotate: Option<bool>,
    pub highlights: Vec<Highlight>,
    pub show_title: bool,
    /// Row/column tick labels and the colour bar's tick labels.
    pub show_labels: bool,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            dpr: 1.0,
            theme: Theme::light(),
            palette: None,
            annotate: None,
            highlights: vec![],
            show_title: true,
            show_labels: true,
        }
    }
}

/// How values become colours for one view: the colormap, and the data range
/// seaborn uses (finite min/max). Signed data gets the diverging map centred on 0.
#[derive(Clone, Debug)]
pub struct Colors {
    pub cmap: Colormap,
    pub vmin: f64,
    pub vmax: f64,
    pub diverging: bool,
    /// `cmap`'s entries in 8 bits, so a cell's colour is one lookup (a 512² grid has 262 144 cells).
    rgb8: Vec<Rgb>,
    /// `linear_norm(v, vmin, vmax)` is `(v - lo) / span` (or 0 when span is 0): the
    /// colour bar's range, worked out once instead of once per cell.
    lo: f64,
    span: f64,
}

impl Colors {
    pub fn new(values: &[f64], palette: Option<&str>, default: &str) -> Colors {
        // The SIMD scan skips NaN; only when it meets ±∞ are the finite values scanned again.
        let (mut vmin, mut vmax) = min_max(values);
        if !(vmin.is_finite() && vmax.is_finite()) {
            (vmin, vmax) = (f64::INFINITY, f64::NEG_INFINITY);
            for &v in values.iter().filter(|v| v.is_finite()) {
                vmin = vmin.min(v);
                vmax = vmax.max(v);
            }
        }
        if vmin > vmax {
            (vmin, vmax) = (0.0, 0.0);
        }
        let requested = palette.and_then(by_name);
        // Scores can be negative: a one-sided light palette would hide the sign.
        let diverging = match palette {
            Some(p) if requested.is_some() => p.starts_with("diverging") || p.starts_with("vlag"),
            _ => vmin < 0.0 && vmax > 0.0,
        };
        let base = match requested {
            Some(cmap) => cmap,
            None if diverging => palette::diverging(),
            None => by_name(default).unwrap_or_else(palette::sequential),
        };
        let cmap = if diverging { base.recentred(vmin, vmax, 0.0) } else { base };
        let rgb8 = cmap.rgb8_table();
        let (lo, hi) = palette::nonsingular(vmin, vmax);
        Colors { cmap, vmin, vmax, diverging, rgb8, lo, span: hi - lo }
    }

    /// Where `value` sits on the colormap, 0..1 (seaborn's norm).
    pub fn norm(&self, value: f64) -> f64 {
        // linear_norm's arithmetic, with its range precomputed.
        if self.span == 0.0 || self.span.is_nan() {
            return 0.0;
        }
        (value - self.lo) / self.span
    }

    /// The cell colour, or `None` for NaN/±inf ("not a number" cells).
    pub fn color(&self, value: f64) -> Option<Rgb> {
        value.is_finite().then(|| self.rgb8[self.cmap.index_of(self.norm(value))])
    }

    /// Annotation colour by seaborn's luminance rule, decided on the float colour.
    pub fn text_color(&self, value: f64) -> Rgb {
        text_color_f64(self.cmap.at_f64(self.norm(value)))
    }
}

/// Fill of a non-finite cell, with a darker diagonal hatch.
pub const NAN_FILL: Rgb = [0xd0, 0xd0, 0xd0];
pub const NAN_HATCH: Rgb = [0x9a, 0x9a, 0x9a];

/// Integer device-pixel rectangle, `x0..x1` × `y0..y1` (exclusive ends).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x0: i32,
    pub y0: i32,
    pub x1: i32,
    pub y1: i32,
}

impl Rect {
    pub fn width(&self) -> i32 {
        self.x1 - self.x0
    }
    pub fn height(&self) -> i32 {
        self.y1 - self.y0
    }
    fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x0 as f64 && x < self.x1 as f64 && y >= self.y0 as f64 && y < self.y1 as f64
    }
}

/// Where everything goes on a canvas of a given device size.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub width: u32,
    pub height: u32,
    pub rows: usize,
    pub cols: usize,
    /// The cell grid, gaps included.
    pub grid: Rect,
    pub colorbar: Rect,
    /// White gap between cells, device pixels (seaborn's `linewidths=1`).
    pub gap: i32,
    pub font_px: f64,
    pub annotate: bool,
    pub title_y: i32,
}

/// CSS-pixel sizes of the fixed parts.
const FONT: f64 = 12.0;
const TITLE: f64 = 22.0;
const BAR: f64 = 12.0;
const BAR_GAP: f64 = 10.0;

fn text_width(chars: usize, font_px: f64) -> f64 {
    chars as f64 * font_px * 0.6
}

fn max_chars<'a>(labels: impl Iterator<Item = &'a String>) -> usize {
    labels.map(|l| l.chars().count()).max().unwrap_or(0)
}

/// Labels longer than this are cut with an ellipsis so one long token cannot squeeze the grid.
pub const MAX_LABEL_CHARS: usize = 14;

fn clip_label(label: &str) -> String {
    if label.chars().count() <= MAX_LABEL_CHARS {
        label.to_string()
    } else {
        let mut s: String = label.chars().take(MAX_LABEL_CHARS - 1).collect();
        s.push('…');
        s
    }
}

impl Layout {
    pub fn new(view: &View, colors: &Colors, style: &Style, width: u32, height: u32) -> Layout {
        let s = style.dpr.max(0.25);
        let font_px = FONT * s;
        let (rows, cols) = view.values.shape();
        let row_chars = max_chars(view.row_labels.iter()).min(MAX_LABEL_CHARS);
        let tick_chars =
            colorbar_ticks(colors.vmin, colors.vmax, 5).iter().map(|(_, l)| l.chars().count()).max().unwrap_or(1);
        let top = if style.show_title { TITLE * s } else { 6.0 * s };
        let left = text_width(row_chars, font_px) + 8.0 * s;
        let bottom = font_px + 10.0 * s;
        let right = BAR_GAP * s + BAR * s + 6.0 * s + text_width(tick_chars, font_px) + 4.0 * s;
        let gx0 = left.round() as i32;
        let gy0 = top.round() as i32;
        let gx1 = (width as f64 - right).round().max(gx0 as f64 + 1.0) as i32;
        let gy1 = (height as f64 - bottom).round().max(gy0 as f64 + 1.0) as i32;
        let grid = Rect { x0: gx0, y0: gy0, x1: gx1, y1: gy1 };
        let bx0 = gx1 + (BAR_GAP * s).round() as i32;
        let colorbar = Rect { x0: bx0, y0: gy0, x1: bx0 + (BAR * s).round() as i32, y1: gy1 };
        let cell_w = grid.width() as f64 / cols.max(1) as f64;
        let cell_h = grid.height() as f64 / rows.max(1) as f64;
        let gap = if cell_w.min(cell_h) >= 4.0 * s { s.round().max(1.0) as i32 } else { 0 };
        // Formatting every value is the costly part of a layout: only do it when
        // the cells could hold a short annotation at all.
        let could_fit = cell_w >= text_width(1, font_px) + 4.0 * s && cell_h >= font_px + 2.0 * s;
        let fits = could_fit && {
            let widest = view.values.data().iter().map(|&v| format_g2(v).chars().count()).max().unwrap_or(0);
            cell_w >= text_width(widest, font_px) + 4.0 * s
        };
        Layout {
            width,
            height,
            rows,
            cols,
            grid,
            colorbar,
            gap,
            font_px,
            annotate: style.annotate.unwrap_or(true) && fits,
            title_y: (top / 2.0).round() as i32,
        }
    }

    /// The rectangle of cell (i, j), without its gap.
    pub fn cell(&self, i: usize, j: usize) -> Rect {
        let g = &self.grid;
        let x = |j: usize| g.x0 + ((g.width() as i64 * j as i64) / self.cols.max(1) as i64) as i32;
        let y = |i: usize| g.y0 + ((g.height() as i64 * i as i64) / self.rows.max(1) as i64) as i32;
        let (x0, x1, y0, y1) = (x(j), x(j + 1), y(i), y(i + 1));
        Rect { x0, y0, x1: (x1 - self.gap).max(x0 + 1), y1: (y1 - self.gap).max(y0 + 1) }
    }

    /// The cell under a device-pixel point, for hover and click.
    pub fn cell_at(&self, x: f64, y: f64) -> Option<(usize, usize)> {
        if !self.grid.contains(x, y) || self.rows == 0 || self.cols == 0 {
            return None;
        }
        let j = band_at(x - self.grid.x0 as f64, self.grid.width(), self.cols);
        let i = band_at(y - self.grid.y0 as f64, self.grid.height(), self.rows);
        Some((i, j))
    }
}

/// Which of `n` bands of an integer span of `len` pixels holds offset `d`, with
/// band k starting at `floor(len·k/n)` exactly as `Layout::cell` draws it.
fn band_at(d: f64, len: i32, n: usize) -> usize {
    let start = |k: usize| (len as i64 * k as i64 / n as i64) as f64;
    let mut k = ((d * n as f64 / len.max(1) as f64) as usize).min(n - 1);
    while k + 1 < n && d >= start(k + 1) {
        k += 1;
    }
    while k > 0 && d < start(k) {
        k -= 1;
    }
    k
}

/// An RGBA image to copy onto the canvas at (x, y), as `putImageData` takes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Blit {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// The cell grid and the colour bar as RGBA buffers (the fast path for big grids).
pub fn raster(view: &View, colors: &Colors, layout: &Layout, theme: &Theme) -> Vec<Blit> {
    let g = layout.grid;
    let (w, h) = (g.width().max(0) as usize, g.height().max(0) as usize);
    let bg = theme.background;
    let background = [bg[0], bg[1], bg[2], 255];
    let mut rgba = background.repeat(w * h);
    // Which column each pixel x falls in (`cols` for the gaps between cells): the same
    // for every row, so a pixel line is one lookup per pixel, however small the cells.
    let cols = layout.cols;
    let mut column_at = vec![cols; w];
    for j in 0..cols {
        let r = layout.cell(0, j);
        column_at[(r.x0 - g.x0) as usize..(r.x1 - g.x0) as usize].fill(j);
    }
    // A row's colours, RGBA, with the background after the last column for the gaps.
    let mut row_colors: Vec<Option<[u8; 4]>> = vec![Some(background); cols + 1];
    for i in 0..layout.rows {
        let r = layout.cell(i, 0);
        for (slot, &v) in row_colors.iter_mut().zip(view.values.row(i)) {
            *slot = colors.color(v).map(|c| [c[0], c[1], c[2], 255]);
        }
        let (y0, y1) = ((r.y0 - g.y0) as usize, (r.y1 - g.y0) as usize);
        // Without NaN hatching every pixel line of a cell row is the same: paint the
        // first and copy it.
        let plain = row_colors.iter().all(Option::is_some);
        for y in y0..y1 {
            if plain && y > y0 {
                rgba.copy_within(y0 * w * 4..(y0 + 1) * w * 4, y * w * 4);
                continue;
            }
            let line = &mut rgba[y * w * 4..(y + 1) * w * 4];
            for (x, (px, &j)) in line.chunks_exact_mut(4).zip(&column_at).enumerate() {
                match row_colors[j] {
                    Some(c) => px.copy_from_slice(&c),
                    None => {
                        // The hatch restarts at each cell's left edge.
                        let x0 = (layout.cell(0, j).x0 - g.x0) as usize;
                        let hatch = (x - x0 + y) % 6 == 0;
                        px[..3].copy_from_slice(if hatch { &NAN_HATCH } else { &NAN_FILL });
                    }
                }
            }
        }
    }
    let grid = Blit { x: g.x0, y: g.y0, width: w as u32, height: h as u32, rgba };
    vec![grid, colorbar_raster(colors, layout.colorbar)]
}

fn colorbar_raster(colors: &Colors, bar: Rect) -> Blit {
    let (w, h) = (bar.width().max(0) as usize, bar.height().max(0) as usize);
    let mut rgba = vec![255u8; w * h * 4];
    for y in 0..h {
        let c = colorbar_color(colors, y, h);
        for px in rgba[y * w * 4..(y + 1) * w * 4].chunks_exact_mut(4) {
            px[..3].copy_from_slice(&c);
        }
    }
    Blit { x: bar.x0, y: bar.y0, width: w as u32, height: h as u32, rgba }
}

/// Colour of the colour bar's pixel row y of h (top = vmax).
fn colorbar_color(colors: &Colors, y: usize, h: usize) -> Rgb {
    let t = 1.0 - (y as f64 + 0.5) / h.max(1) as f64;
    let (lo, hi) = palette::nonsingular(colors.vmin, colors.vmax);
    let v = lo + t * (hi - lo);
    colors.cmap.at(colors.norm(v))
}

/// Round tick values inside [vmin, vmax] and their labels (about `max_ticks`,
/// at most 6, at steps of 1, 2, 2.5, 5 × 10ᵏ), as matplotlib's colour bar picks them.
pub fn colorbar_ticks(vmin: f64, vmax: f64, max_ticks: usize) -> Vec<(f64, String)> {
    let (lo, hi) = palette::nonsingular(vmin, vmax);
    let span = hi - lo;
    if !(span.is_finite() && span > 0.0) || max_ticks == 0 {
        return vec![];
    }
    let raw = span / max_ticks.clamp(1, 5) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let first = (lo / step).ceil();
    let decimals =
        if step >= 1.0 { 0 } else { (-step.log10().floor()) as usize + usize::from((step / mag - 2.5).abs() < 1e-9) };
    let mut ticks = vec![];
    let mut k = first;
    while k * step <= hi + step * 1e-9 && ticks.len() < 12 {
        let v = k * step;
        let label = if v.abs() >= 1e5 || (v != 0.0 && v.abs() < 1e-4) || decimals > 6 {
            format_g2(v)
        } else {
            let s = format!("{:.*}", decimals, if v == 0.0 { 0.0 } else { v });
            s
        };
        ticks.push((v, label));
        k += 1.0;
    }
    ticks
}

fn rgb(c: Rgb) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}

type DrawResult<T> = Result<T, String>;

fn font(px: f64, color: Rgb, h: HPos, v: VPos) -> TextStyle<'static> {
    ("sans-serif", px).into_font().color(&rgb(color)).pos(Pos::new(h, v))
}

/// Paints the heatmap. With `shapes == false` the cells and colour bar are left
/// for the caller's `raster` blits (already on the canvas); only text, ticks and
/// highlights are drawn.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    view: &View,
    colors: &Colors,
    layout: &Layout,
    style: &Style,
    shapes: bool,
) -> DrawResult<()> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("drawing failed: {e}");
    let theme = &style.theme;
    let s = style.dpr.max(0.25);
    if shapes {
        root.fill(&rgb(theme.background)).map_err(err)?;
        for i in 0..layout.rows {
            for j in 0..layout.cols {
                let r = layout.cell(i, j);
                let v = view.values.get(i, j);
                let fill = colors.color(v).unwrap_or(NAN_FILL);
                root.draw(&Rectangle::new([(r.x0, r.y0), (r.x1, r.y1)], rgb(fill).filled())).map_err(err)?;
                if !v.is_finite() {
                    root.draw(&PathElement::new(vec![(r.x0, r.y1), (r.x1, r.y0)], rgb(NAN_HATCH).stroke_width(1)))
                        .map_err(err)?;
                }
            }
        }
        let bar = layout.colorbar;
        let h = bar.height().max(0) as usize;
        // One rectangle per band of 2 device pixels: smooth enough, and cheap on canvas.
        let band = 2usize;
        for y in (0..h).step_by(band) {
            let c = colorbar_color(colors, y, h);
            let y0 = bar.y0 + y as i32;
            let y1 = (y0 + band as i32).min(bar.y1);
            root.draw(&Rectangle::new([(bar.x0, y0), (bar.x1, y1)], rgb(c).filled())).map_err(err)?;
        }
    }
    if layout.annotate {
        for i in 0..layout.rows {
            for j in 0..layout.cols {
                let r = layout.cell(i, j);
                let v = view.values.get(i, j);
                let color = if v.is_finite() { colors.text_color(v) } else { TEXT_DARK };
                let at = ((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2);
                root.draw(&Text::new(format_g2(v), at, font(layout.font_px, color, HPos::Center, VPos::Center)))
                    .map_err(err)?;
            }
        }
    }
    if style.show_labels {
        draw_labels(root, view, colors, layout, style)?;
    }
    if style.show_title {
        let at = ((layout.grid.x0 + layout.grid.x1) / 2, layout.title_y);
        root.draw(&Text::new(
            view.title.clone(),
            at,
            font(layout.font_px * 1.1, theme.text, HPos::Center, VPos::Center),
        ))
        .map_err(err)?;
    }
    for h in &style.highlights {
        if h.r0 >= h.r1 || h.c0 >= h.c1 || h.r1 > layout.rows || h.c1 > layout.cols {
            continue;
        }
        let a = layout.cell(h.r0, h.c0);
        let b = layout.cell(h.r1 - 1, h.c1 - 1);
        let w = (2.0 * s).round().max(1.0) as u32;
        let outline = [(a.x0 - 1, a.y0 - 1), (b.x1, b.y1)];
        root.draw(&Rectangle::new(outline, rgb(theme.accent).stroke_width(w))).map_err(err)?;
    }
    root.present().map_err(err)
}

/// Tick labels (rows on the left, columns below, as seaborn places them) and the colour bar's ticks.
fn draw_labels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    view: &View,
    colors: &Colors,
    layout: &Layout,
    style: &Style,
) -> DrawResult<()> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("drawing failed: {e}");
    let theme = &style.theme;
    let s = style.dpr.max(0.25);
    let label_font = font(layout.font_px, theme.text, HPos::Right, VPos::Center);
    let row_step = label_step(layout.grid.height() as f64 / layout.rows.max(1) as f64, layout.font_px * 1.1);
    for (i, label) in view.row_labels.iter().enumerate().step_by(row_step) {
        let r = layout.cell(i, 0);
        let at = (layout.grid.x0 - (4.0 * s) as i32, (r.y0 + r.y1) / 2);
        root.draw(&Text::new(clip_label(label), at, label_font.clone())).map_err(err)?;
    }
    let col_font = font(layout.font_px, theme.text, HPos::Center, VPos::Top);
    let widest = text_width(max_chars(view.col_labels.iter()).min(MAX_LABEL_CHARS), layout.font_px) + 6.0 * s;
    let col_step = label_step(layout.grid.width() as f64 / layout.cols.max(1) as f64, widest);
    for (j, label) in view.col_labels.iter().enumerate().step_by(col_step) {
        let r = layout.cell(0, j);
        let at = ((r.x0 + r.x1) / 2, layout.grid.y1 + (4.0 * s) as i32);
        root.draw(&Text::new(clip_label(label), at, col_font.clone())).map_err(err)?;
    }
    // Colour bar ticks.
    let bar = layout.colorbar;
    let (lo, hi) = palette::nonsingular(colors.vmin, colors.vmax);
    let tick_font = font(layout.font_px * 0.9, theme.text, HPos::Left, VPos::Center);
    let max_ticks = (bar.height() as f64 / (layout.font_px * 1.6)) as usize;
    for (v, label) in colorbar_ticks(colors.vmin, colors.vmax, max_ticks) {
        let y = bar.y1 as f64 - (v - lo) / (hi - lo) * bar.height() as f64;
        let y = y.round() as i32;
        let tick = (bar.x1, y);
        root.draw(&PathElement::new(vec![tick, (bar.x1 + (3.0 * s) as i32, y)], rgb(theme.text).stroke_width(1)))
            .map_err(err)?;
        root.draw(&Text::new(label, (bar.x1 + (5.0 * s) as i32, y), tick_font.clone())).map_err(err)?;
    }
    Ok(())
}

/// Draw every k-th label so labels never overlap (1 when they fit).
fn label_step(space_per_label: f64, needed: f64) -> usize {
    if space_per_label <= 0.0 {
        return 1;
    }
    (needed / space_per_label).ceil().max(1.0) as usize
}

/// A natural canvas size in CSS pixels for a view: ~48 × 30 px cells, within bounds.
pub fn preferred_size(view: &View) -> (u32, u32) {
    let (rows, cols) = view.values.shape();
    // Only grids small enough to annotate need their values' widths (formatting is costly).
    let widest = if rows * cols <= SHAPES_MAX_CELLS {
        view.values.data().iter().map(|&v| format_g2(v).chars().count()).max().unwrap_or(1)
    } else {
        1
    };
    let label_chars = max_chars(view.col_labels.iter()).min(MAX_LABEL_CHARS);
    let cell_w = (text_width(widest.max(label_chars), FONT) + 14.0).clamp(28.0, 96.0);
    let cell_h = 30.0;
    let row_chars = max_chars(view.row_labels.iter()).min(MAX_LABEL_CHARS);
    let chrome_w = text_width(row_chars, FONT) + 8.0 + BAR_GAP + BAR + 6.0 + text_width(7, FONT) + 4.0;
    let chrome_h = TITLE + FONT + 10.0;
    // Grids too big to annotate get small square cells (the values show on hover):
    // fewer pixels to fill on every edit, and the whole matrix in view.
    let (cell_w, cell_h) = if rows * cols > SHAPES_MAX_CELLS {
        let side = (600.0 / rows.max(cols) as f64).clamp(2.0, 30.0);
        (side, side)
    } else {
        (cell_w, cell_h)
    };
    let w = (cols as f64 * cell_w + chrome_w).clamp(140.0, 900.0);
    let h = (rows as f64 * cell_h + chrome_h).clamp(90.0, 900.0);
    (w.round() as u32, h.round() as u32)
}

/// The whole pipeline for one view onto a backend: colours, layout, shapes, text.
pub fn render<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, view: &View, style: &Style) -> DrawResult<Layout> {
    let colors = Colors::new(view.values.data(), style.palette.as_deref(), view.palette);
    let (w, h) = root.dim_in_pixel();
    let layout = Layout::new(view, &colors, style, w, h);
    draw(root, view, &colors, &layout, style, true)?;
    Ok(layout)
}

/// A standalone SVG of one view, drawn by the same code through `SVGBackend`.
/// Fills are written `#rrggbb` in lower case.
pub fn to_svg(view: &View, style: &Style) -> DrawResult<String> {
    let (w, h) = preferred_size(view);
    let scale = style.dpr.max(0.25);
    let (w, h) = ((w as f64 * scale).round() as u32, (h as f64 * scale).round() as u32);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        render(&root, view, style)?;
    }
    Ok(lowercase_hex_colors(&svg))
}

/// plotters writes `#RRGGBB`; CSS and seaborn users read `#rrggbb`.
fn lowercase_hex_colors(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(pos) = rest.find('#') {
        out.push_str(&rest[..=pos]);
        rest = &rest[pos + 1..];
        let hex: String = rest.chars().take(6).collect();
        if hex.len() == 6 && hex.chars().all(|c| c.is_ascii_hexdigit()) {
            out.push_str(&hex.to_ascii_lowercase());
            rest = &rest[6..];
        }
    }
    out.push_str(rest);
    out
}
