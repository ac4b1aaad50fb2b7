//! Commands and snapshots: the element's one conversation with a figure's state.
//!
//! `Viz.edit(command, views, fmt, fields)` applies one edit and answers, in the same call, everything the element
//! shows that the edit may have changed: per view the natural size of its canvas and a key of what it draws (the key
//! changes exactly when the drawing's input does, so the element repaints only those canvases), the trace fields the
//! element's tables read (the breakdown's and the steps' rows), and the config. `Viz.snapshot(…)` answers the same
//! for the state as it is (after a rebuild, a load). One typed digit is then one `edit` and one `render` per changed
//! canvas: www/element/index.js (`_apply`, the snapshot contract) reads nothing else. The sizes are measured by
//! `snapshot` only (a build, and once an edit settles): an edit's canvases keep theirs.

use super::{copied, field_object, js_err, set, Viz};
use crate::heatmap::{self, Fmt};
use crate::views::View;
use js_sys::{Array, Object, Reflect};
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
    let mut words = data.chunks_exact(4);
    for w in &mut words {
        for (lane, v) in lanes.iter_mut().zip(w) {
            *lane = (*lane ^ v.to_bits()).wrapping_mul(0x0100_0000_01b3);
        }
    }
    for v in words.remainder() {
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
    format!("{:016x}", h.0)
}

/// An edit `Viz.edit` takes, a JS object: `{value: [matrix, row, col, x]}` (one input value, x as typed: -0 stays
/// -0), `{query: i}`, or `{fields: {…}}` (`setFields`: the object as JSON).
enum Command {
    Value(String, usize, usize, f64),
    Query(usize),
    Fields(String),
}

impl Command {
    fn parse(command: &JsValue) -> Result<Command, String> {
        let get = |k: &str| Reflect::get(command, &k.into()).ok().filter(|v| !v.is_undefined());
        let index = |x: JsValue| x.as_f64().filter(|i| i.fract() == 0.0 && *i >= 0.0).map(|i| i as usize);
        let parsed = if let Some(v) = get("value") {
            let a = Array::from(&v);
            match (a.length(), a.get(0).as_string(), index(a.get(1)), index(a.get(2)), a.get(3).as_f64()) {
                (4, Some(m), Some(r), Some(c), Some(x)) => Some(Command::Value(m, r, c, x)),
                _ => None,
            }
        } else if let Some(q) = get("query") {
            index(q).map(Command::Query)
        } else if let Some(f) = get("fields") {
            js_sys::JSON::stringify(&f).ok().and_then(|t| t.as_string()).map(Command::Fields)
        } else {
            None
        };
        parsed.ok_or_else(|| "not an edit the figure knows (value, query or fields)".to_string())
    }
}

#[wasm_bindgen]
impl Viz {
    /// Applies `command` (see [`Command`]) and returns the snapshot of the new state (see `snapshot`) without the
    /// views' sizes (a canvas keeps its size while edits go on; measuring a big view lays it out: ~2 ms); throws the
    /// core's message and changes nothing when the edit is refused. A one-value edit's snapshot has no `config` but
    /// `value`: [matrix, row, col, x], the one number that changed in it.
    pub fn edit(
        &mut self,
        command: JsValue,
        views: Vec<String>,
        fmt: Option<String>,
        fields: Vec<String>,
        parts: Option<Vec<String>>,
    ) -> Result<Object, JsError> {
        let value = match Command::parse(&command).map_err(js_err)? {
            Command::Value(matrix, row, col, x) => {
                self.set_value(&matrix, row, col, x)?;
                Some((matrix, row, col, x))
            }
            Command::Query(q) => {
                self.set_query(q)?;
                None
            }
            Command::Fields(f) => {
                self.set_fields(&f)?;
                None
            }
        };
        let out = self.snapshot_of(&views, fmt, &fields, &parts.unwrap_or_default(), value.is_none(), false)?;
        if let Some((matrix, row, col, x)) = value {
            let v: Array =
                [JsValue::from_str(&matrix), (row as f64).into(), (col as f64).into(), x.into()].into_iter().collect();
            set(&out, "value", &v);
        }
        Ok(out)
    }

    /// What the element shows of the state now: `{views: {name: {size: [w, h], key}}, fields: {name: {shape, data}},
    /// shapes: {name: shape} (every trace field's), panels: [name] (the variant and modern panels the config uses), parts: the
    /// variants and modern panels' model for the panels `parts` names (panels::panels), config}`. `views`: the canvases' views — each one's natural CSS size for its numbers written with `fmt` and the
    /// key of what it draws (a name that is no view now is left out); `fields`: the trace fields to send whole (one
    /// that does not exist is left out; `name#i`: row i of it alone, `name#q` the followed query's row); `config`: the config as JSON, without a model's stack.
    pub fn snapshot(
        &self,
        views: Vec<String>,
        fmt: Option<String>,
        fields: Vec<String>,
        parts: Option<Vec<String>>,
    ) -> Result<Object, JsError> {
        self.snapshot_of(&views, fmt, &fields, &parts.unwrap_or_default(), true, true)
    }

    /// `describe` of several views at once (the text alternatives, rebuilt when an edit settles): one entry per
    /// view, null for a view `fmt` cannot write or that is no view now.
    #[wasm_bindgen(js_name = describeViews)]
    pub fn describe_views(&self, views: Vec<String>, fmt: Option<String>) -> Array {
        views.iter().map(|v| self.describe(v, fmt.clone()).map_or(JsValue::NULL, JsValue::from)).collect()
    }

    fn snapshot_of(
        &self,
        names: &[String],
        fmt: Option<String>,
        fields: &[String],
        parts: &[String],
        config: bool,
        sizes: bool,
    ) -> Result<Object, JsError> {
        let fmt = fmt.map_or(Ok(Fmt::default()), |f| Fmt::parse(&f).map_err(js_err))?;
        let out = Object::new();
        let views = Object::new();
        for name in names {
            let Ok(view) = self.view(name) else { continue };
            let entry = Object::new();
            if sizes {
                let (w, h) = heatmap::preferred_size(&view, fmt);
                let size: Array = [JsValue::from(w), JsValue::from(h)].into_iter().collect();
                set(&entry, "size", &size);
            }
            set(&entry, "key", &view_key(&view).into());
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
            } else if let Some(f) = self.session.trace().field(name) {
                set(&trace, name, &field_object(&f, copied));
            }
        }
        set(&out, "fields", &trace);
        // Every field's shape (no values): the outlines and hit-testing read a few of them.
        let shapes = Object::new();
        for f in self.session.trace().fields() {
            let shape: Array = f.shape.iter().map(|&s| JsValue::from(s as f64)).collect();
            set(&shapes, &f.name, &shape);
        }
        set(&out, "shapes", &shapes);
        // The panels this config uses (panels::used, views::modern_panels): the element shows them without asking.
        let used = crate::panels::used(self.config()).into_iter().chain(crate::views::modern_panels(self.config()));
        let panels: Array = used.map(JsValue::from_str).collect();
        set(&out, "panels", &panels);
        // What the variants and modern panels show, for the parts the element asks (panels::panels).
        let model = crate::panels::panels(self.config(), self.session.trace(), parts).to_string();
        set(&out, "parts", &js_sys::JSON::parse(&model).map_err(|_| js_err("the panels' model is not JSON"))?);
        if config {
            set(&out, "config", &self.config_json_without_stack().into());
        }
        Ok(out)
    }
}
