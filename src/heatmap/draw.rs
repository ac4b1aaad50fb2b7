//! Draws one [`View`] as a seaborn-style heatmap on any plotters backend.
//!
//! Drawing happens in three pure-ish steps so that every backend shares them:
//! [`Layout::new`] places cells, labels and the colour bar for a canvas size;
//! [`Colors`] maps values to colours the way seaborn does; [`draw`] paints
//! through a `DrawingArea`. Large grids skip the per-cell shapes (one canvas
//! call per rectangle is too slow past a few thousand cells): the caller blits
//! the RGBA buffers of [`raster`] first, then `draw` adds the text on top.

use super::format::{format_g, Fmt};
use super::palette::{self, by_name, contrast_ratio, more_contrast, relative_luminance, text_color_f64, Colormap, Rgb};
use super::View;
use crate::math::kernels::min_max;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Above this many cells, browsers draw cells through `raster` + `putImageData` (below it too when every cell is a
/// palette colour: [`plain`]); the SVG and the hatched grids draw them as shapes.
pub const SHAPES_MAX_CELLS: usize = 1024;
/// The colour bar of a drawn grid is one rectangle per band of this many device pixels: smooth enough, and
/// cheap as shapes (an SVG's rectangles).
pub const COLORBAR_BAND: usize = 2;

const TEXT_DARK: Rgb = palette::TEXT_DARK;

/// What the gaps between cells are drawn in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gaps {
    /// The background (seaborn's white `linecolor` on a white figure).
    Background,
    /// Whichever of the background and this colour contrasts more with the palette's darkest
    /// colour: on a dark page, near-black cells (rocket's low end) would merge with
    /// background-coloured gaps.
    Contrasting(Rgb),
}

/// How the page around the heatmap looks.
#[derive(Clone, Debug, PartialEq)]
pub struct Theme {
    /// Canvas background (and, in the light theme, the colour of the gaps between cells).
    pub background: Rgb,
    /// Titles, tick labels, notes, the keyboard cursor's outline.
    pub text: Rgb,
    /// The selected query's outline.
    pub accent: Rgb,
    /// The hovered link's (dashed) outline: amber, distinct from the accent.
    pub link: Rgb,
    pub gaps: Gaps,
}

/// The dark theme's light gap colour: against any colour, the better of it and the dark
/// background has a contrast ratio of at least 3.3:1 (WCAG's 3:1 for non-text).
pub const DARK_GAP: Rgb = [0xc9, 0xd1, 0xd9];

impl Theme {
    /// seaborn's figure: white background, white gaps.
    pub fn light() -> Theme {
        Theme {
            background: [255, 255, 255],
            text: TEXT_DARK,
            accent: [0x09, 0x69, 0xda],
            link: [0x9a, 0x67, 0x00],
            gaps: Gaps::Background,
        }
    }

    pub fn dark() -> Theme {
        Theme {
            background: [0x16, 0x1b, 0x22],
            text: [0xe6, 0xed, 0xf3],
            accent: [0x58, 0xa6, 0xff],
            link: [0xd2, 0x99, 0x22],
            gaps: Gaps::Contrasting(DARK_GAP),
        }
    }

    /// The colour of the gaps between the cells of a figure coloured by `colors`.
    pub fn gap_color(&self, colors: &Colors) -> Rgb {
        match self.gaps {
            Gaps::Background => self.background,
            Gaps::Contrasting(c) => more_contrast(colors.darkest(), [self.background, c]),
        }
    }
}

/// What an outline means; each kind is drawn differently on every backend.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HighlightKind {
    /// The selected query: a solid 2 px outline in the accent colour.
    #[default]
    Selected,
    /// What a hovered weight links together: a dashed 2 px outline in the link colour (amber).
    Link,
    /// The keyboard cursor's cell: a thick (3 px) solid outline in the text colour.
    Cursor,
    /// FlashAttention's current tile (the flash panel's stepper): a thick (3 px) solid outline in the link colour,
    /// with the cursor's inner ring of the background colour, so it stands out on a block of any colour.
    Tile,
}

impl HighlightKind {
    /// Every kind in the order of its binding's code (0 selected, 1 link, 2 cursor, 3 tile): the element's
    /// `HIGHLIGHT` (www/element/facts.js) is generated from this list.
    pub const ALL: [HighlightKind; 4] =
        [HighlightKind::Selected, HighlightKind::Link, HighlightKind::Cursor, HighlightKind::Tile];

    /// The kind of a binding's code.
    pub fn from_code(code: u32) -> Option<HighlightKind> {
        HighlightKind::ALL.get(code as usize).copied()
    }

    /// The binding's code of this kind.
    pub fn code(self) -> u32 {
        HighlightKind::ALL.iter().position(|k| *k == self).unwrap_or(0) as u32
    }
}

/// Cell rectangles to outline, in cell coordinates: rows `r0..r1`, columns `c0..c1`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Highlight {
    pub kind: HighlightKind,
    pub r0: usize,
    pub c0: usize,
    pub r1: usize,
    pub c1: usize,
}

/// How annotation colours are chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Contrast {
    /// seaborn's rule: `#262626` on cells of relative luminance above 0.408, white below.
    #[default]
    Seaborn,
    /// Whichever of black and white has the higher WCAG contrast ratio with the cell:
    /// at least 4.5:1 on every colour.
    More,
}

impl Contrast {
    /// `"seaborn"` or `"more"`.
    pub fn parse(s: &str) -> Result<Contrast, String> {
        match s.trim() {
            "seaborn" => Ok(Contrast::Seaborn),
            "more" => Ok(Contrast::More),
            other => Err(format!(
                "contrast {} is not one of \"seaborn\" (seaborn's text colours) or \"more\" \
                 (black or white, whichever contrasts more: at least 4.5:1)",
                crate::text::quote(other)
            )),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Style {
    /// Device pixels per CSS pixel: every size below is in CSS pixels and multiplied by it.
    pub dpr: f64,
    pub theme: Theme,
    /// A palette name for `palette::by_name`; `None` takes the view's default.
    pub palette: Option<String>,
    /// `None` or `Some(true)`: annotate, with a smaller font or fewer digits if the cells
    /// need it (and a note saying so); `Some(false)`: no numbers.
    pub annotate: Option<bool>,
    /// seaborn's `fmt`: how each annotation is written.
    pub fmt: Fmt,
    pub contrast: Contrast,
    pub highlights: Vec<Highlight>,
    pub show_title: bool,
    /// Row/column tick labels and the colour bar's tick labels.
    pub show_labels: bool,
}

impl Style {
    /// `dpr` as the layout uses it: at least 0.25, at most 64, and 1 when it is not a number.
    pub fn scale(&self) -> f64 {
        if self.dpr.is_finite() {
            self.dpr.clamp(0.25, 64.0)
        } else {
            1.0
        }
    }
}

impl Default for Style {
    fn default() -> Self {
        Style {
            dpr: 1.0,
            theme: Theme::light(),
            palette: None,
            annotate: None,
            fmt: Fmt::default(),
            contrast: Contrast::Seaborn,
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
    /// The palette name that gives these colours when passed back as `palette`.
    name: String,
    /// The entry of lowest relative luminance.
    darkest: Rgb,
}

impl Colors {
    /// A view's colours: on its fixed range when it has one (`View::range`), else on its values'.
    pub fn of_view(view: &View, palette: Option<&str>) -> Colors {
        match view.range {
            Some((lo, hi)) => Colors::new(&[lo, hi], palette, view.palette),
            None => Colors::new(view.values.data(), palette, view.palette),
        }
    }

    pub fn new(values: &[f64], palette: Option<&str>, default: &str) -> Colors {
        let (vmin, vmax) = finite_range(values);
        let requested = palette.and_then(by_name);
        // Scores can be negative: a one-sided light palette would hide the sign.
        let diverging = match palette {
            Some(p) if requested.is_some() => p.starts_with("diverging") || p.starts_with("vlag"),
            _ => vmin < 0.0 && vmax > 0.0,
        };
        let (base, name) = match (requested, palette) {
            (Some(cmap), Some(p)) => (cmap, p.to_string()),
            _ if diverging => (palette::diverging(), "diverging".to_string()),
            _ => match by_name(default) {
                Some(cmap) => (cmap, default.to_string()),
                None => (palette::sequential(), "sequential".to_string()),
            },
        };
        let cmap = if diverging { base.recentred(vmin, vmax, 0.0) } else { base };
        let rgb8 = cmap.rgb8_table();
        let darkest = rgb8
            .iter()
            .copied()
            .map(|c| (relative_luminance(c), c))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, c)| c)
            .unwrap_or([0, 0, 0]);
        let (lo, hi) = palette::nonsingular(vmin, vmax);
        Colors { cmap, vmin, vmax, diverging, rgb8, lo, span: hi - lo, name, darkest }
    }

    /// The palette these colours come from, as a name for `palette`: passing it back gives the
    /// same colours (the requested name, `"diverging"` for signed data, or the view's default).
    pub fn palette_name(&self) -> &str {
        &self.name
    }

    /// The colormap entry of lowest relative luminance, 8-bit (as drawn).
    pub fn darkest(&self) -> Rgb {
        self.darkest
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

    /// Annotation colour of a cell under `contrast`: seaborn's rule, or black/white by the
    /// higher WCAG contrast ratio with the cell's drawn (8-bit) colour. Non-finite cells get
    /// seaborn's dark text either way: right for NaN (grey); `draw` writes ±∞ (hatched on the
    /// background) in the theme's text colour instead.
    pub fn annotation_color(&self, value: f64, contrast: Contrast) -> Rgb {
        match (self.color(value), contrast) {
            (None, _) => TEXT_DARK,
            (Some(_), Contrast::Seaborn) => self.text_color(value),
            (Some(fill), Contrast::More) => more_contrast(fill, [palette::TEXT_BLACK, palette::TEXT_LIGHT]),
        }
    }
}

/// Fill of a NaN cell, with a darker diagonal hatch (one diagonal when drawn as shapes, a line
/// every 6 pixels in `raster`).
pub const NAN_FILL: Rgb = [0xd0, 0xd0, 0xd0];
pub const NAN_HATCH: Rgb = [0x9a, 0x9a, 0x9a];

/// Distance between the diagonals of a ±∞ cell's hatch, CSS pixels (along each axis).
pub const HATCH_SPACING: f64 = 6.0;
/// Contrast ratio of the ±∞ hatch against the background: WCAG's 3:1 for non-text.
pub const HATCH_CONTRAST: f64 = 3.0;

/// The colour of the diagonal lines of a ±∞ cell (a masked score): the background mixed with
/// the theme's text colour, just enough for [`HATCH_CONTRAST`] against the background (a muted
/// grey: `#929292` in the light theme, `#696f76` in the dark one). ±∞ cells are never coloured
/// by the palette: they are the background, hatched, with "−∞" or "∞" in the text colour.
pub fn hatch_color(theme: &Theme) -> Rgb {
    let (bg, fg) = (theme.background, theme.text);
    let mix = |t: f64| -> Rgb {
        let c = |k: usize| (bg[k] as f64 + (fg[k] as f64 - bg[k] as f64) * t).round().clamp(0.0, 255.0) as u8;
        [c(0), c(1), c(2)]
    };
    (6..=20).map(|k| mix(k as f64 * 0.05)).find(|&c| contrast_ratio(c, bg) >= HATCH_CONTRAST).unwrap_or(fg)
}

/// The colour of a marked cell's lines: its number's (seaborn's rule on a palette colour, the text colour on ±∞ and
/// NaN), so they stand out on any cell as the number does.
fn mark_color(colors: &Colors, theme: &Theme, v: f64) -> Rgb {
    match colors.color(v) {
        Some(_) => colors.text_color(v),
        None => theme.text,
    }
}

/// What a cell is drawn as.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Paint {
    /// A palette colour.
    Color(Rgb),
    /// NaN: grey, with a darker diagonal.
    Nan,
    /// ±∞ (a masked score): the background with diagonal lines in [`hatch_color`].
    Infinite,
}

impl Paint {
    fn of(colors: &Colors, v: f64) -> Paint {
        match colors.color(v) {
            Some(c) => Paint::Color(c),
            None if v.is_nan() => Paint::Nan,
            None => Paint::Infinite,
        }
    }
}

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
    /// Gap between cells, device pixels (seaborn's `linewidths=1`).
    pub gap: i32,
    /// Tick labels' font, device pixels.
    pub font_px: f64,
    /// Whether the cells carry their numbers.
    pub annotate: bool,
    /// The numbers' font, device pixels: `font_px`, or smaller (down to [`MIN_FONT`] CSS px) when
    /// the numbers would not fit otherwise.
    pub annot_font_px: f64,
    /// The spec the numbers are written with: the style's, or one with fewer digits when even
    /// the smallest font does not fit.
    pub fmt: Fmt,
    /// The title, on one or two lines (empty without a title).
    pub title: TextBlock,
    /// What the figure says under its title when its numbers are smaller, shorter or hidden.
    pub note: Option<TextBlock>,
}

/// Lines of text centred on `x`, the first line's middle at `y`, `line_height` apart.
#[derive(Clone, Debug, PartialEq)]
pub struct TextBlock {
    pub lines: Vec<String>,
    pub font_px: f64,
    pub x: i32,
    pub y: i32,
    pub line_height: f64,
}

impl TextBlock {
    /// The estimated width of the widest line, device pixels.
    pub fn width(&self) -> f64 {
        text_width(max_chars(self.lines.iter()), self.font_px)
    }

    /// The estimated horizontal extent, `(left, right)`.
    pub fn extent(&self) -> (f64, f64) {
        let half = self.width() / 2.0;
        (self.x as f64 - half, self.x as f64 + half)
    }

    fn positions(&self) -> impl Iterator<Item = (&String, (i32, i32))> {
        self.lines.iter().enumerate().map(|(k, l)| (l, (self.x, self.y + (k as f64 * self.line_height).round() as i32)))
    }
}

/// CSS-pixel sizes of the fixed parts.
const FONT: f64 = 12.0;
const TITLE: f64 = 22.0;
const TITLE_FONT: f64 = FONT * 1.1;
const BAR: f64 = 12.0;
const BAR_GAP: f64 = 10.0;
/// The smallest annotation font, CSS pixels: below it numbers are shortened, then hidden.
pub const MIN_FONT: f64 = 8.0;
/// The smallest numbers' font (CSS px) the element shrinks the heads' small multiples to when it puts several in a row:
/// [`MIN_FONT`] is the floor for fitting numbers at all, this one for reading them side by side.
pub const LEGIBLE_FONT: f64 = 10.0;
/// The least side of a cell a finger must hit, CSS px (WCAG 2.2's minimum target size): a narrow figure draws a
/// heatmap smaller than its natural size only while each cell keeps it (or the side it had, when smaller at rest).
pub const TOUCH_TARGET: f64 = 24.0;
/// The bounds of a heatmap's height the element's `height` attribute (and Python's `height=`) may ask, CSS pixels:
/// below them a canvas is empty, above them drawing takes minutes.
pub const MIN_HEIGHT: u32 = 40;
pub const MAX_HEIGHT: u32 = 4000;
/// The smallest title font, CSS pixels, before the title is cut with "…".
const MIN_TITLE_FONT: f64 = 9.0;
const NOTE_FONT: f64 = 10.0;
/// Left and right margin of the title and note, CSS pixels.
const MARGIN: f64 = 4.0;
/// How much wider than its grid needs a preferred size grows to keep the title on one line, CSS pixels.
const TITLE_WIDEN: f64 = 80.0;
/// A number of the usual length (a sign, a leading 0 and the fmt's digits: `−0.12` with .2g): a preferred size
/// decides whether its title goes on one line as if no number were longer.
const USUAL_NUMBER: f64 = -0.123_456_789;

/// The note of a figure whose cells cannot hold its numbers at all.
pub const HIDDEN_NOTE: &str = "numbers hidden: cells too small — hover or focus a cell to read it";

/// Estimated width of `chars` characters of a sans-serif font: 0.6 em each (wider than
/// digits and most letters, so estimates err on the side of room).
pub fn text_width(chars: usize, font_px: f64) -> f64 {
    chars as f64 * font_px * 0.6
}

fn max_chars<'a>(labels: impl Iterator<Item = &'a String>) -> usize {
    labels.map(|l| l.chars().count()).max().unwrap_or(0)
}

/// Labels longer than this are cut with an ellipsis so one long token cannot squeeze the grid.
pub const MAX_LABEL_CHARS: usize = 14;

/// `label` cut to at most `max` characters, the last one "…" when cut.
pub fn clip_to(label: &str, max: usize) -> String {
    if label.chars().count() <= max {
        label.to_string()
    } else {
        let mut s: String = label.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

fn clip_label(label: &str) -> String {
    clip_to(label, MAX_LABEL_CHARS)
}

/// `text` in at most two lines that fit `max_w` device pixels: one line at `font` if it fits,
/// else split at the space that balances the two lines, then a smaller font (down to
/// `min_font`), then each line cut with "…".
fn fit_lines(text: &str, max_w: f64, font: f64, min_font: f64) -> (Vec<String>, f64) {
    let n = text.chars().count();
    if n == 0 || text_width(n, font) <= max_w {
        return (vec![text.to_string()], font);
    }
    let lines = split_in_two(text);
    let widest = max_chars(lines.iter()).max(1);
    if text_width(widest, font) <= max_w {
        return (lines, font);
    }
    // The largest font (in steps of half a pixel) that fits, if it is not too small.
    let f = ((max_w / (0.6 * widest as f64)) * 2.0 + 1e-9).floor() / 2.0;
    if f >= min_font {
        return (lines, f);
    }
    let keep = ((max_w / (0.6 * min_font)) + 1e-9).floor().max(1.0) as usize;
    (lines.iter().map(|l| clip_to(l, keep)).collect(), min_font)
}

/// `text` word-wrapped into at most `max_lines` lines that fit `max_w` device pixels, at the
/// largest font from `font` down to `min_font` (in half-pixel steps) that needs no cut; at
/// `min_font`, the last line is cut with "…" when even that does not fit.
fn wrap_lines(text: &str, max_w: f64, font: f64, min_font: f64, max_lines: usize) -> (Vec<String>, f64) {
    let wrap = |f: f64| {
        let per_line = ((max_w / (0.6 * f)) + 1e-9).floor().max(1.0) as usize;
        let mut lines: Vec<String> = vec![];
        for word in text.split(' ') {
            match lines.last_mut() {
                Some(line) if line.chars().count() + 1 + word.chars().count() <= per_line => {
                    line.push(' ');
                    line.push_str(word);
                }
                _ => lines.push(word.to_string()),
            }
        }
        let fits = lines.len() <= max_lines && lines.iter().all(|l| l.chars().count() <= per_line);
        (lines, per_line, fits)
    };
    let mut f = font;
    loop {
        let (lines, per_line, fits) = wrap(f);
        let fits = fits || !f.is_finite();
        if fits {
            return (lines, f);
        }
        if f - 0.5 < min_font {
            let mut kept: Vec<String> =
                lines.into_iter().take(max_lines.max(1)).map(|l| clip_to(&l, per_line)).collect();
            if let Some(last) = kept.last_mut() {
                if !last.ends_with('…') {
                    *last = clip_to(&format!("{last} …"), per_line);
                    if !last.ends_with('…') {
                        last.push('…');
                    }
                }
            }
            return (kept, f);
        }
        f = ((f - 0.5) * 2.0).round() / 2.0;
    }
}

/// `text` split at the space that makes its longer half shortest, preferring a break before
/// an `=` by up to 6 characters ("scaled = scores / √d_k", "= scores / 1.73"), or unsplit
/// when it has no space.
fn split_in_two(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let best = (1..chars.len())
        .filter(|&i| chars[i] == ' ')
        .map(|i| {
            let left: String = chars[..i].iter().collect();
            let right: String = chars[i + 1..].iter().collect();
            let (left, right) = (left.trim_end().to_string(), right.trim_start().to_string());
            let longer = left.chars().count().max(right.chars().count());
            (longer.saturating_sub(if right.starts_with('=') { 6 } else { 0 }), left, right)
        })
        .filter(|(_, l, r)| !l.is_empty() && !r.is_empty())
        .min_by_key(|(w, _, _)| *w);
    match best {
        Some((_, l, r)) => vec![l, r],
        None => vec![text.to_string()],
    }
}

/// The figure's title lines and font at canvas width `width` (device pixels, scale `s`).
fn title_lines(title: &str, width: f64, s: f64) -> (Vec<String>, f64) {
    fit_lines(title, width - 2.0 * MARGIN * s, TITLE_FONT * s, MIN_TITLE_FONT * s)
}

/// Height of the band above the grid that holds `lines` title lines of `font`, device pixels.
fn title_band(show_title: bool, lines: usize, font: f64, s: f64) -> f64 {
    if show_title {
        TITLE * s + lines.saturating_sub(1) as f64 * font * 1.25
    } else {
        6.0 * s
    }
}

/// The horizontal chrome around the grid, device pixels: (left: row labels, right: colour bar and its ticks).
fn side_chrome(view: &View, vmin: f64, vmax: f64, s: f64) -> (f64, f64) {
    let font_px = FONT * s;
    let row_chars = max_chars(view.row_labels.iter()).min(MAX_LABEL_CHARS);
    // The bar's height is not known yet: room for the widest labels any tick space gives.
    let tick_chars =
        (1..=9).flat_map(|n| colorbar_ticks(vmin, vmax, n)).map(|(_, l)| l.chars().count()).max().unwrap_or(1);
    let left = text_width(row_chars, font_px) + 8.0 * s;
    let right = BAR_GAP * s + BAR * s + 6.0 * s + text_width(tick_chars, font_px) + 4.0 * s;
    (left, right)
}

/// A note's lines and font at canvas width `width` (device pixels, scale `s`).
fn note_lines(text: &str, width: f64, s: f64) -> (Vec<String>, f64) {
    wrap_lines(text, width - 2.0 * MARGIN * s, NOTE_FONT * s, MIN_FONT * s, 3)
}

/// Height of the band under the title that holds `lines` note lines, device pixels.
fn note_band(lines: usize, s: f64) -> f64 {
    if lines == 0 {
        0.0
    } else {
        lines as f64 * NOTE_FONT * s * 1.3 + 4.0 * s
    }
}

/// How a grid's numbers are drawn, if at all.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Numbers {
    fmt: Fmt,
    /// CSS pixels, whole.
    font: f64,
}

/// The largest font (whole CSS pixels, at most [`FONT`]) at which every value written with
/// `fmt` fits a cell of `cell_w` × `cell_h` device pixels, if it is at least [`MIN_FONT`];
/// else the same with fewer digits; `None` when nothing fits.
/// `widest(f)` is the length of the longest value written with `f` (memoised by the caller).
fn fit_numbers(widest: &mut impl FnMut(Fmt) -> usize, fmt: Fmt, cell_w: f64, cell_h: f64, s: f64) -> Option<Numbers> {
    let pad = 4.0 * s;
    // Formatting every value is the costly part of a layout: only do it when the cells
    // could hold one character at the smallest font.
    if cell_w < text_width(1, MIN_FONT * s) + pad || cell_h < (MIN_FONT + 2.0) * s {
        return None;
    }
    let by_height = (cell_h - 2.0 * s) / s;
    let mut candidate = Some(fmt);
    while let Some(f) = candidate {
        let widest = widest(f).max(1);
        let by_width = (cell_w - pad) / (0.6 * widest as f64 * s);
        let font = (FONT.min(by_width).min(by_height) + 1e-9).floor();
        if font >= MIN_FONT {
            return Some(Numbers { fmt: f, font });
        }
        candidate = f.fewer_digits();
    }
    None
}

/// The note that says how the numbers differ from the style's (or that they are hidden).
fn numbers_note(asked: Fmt, numbers: Option<Numbers>) -> Option<String> {
    let n = match numbers {
        None => return Some(HIDDEN_NOTE.to_string()),
        Some(n) => n,
    };
    let at = if n.font < FONT { format!(" at {} px", n.font) } else { String::new() };
    if n.fmt != asked {
        Some(format!("numbers {}{at} (fmt {asked} does not fit)", n.fmt.digits_text()))
    } else if n.font < FONT {
        Some(format!("numbers at {} px", n.font))
    } else {
        None
    }
}

/// The grid and colour bar rectangles, gap and cell size for a band of `top` device pixels above.
struct Frame {
    grid: Rect,
    colorbar: Rect,
    gap: i32,
    cell_w: f64,
    cell_h: f64,
}

impl Layout {
    pub fn new(view: &View, colors: &Colors, style: &Style, width: u32, height: u32) -> Layout {
        let s = style.scale();
        let font_px = FONT * s;
        let (rows, cols) = view.values.shape();
        let (left, right) = side_chrome(view, colors.vmin, colors.vmax, s);
        let bottom = font_px + 10.0 * s;
        let (title, title_font) =
            if style.show_title { title_lines(&view.title, width as f64, s) } else { (vec![], TITLE_FONT * s) };
        let title_h = title_band(style.show_title, title.len(), title_font, s);
        let frame = |top: f64| {
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
            Frame { grid, colorbar, gap, cell_w, cell_h }
        };
        let note_line = NOTE_FONT * s * 1.3;
        let note_lines = |text: &str| note_lines(text, width as f64, s);
        let note_band = |lines: usize| note_band(lines, s);
        // Numbers, and the note saying how they differ from the style's. A note takes room
        // above the grid, which makes the cells shorter: lay out again with that room until
        // the note fits the room (at most three times more, a note has at most three lines). Widths
        // never change, so the decision only moves one way, and the same inputs always give
        // the same figure on every backend.
        let wanted = style.annotate != Some(false);
        // Each spec's widest value, formatted once however many times the cells are tried.
        let mut widths: Vec<(Fmt, usize)> = vec![];
        let mut widest = |f: Fmt| match widths.iter().find(|(g, _)| *g == f) {
            Some(&(_, w)) => w,
            None => {
                let w = view.values.data().iter().map(|&v| f.cell(v).chars().count()).max().unwrap_or(0);
                widths.push((f, w));
                w
            }
        };
        let (fmt, fallback) = if wanted { style.fmt.for_values(view.values.data()) } else { (style.fmt, None) };
        let mut reserved = 0;
        let (mut f, mut numbers, mut note);
        loop {
            f = frame(title_h + note_band(reserved));
            numbers = if wanted { fit_numbers(&mut widest, fmt, f.cell_w, f.cell_h, s) } else { None };
            note = if wanted {
                let text = match (&fallback, numbers_note(fmt, numbers)) {
                    // Hidden numbers are written with no spec at all: only that is said.
                    (Some(why), other) if numbers.is_some() => Some(match other {
                        Some(more) => format!("{why}; {more}"),
                        None => why.clone(),
                    }),
                    (_, other) => other,
                };
                text.map(|t| note_lines(&t))
            } else {
                None
            };
            let lines = note.as_ref().map_or(0, |(l, _)| l.len());
            if lines <= reserved {
                break;
            }
            reserved = lines;
        }
        let centre = (f.grid.x0 + f.grid.x1) / 2;
        // Centred over the grid, moved in where that would cross the canvas edge.
        let centred = |lines: &[String], font: f64| {
            let half = text_width(max_chars(lines.iter()), font) / 2.0;
            let lo = MARGIN * s + half;
            let hi = width as f64 - MARGIN * s - half;
            if lo > hi {
                (width / 2) as i32
            } else {
                (centre as f64).clamp(lo, hi).round() as i32
            }
        };
        let title = TextBlock {
            x: centred(&title, title_font),
            y: (TITLE * s / 2.0).round() as i32,
            line_height: title_font * 1.25,
            font_px: title_font,
            lines: title,
        };
        let note = note.map(|(lines, font)| TextBlock {
            x: centred(&lines, font),
            y: (title_h + note_line / 2.0).round() as i32,
            line_height: note_line,
            font_px: font,
            lines,
        });
        Layout {
            width,
            height,
            rows,
            cols,
            grid: f.grid,
            colorbar: f.colorbar,
            gap: f.gap,
            font_px,
            annotate: numbers.is_some(),
            annot_font_px: numbers.map_or(font_px, |n| n.font * s),
            fmt: numbers.map_or(fmt, |n| n.fmt),
            title,
            note,
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

    /// The annotation of a value, as this layout writes it ([`Fmt::cell`]: "−∞", "∞", "nan" for
    /// the values that are not finite).
    pub fn annotation(&self, value: f64) -> String {
        self.fmt.cell(value)
    }

    /// The layout's scale (device pixels per CSS pixel).
    fn scale(&self) -> f64 {
        self.font_px / FONT
    }

    /// The period of a ±∞ cell's hatch along each axis, device pixels.
    pub fn hatch_period(&self) -> i32 {
        ((HATCH_SPACING * self.scale()).round() as i32).max(3)
    }

    /// The width of a ±∞ cell's hatch lines, device pixels.
    pub fn hatch_width(&self) -> i32 {
        (self.scale().round() as i32).max(1)
    }

    /// The diagonal lines ("/") of a ±∞ cell at `r`, clipped to it, as segments from the lower
    /// left to the upper right. The lines are the grid's (`x + y` a multiple of
    /// [`Layout::hatch_period`] from the grid's corner), not each cell's: adjacent masked cells
    /// read as one hatched area, and cells smaller than the period still get their share.
    pub fn hatch_lines(&self, r: Rect) -> Vec<((i32, i32), (i32, i32))> {
        let p = self.hatch_period();
        let origin = self.grid.x0 + self.grid.y0;
        let first = origin + (r.x0 + r.y0 - origin).div_euclid(p) * p;
        let mut out = vec![];
        let mut k = first;
        while k <= r.x1 + r.y1 {
            let (xa, xb) = ((k - r.y1).max(r.x0), (k - r.y0).min(r.x1));
            if xb > xa {
                out.push(((xa, k - xa), (xb, k - xb)));
            }
            k += p;
        }
        out
    }

    /// The hatch of every cell for which `hatched(i, j)` holds, as [`Layout::hatch_lines`] gives
    /// each, with the segments of one line in cells next to each other along it (one gap apart)
    /// joined into one: the lines cross the gaps between hatched cells, never a cell that is not.
    pub fn hatch_runs(&self, hatched: impl Fn(usize, usize) -> bool) -> Vec<((i32, i32), (i32, i32))> {
        // (x + y, x0, x1) of each cell's segments.
        let mut segments: Vec<(i32, i32, i32)> = vec![];
        for i in 0..self.rows {
            for j in 0..self.cols {
                if hatched(i, j) {
                    let lines = self.hatch_lines(self.cell(i, j));
                    segments.extend(lines.into_iter().map(|(a, b)| (a.0 + a.1, a.0, b.0)));
                }
            }
        }
        segments.sort_unstable();
        let mut runs: Vec<(i32, i32, i32)> = vec![];
        for (k, xa, xb) in segments {
            match runs.last_mut() {
                Some(run) if run.0 == k && xa - run.2 <= self.gap.max(0) => run.2 = run.2.max(xb),
                _ => runs.push((k, xa, xb)),
            }
        }
        runs.into_iter().map(|(k, xa, xb)| ((xa, k - xa), (xb, k - xb))).collect()
    }

    /// The gaps between the cells (not the one after the last row and column), as strips across
    /// the grid: what `draw` paints again over hatch lines that cross them.
    pub fn inner_gaps(&self) -> Vec<Rect> {
        if self.gap <= 0 || self.rows == 0 || self.cols == 0 {
            return vec![];
        }
        let (first, last) = (self.cell(0, 0), self.cell(self.rows - 1, self.cols - 1));
        let mut out = vec![];
        for i in 1..self.rows {
            let (above, below) = (self.cell(i - 1, 0), self.cell(i, 0));
            out.push(Rect { x0: first.x0, y0: above.y1, x1: last.x1, y1: below.y0 });
        }
        for j in 1..self.cols {
            let (left, right) = (self.cell(0, j - 1), self.cell(0, j));
            out.push(Rect { x0: left.x1, y0: first.y0, x1: right.x0, y1: last.y1 });
        }
        out.retain(|r| r.width() > 0 && r.height() > 0);
        out
    }

    /// Whether device pixel (x, y) of a ±∞ cell is on its hatch: the pixels `raster` paints for
    /// the lines of [`Layout::hatch_lines`] (whose centres are within half the line width of one).
    pub fn on_hatch(&self, x: i32, y: i32) -> bool {
        let p = self.hatch_period();
        let d = (x + y + 1 - self.grid.x0 - self.grid.y0).rem_euclid(p);
        (d.min(p - d) as f64) <= self.hatch_width() as f64 * 0.5
    }

    /// The box left unhatched behind a ±∞ cell's "−∞" or "∞", so the hatch never crosses its
    /// glyphs; `None` when the cell carries no number, or when the box would leave less than a
    /// hatch period of lines beside it (the text is drawn over the hatch then).
    pub fn hatch_hole(&self, r: Rect, value: f64) -> Option<Rect> {
        if !value.is_infinite() {
            return None;
        }
        self.mark_hole(r, value)
    }

    /// The "\" lines of a marked cell at `r` ([`super::Marks`]), clipped to it, from upper left to lower right: the
    /// grid's lines (`x − y` a multiple of [`Layout::hatch_period`] from the grid's corner), as the ±∞ hatch's are.
    pub fn mark_lines(&self, r: Rect) -> Vec<((i32, i32), (i32, i32))> {
        let p = self.hatch_period();
        let origin = self.grid.x0 - self.grid.y0;
        let mut k = origin + (r.x0 - r.y1 - origin).div_euclid(p) * p;
        let mut out = vec![];
        while k <= r.x1 - r.y0 {
            let (xa, xb) = ((k + r.y0).max(r.x0), (k + r.y1).min(r.x1));
            if xb > xa {
                out.push(((xa, xa - k), (xb, xb - k)));
            }
            k += p;
        }
        out
    }

    /// Whether device pixel (x, y) of a marked cell is on its "\" lines (what `raster` paints for [`Layout::mark_lines`]).
    pub fn on_mark(&self, x: i32, y: i32) -> bool {
        let p = self.hatch_period();
        let d = (x - y - self.grid.x0 + self.grid.y0).rem_euclid(p);
        (d.min(p - d) as f64) <= self.hatch_width() as f64 * 0.5
    }

    /// The box left clear of a marked cell's lines behind its number (and of a ±∞ cell's hatch: [`Layout::hatch_hole`]);
    /// `None` when the cell carries no number, or when the box would leave less than a hatch period of lines beside it.
    pub fn mark_hole(&self, r: Rect, value: f64) -> Option<Rect> {
        if !self.annotate {
            return None;
        }
        let s = self.scale();
        let chars = self.annotation(value).chars().count();
        let half_w = (text_width(chars, self.annot_font_px) / 2.0 + 2.0 * s).ceil() as i32;
        let half_h = (self.annot_font_px * 0.6 + s).ceil() as i32;
        let (cx, cy) = ((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2);
        let hole = Rect {
            x0: (cx - half_w).max(r.x0),
            y0: (cy - half_h).max(r.y0),
            x1: (cx + half_w).min(r.x1),
            y1: (cy + half_h).min(r.y1),
        };
        (r.width() - hole.width() >= self.hatch_period()).then_some(hole)
    }

    /// The row labels drawn, with their rows: every k-th when rows are too short for each.
    pub fn row_labels(&self, view: &View) -> Vec<(usize, String)> {
        let step = label_step(self.grid.height() as f64 / self.rows.max(1) as f64, self.font_px * 1.1);
        view.row_labels.iter().enumerate().step_by(step).map(|(i, l)| (i, clip_label(l))).collect()
    }

    /// The column labels drawn, with their columns. Each label is cut with "…" to its own
    /// cell's width, so one long token does not hide the others; only columns too narrow
    /// for a character and "…" get every k-th label instead.
    pub fn col_labels(&self, view: &View) -> Vec<(usize, String)> {
        let s = self.font_px / FONT;
        let space = self.grid.width() as f64 / self.cols.max(1) as f64;
        let pad = 4.0 * s;
        if space >= text_width(2, self.font_px) + pad {
            let keep = (((space - pad) / (0.6 * self.font_px)) + 1e-9).floor() as usize;
            let keep = keep.min(MAX_LABEL_CHARS);
            return view.col_labels.iter().enumerate().map(|(j, l)| (j, clip_to(l, keep))).collect();
        }
        let widest = text_width(max_chars(view.col_labels.iter()).min(MAX_LABEL_CHARS), self.font_px) + 6.0 * s;
        let step = label_step(space, widest);
        view.col_labels.iter().enumerate().step_by(step).map(|(j, l)| (j, clip_label(l))).collect()
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
///
/// Each pixel line is painted once, by the row that owns it: where cells are less than a pixel high (n = 1024 on a
/// 900 px canvas), several rows fall on one line and the last of them shows, as when the cells are drawn one after
/// another in reading order (columns alike); the rows no line shows are never read, and a row's colours are looked up
/// only for the columns some pixel shows.
pub fn raster(view: &View, colors: &Colors, layout: &Layout, theme: &Theme) -> Vec<Blit> {
    let g = layout.grid;
    let (w, h) = (g.width().max(0) as usize, g.height().max(0) as usize);
    let bg = theme.background;
    let background = [bg[0], bg[1], bg[2], 255];
    let gc = theme.gap_color(colors);
    let gap_rgba = [gc[0], gc[1], gc[2], 255];
    // Gaps between cells in the gap colour; the strip after the last row and column (each
    // cell's own trailing gap) stays background, as `draw` leaves it.
    let mut rgba = gap_rgba.repeat(w * h);
    // Which column each pixel x falls in (`cols` for the gaps between cells): the same
    // for every row, so a pixel line is one lookup per pixel, however small the cells.
    let cols = layout.cols;
    let mut column_at = vec![cols; w];
    for j in 0..cols {
        let r = layout.cell(0, j);
        column_at[(r.x0 - g.x0) as usize..(r.x1 - g.x0) as usize].fill(j);
    }
    // Which row owns each pixel line (`rows`: a gap): the last whose cell covers it. Never decreasing down the grid.
    let rows = layout.rows;
    let mut row_at = vec![rows; h];
    for i in 0..rows {
        let r = layout.cell(i, 0);
        row_at[(r.y0 - g.y0) as usize..(r.y1 - g.y0) as usize].fill(i);
    }
    // The columns some pixel shows, in order: a row's colours are looked up for these only.
    let mut shown: Vec<usize> = column_at.clone();
    shown.dedup();
    shown.retain(|&j| j < cols);
    let hatch = hatch_color(theme);
    // A row's paints, with the gap colour after the last column for the gaps, and the
    // same as whole RGBA pixels for the rows without hatching (one 4-byte copy a pixel).
    let mut row_paints: Vec<Paint> = vec![Paint::Color(gc); cols + 1];
    let mut row_rgba: Vec<[u8; 4]> = vec![gap_rgba; cols + 1];
    // The boxes left unhatched behind the ±∞ cells' texts, by column (for the row at hand).
    let mut holes: Vec<Option<Rect>> = vec![None; cols + 1];
    // The marked cells of the row at hand (view.marks): their lines' colour and the box behind their number.
    let marked_view = view.marks.cells.contains(&true);
    let mut marks: Vec<Option<(Rgb, Option<Rect>)>> = vec![None; cols + 1];
    let mut y = 0;
    while y < h {
        let i = row_at[y];
        // The run of lines this row owns.
        let end = y + row_at[y..].iter().take_while(|&&k| k == i).count();
        if i == rows {
            y = end;
            continue;
        }
        let values = view.values.row(i);
        let mut plain = true;
        if marked_view {
            for &j in &shown {
                marks[j] = view.marks.cell(i, j, cols).then(|| {
                    plain = false;
                    (mark_color(colors, theme, values[j]), layout.mark_hole(layout.cell(i, j), values[j]))
                });
            }
        }
        for &j in &shown {
            let v = values[j];
            match colors.color(v) {
                Some(c) => {
                    row_paints[j] = Paint::Color(c);
                    row_rgba[j] = [c[0], c[1], c[2], 255];
                }
                None if v.is_nan() => {
                    plain = false;
                    row_paints[j] = Paint::Nan;
                }
                None => {
                    plain = false;
                    row_paints[j] = Paint::Infinite;
                    holes[j] = layout.hatch_hole(layout.cell(i, j), v);
                }
            }
        }
        // Without hatching every pixel line of a cell row is the same: paint the
        // first and copy it.
        if plain {
            let line = &mut rgba[y * w * 4..(y + 1) * w * 4];
            for (px, &j) in line.chunks_exact_mut(4).zip(&column_at) {
                px.copy_from_slice(&row_rgba[j]);
            }
            for k in y + 1..end {
                rgba.copy_within(y * w * 4..(y + 1) * w * 4, k * w * 4);
            }
            y = end;
            continue;
        }
        for y in y..end {
            let line = &mut rgba[y * w * 4..(y + 1) * w * 4];
            for (x, (px, &j)) in line.chunks_exact_mut(4).zip(&column_at).enumerate() {
                match row_paints[j] {
                    Paint::Color(c) => px[..3].copy_from_slice(&c),
                    Paint::Nan => {
                        // The hatch restarts at each cell's left edge.
                        let x0 = (layout.cell(0, j).x0 - g.x0) as usize;
                        let on = (x - x0 + y) % 6 == 0;
                        px[..3].copy_from_slice(if on { &NAN_HATCH } else { &NAN_FILL });
                    }
                    Paint::Infinite => {
                        let (ax, ay) = (g.x0 + x as i32, g.y0 + y as i32);
                        let in_hole = holes[j].is_some_and(|h| h.contains(ax as f64, ay as f64));
                        let on = !in_hole && layout.on_hatch(ax, ay);
                        px[..3].copy_from_slice(if on { &hatch } else { &bg });
                    }
                }
                if let Some((c, hole)) = marks[j] {
                    let (ax, ay) = (g.x0 + x as i32, g.y0 + y as i32);
                    let in_hole = hole.is_some_and(|h| h.contains(ax as f64, ay as f64));
                    if !in_hole && layout.on_mark(ax, ay) {
                        px[..3].copy_from_slice(&c);
                    }
                }
            }
        }
        y = end;
    }
    let trail = (layout.gap.max(0) as usize).min(w).min(h);
    if trail > 0 && gap_rgba != background {
        for y in 0..h {
            let line = &mut rgba[y * w * 4..(y + 1) * w * 4];
            let from = if y >= h - trail { 0 } else { w - trail };
            for px in line[from * 4..].chunks_exact_mut(4) {
                px.copy_from_slice(&background);
            }
        }
    }
    let grid = Blit { x: g.x0, y: g.y0, width: w as u32, height: h as u32, rgba };
    // A grid `draw` would draw as shapes has its colour bar in the shapes' bands, pixel for pixel: the browser
    // rasterises plain small grids too (one putImageData instead of a fillStyle and a fillRect per cell and band).
    let band = if layout.rows * layout.cols <= SHAPES_MAX_CELLS { COLORBAR_BAND } else { 1 };
    vec![grid, colorbar_raster(colors, layout.colorbar, band)]
}

/// Whether every cell is a palette colour (no NaN, no ±∞): then [`raster`] gives the pixels `draw`'s shapes
/// give, whatever the grid's size (the hatches are lines, antialiased, only the shapes draw them as such).
pub fn plain(view: &View, colors: &Colors) -> bool {
    !view.marks.cells.contains(&true)
        && view.values.data().iter().all(|&v| matches!(Paint::of(colors, v), Paint::Color(_)))
}

/// The colour bar's rows in bands of `band` pixels, each the colour of its first row.
fn colorbar_raster(colors: &Colors, bar: Rect, band: usize) -> Blit {
    let (w, h) = (bar.width().max(0) as usize, bar.height().max(0) as usize);
    let mut rgba = vec![255u8; w * h * 4];
    for y in 0..h {
        let c = colorbar_color(colors, y - y % band, h);
        for px in rgba[y * w * 4..(y + 1) * w * 4].chunks_exact_mut(4) {
            px[..3].copy_from_slice(&c);
        }
    }
    Blit { x: bar.x0, y: bar.y0, width: w as u32, height: h as u32, rgba }
}

/// Colour of the colour bar's pixel row y of h (top = vmax).
pub fn colorbar_color(colors: &Colors, y: usize, h: usize) -> Rgb {
    let t = 1.0 - (y as f64 + 0.5) / h.max(1) as f64;
    let (lo, hi) = palette::nonsingular(colors.vmin, colors.vmax);
    let v = lo + t * (hi - lo);
    colors.cmap.at(colors.norm(v))
}

/// matplotlib's `Axis.get_tick_space()` for a colour bar `length` long whose tick labels are
/// `label_size` high (both in the same unit): how many intervals its default locator may use.
pub fn colorbar_tick_space(length: f64, label_size: f64) -> usize {
    if !(length > 0.0 && label_size > 0.0) {
        return 0;
    }
    (length / (label_size * 2.0)).floor() as usize
}

/// A colour bar's ticks (value, label) and the offset text matplotlib writes above the bar
/// (`1e−6`, `+1e6`; empty when the labels carry the whole value).
pub struct ColorbarTicks {
    pub ticks: Vec<(f64, String)>,
    pub offset: String,
}

/// The ticks of [`colorbar_scale`], without the offset text.
pub fn colorbar_ticks(vmin: f64, vmax: f64, tick_space: usize) -> Vec<(f64, String)> {
    colorbar_scale(vmin, vmax, tick_space).ticks
}

/// `10^k`, correctly rounded (as Python's `10.0 ** k`), on every target.
fn pow10(k: i32) -> f64 {
    format!("1e{k}").parse().unwrap_or(f64::NAN)
}

/// Python's `divmod(x, y)` for floats (floor division, the remainder takes y's sign).
fn py_divmod(x: f64, y: f64) -> (f64, f64) {
    let mut m = x % y;
    let mut div = (x - m) / y;
    if m != 0.0 {
        if (y < 0.0) != (m < 0.0) {
            m += y;
            div -= 1.0;
        }
    } else {
        m = 0f64.copysign(y);
    }
    let d = if div != 0.0 {
        let f = div.floor();
        if div - f > 0.5 {
            f + 1.0
        } else {
            f
        }
    } else {
        0f64.copysign(x / y)
    };
    (d, m)
}

/// matplotlib's `transforms.nonsingular(vmin, vmax, expander, tiny)`.
fn mpl_nonsingular(vmin: f64, vmax: f64, expander: f64, tiny: f64) -> (f64, f64) {
    if !vmin.is_finite() || !vmax.is_finite() {
        return (-expander, expander);
    }
    let (mut lo, mut hi) = if vmax < vmin { (vmax, vmin) } else { (vmin, vmax) };
    let maxabs = lo.abs().max(hi.abs());
    if maxabs < (1e6 / tiny) * f64::MIN_POSITIVE {
        return (-expander, expander);
    }
    if hi - lo <= maxabs * tiny {
        if hi == 0.0 && lo == 0.0 {
            return (-expander, expander);
        }
        lo -= expander * lo.abs();
        hi += expander * hi.abs();
    }
    (lo, hi)
}

/// `MaxNLocator.tick_values(vmin, vmax)` with steps [1, 2, 2.5, 5, 10] and `nbins` intervals:
/// every tick it returns, the ones just outside the range included (the formatter sees them all).
fn max_n_locator(vmin: f64, vmax: f64, nbins: usize) -> Vec<f64> {
    let (vmin, vmax) = mpl_nonsingular(vmin, vmax, 1e-13, 1e-14);
    let n = nbins as f64;
    // ticker.scale_range(vmin, vmax, nbins)
    let dv = (vmax - vmin).abs();
    let meanv = (vmax + vmin) / 2.0;
    let offset = if meanv.abs() / dv < 100.0 { 0.0 } else { pow10(meanv.abs().log10().floor() as i32).copysign(meanv) };
    let scale = pow10((dv / n).log10().floor() as i32);
    let (lo, hi) = (vmin - offset, vmax - offset);
    let steps: Vec<f64> = [0.1 * 1.0, 0.1 * 2.0, 0.1 * 2.5, 0.1 * 5.0, 1.0, 2.0, 2.5, 5.0, 10.0, 10.0 * 2.0]
        .iter()
        .map(|s| s * scale)
        .collect();
    let raw_step = (hi - lo) / n;
    let istep = steps.iter().position(|&s| s >= raw_step).unwrap_or(steps.len() - 1);
    // _Edge_integer: more slop where the offset is large next to the step.
    let closeto = |ms: f64, edge: f64, step: f64| {
        let tol =
            if offset != 0.0 { (10f64.powf((offset.abs() / step).log10() - 12.0)).clamp(1e-10, 0.4999) } else { 1e-10 };
        (ms - edge).abs() < tol
    };
    let mut ticks = vec![];
    for &step in steps[..=istep].iter().rev() {
        let best_vmin = py_divmod(lo, step).0 * step;
        let (d, m) = py_divmod(lo - best_vmin, step);
        let low = if closeto(m / step, 1.0, step) { d + 1.0 } else { d };
        let (d, m) = py_divmod(hi - best_vmin, step);
        let high = if closeto(m / step, 0.0, step) { d } else { d + 1.0 };
        let count = (high - low + 1.0).clamp(0.0, 1000.0) as usize;
        ticks = (0..count).map(|i| (low + i as f64) * step + best_vmin).collect();
        let shown = ticks.iter().filter(|&&t| t <= hi && t >= lo).count();
        if shown >= 2 {
            break;
        }
    }
    ticks.into_iter().map(|t| t + offset).collect()
}

/// numpy's `np.round(x, decimals)` for decimals ≥ 0.
fn np_round(x: f64, decimals: i32) -> f64 {
    let f = pow10(decimals);
    (x * f).round_ties_even() / f
}

/// `"%1.{prec}f" % x` with matplotlib's minus sign.
fn fixed(x: f64, prec: usize) -> String {
    format!("{x:.prec$}").replace('-', "\u{2212}")
}

/// ScalarFormatter.format_data: the offset's own text (`1e5`, `2.5e−3`, `100`).
fn format_data(value: f64) -> String {
    let e = value.abs().log10().floor() as i32;
    let s = np_round(value / pow10(e), 10);
    let significand = if s % 1.0 == 0.0 { format!("{}", s as i64) } else { format_g(s, 10) };
    let text = if e == 0 { significand } else { format!("{significand}e{e}") };
    text.replace('-', "\u{2212}")
}

/// The colour bar's ticks inside [vmin, vmax] and their labels, as seaborn's heatmap colour bar
/// shows them: matplotlib's default locator (`MaxNLocator(nbins="auto", steps=[1, 2, 2.5, 5, 10])`,
/// at most `clip(tick_space, 1, 9)` intervals) and `ScalarFormatter` labels (U+2212 for minus,
/// every label with the same decimals, a common exponent or offset moved into `offset`).
/// tests/fixtures/colorbar-ticks.json holds what seaborn 0.13.2 draws.
pub fn colorbar_scale(vmin: f64, vmax: f64, tick_space: usize) -> ColorbarTicks {
    let none = ColorbarTicks { ticks: vec![], offset: String::new() };
    // The bar's ends: the norm's range after Colorbar's nonsingular, and its top as
    // `norm.inverse(1)` computes it.
    let (lo, hi) = palette::nonsingular(vmin, vmax);
    let hi = lo + 1.0 * (hi - lo);
    if !(hi - lo).is_finite() || hi <= lo {
        return none;
    }
    let locs = max_n_locator(lo, hi, tick_space.clamp(1, 9));
    if locs.is_empty() {
        return none;
    }
    // The formatter looks at the ticks strictly inside the bar; the axis draws those within
    // 1e-10 of its length (`_interval_contains_close`).
    let visible: Vec<f64> = locs.iter().copied().filter(|&t| t >= lo && t <= hi).collect();
    let slop = (hi - lo) * 1e-10;
    let drawn: Vec<f64> = locs.iter().copied().filter(|&t| t >= lo - slop && t <= hi + slop).collect();
    // ScalarFormatter._compute_offset (offset threshold 4): only when every visible tick has one sign.
    let mut offset = 0.0;
    if let (Some(lmin), Some(lmax)) =
        (visible.iter().copied().reduce(f64::min), visible.iter().copied().reduce(f64::max))
    {
        if !(lmin == lmax || (lmin <= 0.0 && 0.0 <= lmax)) {
            let (abs_min, abs_max) =
                if lmin.abs() <= lmax.abs() { (lmin.abs(), lmax.abs()) } else { (lmax.abs(), lmin.abs()) };
            let sign = 1f64.copysign(lmin);
            let oom_max = abs_max.log10().ceil() as i32;
            let fl = |x: f64, k: i32| py_divmod(x, pow10(k)).0;
            let mut oom = (0..200).map(|i| oom_max - i).find(|&k| fl(abs_min, k) != fl(abs_max, k)).unwrap_or(0) + 1;
            if (abs_max - abs_min) / pow10(oom) <= 1e-2 {
                oom = (0..200).map(|i| oom_max - i).find(|&k| fl(abs_max, k) - fl(abs_min, k) > 1.0).unwrap_or(0) + 1;
            }
            if fl(abs_max, oom) >= 1000.0 {
                offset = sign * fl(abs_max, oom) * pow10(oom);
            }
        }
    }
    // _set_order_of_magnitude, power limits (−5, 6).
    let mut magnitude = 0;
    if !visible.is_empty() {
        let oom = if offset != 0.0 {
            (hi - lo).log10().floor() as i32
        } else {
            let val = visible.iter().map(|t| t.abs()).fold(0.0, f64::max);
            if val == 0.0 {
                0
            } else {
                val.log10().floor() as i32
            }
        };
        if oom <= -5 || oom >= 6 {
            magnitude = oom;
        }
    }
    // _set_format: as few decimals as show every tick (the ones outside the bar too) to 1e-3 of their range.
    let scaled: Vec<f64> = locs.iter().map(|t| (t - offset) / pow10(magnitude)).collect();
    let max = scaled.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = scaled.iter().copied().fold(f64::INFINITY, f64::min);
    let mut range = max - min;
    if range == 0.0 {
        range = max.abs().max(min.abs());
    }
    if range == 0.0 {
        range = 1.0;
    }
    let range_oom = range.log10().floor() as i32;
    let mut sigfigs = (3 - range_oom).max(0);
    let thresh = 1e-3 * pow10(range_oom);
    while sigfigs >= 0 {
        let worst = scaled.iter().map(|&x| (x - np_round(x, sigfigs)).abs()).fold(0.0, f64::max);
        if worst < thresh {
            sigfigs -= 1;
        } else {
            break;
        }
    }
    let decimals = (sigfigs + 1) as usize;
    let ticks = drawn
        .into_iter()
        .map(|t| {
            let mut xp = (t - offset) / pow10(magnitude);
            if xp.abs() < 1e-8 {
                xp = 0.0;
            }
            (t, fixed(xp, decimals))
        })
        .collect();
    let offset_text = if magnitude != 0 || offset != 0.0 {
        let mut s = String::new();
        if magnitude != 0 {
            s.push_str(&format!("1e{magnitude}"));
        }
        if offset != 0.0 {
            let o = format_data(offset);
            s.push_str(&if offset > 0.0 { format!("+{o}") } else { o });
        }
        s.replace('-', "\u{2212}")
    } else {
        String::new()
    };
    ColorbarTicks { ticks, offset: offset_text }
}

/// The parts of the "\" segment a → b (x and y growing together) outside `hole`: the whole segment without one.
fn outside(a: (i32, i32), b: (i32, i32), hole: Option<Rect>) -> Vec<((i32, i32), (i32, i32))> {
    let Some(h) = hole else { return vec![(a, b)] };
    // The segment is (x, x − k): inside the box for x in [max(h.x0, h.y0 + k), min(h.x1, h.y1 + k)].
    let k = a.0 - a.1;
    let (lo, hi) = (h.x0.max(h.y0 + k), h.x1.min(h.y1 + k));
    if lo >= hi || hi <= a.0 || lo >= b.0 {
        return vec![(a, b)];
    }
    let mut out = vec![];
    if lo > a.0 {
        out.push((a, (lo, lo - k)));
    }
    if hi < b.0 {
        out.push(((hi, hi - k), b));
    }
    out
}

fn rgb(c: Rgb) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}

type DrawResult<T> = Result<T, String>;

fn font(px: f64, color: Rgb, h: HPos, v: VPos) -> TextStyle<'static> {
    // The variant, not the text "sans-serif": plotters reads a family name with `str::to_lowercase`, whose Unicode
    // tables were ~17 KB of the .wasm.
    (FontFamily::SansSerif, px).into_font().color(&rgb(color)).pos(Pos::new(h, v))
}

/// Paints the heatmap. With `shapes == false` the cells and colour bar are left
/// for the caller's `raster` blits (already on the canvas); only text, ticks and
/// highlights are drawn, the numbers grouped by colour. Fails (before drawing anything) when the style's `fmt`
/// cannot write this view's values (`d` with a value that is not whole).
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
    let s = style.scale();
    if shapes {
        root.fill(&rgb(theme.background)).map_err(err)?;
        let hatch = hatch_color(theme);
        let gap = theme.gap_color(colors);
        if gap != theme.background && layout.gap > 0 {
            // Between the cells only: each cell's own trailing gap (after the last row and
            // column) stays background, so the grid has no frame on two of its sides.
            let g = layout.grid;
            let inner = [(g.x0, g.y0), (g.x1 - layout.gap, g.y1 - layout.gap)];
            root.draw(&Rectangle::new(inner, rgb(gap).filled())).map_err(err)?;
        }
        let mut infinite = false;
        for i in 0..layout.rows {
            for j in 0..layout.cols {
                let r = layout.cell(i, j);
                let v = view.values.get(i, j);
                let paint = Paint::of(colors, v);
                let fill = match paint {
                    Paint::Color(c) => c,
                    Paint::Nan => NAN_FILL,
                    Paint::Infinite => theme.background,
                };
                root.draw(&Rectangle::new([(r.x0, r.y0), (r.x1, r.y1)], rgb(fill).filled())).map_err(err)?;
                match paint {
                    Paint::Color(_) => {}
                    Paint::Nan => {
                        let diagonal = vec![(r.x0, r.y1), (r.x1, r.y0)];
                        root.draw(&PathElement::new(diagonal, rgb(NAN_HATCH).stroke_width(1))).map_err(err)?;
                    }
                    Paint::Infinite => infinite = true,
                }
            }
        }
        if infinite {
            // The ±∞ cells' hatch as long lines, each across a run of such cells and the gaps
            // between them (a causal mask at n = 32 is ~150 lines, not ~4 500), then the gaps
            // painted again over them, then the boxes behind the cells' "−∞".
            let line = rgb(hatch).stroke_width(layout.hatch_width() as u32);
            let is_infinite = |i: usize, j: usize| view.values.get(i, j).is_infinite();
            for (a, b) in layout.hatch_runs(is_infinite) {
                root.draw(&PathElement::new(vec![a, b], line)).map_err(err)?;
            }
            for r in layout.inner_gaps() {
                root.draw(&Rectangle::new([(r.x0, r.y0), (r.x1, r.y1)], rgb(gap).filled())).map_err(err)?;
            }
            let bg = rgb(theme.background).filled();
            for i in 0..layout.rows {
                for j in 0..layout.cols {
                    let v = view.values.get(i, j);
                    if let Some(h) = layout.hatch_hole(layout.cell(i, j), v) {
                        root.draw(&Rectangle::new([(h.x0, h.y0), (h.x1, h.y1)], bg)).map_err(err)?;
                    }
                }
            }
        }
        if view.marks.cells.contains(&true) {
            // Each marked cell's "\" lines in its number's colour, broken around the number.
            for i in 0..layout.rows {
                for j in 0..layout.cols {
                    if !view.marks.cell(i, j, layout.cols) {
                        continue;
                    }
                    let (r, v) = (layout.cell(i, j), view.values.get(i, j));
                    let line = rgb(mark_color(colors, theme, v)).stroke_width(layout.hatch_width() as u32);
                    let hole = layout.mark_hole(r, v);
                    for (a, b) in layout.mark_lines(r) {
                        for (a, b) in outside(a, b, hole) {
                            root.draw(&PathElement::new(vec![a, b], line)).map_err(err)?;
                        }
                    }
                }
            }
        }
        let bar = layout.colorbar;
        let h = bar.height().max(0) as usize;
        let band = COLORBAR_BAND;
        for y in (0..h).step_by(band) {
            let c = colorbar_color(colors, y, h);
            let y0 = bar.y0 + y as i32;
            let y1 = (y0 + band as i32).min(bar.y1);
            root.draw(&Rectangle::new([(bar.x0, y0), (bar.x1, y1)], rgb(c).filled())).map_err(err)?;
        }
    }
    if !layout.annotate {
        // No numbers: the changed cells' corners alone, each in the colour its number would have.
        for (i, j) in changed_cells(view, layout) {
            let v = view.values.get(i, j);
            let color = if v.is_infinite() { theme.text } else { colors.annotation_color(v, style.contrast) };
            root.draw(&Polygon::new(changed_corner(layout, i, j, s), rgb(color).filled())).map_err(err)?;
        }
    }
    if layout.annotate {
        // Each number inside its own cell, so the order they are written in changes no pixel: on a canvas (cells
        // rasterised) by colour, so it sets its fill style once a colour (two or three times a grid), not once a
        // cell; in an SVG in reading order, which is the order its texts are copied or read out in.
        let mut numbers: Vec<(Rgb, usize, usize)> = Vec::with_capacity(layout.rows * layout.cols);
        for i in 0..layout.rows {
            for j in 0..layout.cols {
                let v = view.values.get(i, j);
                // ±∞ cells are the background: the theme's text colour (≥ 4.5:1 on it in both themes).
                let color = if v.is_infinite() { theme.text } else { colors.annotation_color(v, style.contrast) };
                numbers.push((color, i, j));
            }
        }
        if !shapes {
            numbers.sort_by_key(|&(color, _, _)| color);
        }
        for (color, i, j) in numbers {
            let r = layout.cell(i, j);
            let at = ((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2);
            let style = font(layout.annot_font_px, color, HPos::Center, VPos::Center);
            root.draw(&Text::new(layout.annotation(view.values.get(i, j)), at, style)).map_err(err)?;
            if view.marks.changed(i, j, layout.cols) {
                root.draw(&Polygon::new(changed_corner(layout, i, j, s), rgb(color).filled())).map_err(err)?;
            }
        }
    }
    if style.show_labels {
        draw_labels(root, view, colors, layout, style)?;
    }
    for block in [Some(&layout.title), layout.note.as_ref()].into_iter().flatten() {
        for (line, at) in block.positions() {
            let style = font(block.font_px, theme.text, HPos::Center, VPos::Center);
            root.draw(&Text::new(line.clone(), at, style)).map_err(err)?;
        }
    }
    // The marked columns (the sinks): around each run, top row to bottom, dashes of the text colour over a line of the
    // background's, so one of the two stands out on any cell and on the page.
    for (c0, c1) in view.marks.column_runs() {
        if c1 > layout.cols || layout.rows == 0 {
            continue;
        }
        for (kind, color) in [(HighlightKind::Selected, theme.background), (HighlightKind::Link, theme.text)] {
            let run = Highlight { kind, r0: 0, c0, r1: layout.rows, c1 };
            for r in outline(layout, &run, s) {
                root.draw(&Rectangle::new([(r.x0, r.y0), (r.x1, r.y1)], rgb(color).filled())).map_err(err)?;
            }
        }
    }
    // The blocks (K/V heads' columns, the KV cache's rows): over a 3 px line of the background's, the group's colour
    // solid or the text colour dashed.
    for b in &view.marks.blocks {
        if b.r0 >= b.r1 || b.c0 >= b.c1 || b.r1 > layout.rows || b.c1 > layout.cols {
            continue;
        }
        let (kind, color) = match b.group {
            Some(g) => (HighlightKind::Selected, group_color(theme, g)),
            None => (HighlightKind::Link, theme.text),
        };
        for (kind, color) in [(HighlightKind::Cursor, theme.background), (kind, color)] {
            let run = Highlight { kind, r0: b.r0, c0: b.c0, r1: b.r1, c1: b.c1 };
            for r in outline(layout, &run, s) {
                root.draw(&Rectangle::new([(r.x0, r.y0), (r.x1, r.y1)], rgb(color).filled())).map_err(err)?;
            }
        }
    }
    draw_highlights(root, layout, style)?;
    root.present().map_err(err)
}

/// The colours of K/V heads' blocks, in turn, on a light and on a dark background: none the accent's nor the link's
/// (the followed query's and the hovered weight's outlines), each at least 4.5:1 against its background.
pub const GROUP_COLORS: [[Rgb; 4]; 2] = [
    [[0x82, 0x50, 0xdf], [0x1a, 0x7f, 0x37], [0xcf, 0x22, 0x2e], [0x0e, 0x74, 0x90]],
    [[0xbc, 0x8c, 0xff], [0x56, 0xd3, 0x64], [0xff, 0x7b, 0x72], [0x39, 0xc5, 0xcf]],
];

/// The colour of group `g`'s blocks (`Marks::blocks`) in `theme`.
pub fn group_color(theme: &Theme, g: usize) -> Rgb {
    let dark = usize::from(relative_luminance(theme.background) < 0.5);
    GROUP_COLORS[dark][g % GROUP_COLORS[dark].len()]
}

/// The largest side of a changed cell's corner triangle, CSS pixels (and a third of the cell's shorter side at most,
/// so it stays clear of the number).
pub const CHANGED_MARK_PX: f64 = 12.0;

/// The cells the last edit changed (`Marks::changed`), row by row.
fn changed_cells(view: &View, layout: &Layout) -> Vec<(usize, usize)> {
    let cols = layout.cols;
    (0..layout.rows * cols).map(|k| (k / cols, k % cols)).filter(|&(i, j)| view.marks.changed(i, j, cols)).collect()
}

/// The mark of a cell the last edit changed: a right triangle filling its top-right corner, drawn in its number's
/// colour (as legible on the cell as the number, in either theme; its shape, not a hue, says it) and in the same
/// colour run as the numbers, so a canvas sets no fill colour more for it.
pub fn changed_corner(layout: &Layout, i: usize, j: usize, s: f64) -> Vec<(i32, i32)> {
    let r = layout.cell(i, j);
    let side = f64::from(r.width().min(r.height()));
    let t = (side / 3.0).min(CHANGED_MARK_PX * s).round().max(2.0) as i32;
    vec![(r.x1 - t, r.y0), (r.x1, r.y0), (r.x1, r.y0 + t)]
}

/// The style's outlines alone, over whatever `root` holds: the last thing [`draw`] paints, and all that a canvas
/// layered over a heatmap's (the element's overlay: a hover redraws it, not the cells) needs. Every outline is opaque
/// rectangles on whole device pixels, so the overlay over the heatmap shows the pixels `draw` would have drawn.
pub fn draw_highlights<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    layout: &Layout,
    style: &Style,
) -> DrawResult<()> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("drawing failed: {e}");
    let theme = &style.theme;
    let s = style.scale();
    for h in &style.highlights {
        if h.r0 >= h.r1 || h.c0 >= h.c1 || h.r1 > layout.rows || h.c1 > layout.cols {
            continue;
        }
        let color = match h.kind {
            HighlightKind::Selected => theme.accent,
            HighlightKind::Link | HighlightKind::Tile => theme.link,
            HighlightKind::Cursor => theme.text,
        };
        for r in outline(layout, h, s) {
            root.draw(&Rectangle::new([(r.x0, r.y0), (r.x1, r.y1)], rgb(color).filled())).map_err(err)?;
        }
        if matches!(h.kind, HighlightKind::Cursor | HighlightKind::Tile) {
            // The text colour alone vanishes on cells of its own darkness (near-black cells in the light
            // theme): a ring of the background colour just inside it, so one of the two always stands out.
            for r in inner_ring(layout, h, s) {
                root.draw(&Rectangle::new([(r.x0, r.y0), (r.x1, r.y1)], rgb(theme.background).filled()))
                    .map_err(err)?;
            }
        }
    }
    Ok(())
}

/// The keyboard cursor's second ring: 1.5 px (× `s`) just inside its outline, over the cells' edges.
pub fn inner_ring(layout: &Layout, h: &Highlight, s: f64) -> Vec<Rect> {
    let a = layout.cell(h.r0, h.c0);
    let b = layout.cell(h.r1.max(1) - 1, h.c1.max(1) - 1);
    let width = ((3.0 * s).round().max(1.0) as i32).max(2);
    let t = (1.5 * s).round().max(1.0) as i32;
    // The outline's inner edge (see `outline`: bars of `width` centred on the line just outside the cells).
    let (x0, y0) = (a.x0 - 1 + (width - width / 2), a.y0 - 1 + (width - width / 2));
    let (x1, y1) = (b.x1 - width / 2, b.y1 - width / 2);
    if x1 - x0 <= 2 * t || y1 - y0 <= 2 * t {
        return vec![];
    }
    vec![
        Rect { x0, y0, x1, y1: y0 + t },
        Rect { x0, y0: y1 - t, x1, y1 },
        Rect { x0, y0: y0 + t, x1: x0 + t, y1: y1 - t },
        Rect { x0: x1 - t, y0: y0 + t, x1, y1: y1 - t },
    ]
}

/// A highlight's outline around its cells as filled rectangles (which every backend draws
/// to the pixel, at any width): for [`HighlightKind::Selected`] four 2 px bars, for
/// [`HighlightKind::Link`] 2 px dashes (5 on, 3 off), for [`HighlightKind::Cursor`] and [`HighlightKind::Tile`] four
/// 3 px bars; all centred on the line just outside the cells, sizes in CSS pixels × `s`.
pub fn outline(layout: &Layout, h: &Highlight, s: f64) -> Vec<Rect> {
    let a = layout.cell(h.r0, h.c0);
    let b = layout.cell(h.r1.max(1) - 1, h.c1.max(1) - 1);
    let (x0, y0, x1, y1) = (a.x0 - 1, a.y0 - 1, b.x1, b.y1);
    let px = |css: f64| (css * s).round().max(1.0) as i32;
    let (width, dash) = match h.kind {
        HighlightKind::Selected => (px(2.0), None),
        HighlightKind::Link => (px(2.0), Some((px(5.0).max(2), px(3.0)))),
        HighlightKind::Cursor | HighlightKind::Tile => (px(3.0).max(2), None),
    };
    // Bars (or dashes) along each side, `width` thick, centred on the line.
    let lo = width / 2;
    let hi = width - lo;
    let mut out = vec![];
    let mut along = |from: i32, to: i32, at: i32, horizontal: bool| {
        let (step, on) = match dash {
            Some((on, off)) => (on + off, on),
            None => (to - from, to - from),
        };
        let mut t = from;
        while t < to {
            let e = (t + on).min(to);
            out.push(if horizontal {
                Rect { x0: t, y0: at - lo, x1: e, y1: at + hi }
            } else {
                Rect { x0: at - lo, y0: t, x1: at + hi, y1: e }
            });
            t += step.max(1);
        }
    };
    along(x0 - lo, x1 + hi, y0, true);
    along(x0 - lo, x1 + hi, y1, true);
    along(y0 + hi, y1 - lo, x0, false);
    along(y0 + hi, y1 - lo, x1, false);
    out
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
    let s = style.scale();
    let label_font = font(layout.font_px, theme.text, HPos::Right, VPos::Center);
    for (i, label) in layout.row_labels(view) {
        let r = layout.cell(i, 0);
        let at = (layout.grid.x0 - (4.0 * s) as i32, (r.y0 + r.y1) / 2);
        root.draw(&Text::new(label, at, label_font.clone())).map_err(err)?;
    }
    let col_font = font(layout.font_px, theme.text, HPos::Center, VPos::Top);
    for (j, label) in layout.col_labels(view) {
        let r = layout.cell(0, j);
        let at = ((r.x0 + r.x1) / 2, layout.grid.y1 + (4.0 * s) as i32);
        root.draw(&Text::new(label, at, col_font.clone())).map_err(err)?;
    }
    // Colour bar ticks.
    let bar = layout.colorbar;
    let tick_font = font(layout.font_px * 0.9, theme.text, HPos::Left, VPos::Center);
    let scale = colorbar_drawn(colors, layout);
    if !scale.offset.is_empty() {
        // Where matplotlib writes a colour bar's common exponent or offset: above its top.
        let at = (bar.x0, bar.y0 - (3.0 * s) as i32);
        let offset_font = font(layout.font_px * 0.9, theme.text, HPos::Left, VPos::Bottom);
        root.draw(&Text::new(scale.offset.clone(), at, offset_font)).map_err(err)?;
    }
    for (y, label) in scale.ticks {
        let tick = (bar.x1, y);
        root.draw(&PathElement::new(vec![tick, (bar.x1 + (3.0 * s) as i32, y)], rgb(theme.text).stroke_width(1)))
            .map_err(err)?;
        root.draw(&Text::new(label, (bar.x1 + (5.0 * s) as i32, y), tick_font.clone())).map_err(err)?;
    }
    Ok(())
}

/// The colour bar's ticks as drawn on `layout`: (y in device pixels, label), and the offset text. matplotlib's tick
/// space (the bar's length over twice the labels' size) leaves a short bar one interval, but its locator still wants
/// two ticks inside the bar and takes a smaller step for them (0.25, 0.50, 0.75 on a one-row heatmap's bar): there
/// every k-th tick is kept, k the fewest that keeps labels a label's height apart, so they never overlap.
pub fn colorbar_drawn(colors: &Colors, layout: &Layout) -> ColorbarMarks {
    let bar = layout.colorbar;
    let label = layout.font_px * 0.9;
    let (lo, hi) = palette::nonsingular(colors.vmin, colors.vmax);
    let scale = colorbar_scale(colors.vmin, colors.vmax, colorbar_tick_space(bar.height() as f64, label));
    let at = |v: f64| (bar.y1 as f64 - (v - lo) / (hi - lo) * bar.height() as f64).round() as i32;
    let ticks: Vec<(i32, String)> = scale.ticks.into_iter().map(|(v, l)| (at(v), l)).collect();
    let gap = ticks.windows(2).map(|w| (w[0].0 - w[1].0).abs()).min().unwrap_or(i32::MAX) as f64;
    // Ticks on one pixel row (a bar squeezed to nothing): the first alone.
    let k = if gap > 0.0 { label_step(gap, label) } else { ticks.len().max(1) };
    let ticks = ticks.into_iter().step_by(k).collect();
    ColorbarMarks { ticks, offset: scale.offset }
}

/// [`colorbar_drawn`]'s ticks: where each is drawn (y, device pixels) and its label; the offset text above the bar.
pub struct ColorbarMarks {
    pub ticks: Vec<(i32, String)>,
    pub offset: String,
}

/// Draw every k-th label so labels never overlap (1 when they fit).
fn label_step(space_per_label: f64, needed: f64) -> usize {
    if space_per_label <= 0.0 {
        return 1;
    }
    (needed / space_per_label).ceil().max(1.0) as usize
}

/// A natural canvas size in CSS pixels for a view written with `fmt`: ~48 × 30 px cells
/// (wide enough for the numbers at the normal font), within bounds, and wide enough for
/// the title on one line or, failing that, on two.
pub fn preferred_size(view: &View, fmt: Fmt) -> (u32, u32) {
    let (rows, cols) = view.values.shape();
    // Only grids small enough to annotate need their values' widths (formatting is costly).
    let (widest, usual) = if rows * cols <= SHAPES_MAX_CELLS {
        let fmt = fmt.for_values(view.values.data()).0;
        let widest = view.values.data().iter().map(|&v| fmt.cell(v).chars().count()).max().unwrap_or(1);
        (widest, widest.min(fmt.cell(USUAL_NUMBER).chars().count()))
    } else {
        (1, 1)
    };
    let label_chars = max_chars(view.col_labels.iter()).min(MAX_LABEL_CHARS);
    let cell_w = |chars: usize| (text_width(chars.max(label_chars), FONT) + 14.0).clamp(28.0, 96.0);
    let (vmin, vmax) = view.range.unwrap_or_else(|| finite_range(view.values.data()));
    let (left, right) = side_chrome(view, vmin, vmax, 1.0);
    // Grids too big to annotate get small square cells (the values show on hover):
    // fewer pixels to fill on every edit, and the whole matrix in view.
    let side = (600.0 / rows.max(cols) as f64).clamp(2.0, 30.0);
    let (cell_w, usual_w, cell_h) =
        if rows * cols > SHAPES_MAX_CELLS { (side, side, side) } else { (cell_w(widest), cell_w(usual), 30.0) };
    let grid_w = |cell_w: f64| (cols as f64 * cell_w + left + right).clamp(140.0, 900.0).round();
    let mut w = grid_w(cell_w);
    // One pixel more than the estimates, so a device size rounded down still fits.
    let one_line = text_width(view.title.chars().count(), TITLE_FONT) + 2.0 * MARGIN + 1.0;
    if one_line > w {
        // A little wider for the title on one line; much wider only for two lines. Decided as if no number were
        // longer than usual: numbers that grow past it (0.00032 under .2g) widen their cells, and only that, so a
        // value edit never also puts the title on one line, up to TITLE_WIDEN wider again (the figure's next
        // heatmap would drop to a new row).
        let two_lines = text_width(max_chars(split_in_two(&view.title).iter()), TITLE_FONT) + 2.0 * MARGIN + 1.0;
        let needed = if one_line - grid_w(usual_w) <= TITLE_WIDEN { one_line } else { two_lines };
        w = w.max(needed.ceil()).min(900.0);
    }
    let (lines, font) = title_lines(&view.title, w, 1.0);
    let chrome_h = title_band(true, lines.len(), font, 1.0) + FONT + 10.0;
    let mut h = (rows as f64 * cell_h + chrome_h).clamp(90.0, 900.0).round();
    // A figure that will carry a note (a big grid's hidden numbers) gets the room for it,
    // so its cells keep their size.
    let style = Style { fmt, ..Style::default() };
    let colors = Colors::of_view(view, None);
    if let Some(note) = Layout::new(view, &colors, &style, w as u32, h as u32).note {
        h = (h + note_band(note.lines.len(), 1.0)).min(900.0).round();
    }
    (w as u32, h as u32)
}

/// The smallest and largest finite values (0, 0 when there are none), as the colour bar spans them.
fn finite_range(values: &[f64]) -> (f64, f64) {
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
    (vmin, vmax)
}

/// The whole pipeline for one view onto a backend: colours, layout, shapes, text.
pub fn render<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, view: &View, style: &Style) -> DrawResult<Layout> {
    let colors = Colors::of_view(view, style.palette.as_deref());
    let (w, h) = root.dim_in_pixel();
    let layout = Layout::new(view, &colors, style, w, h);
    draw(root, view, &colors, &layout, style, true)?;
    Ok(layout)
}

/// A standalone SVG of one view at its preferred size (times `style.dpr`), drawn by the
/// same code through `SVGBackend`. Fills are written `#rrggbb` in lower case.
pub fn to_svg(view: &View, style: &Style) -> DrawResult<String> {
    let (w, h) = preferred_size(view, style.fmt);
    let scale = style.scale();
    to_svg_sized(view, style, (w as f64 * scale).round() as u32, (h as f64 * scale).round() as u32)
}

/// A standalone SVG of one view on a canvas of `width` × `height` device pixels: the same
/// layout, so the same texts, as a canvas of that size.
pub fn to_svg_sized(view: &View, style: &Style, width: u32, height: u32) -> DrawResult<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        render(&root, view, style)?;
    }
    Ok(lowercase_hex_colors(&xml_chars(&svg)))
}

/// The SVG with every character XML 1.0 forbids (C0 controls other than tab, newline and
/// carriage return; U+FFFE, U+FFFF), which only texts from a config can bring, replaced by
/// U+FFFD: not even a character reference may name them, and one makes the file unreadable.
/// (Lone surrogates cannot reach here: a Rust string has none, and JS text arrives with U+FFFD
/// in their place.) Every SVG the core writes goes through this once: the heatmaps', the line view's.
pub(crate) fn xml_chars(svg: &str) -> String {
    let forbidden = |c: char| (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{FFFE}' || c == '\u{FFFF}';
    if !svg.contains(forbidden) {
        return svg.to_string();
    }
    svg.chars().map(|c| if forbidden(c) { '\u{FFFD}' } else { c }).collect()
}

/// plotters writes `#RRGGBB`; CSS and seaborn users read `#rrggbb`. Only the values of
/// `fill` and `stroke` attributes are colours: a text that reads `#ABCDEF` stays as written.
fn lowercase_hex_colors(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    loop {
        let next = [" fill=\"#", " stroke=\"#"].iter().filter_map(|a| rest.find(a).map(|at| at + a.len())).min();
        let Some(end) = next else { break };
        out.push_str(&rest[..end]);
        rest = &rest[end..];
        if rest.len() >= 7 && rest.as_bytes()[..6].iter().all(u8::is_ascii_hexdigit) && rest.as_bytes()[6] == b'"' {
            out.push_str(&rest[..6].to_ascii_lowercase());
            rest = &rest[6..];
        }
    }
    out.push_str(rest);
    out
}
