//! What a model's weights figure (`mechanism: "weights"`) answers (`Viz.ask`): its shape, the grid of every
//! layer × head as one RGBA image, the selected head's line view (its size, its SVG, the token under a pointer), the
//! panel's words (`heads::panel`), and the note over a head whose rows do not sum to 1. Its lines are drawn by draw.rs; its head is picked by an edit.

use super::draw::theme;
use super::{js_err, set, Viz};
use crate::attention::Trace;
use crate::config::Mechanism;
use crate::heatmap::format::format_g;
use crate::heatmap::model::{grid, line_at, lines_size, lines_svg, LINES_MAX_TOKENS};
use crate::weights::{Stack, ROW_SUM_TOLERANCE};
use js_sys::{Object, Uint8ClampedArray};
use wasm_bindgen::prelude::*;

impl Viz {
    /// [layers, heads, n, m] of a model's weights, or `None` for other figures.
    pub(super) fn model_shape(&self) -> Option<Vec<u32>> {
        self.stack().map(|s| s.shape().iter().map(|&x| x as u32).collect())
    }

    /// Every layer × head as `thumb`-pixel squares `gap` pixels apart (rows are layers):
    /// `{width, height, data, thumb, gap}` with `data` RGBA for an `ImageData`, and the thumbnail size and gap
    /// drawn (smaller than asked when the grid would pass the core's raster bounds).
    pub(super) fn model_grid(
        &self,
        thumb: u32,
        gap: u32,
        dark: bool,
        palette: Option<String>,
    ) -> Result<Object, JsError> {
        let stack = self.stack().ok_or_else(|| js_err("this figure has no model weights"))?;
        let thumb = thumb.clamp(4, 1024) as usize;
        let g = grid(stack, thumb, gap.min(64) as usize, palette.as_deref(), &theme(dark));
        let out = Object::new();
        set(&out, "width", &g.width.into());
        set(&out, "height", &g.height.into());
        set(&out, "data", &Uint8ClampedArray::from(&g.rgba[..]));
        set(&out, "thumb", &(g.thumb as u32).into());
        set(&out, "gap", &(g.gap as u32).into());
        Ok(out)
    }

    /// The selected head's line view size in CSS pixels, or `None` when it has more than `LINES_MAX_TOKENS` tokens a
    /// side (the lines would merge into a band).
    pub(super) fn lines_size(&self) -> Option<(u32, u32)> {
        let [_, _, n, m] = self.stack()?.shape();
        (n.max(m) <= LINES_MAX_TOKENS).then(|| lines_size(n, m))
    }

    /// The selected head's line view as a standalone SVG.
    pub(super) fn lines_svg(&self, dark: bool, focus: Option<u32>) -> Result<String, JsError> {
        let Trace::Weights(t) = self.figure.trace() else {
            return Err(js_err("this figure has no model weights"));
        };
        Ok(lines_svg(&t.selected, &t.tokens, &t.key_tokens, focus.map(|f| f as usize), &theme(dark)))
    }

    /// The token under a pointer `y` CSS pixels below the top of the line view: a query's index on the `left`
    /// side, a key's on the right; `None` outside the lists.
    pub(super) fn line_at(&self, y: f64, left: bool) -> Option<u32> {
        let [_, _, n, m] = self.stack()?.shape();
        line_at(y, if left { n } else { m }).map(|i| i as u32)
    }

    /// What the figure says above head (`layer`, `head`)'s heatmap when its rows do not sum to 1 (they are
    /// shown as given), or `None` when they do.
    pub(super) fn row_sum_note(&self, layer: usize, head: usize) -> Option<String> {
        let stack = self.stack()?;
        let [layers, heads, _, _] = stack.shape();
        if layer >= layers || head >= heads {
            return None;
        }
        let off = stack.summary(layer, head).row_sum_error;
        (off > ROW_SUM_TOLERANCE).then(|| {
            format!(
                "The rows of layer {layer}, head {head} do not sum to 1 (off by up to {}): the weights are shown as \
                 given, not renormalised; the summaries use each row's shares.",
                format_g(off, 3)
            )
        })
    }

    /// The model panel's words for the panel in state `view` (`heads::panel`), or `None` for other figures.
    pub(super) fn model_panel(&self, view: &crate::heads::View) -> Option<serde_json::Value> {
        match (self.figure.trace(), &self.config().mechanism) {
            (Trace::Weights(t), Mechanism::Weights { layer, head, .. }) => {
                Some(crate::heads::panel(t, [*layer, *head], view))
            }
            _ => None,
        }
    }

    fn stack(&self) -> Option<&Stack> {
        match self.figure.trace() {
            Trace::Weights(t) => Some(&t.attention),
            _ => None,
        }
    }
}
