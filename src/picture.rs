//! The static picture of a figure: its main heatmaps as one SVG document, drawn by the same code as the
//! live figure (`heatmap::draw` through plotters' SVG backend, `heatmap::model::grid` for a model's heads).
//!
//! A notebook opened without trust (GitHub's, nbviewer's renderings) runs no scripts: this picture is all it
//! shows of a figure, so it must have the live figure's colours, ticks, numbers and thumbnails. The Python
//! package asks for it through `ffi` (the shipped .wasm run by wasmtime) and sends it as an `<img>`.
//!
//! Grids too big for one shape per cell (over `SHAPES_MAX_CELLS`) go in as PNG images of the canvas's own pixels
//! (`heatmap::raster`), the model's grid of heads as the element's raster (`heatmap::model::grid`).

use crate::attention::Trace;
use crate::config::{Config, Mechanism};
use crate::heatmap::draw::{self, Colors, Contrast, Layout, Style, Theme, SHAPES_MAX_CELLS};
use crate::heatmap::{model, palette::Rgb, Fmt};
use crate::text::thousands;
use crate::views::{self, View};
use crate::weights::{Stack, MAX_HEADS, MAX_VALUES};
use plotters::prelude::*;

/// The picture's width in CSS pixels at most: panels wrap below it.
pub const MAX_WIDTH: f64 = 960.0;
const PAD: f64 = 8.0;
const GUTTER: f64 = 24.0;
/// The largest thumbnail of a model's grid in the picture, in raster pixels (max-pooled beyond), and the largest it is
/// shown, in CSS pixels (each raster pixel a whole number of them).
pub const PICTURE_THUMB: usize = 16;
pub const PICTURE_THUMB_SHOWN: usize = 48;
/// The caption under every picture: what it is, and that the live figure takes its place.
pub const CAPTION: &str = "static picture · the interactive figure replaces it when scripts run";

/// How the element would draw the figure: its `palette`, `fmt`, `contrast` and `theme` attributes.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub palette: Option<String>,
    pub fmt: Option<String>,
    pub contrast: Option<String>,
    pub dark: bool,
}

impl Options {
    /// The heatmaps' style; the core's message for a palette, `fmt` or `contrast` it does not know.
    pub fn style(&self) -> Result<Style, String> {
        if let Some(p) = &self.palette {
            crate::heatmap::palette::check_name(p)?;
        }
        Ok(Style {
            dpr: 1.0,
            theme: if self.dark { Theme::dark() } else { Theme::light() },
            palette: self.palette.clone(),
            annotate: None,
            fmt: self.fmt.as_deref().map_or(Ok(Fmt::default()), Fmt::parse)?,
            contrast: self.contrast.as_deref().map_or(Ok(Contrast::Seaborn), Contrast::parse)?,
            highlights: Vec::new(),
            show_title: true,
            show_labels: true,
        })
    }
}

/// The picture: (an SVG document, a one-line description for `alt`).
pub fn picture(config: &Config, trace: &Trace, options: &Options) -> Result<(String, String), String> {
    let style = options.style()?;
    let (names, alt) = main_views(config);
    let mut parts = Vec::new();
    let (mut x, mut y, mut row_h, mut width) = (PAD, PAD, 0.0f64, 0.0f64);
    for name in &names {
        let view = views::view(config, trace, name)?;
        let (svg, w, h) = heatmap_svg(&view, &style)?;
        if x > PAD && x + w > MAX_WIDTH {
            (x, y, row_h) = (PAD, y + row_h + 12.0, 0.0);
        }
        parts.push(nested(&svg, x, y));
        width = width.max(x + w);
        x += w + GUTTER;
        row_h = row_h.max(h);
    }
    y += row_h;
    if let Mechanism::Weights { attention: stack, layer, head, .. } = &config.mechanism {
        let [layers, heads, _, _] = stack.shape();
        if layers * heads > 1 {
            let [_, _, n, m] = stack.shape();
            let (body, w, h) = heads_grid(stack, n.max(m), (*layer, *head), &style, false);
            parts.push(format!(r#"<g transform="translate({PAD},{:.1})">{body}</g>"#, y + 12.0));
            width = width.max(PAD + w);
            y += 12.0 + h;
        }
    }
    y += 14.0;
    let muted = hex(style.theme.text);
    parts.push(format!(r#"<text x="{PAD}" y="{y:.1}" font-size="10" fill="{muted}" opacity="0.75">{CAPTION}</text>"#));
    let width = (width.max(draw::text_width(CAPTION.chars().count(), 10.0) + 2.0 * PAD) + PAD).ceil();
    let height = (y + PAD).ceil();
    let doc = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif"><title>{}</title><rect width="100%" height="100%" fill="{}"/>{}</svg>"#,
        escape(&alt),
        hex(style.theme.background),
        parts.concat()
    );
    Ok((tight_texts(&draw::xml_chars(&doc)), draw::xml_chars(&alt)))
}

/// The picture of a config the core refuses: its message, wrapped, where the figure would be.
pub fn refused(message: &str, dark: bool) -> (String, String) {
    let theme = if dark { Theme::dark() } else { Theme::light() };
    let mut lines = vec![String::new()];
    for word in message.split_whitespace() {
        let line = lines.last_mut().expect("one line at least");
        if !line.is_empty() && line.chars().count() + word.chars().count() > 90 {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    let text = hex(theme.text);
    let body: String = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            format!(r#"<text x="{PAD}" y="{}" font-size="13" fill="{text}">{}</text>"#, 22 + 18 * i, escape(l))
        })
        .collect();
    let width =
        (lines.iter().map(|l| draw::text_width(l.chars().count(), 13.0)).fold(0.0, f64::max) + 3.0 * PAD).ceil();
    let height = 22 + 18 * lines.len() + 8;
    let alt = format!("attention-viz cannot show this config: {message}");
    let doc = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif"><title>{}</title><rect width="100%" height="100%" fill="{}"/>{body}</svg>"#,
        escape(&alt),
        hex(theme.background)
    );
    (draw::xml_chars(&doc), draw::xml_chars(&alt))
}

/// The views a picture shows (the stage a reader looks at first, and what it makes), and its `alt` text.
fn main_views(config: &Config) -> (Vec<String>, String) {
    let tokens = few(&config.tokens);
    match &config.mechanism {
        Mechanism::Weights { attention: stack, layer, head, .. } => {
            let [layers, heads, n, m] = stack.shape();
            let many = layers * heads > 1;
            let where_ = if many { format!("layer {layer}, head {head}") } else { "attention".into() };
            let grid = if many { format!(", and a grid of all {layers} × {heads} heads") } else { String::new() };
            (
                vec!["attention".into()],
                format!("Attention weights of {where_} ({n} queries × {m} keys; tokens {tokens}){grid}"),
            )
        }
        Mechanism::Cross { .. } => (
            vec!["weights".into(), "context".into()],
            format!("Encoder–decoder attention: weights over the encoder states ({tokens}) and the context vector"),
        ),
        Mechanism::SelfAttention { .. } => {
            let o = &config.options;
            let (weights, note) = if o.heads > 1 {
                (format!("heads.{}.weights", o.head), format!(" (head {})", o.head))
            } else {
                ("weights".into(), String::new())
            };
            let n = config.tokens.len();
            (
                vec![weights, "context".into()],
                format!("Self-attention over {n} tokens ({tokens}): the weights{note} and the context"),
            )
        }
    }
}

fn few(names: &[String]) -> String {
    if names.len() <= 6 {
        names.join(", ")
    } else {
        format!("{}, … ({} in all)", names[..5].join(", "), names.len())
    }
}

/// One view as an SVG at its preferred size: (the document, width, height). A grid over `SHAPES_MAX_CELLS`
/// is drawn as the canvas draws it: its cells and colour bar as `heatmap::raster`'s pixels, then `draw::draw`
/// without the cells on top.
pub fn heatmap_svg(view: &View, style: &Style) -> Result<(String, f64, f64), String> {
    let (w, h) = draw::preferred_size(view, style.fmt);
    let (rows, cols) = view.values.shape();
    if rows * cols <= SHAPES_MAX_CELLS {
        return Ok((draw::to_svg_sized(view, style, w, h)?, w as f64, h as f64));
    }
    let colors = Colors::of_view(view, style.palette.as_deref());
    let layout = Layout::new(view, &colors, style, w, h);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        draw::draw(&root, view, &colors, &layout, style, false)?;
    }
    // Under the text and ticks: the background, then the canvas's own pixels for the cells and the colour bar
    // (`heatmap::raster`, what the element puts on its canvas), one PNG each.
    let mut under = format!(r#"<rect width="{w}" height="{h}" fill="{}"/>"#, hex(style.theme.background));
    for blit in draw::raster(view, &colors, &layout, &style.theme) {
        if blit.width == 0 || blit.height == 0 {
            continue;
        }
        let rgb: Vec<u8> = blit.rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
        let (bw, bh) = (blit.width as usize, blit.height as usize);
        under += &image(&png(bw, bh, &rgb), blit.x as f64, blit.y as f64, bw as f64, bh as f64, false);
    }
    let at = svg.find("<svg").and_then(|s| svg[s..].find('>').map(|e| s + e + 1)).ok_or("drawing failed: no <svg>")?;
    svg.insert_str(at, &under);
    Ok((draw::xml_chars(&svg), w as f64, h as f64))
}

/// Left and top of the thumbnails in a grid of heads, inside its own box: room for the layer and head numbers.
const GRID_LEFT: f64 = 30.0;
const GRID_TOP: f64 = 34.0;

/// The raster of one head in the picture's grid of `heads` heads a row, each `cells` (its longer side) a side, and
/// how many times it is shown that large: at most `PICTURE_THUMB` pixels (max-pooled beyond, as the element's grid),
/// shown up to `PICTURE_THUMB_SHOWN` CSS pixels, the grid within `MAX_WIDTH`: a 12 × 12 grid of 64-token heads is
/// then ~46,000 pixels, not 600,000 (a notebook carries its picture in every copy of the output).
pub fn grid_raster(heads: usize, cells: usize) -> (usize, usize) {
    let room =
        (((MAX_WIDTH - GRID_LEFT - PAD) / heads.max(1) as f64) - 4.0).clamp(1.0, PICTURE_THUMB_SHOWN as f64) as usize;
    let cells = cells.max(1);
    // A small head: a whole number of pixels a cell, so its cells are equal squares.
    let raster = if cells <= PICTURE_THUMB { cells * (PICTURE_THUMB / cells) } else { PICTURE_THUMB }.min(room);
    (raster, (room / raster).clamp(1, 4))
}

/// Every head of a model as the element's grid draws them (`model::grid`: max-pooled thumbnails, each head's
/// colours up to its own largest weight), with layer and head numbers and the drawn head outlined. `cells`: the
/// heads' longer side as given (the stack may hold them pooled already, `grid_raster` pixels a side); `targets`: a
/// transparent rectangle over each head naming it (`data-layer`, `data-head`), what a click on the grid picks.
fn heads_grid(
    stack: &Stack,
    cells: usize,
    (layer, head): (usize, usize),
    style: &Style,
    targets: bool,
) -> (String, f64, f64) {
    let [layers, heads, _, _] = stack.shape();
    let (left, top) = (GRID_LEFT, GRID_TOP);
    let (raster, scale) = grid_raster(heads, cells);
    let gap = ((4.0 / scale as f64).round() as usize).max(1);
    let grid = model::grid(stack, raster, gap, style.palette.as_deref(), &style.theme);
    let scale = scale as f64;
    let (thumb, gap) = (grid.thumb as f64 * scale, grid.gap as f64 * scale);
    let text = hex(style.theme.text);
    let mut out = format!(
        r#"<text x="{left}" y="15" font-size="13" font-weight="600" fill="{text}">every head: {layers} layer{} × {heads} head{}</text>"#,
        if layers > 1 { "s" } else { "" },
        if heads > 1 { "s" } else { "" }
    );
    let label = |i: usize, count: usize| thumb >= 10.0 || i.is_multiple_of(count.div_ceil(16).max(1));
    for h in (0..heads).filter(|&h| label(h, heads)) {
        let x = left + h as f64 * (thumb + gap) + thumb / 2.0;
        out += &format!(
            r#"<text x="{x:.1}" y="{:.1}" font-size="9" fill="{text}" text-anchor="middle">{h}</text>"#,
            top - 3.0
        );
    }
    for l in (0..layers).filter(|&l| label(l, layers)) {
        let y = top + l as f64 * (thumb + gap) + thumb / 2.0;
        out += &format!(
            r#"<text x="{:.1}" y="{y:.1}" font-size="9" fill="{text}" text-anchor="end" dominant-baseline="central">L{l}</text>"#,
            left - 4.0
        );
    }
    let rgb: Vec<u8> = grid.rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
    out += &image(
        &png(grid.width as usize, grid.height as usize, &rgb),
        left,
        top,
        grid.width as f64 * scale,
        grid.height as f64 * scale,
        true,
    );
    if targets {
        for (l, h) in (0..layers).flat_map(|l| (0..heads).map(move |h| (l, h))) {
            out += &format!(
                r#"<rect data-layer="{l}" data-head="{h}" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="transparent" style="cursor:pointer"><title>layer {l}, head {h}</title></rect>"#,
                left + h as f64 * (thumb + gap),
                top + l as f64 * (thumb + gap),
                thumb + gap,
                thumb + gap
            );
        }
    }
    let (x, y) = (left + head as f64 * (thumb + gap), top + layer as f64 * (thumb + gap));
    out += &format!(
        r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="{}" stroke-width="2"/>"#,
        x - 1.5,
        y - 1.5,
        thumb + 3.0,
        thumb + 3.0,
        hex(style.theme.accent)
    );
    (out, left + grid.width as f64 * scale, top + grid.height as f64 * scale + 4.0)
}

/// The raster side of each head's thumbnail in the overview of a stack of this shape ([layers, heads, n, m]) that a
/// figure cannot hold (over `weights::MAX_VALUES` values, each head within it): Python then sends one head in full,
/// a weights config the core takes, and draws every head pooled to this side (`overview`). `None` for a stack a
/// figure holds, and for one the core refuses whatever its size (too many heads, or one head alone).
pub fn overview_raster([layers, heads, n, m]: [usize; 4]) -> Option<usize> {
    let count = layers.checked_mul(heads)?;
    let head = n.checked_mul(m)?;
    let over = count.checked_mul(head).is_none_or(|total| total > MAX_VALUES);
    (over && count > 1 && count <= MAX_HEADS && head <= MAX_VALUES && head > 0).then(|| grid_raster(heads, n.max(m)).0)
}

/// The overview of a stack over the limit: every head as a thumbnail (`thumbs`: layers × heads × r × r values, each head
/// max-pooled to side r = `grid_raster`'s, `overview_raster`'s for such a stack, as `model::grid` pools it), the head
/// drawn in full outlined, each head a click target, and what the reader can do to see another; `shape` is the
/// stack's as given (any stack: its grid is then the picture's, pixel for pixel). (SVG, alt text), or an
/// internal error for thumbnails that do not fit the shape.
pub fn overview(
    thumbs: Vec<f64>,
    [layers, heads, n, m]: [usize; 4],
    (layer, head): (usize, usize),
    options: &Options,
) -> Result<(String, String), String> {
    let style = options.style()?;
    let r = grid_raster(heads, n.max(m)).0;
    let thumbs = Stack::new(layers, heads, r, r, thumbs).filter(|_| layer < layers && head < heads);
    let thumbs =
        thumbs.ok_or("attention-viz internal error: the overview's thumbnails do not fit the stack's shape")?;
    let (body, w, h) = heads_grid(&thumbs, n.max(m), (layer, head), &style, true);
    let total = grouped_digits(&(layers as u128 * heads as u128 * n as u128 * m as u128).to_string());
    let note = format!(
        "{layers} × {heads} heads of {n} × {m} weights are {total} values, over the {} a figure holds: each head \
         here is a thumbnail (a pixel is the largest weight of its block) and layer {layer}, head {head} is drawn in \
         full. In a live av.Widget a click on a head draws it; else show_attention(attention, layer=L, head=H) \
         draws head H of layer L.",
        thousands(MAX_VALUES)
    );
    let width = (PAD + w).max(480.0) + PAD;
    let per_line = (((width - 2.0 * PAD) / draw::text_width(1, 11.0)) as usize).max(40);
    let text = hex(style.theme.text);
    let mut y = PAD + h + 6.0;
    let mut lines = format!(r#"<g transform="translate({PAD},{PAD})">{body}</g>"#);
    for line in wrap(&note, per_line) {
        y += 14.0;
        lines += &format!(r#"<text x="{PAD}" y="{y:.1}" font-size="11" fill="{text}">{}</text>"#, escape(&line));
    }
    let height = (y + PAD).ceil();
    let width = width.ceil();
    let alt = format!(
        "Thumbnails of all {layers} × {heads} heads ({n} queries × {m} keys each); layer {layer}, head {head} is drawn \
         in full"
    );
    let doc = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif"><title>{}</title><rect width="100%" height="100%" fill="{}"/>{lines}</svg>"#,
        escape(&alt),
        hex(style.theme.background)
    );
    Ok((draw::xml_chars(&doc), draw::xml_chars(&alt)))
}

/// A whole number's digits in groups of three (`text::thousands` for one past usize).
fn grouped_digits(digits: &str) -> String {
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Words in lines of at most `per_line` characters (a longer word alone on its line).
fn wrap(text: &str, per_line: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("one line at least");
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > per_line {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// plotters writes each text on a line of its own inside its element (`<text …>\n0.24\n</text>`): the picture's
/// texts are the texts alone, as a reader (or a test, or a search in the SVG) finds them.
fn tight_texts(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(at) = rest.find("<text") {
        let Some(end) = rest[at..].find('>').map(|e| at + e + 1) else { break };
        out.push_str(&rest[..end]);
        rest = rest[end..].strip_prefix('\n').unwrap_or(&rest[end..]);
    }
    out.push_str(rest);
    out.replace("\n</text>", "</text>")
}

/// A standalone SVG placed at (x, y) inside another: the same document, positioned.
fn nested(svg: &str, x: f64, y: f64) -> String {
    let body = match svg.find("<svg") {
        Some(at) => &svg[at..],
        None => svg,
    };
    body.replacen("<svg", &format!(r#"<svg x="{x:.1}" y="{y:.1}""#,), 1)
}

/// An `<image>` of a PNG stretched over (x, y, w, h); `pixelated`: cells stay sharp squares (a colour bar's
/// gradient is smoothed instead: scaled down with pixelated rendering it would show bands).
fn image(png: &[u8], x: f64, y: f64, w: f64, h: f64, pixelated: bool) -> String {
    let style = if pixelated { r#" style="image-rendering:pixelated""# } else { "" };
    format!(
        r#"<image x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" preserveAspectRatio="none"{style} href="data:image/png;base64,{}"/>"#,
        base64(png)
    )
}

fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for (k, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            out.push(if k <= chunk.len() { ABC[(n >> shift & 63) as usize] as char } else { '=' });
        }
    }
    out
}

/// A PNG of RGB pixels, its pixels in stored (uncompressed) deflate blocks: the core carries no compressor, and the
/// Python package deflates these images with zlib before it sends the picture (`_core.compress_images`). With 256
/// colours or fewer (a heatmap's cells are palette colours) it is an indexed PNG: one byte a pixel, not three.
pub fn png(width: usize, height: usize, rgb: &[u8]) -> Vec<u8> {
    let mut colours: Vec<[u8; 3]> = Vec::new();
    let mut index = std::collections::HashMap::new();
    let mut indexed = Vec::with_capacity(width * height);
    for p in rgb.chunks_exact(3).take(width * height) {
        let c = [p[0], p[1], p[2]];
        let i = *index.entry(c).or_insert_with(|| {
            colours.push(c);
            colours.len() - 1
        });
        if colours.len() > 256 {
            break;
        }
        indexed.push(i as u8);
    }
    let paletted = colours.len() <= 256 && width * height > 0;
    let (pixels, bytes_per_pixel) = if paletted { (&indexed[..], 1) } else { (rgb, 3) };
    let mut raw = Vec::with_capacity(height * (width * bytes_per_pixel + 1));
    for row in pixels.chunks_exact(width * bytes_per_pixel).take(height) {
        raw.push(0); // filter: none
        raw.extend_from_slice(row);
    }
    let mut z = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = raw.chunks(65_535).collect();
    for (i, block) in blocks.iter().enumerate() {
        z.push((i + 1 == blocks.len()) as u8);
        let len = block.len() as u16;
        z.extend_from_slice(&len.to_le_bytes());
        z.extend_from_slice(&(!len).to_le_bytes());
        z.extend_from_slice(block);
    }
    if blocks.is_empty() {
        z.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    z.extend_from_slice(&adler32(&raw).to_be_bytes());
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&(width as u32).to_be_bytes());
    ihdr.extend_from_slice(&(height as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, if paletted { 3 } else { 2 }, 0, 0, 0]); // 8-bit indexed or RGB
    chunk(&mut out, b"IHDR", &ihdr);
    if paletted {
        chunk(&mut out, b"PLTE", &colours.concat());
    }
    chunk(&mut out, b"IDAT", &z);
    chunk(&mut out, b"IEND", &[]);
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], body: &[u8]) {
    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(body);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { 0xedb8_8320 ^ (crc >> 1) } else { crc >> 1 };
        }
    }
    !crc
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in bytes.chunks(5552) {
        for &x in chunk {
            a += x as u32;
            b += a;
        }
        a %= 65_521;
        b %= 65_521;
    }
    b << 16 | a
}

/// How a large figure's image (www/element/large.js: a Worker's view of up to 4,096 tokens) made each pixel of a
/// block of cells: the weights' largest (a query's one peak among near-zero weights would vanish in a mean: at n =
/// 4096 a row is often one weight of ~1), every other view's mean of its finite cells (grey when it has none). Said in
/// each view's caption.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pooling {
    Mean,
    Max,
}

/// What the figure says under a large view: its size and how its pixels were made; `live`: the page's, which also
/// says how to read one cell (an export has no cursor).
pub fn large_caption(rows: usize, cols: usize, [br, bc]: [usize; 2], pooling: Pooling, live: bool) -> String {
    if br == 1 && bc == 1 {
        return format!("{rows} × {cols} cells, one pixel each; the colour bar spans every cell's value");
    }
    let how = match pooling {
        Pooling::Mean => "mean",
        Pooling::Max => "largest value",
    };
    let hover = if live { "; hover or move the cursor for one cell's value" } else { "" };
    format!(
        "{rows} × {cols} cells: each pixel is the {how} of its block of {br} × {bc} cells; the colour bar spans every \
         cell's value{hover}"
    )
}

/// One view of a large figure as the page shows it: its title, its image (a PNG data URL of the page's canvas: one
/// pixel per `block` of cells of a `rows` × `cols` view) shown `shown` CSS pixels wide and high, its colour bar (a PNG
/// data URL, vmax at the top) with `ticks` ([fraction from the bottom, label]) and matplotlib's `offset` text.
pub struct LargeView<'a> {
    pub title: &'a str,
    pub rows: usize,
    pub cols: usize,
    pub block: [usize; 2],
    pub pooling: Pooling,
    pub image: &'a str,
    pub bar: &'a str,
    pub ticks: &'a [(f64, String)],
    pub offset: &'a str,
    pub shown: [f64; 2],
}

/// A large view as a standalone SVG (the element's `toSVG` of a large figure): the page's image itself as an embedded
/// PNG (at most the canvas's pixels a side, so tens of KB whatever n is: its n × n cells as shapes would be 16 M
/// elements at n = 4096), the colour bar as a PNG stretched as the page stretches it, the ticks, title and caption as
/// text; seaborn's light figure, as every exported heatmap. The PNGs are the browser's (`toDataURL`, deflated): the
/// page's .wasm carries no PNG writer. Errors: an image that is not a PNG data URL.
pub fn large_svg(v: &LargeView) -> Result<String, String> {
    for (what, url) in [("image", v.image), ("colour bar", v.bar)] {
        let b64 = url.strip_prefix("data:image/png;base64,").unwrap_or("");
        if b64.is_empty() || !b64.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=')) {
            return Err(format!("a large view's {what} is not a PNG data URL"));
        }
    }
    let theme = Theme::light();
    let text = hex(theme.text);
    let finite = |x: f64, or: f64| if x.is_finite() && x > 0.0 { x } else { or };
    let (sw, sh) = (finite(v.shown[0], 512.0), finite(v.shown[1], 512.0));
    let top = PAD + 22.0;
    let bar_x = PAD + sw + 6.0;
    let ticks_x = bar_x + 14.0 + 6.0;
    let mut body = format!(
        r#"<text x="{PAD}" y="{:.1}" font-size="13" font-weight="600" fill="{text}">{}</text>"#,
        PAD + 13.0,
        escape(v.title)
    );
    let embed = |url: &str, x: f64, w: f64, pixelated: bool| {
        let style = if pixelated { r#" style="image-rendering:pixelated""# } else { "" };
        format!(
            r#"<image x="{x:.1}" y="{top:.1}" width="{w:.1}" height="{sh:.1}" preserveAspectRatio="none"{style} href="{url}"/>"#
        )
    };
    body += &embed(v.image, PAD, sw, true);
    body += &embed(v.bar, bar_x, 14.0, false);
    let mut widest = 0usize;
    for (at, label) in v.ticks {
        let y = top + (1.0 - at.clamp(0.0, 1.0)) * sh;
        body += &format!(
            r#"<line x1="{:.1}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="{text}"/><text x="{:.1}" y="{:.1}" font-size="10" fill="{text}">{}</text>"#,
            bar_x + 14.0,
            bar_x + 17.0,
            ticks_x,
            y + 3.5,
            escape(label)
        );
        widest = widest.max(label.chars().count());
    }
    if !v.offset.is_empty() {
        body += &format!(
            r#"<text x="{:.1}" y="{:.1}" font-size="10" fill="{text}">{}</text>"#,
            bar_x,
            top - 4.0,
            escape(v.offset)
        );
    }
    // The caption, wrapped to the picture's width (at least 40 characters a line).
    let width = (ticks_x + draw::text_width(widest.max(4), 10.0) + PAD).max(PAD * 2.0 + 240.0).ceil();
    let per_line = (((width - 2.0 * PAD) / draw::text_width(1, 11.0)) as usize).max(40);
    let lines = wrap(&large_caption(v.rows, v.cols, v.block, v.pooling, false), per_line);
    let mut y = top + sh + 6.0;
    for line in &lines {
        y += 14.0;
        body += &format!(r#"<text x="{PAD}" y="{y:.1}" font-size="11" fill="{text}">{}</text>"#, escape(line));
    }
    let height = (y + PAD).ceil();
    let doc = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif"><title>{}</title><rect width="100%" height="100%" fill="{}"/>{body}</svg>"#,
        escape(v.title),
        hex(theme.background)
    );
    Ok(draw::xml_chars(&doc))
}
