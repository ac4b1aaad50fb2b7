//! A model's attention at a glance: every layer × head as a small heatmap in one raster
//! (BertViz's model view), and one head's weights as lines between the tokens (its head view).
//!
//! The grid is pixels, not shapes: 144 heads at n = 512 are 37 million weights, far beyond what
//! one shape per cell could draw in a frame. A thumbnail smaller than its matrix shows each
//! pixel's block by its largest weight, so a thin diagonal or a single column stays visible.

use super::draw::{Colors, Theme};
use super::palette::Rgb;
use crate::math::kernels::block_max;
use crate::math::Matrix;
use crate::weights::Stack;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Every head of a stack, `thumb` pixels square each, `gap` pixels apart, row = layer.
pub struct Grid {
    pub width: u32,
    pub height: u32,
    /// RGBA, row-major, `width × height` pixels.
    pub rgba: Vec<u8>,
    /// The thumbnail size and gap drawn: the ones asked for, or smaller so the raster stays within
    /// [`GRID_MAX_SIDE`] and [`GRID_MAX_PIXELS`].
    pub thumb: usize,
    pub gap: usize,
}

/// The longest side of a grid raster, in pixels: browsers refuse larger canvases (Chromium's limit is 32,767).
pub const GRID_MAX_SIDE: usize = 16_384;
/// The most pixels of a grid raster: 16 MiB of RGBA, and the colouring of each pixel is the grid's cost.
pub const GRID_MAX_PIXELS: usize = 1 << 22;

/// The thumbnail size and gap within the grid's bounds for `layers` × `heads` thumbnails: `thumb` and `gap`
/// when they fit, else smaller (a thumbnail of at least 1 pixel; [`crate::weights::MAX_HEADS`] keeps that in bounds).
pub fn grid_fit(layers: usize, heads: usize, thumb: usize, gap: usize) -> (usize, usize) {
    let (mut thumb, mut gap) = (thumb.max(1), gap);
    let size = |t: usize, g: usize, count: usize| {
        count.saturating_mul(t).saturating_add(count.saturating_sub(1).saturating_mul(g))
    };
    while thumb > 1 || gap > 0 {
        let (w, h) = (size(thumb, gap, heads), size(thumb, gap, layers));
        if w <= GRID_MAX_SIDE && h <= GRID_MAX_SIDE && w.saturating_mul(h) <= GRID_MAX_PIXELS {
            break;
        }
        // Shrink both, keeping about their ratio: the gap is what tells the heads apart.
        gap = gap * 3 / 4;
        thumb = (thumb * 3 / 4).max(1);
    }
    (thumb, gap)
}

/// Where head (layer, head) sits in a grid of these sizes: its top-left pixel.
pub fn thumb_origin(layer: usize, head: usize, thumb: usize, gap: usize) -> (usize, usize) {
    (head * (thumb + gap), layer * (thumb + gap))
}

/// The grid raster; each head's colours span 0 … its own largest weight (a diffuse head would
/// otherwise be one flat colour next to a sharp one).
pub fn grid(stack: &Stack, thumb: usize, gap: usize, palette: Option<&str>, theme: &Theme) -> Grid {
    let [layers, heads, n, m] = stack.shape();
    let (thumb, gap) = grid_fit(layers, heads, thumb, gap);
    let width = heads * thumb + heads.saturating_sub(1) * gap;
    let height = layers * thumb + layers.saturating_sub(1) * gap;
    let mut rgba = vec![0u8; width * height * 4];
    let bg = theme.background;
    for px in rgba.chunks_exact_mut(4) {
        px.copy_from_slice(&[bg[0], bg[1], bg[2], 255]);
    }
    // Pixel p covers rows/columns [p·n/thumb, max((p+1)·n/thumb, that + 1)).
    let spans = |count: usize| -> Vec<(usize, usize)> {
        (0..thumb)
            .map(|p| {
                let start = (p * count / thumb).min(count - 1);
                (start, ((p + 1) * count / thumb).max(start + 1).min(count))
            })
            .collect()
    };
    let (row_spans, col_spans) = (spans(n), spans(m));
    let mut block = vec![0.0f64; thumb * thumb];
    // One colour scale 0 … 1 for every head, each head's weights divided by its largest (building a
    // colormap per head cost more than drawing 144 of them).
    let colors = Colors::new(&[0.0, 1.0], palette, "sequential");
    for l in 0..layers {
        for h in 0..heads {
            let w = stack.head(l, h);
            // Comparisons, not f64::max: its NaN rule makes it a call to libm's fmax in WebAssembly (~100 ms of a
            // 12 × 12 × 128 stack's load); a stack's weights are finite, and both give the same largest.
            // The blocks cover every weight (each pixel at least one row and column, the last ones reaching n and m),
            // so the head's largest is their largest.
            block_max(w, m, &row_spans, &col_spans, &mut block);
            let max = block.iter().fold(0.0f64, |m, &x| if x > m { x } else { m });
            let scale = if max > 0.0 { 1.0 / max } else { 0.0 };
            let (x0, y0) = thumb_origin(l, h, thumb, gap);
            for py in 0..thumb {
                let row = &mut rgba[((y0 + py) * width + x0) * 4..((y0 + py) * width + x0 + thumb) * 4];
                for (px, out) in row.chunks_exact_mut(4).enumerate() {
                    let c: Rgb = colors.color(block[py * thumb + px] * scale).unwrap_or(bg);
                    out.copy_from_slice(&[c[0], c[1], c[2], 255]);
                }
            }
        }
    }
    Grid { width: width as u32, height: height as u32, rgba, thumb, gap }
}

/// Lines are drawn for at most this many tokens a side: beyond, they merge into a solid band.
pub const LINES_MAX_TOKENS: usize = 128;
/// Rows of the line view, CSS pixels.
pub const LINE_ROW: f64 = 20.0;
/// Weights below this are not drawn (BertViz's head view hides them the same way: invisible anyway).
const LINE_MIN_WEIGHT: f64 = 0.01;

/// The line view's size in CSS pixels for n queries and m keys.
pub fn lines_size(n: usize, m: usize) -> (u32, u32) {
    (LINES_WIDTH as u32, (n.max(m) as f64 * LINE_ROW + 2.0 * LINE_TOP) as u32)
}

const LINES_WIDTH: f64 = 360.0;
const LINE_TOP: f64 = 24.0;

/// The token whose row of the line view is at `y` CSS pixels from its top, of `count` tokens on
/// that side (queries left, keys right); `None` above, below or between the lists.
pub fn line_at(y: f64, count: usize) -> Option<usize> {
    let i = ((y - LINE_TOP) / LINE_ROW).floor();
    (i >= 0.0 && i < count as f64).then_some(i as usize)
}
const LABEL_WIDTH: f64 = 110.0;

/// One head's weights as lines from each query (left) to each key (right), as opaque as the
/// weight. With `focus`, only that
/// query's lines, and its label marked. `scale` is device pixels per CSS pixel.
pub fn draw_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    weights: &Matrix,
    queries: &[String],
    keys: &[String],
    focus: Option<usize>,
    theme: &Theme,
    scale: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let s = |x: f64| (x * scale).round() as i32;
    let bg = theme.background;
    root.fill(&RGBColor(bg[0], bg[1], bg[2]))?;
    let text = RGBColor(theme.text[0], theme.text[1], theme.text[2]);
    let accent = RGBColor(theme.accent[0], theme.accent[1], theme.accent[2]);
    let (n, m) = (weights.rows(), weights.cols());
    let font =
        |size: f64, color: RGBColor, pos: Pos| (FontFamily::SansSerif, size * scale).into_font().color(&color).pos(pos);
    let y = |i: usize| LINE_TOP + (i as f64 + 0.5) * LINE_ROW;
    let (left, right) = (LABEL_WIDTH, LINES_WIDTH - LABEL_WIDTH);
    root.draw(&Text::new(
        "queries",
        (s(left - 6.0), s(LINE_TOP / 2.0)),
        font(11.0, text, Pos::new(HPos::Right, VPos::Center)),
    ))?;
    root.draw(&Text::new(
        "keys",
        (s(right + 6.0), s(LINE_TOP / 2.0)),
        font(11.0, text, Pos::new(HPos::Left, VPos::Center)),
    ))?;
    for i in 0..n {
        let row = weights.row(i);
        if focus.is_some_and(|f| f != i) {
            continue;
        }
        for (j, &w) in row.iter().enumerate() {
            if w < LINE_MIN_WEIGHT {
                continue;
            }
            // The weight itself, as BertViz's head view: a uniform row is faint, a sharp one bold.
            let alpha = if focus.is_some() { w.max(0.15) } else { w * 0.9 };
            let width = if focus.is_some() { 2.0 } else { 1.5 };
            root.draw(&PathElement::new(
                vec![(s(left), s(y(i))), (s(right), s(y(j)))],
                accent.mix(alpha).stroke_width(s(width).max(1) as u32),
            ))?;
        }
    }
    let clip = |t: &str| super::draw::clip_to(t, 14);
    for (i, t) in queries.iter().enumerate().take(n) {
        let c = if focus == Some(i) { accent } else { text };
        root.draw(&Text::new(clip(t), (s(left - 6.0), s(y(i))), font(12.0, c, Pos::new(HPos::Right, VPos::Center))))?;
    }
    for (j, t) in keys.iter().enumerate().take(m) {
        root.draw(&Text::new(
            clip(t),
            (s(right + 6.0), s(y(j))),
            font(12.0, text, Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    root.present()
}

/// The line view as a standalone SVG (the export of a selected head's lines).
pub fn lines_svg(weights: &Matrix, queries: &[String], keys: &[String], focus: Option<usize>, theme: &Theme) -> String {
    let (w, h) = lines_size(weights.rows(), weights.cols());
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
        let _ = draw_lines(&root, weights, queries, keys, focus, theme, 1.0);
    }
    super::draw::xml_chars(&out)
}
