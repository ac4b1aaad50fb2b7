//! `Viz.draw`: a figure's drawings on the element's canvases — a view's heatmap (the mask panel's, the steppers',
//! an export's), the figures' heatmaps as two layers (the cells, and their outlines on an overlay canvas), and a
//! weights figure's line view — and how a drawing's style is read (dpr, theme, palette, outlines, fmt, contrast).
//!
//! `what` is `{kind: "heatmap", view, dpr, dark, palette, highlights, title, fmt, contrast}`,
//! `{kind: "layers", view, overlay, key, dpr, dark, palette, highlights, fmt, contrast, base, outlines}` or
//! `{kind: "lines", dpr, dark, focus}`. `highlights` holds outlines as flat 5-tuples `[kind, r0, c0, r1, c1, …]`:
//! kind 0 the selected query (solid, accent colour), 1 a hovered link (dashed, amber), 2 the keyboard cursor (thick,
//! text colour), 3 FlashAttention's current tile (thick, amber); rows r0..r1, columns c0..c1. `fmt` is seaborn's `fmt`
//! (absent: ".2g"), `contrast` "seaborn" (absent) or "more"; `title` (absent: true) draws the title.

use super::args::Args;
use super::canvas::TextCachingCanvas;
use super::{js_err, Viz};
#[cfg(feature = "full")]
use crate::attention::Trace;
#[cfg(feature = "full")]
use crate::heatmap::model::draw_lines;
use crate::heatmap::{self, Colors, Contrast, Fmt, Highlight, HighlightKind, Layout, Style, Theme};
use crate::views;
use plotters::prelude::IntoDrawingArea;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

/// How a drawing looks: everything `style` reads.
pub(crate) struct Look {
    dpr: f64,
    dark: bool,
    palette: Option<String>,
    highlights: Vec<u32>,
    fmt: Option<String>,
    contrast: Option<String>,
}

/// A drawing `Viz.draw` makes.
pub(crate) enum Drawing {
    /// `view` with its outlines, as the SVG export draws it.
    Heatmap { view: String, look: Look, title: bool },
    /// `view` without outlines on the canvas (when `base`), and its outlines alone on `overlay` (when `outlines`
    /// changed, or the cells moved); `key` names the base drawing (see `Viz::layers`).
    Layers { view: String, overlay: HtmlCanvasElement, key: String, look: Look, base: bool, outlines: bool },
    #[cfg(feature = "full")]
    /// The selected head's lines (`focus`: one query's only).
    Lines { dpr: f64, dark: bool, focus: Option<u32> },
}

impl Drawing {
    pub(crate) fn parse(what: &JsValue) -> Result<Drawing, JsError> {
        let kind = Args { object: what, what: "a drawing" }.string("kind")?;
        let a = Args { object: what, what: &kind };
        let look = || -> Result<Look, JsError> {
            Ok(Look {
                dpr: a.number("dpr").unwrap_or(1.0),
                dark: a.flag("dark"),
                palette: a.opt_string("palette"),
                highlights: a.uints("highlights")?,
                fmt: a.opt_string("fmt"),
                contrast: a.opt_string("contrast"),
            })
        };
        Ok(match kind.as_str() {
            "heatmap" => Drawing::Heatmap {
                view: a.string("view")?,
                look: look()?,
                title: a.get("title").is_none_or(|t| t.is_truthy()),
            },
            "layers" => {
                let overlay = a.get("overlay").and_then(|o| o.dyn_into::<HtmlCanvasElement>().ok());
                let overlay = overlay.ok_or_else(|| js_err("layers: overlay must be a canvas"))?;
                let (key, base, outlines) = (a.string("key")?, a.flag("base"), a.flag("outlines"));
                Drawing::Layers { view: a.string("view")?, overlay, key, look: look()?, base, outlines }
            }
            #[cfg(feature = "full")]
            "lines" => Drawing::Lines {
                dpr: a.number("dpr").unwrap_or(1.0),
                dark: a.flag("dark"),
                focus: a.opt_uint("focus")?,
            },
            other => return Err(js_err(format!("not a drawing the figure makes: {other} (heatmap, layers or lines)"))),
        })
    }
}

impl Viz {
    pub(super) fn paint(&self, canvas: HtmlCanvasElement, what: Drawing) -> Result<(), JsError> {
        match what {
            Drawing::Heatmap { view, look, title } => {
                let view = self.view(&view)?;
                let style = style(look.dpr, look.dark, look.palette, &look.highlights, title, look.fmt, look.contrast)?;
                draw_on_canvas(&view, &style, canvas).map(|_| ())
            }
            Drawing::Layers { view, overlay, key, look, base, outlines } => {
                self.layers(&view, canvas, overlay, key, look, base, outlines)
            }
            #[cfg(feature = "full")]
            Drawing::Lines { dpr, dark, focus } => self.lines(canvas, dpr, dark, focus),
        }
    }

    /// The element's heatmap: `view` on `canvas` without outlines (when `base`), and the highlights alone on
    /// `overlay`, a transparent canvas of the same size laid over it. A hover or a cursor move redraws the overlay only
    /// (`base` false): at n = 1024 a raster was ~50 ms a canvas, the outlines are a few rectangles. The overlay is
    /// redrawn when `outlines` (its highlights, size or theme changed) or when the base's layout moved its cells. The
    /// outlines are opaque whole-pixel rectangles, so the two canvases show what a heatmap drawing with the highlights
    /// draws (and the SVG export: one `draw`). `key` names the base drawing (the element's repaint key without the
    /// outlines: the view's snapshot key, size, fmt…); while it is the same, its layout is kept for this, `cellAt`
    /// and `cellRect`.
    #[allow(clippy::too_many_arguments)]
    fn layers(
        &self,
        view: &str,
        canvas: HtmlCanvasElement,
        overlay: HtmlCanvasElement,
        key: String,
        look: Look,
        base: bool,
        outlines: bool,
    ) -> Result<(), JsError> {
        let Look { dpr, dark, palette, highlights, fmt, contrast } = look;
        let style = style(dpr, dark, palette, &highlights, true, fmt.clone(), contrast)?;
        let (layout, moved) = if base {
            let plain = Style { highlights: vec![], ..style.clone() };
            let layout = Rc::new(draw_on_canvas(&self.view(view)?, &plain, canvas)?);
            let old = self.layouts.borrow_mut().insert(view.to_string(), (key, layout.clone()));
            let moved = old.is_none_or(|(_, l)| *l != *layout);
            (layout, moved)
        } else {
            let Some(layout) = self.kept_layout(view, Some(key), canvas.width(), canvas.height(), dpr, fmt)? else {
                return Ok(());
            };
            (layout, false)
        };
        if !(outlines || moved) {
            return Ok(());
        }
        let context = context_2d(&overlay)?;
        context.clear_rect(0.0, 0.0, f64::from(overlay.width()), f64::from(overlay.height()));
        if highlights.is_empty() {
            return Ok(());
        }
        let backend = TextCachingCanvas::new(overlay, context).ok_or_else(|| js_err("cannot draw on this canvas"))?;
        let root = backend.into_drawing_area();
        heatmap::draw::draw_highlights(&root, &layout, &style).map_err(js_err)?;
        root.present().map_err(|e| js_err(format!("drawing failed: {e}")))
    }

    #[cfg(feature = "full")]
    /// Draws the selected head's lines on `canvas` (already sized `linesSize × dpr` device pixels); `focus` shows one
    /// query's lines only.
    fn lines(&self, canvas: HtmlCanvasElement, dpr: f64, dark: bool, focus: Option<u32>) -> Result<(), JsError> {
        let Trace::Weights(t) = self.figure.trace() else {
            return Err(js_err("this figure has no model weights"));
        };
        let context = context_2d(&canvas)?;
        let backend = TextCachingCanvas::new(canvas, context).ok_or_else(|| js_err("cannot draw on this canvas"))?;
        let root = backend.into_drawing_area();
        let dpr = if dpr.is_finite() { dpr.clamp(0.5, 4.0) } else { 1.0 };
        draw_lines(&root, &t.selected, &t.tokens, &t.key_tokens, focus.map(|f| f as usize), &theme(dark), dpr)
            .map_err(|e| js_err(format!("drawing the lines failed: {e:?}")))
    }

    /// `layout`, kept per view while the caller's `key` of the drawing on screen (which changes whenever the view's
    /// numbers, labels, size or fmt do: figures.js's repaint key without the outlines) stays the same. No key: made anew.
    pub(super) fn kept_layout(
        &self,
        view: &str,
        key: Option<String>,
        width: u32,
        height: u32,
        dpr: f64,
        fmt: Option<String>,
    ) -> Result<Option<Rc<Layout>>, JsError> {
        let Some(key) = key else { return Ok(self.layout(view, width, height, dpr, fmt)?.map(Rc::new)) };
        if let Some((k, layout)) = self.layouts.borrow().get(view) {
            if *k == key && layout.width == width && layout.height == height {
                return Ok(Some(layout.clone()));
            }
        }
        let Some(layout) = self.layout(view, width, height, dpr, fmt)? else { return Ok(None) };
        let layout = Rc::new(layout);
        self.layouts.borrow_mut().insert(view.to_string(), (key, layout.clone()));
        Ok(Some(layout))
    }

    /// The layout a heatmap drawing of `view` has on a canvas of that size (colours aside: they move no cell).
    pub(super) fn layout(
        &self,
        view: &str,
        width: u32,
        height: u32,
        dpr: f64,
        fmt: Option<String>,
    ) -> Result<Option<Layout>, JsError> {
        let style = style(dpr, false, None, &[], true, fmt, None)?;
        let Ok(view) = self.view(view) else { return Ok(None) };
        let colors = Colors::of_view(&view, None);
        Ok(Some(Layout::new(&view, &colors, &style, width, height)))
    }
}

#[cfg(feature = "full")]
/// The light or the dark theme.
pub(super) fn theme(dark: bool) -> Theme {
    if dark {
        Theme::dark()
    } else {
        Theme::light()
    }
}

pub(super) fn parse_fmt(fmt: Option<String>) -> Result<Fmt, JsError> {
    fmt.map_or(Ok(Fmt::default()), |f| Fmt::parse(&f).map_err(js_err))
}

/// The outlines of a flat `[kind, r0, c0, r1, c1, …]`.
fn parse_highlights(flat: &[u32]) -> Result<Vec<Highlight>, JsError> {
    if !flat.len().is_multiple_of(5) {
        return Err(js_err(format!(
            "highlights are flat [kind, r0, c0, r1, c1, …]: got {} numbers, not a multiple of 5",
            flat.len()
        )));
    }
    flat.chunks_exact(5)
        .map(|h| {
            let kind = HighlightKind::from_code(h[0]).ok_or_else(|| {
                js_err(format!(
                    "highlight kind {} is not 0 (selected query), 1 (hovered link), 2 (keyboard cursor) or 3 (FlashAttention's tile)",
                    h[0]
                ))
            })?;
            Ok(Highlight { kind, r0: h[1] as usize, c0: h[2] as usize, r1: h[3] as usize, c1: h[4] as usize })
        })
        .collect()
}

pub(super) fn style(
    dpr: f64,
    dark: bool,
    palette: Option<String>,
    highlights: &[u32],
    show_title: bool,
    fmt: Option<String>,
    contrast: Option<String>,
) -> Result<Style, JsError> {
    let dpr = if dpr.is_finite() { dpr.clamp(0.5, 4.0) } else { 1.0 };
    Ok(Style {
        dpr,
        theme: if dark { Theme::dark() } else { Theme::light() },
        palette,
        annotate: None,
        fmt: parse_fmt(fmt)?,
        contrast: contrast.map_or(Ok(Contrast::Seaborn), |c| Contrast::parse(&c).map_err(js_err))?,
        highlights: parse_highlights(highlights)?,
        show_title,
        show_labels: true,
    })
}

/// The cells and the colour bar are rasterised in Rust and copied with one `putImageData` per buffer (a fillStyle
/// and a fillRect per cell and colour-bar band cost ~80 canvas calls on a 4 × 3 grid), unless a small grid has
/// NaN or ±∞ cells: their hatches are antialiased lines, drawn by plotters shape by shape.
fn draw_on_canvas(view: &views::View, style: &Style, canvas: HtmlCanvasElement) -> Result<Layout, JsError> {
    let colors = Colors::of_view(view, style.palette.as_deref());
    let layout = Layout::new(view, &colors, style, canvas.width(), canvas.height());
    let context = context_2d(&canvas)?;
    let backend =
        TextCachingCanvas::new(canvas, context.clone()).ok_or_else(|| js_err("cannot draw on this canvas"))?;
    let root = backend.into_drawing_area();
    let shapes = layout.rows * layout.cols <= heatmap::draw::SHAPES_MAX_CELLS && !heatmap::draw::plain(view, &colors);
    if !shapes {
        let bg = style.theme.background;
        context.set_fill_style_str(&format!("rgb({},{},{})", bg[0], bg[1], bg[2]));
        context.fill_rect(0.0, 0.0, layout.width as f64, layout.height as f64);
        for blit in heatmap::raster(view, &colors, &layout, &style.theme) {
            if blit.width == 0 || blit.height == 0 {
                continue;
            }
            let image = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&blit.rgba), blit.width, blit.height)
                .map_err(|_| js_err("cannot create the image buffer"))?;
            context.put_image_data(&image, blit.x as f64, blit.y as f64).map_err(|_| js_err("putImageData failed"))?;
        }
    }
    heatmap::draw::draw(&root, view, &colors, &layout, style, shapes).map_err(js_err)?;
    Ok(layout)
}

fn context_2d(canvas: &HtmlCanvasElement) -> Result<CanvasRenderingContext2d, JsError> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into().ok())
        .ok_or_else(|| js_err("this canvas has no 2D context"))
}
