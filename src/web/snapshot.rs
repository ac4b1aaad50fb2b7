//! Commands and snapshots: the element's one conversation with a figure's state.
//!
//! `Viz.edit(command, request)` applies one edit and answers, in the same call, everything the element shows that the
//! edit may have changed: per view a key of what it draws (the key changes exactly when the drawing's input does, so
//! the element repaints only those canvases), the trace fields a part asks for, and what every part the element has
//! built shows (shown::parts). `Viz.ask({kind: "snapshot", …})` answers the same for the state as it is (after a
//! rebuild, a load), with each view's natural size. One typed digit is then one `edit` and one `draw` per changed
//! canvas: www/element/index.js (`_apply`, the snapshot contract) reads nothing else. The sizes are measured by the
//! asked snapshot only (a build, and once an edit settles): an edit's canvases keep theirs.

use super::args::Args;
use super::draw::parse_fmt;
use super::{copied, field_object, js_err, set, Viz};
use crate::figure::Edit;
use crate::heatmap;
use crate::views::View;
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

/// FNV-1a, 64 bits: what a view draws from, as one number.
struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= u64::from(x);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(0x0100_0000_01b3);
    }

    /// A string and its length, so that ("ab", "c") and ("a", "bc") differ.
    fn text(&mut self, s: &str) {
        self.bytes(&(s.len() as u64).to_le_bytes());
        self.bytes(s.as_bytes());
    }
}

/// The key of what `view` draws: its title, labels, default palette, shape and every value's bits.
pub(crate) fn view_key(view: &View) -> String {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    for s in [view.name.as_str(), view.title.as_str(), view.palette] {
        h.text(s);
    }
    for labels in [&view.row_labels[..], &view.col_labels[..]] {
        h.bytes(&(labels.len() as u64).to_le_bytes());
        for l in labels {
            h.text(l);
        }
    }
    let (rows, cols) = view.values.shape();
    h.bytes(&(rows as u64).to_le_bytes());
    h.bytes(&(cols as u64).to_le_bytes());
    // A word a value (not a byte: 8× fewer steps at n = 512), in four lanes folded in at the end: one lane's chain of
    // dependent multiplies was most of an n = 1024 scrub's keys. Each step is a bijection of its lane's state given
    // the word, and so is each fold of the state given a lane, so two grids that differ in one value never share a key.
    let data = view.values.data();
    let mut lanes = [h.0, !h.0, h.0.rotate_left(21), h.0.rotate_left(42)];
    crate::math::kernels::fnv_lanes(&mut lanes, data);
    for v in data.chunks_exact(4).remainder() {
        h.word(v.to_bits());
    }
    for lane in lanes {
        h.word(lane);
    }
    // The marks (the mask view's window and sinks), so a window moved repaints even where the title would not say it.
    h.word(view.marks.cells.len() as u64);
    for (k, _) in view.marks.cells.iter().enumerate().filter(|(_, m)| **m) {
        h.word(k as u64);
    }
    h.word(u64::MAX);
    for &c in &view.marks.columns {
        h.word(c as u64);
    }
    // The cells the last edit changed: a view whose marks come or go repaints, one that stays unchanged does not.
    h.word(u64::MAX);
    for (k, _) in view.marks.changed.iter().enumerate().filter(|(_, m)| **m) {
        h.word(k as u64);
    }
    format!("{:016x}", h.0)
}

/// What the element shows, as it asks it in a snapshot: `{views, fmt, fields, parts, windows}` (see
/// [`Viz::snapshot_of`]; `parts` and `windows`: `shown::Asked`).
pub(crate) struct Request {
    views: Vec<String>,
    fmt: Option<String>,
    fields: Vec<String>,
    parts: crate::shown::Asked,
}

impl Request {
    pub(crate) fn parse(request: &JsValue) -> Result<Request, JsError> {
        let a = Args { object: request, what: "a snapshot request" };
        Ok(Request {
            views: a.strings("views")?,
            fmt: a.opt_string("fmt"),
            fields: a.strings("fields")?,
            parts: crate::shown::Asked {
                parts: a.strings("parts")?,
                windows: a
                    .get("windows")
                    .and_then(|w| js_sys::JSON::stringify(&w).ok())
                    .and_then(|t| t.as_string())
                    .and_then(|t| crate::config::json::parse(&t).ok())
                    .unwrap_or_default(),
            },
        })
    }
}

impl Viz {
    /// Applies `edit` and, when `request` is an object, returns the snapshot of the new state (see `snapshot_of`)
    /// without the views' sizes (a canvas keeps its size while edits go on; measuring a big view lays it out: ~2 ms);
    /// without one, `{}`. Throws the core's message and changes nothing when the edit is refused. A one-value edit's
    /// snapshot says `value`: [matrix, row, col, x], the one number that changed; a restored state's says `naive`.
    pub(super) fn edited(&mut self, edit: Edit, request: &JsValue) -> Result<Object, JsError> {
        let value = match &edit {
            Edit::Value { matrix, row, col, value } => Some((matrix.clone(), *row, *col, *value)),
            _ => None,
        };
        let naive = self.figure.apply(edit).map_err(js_err)?;
        let out = if request.is_object() { self.snapshot_of(&Request::parse(request)?, false)? } else { Object::new() };
        if let (Some((matrix, row, col, x)), true) = (value, request.is_object()) {
            let v: Array =
                [JsValue::from_str(&matrix), (row as f64).into(), (col as f64).into(), x.into()].into_iter().collect();
            set(&out, "value", &v);
        }
        if let Some(naive) = naive {
            set(&out, "naive", &naive.into());
        }
        Ok(out)
    }

    /// What the element shows of the state now: `{views: {name: {size: [w, h], key, status}}, fields: {name: {shape, data}},
    /// shapes: {name: shape} (every trace field's), panels: [name] (the variant and modern panels the config uses),
    /// parts: what the element's parts show (shown::parts: the facts and each asked part's model)}`. `views`: the
    /// canvases' views — each one's natural CSS size for its numbers written with `fmt` (when `sizes`) and the key of
    /// what it draws (a name that is no view now is left out), and after an edit its status (src/changed.rs: "3 of 16
    /// changed", "unchanged"); `fields`: the trace fields to send whole (one that does
    /// not exist is left out; `name#i`: row i of it alone, `name#q` the followed query's row). No config: the element
    /// keeps none.
    pub(super) fn snapshot_of(&self, request: &Request, sizes: bool) -> Result<Object, JsError> {
        let Request { views: names, fmt, fields, parts } = request;
        let fmt = parse_fmt(fmt.clone())?;
        let out = Object::new();
        let views = Object::new();
        for name in names {
            let Ok((view, status)) = self.view_status(name) else { continue };
            let entry = Object::new();
            if sizes {
                let (w, h) = heatmap::preferred_size(&view, fmt);
                let size: Array = [JsValue::from(w), JsValue::from(h)].into_iter().collect();
                set(&entry, "size", &size);
            }
            set(&entry, "key", &view_key(&view).into());
            if let Some(status) = status {
                set(&entry, "status", &status.into());
            }
            set(&views, name, &entry);
        }
        set(&out, "views", &views);
        let trace = Object::new();
        for name in fields {
            // `name#i`: row i of a matrix field alone (the breakdown reads one query's row of n × n fields);
            // `name#q`: the followed query's row, whichever it is after the edit.
            if let Some((field, i)) = name.split_once('#') {
                let i = if i == "q" { Ok(self.config().query) } else { i.parse::<usize>() };
                let Ok(i) = i else { continue };
                if let Some(row) = self.row(field, i) {
                    let entry = Object::new();
                    let shape: Array = [JsValue::from(row.length())].into_iter().collect();
                    set(&entry, "shape", &shape);
                    set(&entry, "data", &row);
                    set(&trace, name, &entry);
                }
            } else if let Some(f) = self.figure.trace().field(name) {
                set(&trace, name, &field_object(&f, copied));
            }
        }
        set(&out, "fields", &trace);
        // Every field's shape (no values): the outlines and hit-testing read a few of them.
        let shapes = Object::new();
        for f in self.figure.trace().fields() {
            let shape: Array = f.shape.iter().map(|&s| JsValue::from(s as f64)).collect();
            set(&shapes, &f.name, &shape);
        }
        set(&out, "shapes", &shapes);
        // The panels this config uses (panels::used, views::modern_panels): the element shows them without asking.
        let used = crate::panels::used(self.config()).into_iter().chain(crate::views::modern_panels(self.config()));
        let panels: Array = used.map(JsValue::from_str).collect();
        set(&out, "panels", &panels);
        // What the element's parts show besides the heatmaps, for the parts it asks (shown::parts).
        let model = crate::shown::parts(self.config(), self.figure.trace(), parts).to_string();
        set(&out, "parts", &js_sys::JSON::parse(&model).map_err(|_| js_err("the parts' model is not JSON"))?);
        Ok(out)
    }
}
