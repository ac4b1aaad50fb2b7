//! A plotters `DrawingBackend` for the browser canvas that sets the canvas
//! font, fill colour and text alignment only when they change (texts,
//! filled rectangles and polygons).
//!
//! plotters-canvas sets all three before every `fillText`; setting `font`
//! makes the browser parse the font string (and may restyle the page) each
//! time, which was the largest cost of a repaint with many labels. Everything
//! but text is delegated to plotters-canvas unchanged.

use plotters::prelude::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontTransform};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsValue;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

#[derive(Debug)]
pub struct CanvasError(String);

impl std::fmt::Display for CanvasError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CanvasError {}

type Result<T = ()> = std::result::Result<T, DrawingErrorKind<CanvasError>>;

fn cast<E: std::error::Error + Send + Sync>(e: DrawingErrorKind<E>) -> DrawingErrorKind<CanvasError> {
    match e {
        DrawingErrorKind::DrawingError(x) => DrawingErrorKind::DrawingError(CanvasError(x.to_string())),
        DrawingErrorKind::FontError(f) => DrawingErrorKind::FontError(f),
    }
}

fn js(e: JsValue) -> DrawingErrorKind<CanvasError> {
    DrawingErrorKind::DrawingError(CanvasError(format!("{e:?}")))
}

pub struct TextCachingCanvas {
    inner: CanvasBackend,
    context: CanvasRenderingContext2d,
    /// The last font, fill style, alignment and baseline this backend set (empty: unknown).
    state: [String; 4],
}

impl TextCachingCanvas {
    pub fn new(canvas: HtmlCanvasElement, context: CanvasRenderingContext2d) -> Option<Self> {
        Some(TextCachingCanvas {
            inner: CanvasBackend::with_canvas_object(canvas)?,
            context,
            state: Default::default(),
        })
    }

    /// Sets one canvas property unless it already has that value.
    fn set(&mut self, slot: usize, value: String, apply: impl FnOnce(&CanvasRenderingContext2d, &str)) {
        if self.state[slot] != value {
            apply(&self.context, &value);
            self.state[slot] = value;
        }
    }
}

impl DrawingBackend for TextCachingCanvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result {
        self.inner.ensure_prepared().map_err(cast)
    }

    fn present(&mut self) -> Result {
        self.inner.present().map_err(cast)
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result {
        self.state[1].clear(); // plotters-canvas changes the fill style
        self.inner.draw_pixel(point, color).map_err(cast)
    }

    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Result {
        self.inner.draw_line(from, to, style).map_err(cast)
    }

    fn draw_rect<S: BackendStyle>(&mut self, ul: BackendCoord, br: BackendCoord, style: &S, fill: bool) -> Result {
        let color = style.color();
        if !fill || color.alpha == 0.0 {
            return self.inner.draw_rect(ul, br, style, fill).map_err(cast);
        }
        // plotters-canvas's fill, with the fill style set only when it changes (a run of one colour: one set).
        let (r, g, b) = color.rgb;
        self.set(1, format!("rgba({r},{g},{b},{})", color.alpha), |c, v| c.set_fill_style_str(v));
        let (x, y) = (f64::from(ul.0), f64::from(ul.1));
        self.context.fill_rect(x, y, f64::from(br.0) - x, f64::from(br.1) - y);
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Result {
        self.inner.draw_path(path, style).map_err(cast)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, vert: I, style: &S) -> Result {
        // plotters-canvas's fill, with the fill style set only when it changes (the changed cells' corner marks).
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let (r, g, b) = color.rgb;
        self.set(1, format!("rgba({r},{g},{b},{})", color.alpha), |c, v| c.set_fill_style_str(v));
        let mut vert = vert.into_iter();
        let Some((x, y)) = vert.next() else { return Ok(()) };
        self.context.begin_path();
        self.context.move_to(f64::from(x), f64::from(y));
        for (x, y) in vert {
            self.context.line_to(f64::from(x), f64::from(y));
        }
        self.context.close_path();
        self.context.fill();
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(&mut self, center: BackendCoord, radius: u32, style: &S, fill: bool) -> Result {
        self.state[1].clear();
        self.inner.draw_circle(center, radius, style, fill).map_err(cast)
    }

    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, style: &T, pos: BackendCoord) -> Result {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        if !matches!(style.transform(), FontTransform::None) {
            // Rotated text is rare here: let plotters-canvas do it, and forget what we knew.
            self.state = Default::default();
            return self.inner.draw_text(text, style, pos).map_err(cast);
        }
        let (r, g, b) = color.rgb;
        self.set(1, format!("rgba({r},{g},{b},{})", color.alpha), |c, v| c.set_fill_style_str(v));
        let font = format!("{} {}px {}", style.style().as_str(), style.size(), style.family().as_str());
        self.set(0, font, |c, v| c.set_font(v));
        let align = match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        };
        self.set(2, align.to_string(), |c, v| c.set_text_align(v));
        let baseline = match style.anchor().v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        };
        self.set(3, baseline.to_string(), |c, v| c.set_text_baseline(v));
        self.context.fill_text(text, f64::from(pos.0), f64::from(pos.1)).map_err(js)
    }
}
