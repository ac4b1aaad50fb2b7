//! A plotters `DrawingBackend` for the browser canvas that sets the canvas
//! font, fill colour and text alignment only when they change (texts,
//! filled rectangles and polygons), and strokes a wide segment as hairlines.
//!
//! plotters-canvas sets all three before every `fillText`; setting `font`
//! makes the browser parse the font string (and may restyle the page) each
//! time, which was the largest cost of a repaint with many labels. Everything
//! else is delegated to plotters-canvas unchanged.

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
    /// The last font, fill style, alignment, baseline and (its own hairlines') stroke style this backend set (empty:
    /// unknown).
    state: [String; 5],
}

impl TextCachingCanvas {
    pub fn new(canvas: HtmlCanvasElement, context: CanvasRenderingContext2d) -> Option<Self> {
        Some(TextCachingCanvas {
            inner: CanvasBackend::with_canvas_object(canvas)?,
            context,
            state: Default::default(),
        })
    }

    /// A plotters-canvas drawing, which may set the stroke style: this backend's is forgotten.
    fn stroked<E: std::error::Error + Send + Sync>(
        &mut self,
        draw: impl FnOnce(&mut Self) -> std::result::Result<(), DrawingErrorKind<E>>,
    ) -> Result {
        self.state[4].clear();
        draw(self).map_err(cast)
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
        self.stroked(|b| b.inner.draw_line(from, to, style))
    }

    fn draw_rect<S: BackendStyle>(&mut self, ul: BackendCoord, br: BackendCoord, style: &S, fill: bool) -> Result {
        let color = style.color();
        if !fill || color.alpha == 0.0 {
            return self.stroked(|b| b.inner.draw_rect(ul, br, style, fill));
        }
        // plotters-canvas's fill, with the fill style set only when it changes (a run of one colour: one set).
        let (r, g, b) = color.rgb;
        self.set(1, format!("rgba({r},{g},{b},{})", color.alpha), |c, v| c.set_fill_style_str(v));
        let (x, y) = (f64::from(ul.0), f64::from(ul.1));
        self.context.fill_rect(x, y, f64::from(br.0) - x, f64::from(br.1) - y);
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Result {
        let points: Vec<BackendCoord> = path.into_iter().collect();
        let (width, color) = (style.stroke_width(), style.color());
        let [(x0, y0), (x1, y1)] = points[..] else { return self.stroked(|b| b.inner.draw_path(points, style)) };
        let (dx, dy) = (f64::from(x1 - x0), f64::from(y1 - y0));
        let length = dx.hypot(dy);
        if width <= 1 || color.alpha == 0.0 || length == 0.0 {
            return self.stroked(|b| b.inner.draw_path(points, style));
        }
        // A segment w pixels wide as w lines 1 pixel wide side by side, one pixel apart: Chromium's Skia draws a
        // stroke of at most 1 pixel as a hairline, ~10× faster than a wider antialiased stroke (a model's line view:
        // ~6,000 translucent lines at n = 128 were most of a stack's load), and the pixels are nearly the same.
        let (nx, ny) = (-dy / length, dx / length);
        // The colour as a style only when it changes, its alpha as a number (a style string is parsed each time it is
        // set: thousands of lines, one alpha each).
        let (r, g, b) = color.rgb;
        self.set(4, format!("rgb({r},{g},{b})"), |c, v| c.set_stroke_style_str(v));
        self.context.set_global_alpha(color.alpha);
        self.context.set_line_width(1.0);
        self.context.begin_path();
        for k in 0..width {
            let o = f64::from(k) - f64::from(width - 1) / 2.0;
            self.context.move_to(f64::from(x0) + o * nx, f64::from(y0) + o * ny);
            self.context.line_to(f64::from(x1) + o * nx, f64::from(y1) + o * ny);
        }
        self.context.stroke();
        self.context.set_global_alpha(1.0);
        Ok(())
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
        self.stroked(|b| b.inner.draw_circle(center, radius, style, fill))
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
