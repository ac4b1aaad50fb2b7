//! `Viz.ask`: every question the element asks of a figure beyond an edit's snapshot, read in one place
//! ([`Question::parse`]) and answered without changing the figure. A question is `{kind, …its arguments}`:
//!
//! - the state: `snapshot` {views, fmt, fields, parts} (with each view's natural size: see snapshot.rs),
//!   `config` {withoutStack} (JSON text), `authored` (the author's config, JSON text), `trace`, `field` {name},
//!   `row` {name, i}, `views`, `resolveViews` {requested, panels};
//! - an import (command.rs `import_job`): `importPlan` {found, target, source} → `{error}` (the refusal, word for
//!   word), or `{dialog: {title, what, fix, resize} | null, message}` (the dialog to ask first when other inputs must
//!   change shape; what the reader is told once it is applied), with `into`, the inputs it fills;
//! - a view drawn on a canvas of `width` × `height` device pixels at `dpr`: `cellAt` {view, width, height, dpr, x,
//!   y, fmt, key}, `cellRect` {view, width, height, dpr, i, j, fmt, key}, `numbersFont` {view, width, height, fmt},
//!   `preferredSize` {view, fmt}, `palette` {view, palette};
//! - what a cell links to: `links` {view, i, j} → `{view: [kind, r0, c0, r1, c1, …]}`, the outlines a hovered,
//!   tapped or cursor cell draws on each view (`links::links`);
//! - a view as text: `cellText` {view, i, j, fmt} (with its tooltip `tip` and a masked key's `reason`), `cellTexts`
//!   {view, r0, r1, c0, c1, fmt}, `describeViews` {views, fmt};
//! - the figure out of the page: `svg` {view, palette, fmt, contrast}, `numpy`, `shareState` {naive, json},
//!   `shareStateAtLeast`, `savedState` {naive};
//! - an input grid: `blockFit` {matrix, row, col, rows, cols} (why a pasted block cannot go there, or nothing);
//! - the panels: `maskCell` {i, j} (the mask cell's words), `validLens` {texts, row, step} or {list} (what is typed
//!   in the valid-length fields: the edit or the message, `panels::typed_lens`); a weights figure's `modelShape`,
//!   `modelGrid` {thumb, gap, dark, palette}, `modelPanel` {metric, low, all, cursor, over, token, rank} (the panel's
//!   words, `heads::panel`), `rowSumNote` {layer, head}, `linesSize`, `linesSvg` {dark, focus}, `lineAt` {y, left}
//!   (model.rs);
//! - `usable` (true: a figure a trapped call left borrowed throws instead), `forceInternalError` (a test hook).
//!
//! An answer the question has none for (a cell off the grid, a view that is not one now) is `undefined`. The figure
//! core (the build without `full`) answers neither an import's plan, the exports (`svg`, `numpy`), the share and saved
//! states nor a weights figure's model questions: it says they are not questions it answers.

use super::args::Args;
use super::draw::parse_fmt;
use super::snapshot::Request;
use super::{copied, field_object, js_err, set, trace_object, Viz};
use crate::config::{Mask, Mechanism};
#[cfg(feature = "full")]
use crate::export;
use crate::heatmap::{self, Colors};
use crate::panels::{self, TypedLens};
#[cfg(feature = "full")]
use crate::share;
use crate::views;
use js_sys::{Array, Float64Array, Object};
use wasm_bindgen::prelude::*;

/// A question `Viz.ask` answers.
pub(crate) enum Question {
    Snapshot(Request),
    Config {
        without_stack: bool,
    },
    Authored,
    Trace,
    Field(String),
    Row {
        name: String,
        i: usize,
    },
    Views,
    ResolveViews {
        requested: Vec<String>,
        panels: Vec<String>,
    },
    #[cfg(feature = "full")]
    ImportPlan(JsValue),
    CellAt {
        view: String,
        size: Canvas,
        x: f64,
        y: f64,
        key: Option<String>,
    },
    CellRect {
        view: String,
        size: Canvas,
        i: usize,
        j: usize,
        key: Option<String>,
    },
    NumbersFont {
        view: String,
        size: Canvas,
    },
    PreferredSize {
        view: String,
        fmt: Option<String>,
    },
    Palette {
        view: String,
        palette: Option<String>,
    },
    CellText {
        view: String,
        i: usize,
        j: usize,
        fmt: Option<String>,
    },
    Links {
        view: String,
        i: usize,
        j: usize,
    },
    CellTexts {
        view: String,
        rows: (usize, usize),
        cols: (usize, usize),
        fmt: Option<String>,
    },
    DescribeViews {
        views: Vec<String>,
        fmt: Option<String>,
    },
    #[cfg(feature = "full")]
    Svg {
        view: String,
        palette: Option<String>,
        fmt: Option<String>,
        contrast: Option<String>,
    },
    #[cfg(feature = "full")]
    NumPy,
    #[cfg(feature = "full")]
    ShareState {
        naive: bool,
        json: bool,
    },
    #[cfg(feature = "full")]
    ShareStateAtLeast,
    #[cfg(feature = "full")]
    SavedState {
        naive: bool,
    },
    BlockFit {
        matrix: String,
        at: (usize, usize),
        size: (usize, usize),
    },
    MaskCell {
        i: usize,
        j: usize,
    },
    ValidLens(TypedLens),
    #[cfg(feature = "full")]
    ModelShape,
    #[cfg(feature = "full")]
    ModelGrid {
        thumb: u32,
        gap: u32,
        dark: bool,
        palette: Option<String>,
    },
    #[cfg(feature = "full")]
    ModelPanel(crate::heads::View),
    #[cfg(feature = "full")]
    RowSumNote {
        layer: usize,
        head: usize,
    },
    #[cfg(feature = "full")]
    LinesSize,
    #[cfg(feature = "full")]
    LinesSvg {
        dark: bool,
        focus: Option<u32>,
    },
    #[cfg(feature = "full")]
    LineAt {
        y: f64,
        left: bool,
    },
    Usable,
    ForceInternalError,
}

/// A canvas a view is laid out on: its size in device pixels, the dpr it is drawn at, and the fmt of its numbers.
pub(crate) struct Canvas {
    width: u32,
    height: u32,
    dpr: f64,
    fmt: Option<String>,
}

impl Question {
    pub(crate) fn parse(question: &JsValue) -> Result<Question, JsError> {
        let kind = Args { object: question, what: "a question" }.string("kind")?;
        let a = Args { object: question, what: &kind };
        let canvas = || -> Result<Canvas, JsError> {
            let dpr = a.get("dpr").and_then(|d| d.as_f64()).unwrap_or(1.0);
            Ok(Canvas { width: a.uint("width")?, height: a.uint("height")?, dpr, fmt: a.opt_string("fmt") })
        };
        Ok(match kind.as_str() {
            "snapshot" => Question::Snapshot(Request::parse(question)?),
            "config" => Question::Config { without_stack: a.flag("withoutStack") },
            "authored" => Question::Authored,
            "trace" => Question::Trace,
            "field" => Question::Field(a.string("name")?),
            "row" => Question::Row { name: a.string("name")?, i: a.index("i")? },
            "views" => Question::Views,
            "resolveViews" => {
                Question::ResolveViews { requested: a.strings("requested")?, panels: a.strings("panels")? }
            }
            #[cfg(feature = "full")]
            "importPlan" => Question::ImportPlan(question.clone()),
            "cellAt" => {
                let (x, y) = (a.number("x")?, a.number("y")?);
                Question::CellAt { view: a.string("view")?, size: canvas()?, x, y, key: a.opt_string("key") }
            }
            "cellRect" => {
                let (i, j) = (a.index("i")?, a.index("j")?);
                Question::CellRect { view: a.string("view")?, size: canvas()?, i, j, key: a.opt_string("key") }
            }
            "numbersFont" => Question::NumbersFont { view: a.string("view")?, size: canvas()? },
            "preferredSize" => Question::PreferredSize { view: a.string("view")?, fmt: a.opt_string("fmt") },
            "palette" => Question::Palette { view: a.string("view")?, palette: a.opt_string("palette") },
            "cellText" => {
                let (i, j) = (a.index("i")?, a.index("j")?);
                Question::CellText { view: a.string("view")?, i, j, fmt: a.opt_string("fmt") }
            }
            "links" => Question::Links { view: a.string("view")?, i: a.index("i")?, j: a.index("j")? },
            "cellTexts" => {
                let (rows, cols) = ((a.index("r0")?, a.index("r1")?), (a.index("c0")?, a.index("c1")?));
                Question::CellTexts { view: a.string("view")?, rows, cols, fmt: a.opt_string("fmt") }
            }
            "describeViews" => Question::DescribeViews { views: a.strings("views")?, fmt: a.opt_string("fmt") },
            #[cfg(feature = "full")]
            "svg" => Question::Svg {
                view: a.string("view")?,
                palette: a.opt_string("palette"),
                fmt: a.opt_string("fmt"),
                contrast: a.opt_string("contrast"),
            },
            #[cfg(feature = "full")]
            "numpy" => Question::NumPy,
            #[cfg(feature = "full")]
            "shareState" => Question::ShareState { naive: a.flag("naive"), json: a.flag("json") },
            #[cfg(feature = "full")]
            "shareStateAtLeast" => Question::ShareStateAtLeast,
            #[cfg(feature = "full")]
            "savedState" => Question::SavedState { naive: a.flag("naive") },
            "blockFit" => Question::BlockFit {
                matrix: a.string("matrix")?,
                at: (a.index("row")?, a.index("col")?),
                size: (a.index("rows")?, a.index("cols")?),
            },
            "maskCell" => Question::MaskCell { i: a.index("i")?, j: a.index("j")? },
            "validLens" => Question::ValidLens(match a.opt_string("list") {
                Some(list) => TypedLens::List(list),
                None => TypedLens::Fields {
                    texts: a.strings("texts")?,
                    row: a.index("row")?,
                    step: a.get("step").and_then(|s| s.as_f64()).map_or(0, |s| (s > 0.0) as i32 - (s < 0.0) as i32),
                },
            }),
            #[cfg(feature = "full")]
            "modelShape" => Question::ModelShape,
            #[cfg(feature = "full")]
            "modelGrid" => {
                let (thumb, gap) = (a.uint("thumb")?, a.uint("gap")?);
                Question::ModelGrid { thumb, gap, dark: a.flag("dark"), palette: a.opt_string("palette") }
            }
            #[cfg(feature = "full")]
            "modelPanel" => Question::ModelPanel(model_view(&a)?),
            #[cfg(feature = "full")]
            "rowSumNote" => Question::RowSumNote { layer: a.index("layer")?, head: a.index("head")? },
            #[cfg(feature = "full")]
            "linesSize" => Question::LinesSize,
            #[cfg(feature = "full")]
            "linesSvg" => Question::LinesSvg { dark: a.flag("dark"), focus: a.opt_uint("focus")? },
            #[cfg(feature = "full")]
            "lineAt" => Question::LineAt { y: a.number("y")?, left: a.flag("left") },
            "usable" => Question::Usable,
            "forceInternalError" => Question::ForceInternalError,
            other => return Err(js_err(format!("not a question the figure answers: {}", crate::text::quote(other)))),
        })
    }
}

#[cfg(feature = "full")]
/// The model panel's state as model.js sends it: `{metric, low, all, cursor, over, token, rank}`, `cursor` and `over` a
/// `[layer, head]` or null, `token` `{kind: "row" | "col", index}` or null.
fn model_view(a: &Args) -> Result<crate::heads::View, JsError> {
    let pair = |key: &str| -> Result<Option<[usize; 2]>, JsError> {
        let Some(v) = a.get(key).filter(|v| !v.is_null()) else { return Ok(None) };
        let at = Args { object: &v, what: key };
        Ok(Some([at.index("0")?, at.index("1")?]))
    };
    let token = match a.get("token").filter(|v| !v.is_null()) {
        Some(v) => {
            let t = Args { object: &v, what: "token" };
            Some((t.string("kind")? == "row", t.index("index")?))
        }
        None => None,
    };
    Ok(crate::heads::View {
        metric: a.string("metric")?,
        low: a.flag("low"),
        all: a.flag("all"),
        cursor: pair("cursor")?,
        over: pair("over")?,
        token,
        rank: a.flag("rank"),
    })
}

/// An optional answer: `undefined` for none.
fn maybe<T: Into<JsValue>>(answer: Option<T>) -> JsValue {
    answer.map_or(JsValue::UNDEFINED, Into::into)
}

/// Numbers as a JS array.
fn numbers<T: Into<f64>>(values: impl IntoIterator<Item = T>) -> JsValue {
    values.into_iter().map(|x| JsValue::from(x.into())).collect::<Array>().into()
}

/// A model's JSON as a plain JS object.
fn json(value: &serde_json::Value) -> Result<JsValue, JsError> {
    js_sys::JSON::parse(&value.to_string()).map_err(|_| js_err("an answer that is not JSON"))
}

fn strings(values: &[String]) -> Array {
    values.iter().map(|s| JsValue::from_str(s)).collect()
}

impl Viz {
    pub(super) fn answer(&mut self, question: Question) -> Result<JsValue, JsError> {
        Ok(match question {
            Question::Snapshot(request) => self.snapshot_of(&request, true)?.into(),
            Question::Config { without_stack: true } => self.config().to_value_without_stack().to_string().into(),
            Question::Config { without_stack: false } => self.config().to_value().to_string().into(),
            Question::Authored => self.figure.authored_config().to_value().to_string().into(),
            Question::Trace => trace_object(self.config(), self.figure.trace()).into(),
            Question::Field(name) => maybe(self.figure.trace().field(&name).map(|f| field_object(&f, copied))),
            Question::Row { name, i } => maybe(self.row(&name, i)),
            Question::Views => strings(&views::names(self.config())).into(),
            Question::ResolveViews { requested, panels } => self.resolve_views(&requested, panels).into(),
            #[cfg(feature = "full")]
            Question::ImportPlan(job) => self.import_plan(&job)?,
            Question::CellAt { view, size, x, y, key } => {
                let layout = self.kept_layout(&view, key, size.width, size.height, size.dpr, size.fmt)?;
                maybe(layout.and_then(|l| l.cell_at(x, y)).map(|(i, j)| numbers([i as u32, j as u32])))
            }
            Question::CellRect { view, size, i, j, key } => {
                let layout = self.kept_layout(&view, key, size.width, size.height, size.dpr, size.fmt)?;
                let rect = layout.filter(|l| i < l.rows && j < l.cols).map(|l| l.cell(i, j));
                maybe(rect.map(|r| numbers([r.x0, r.y0, r.x1, r.y1])))
            }
            Question::NumbersFont { view, size } => self.numbers_font(&view, size)?.into(),
            Question::PreferredSize { view, fmt } => {
                let (w, h) = heatmap::preferred_size(&self.view(&view)?, parse_fmt(fmt)?);
                numbers([w, h])
            }
            Question::Palette { view, palette } => {
                Colors::of_view(&self.view(&view)?, palette.as_deref()).palette_name().into()
            }
            Question::CellText { view, i, j, fmt } => maybe(self.cell_text(&view, i, j, fmt)?),
            Question::Links { view, i, j } => self.links(&view, i, j).into(),
            Question::CellTexts { view, rows, cols, fmt } => {
                let texts = heatmap::cell_texts(&self.view(&view)?, rows.0..rows.1, cols.0..cols.1, parse_fmt(fmt)?);
                strings(&texts.map_err(js_err)?).into()
            }
            Question::DescribeViews { views, fmt } => {
                let described =
                    views.iter().map(|v| self.describe(v, fmt.clone()).map_or(JsValue::NULL, JsValue::from));
                described.collect::<Array>().into()
            }
            #[cfg(feature = "full")]
            Question::Svg { view, palette, fmt, contrast } => self.to_svg(&view, palette, fmt, contrast)?.into(),
            #[cfg(feature = "full")]
            Question::NumPy => export::numpy_snippet(self.config(), self.figure.random()).into(),
            #[cfg(feature = "full")]
            Question::ShareState { naive, json: true } => share::state_json(&self.figure.share_state(naive)).into(),
            #[cfg(feature = "full")]
            Question::ShareState { naive, json: false } => share::encode(&self.figure.share_state(naive)).into(),
            #[cfg(feature = "full")]
            Question::ShareStateAtLeast => (share::at_least(self.config()) as f64).into(),
            #[cfg(feature = "full")]
            Question::SavedState { naive } => self.figure.saved_state(naive).map_err(js_err)?.into(),
            Question::BlockFit { matrix, at, size } => {
                maybe(self.config().block_refused(&matrix, at.0, at.1, size.0, size.1))
            }
            Question::MaskCell { i, j } => panels::mask_cell_words(self.config(), i, j).into(),
            Question::ValidLens(typed) => json(&panels::typed_lens(self.config(), &typed))?,
            #[cfg(feature = "full")]
            Question::ModelShape => maybe(self.model_shape().map(numbers)),
            #[cfg(feature = "full")]
            Question::ModelGrid { thumb, gap, dark, palette } => self.model_grid(thumb, gap, dark, palette)?.into(),
            #[cfg(feature = "full")]
            Question::ModelPanel(view) => maybe(self.model_panel(&view).map(|v| json(&v)).transpose()?),
            #[cfg(feature = "full")]
            Question::RowSumNote { layer, head } => maybe(self.row_sum_note(layer, head)),
            #[cfg(feature = "full")]
            Question::LinesSize => maybe(self.lines_size().map(|(w, h)| numbers([w, h]))),
            #[cfg(feature = "full")]
            Question::LinesSvg { dark, focus } => self.lines_svg(dark, focus)?.into(),
            #[cfg(feature = "full")]
            Question::LineAt { y, left } => maybe(self.line_at(y, left)),
            Question::Usable => true.into(),
            Question::ForceInternalError => panic!("forced internal error in a figure (a test of the panic path)"),
        })
    }

    /// Row `i` of a matrix field (a vector field whole): the breakdown reads a few rows of n × d fields on every edit.
    pub(super) fn row(&self, name: &str, i: usize) -> Option<Float64Array> {
        let f = self.figure.trace().field(name)?;
        let data = match f.shape[..] {
            [_] => f.data,
            [rows, cols] if i < rows => &f.data[i * cols..(i + 1) * cols],
            _ => return None,
        };
        Some(Float64Array::from(data))
    }

    /// The outlines cell (i, j) of `view` links to, as a drawing's highlights per view: `{view: [kind, r0, c0, r1,
    /// c1, …]}`.
    fn links(&self, view: &str, i: usize, j: usize) -> Object {
        let mut lists: Vec<(String, Vec<u32>)> = vec![];
        for (name, h) in crate::links::links(self.config(), self.figure.trace(), view, i, j) {
            let at = lists.iter().position(|(v, _)| *v == name).unwrap_or_else(|| {
                lists.push((name, vec![]));
                lists.len() - 1
            });
            lists[at].1.extend([h.kind.code(), h.r0 as u32, h.c0 as u32, h.r1 as u32, h.c1 as u32]);
        }
        let out = Object::new();
        for (name, list) in lists {
            set(&out, &name, &numbers(list));
        }
        out
    }

    /// The font (CSS px) `view`'s numbers are written at on a canvas of that size, as `fmt` asks; 0 when they are
    /// hidden or need fewer digits there. The heads' small multiples are as many a row as keep it legible.
    fn numbers_font(&self, view: &str, size: Canvas) -> Result<f64, JsError> {
        let asked = parse_fmt(size.fmt.clone())?;
        let Some(layout) = self.layout(view, size.width, size.height, 1.0, size.fmt)? else { return Ok(0.0) };
        Ok(if layout.annotate && layout.fmt == asked { layout.annot_font_px } else { 0.0 })
    }

    /// How a `views` list shows on the figure now (see `views::resolve`): `{views, unknown}`, the heatmaps to draw in
    /// reading order and the names that are no view of the author's config nor of this one, and `message`, what to
    /// tell the author about those (null when there are none). `panels` are the caller's own names (neither drawn nor
    /// unknown); the modern panels (`views::MODERN_PANELS`) are known whatever the caller passes.
    fn resolve_views(&self, requested: &[String], panels: Vec<String>) -> Object {
        let mut panels: Vec<&str> = panels.iter().map(String::as_str).collect();
        let modern: Vec<&str> = views::MODERN_PANELS.iter().copied().filter(|p| !panels.contains(p)).collect();
        panels.extend(modern);
        let r = views::resolve(self.figure.authored_views(), self.config(), requested, &panels);
        let out = Object::new();
        set(&out, "views", &strings(&r.views));
        set(&out, "unknown", &strings(&r.unknown));
        let mut known = views::names(self.config());
        for p in &panels {
            if !known.iter().any(|k| k == p) {
                known.push(p.to_string());
            }
        }
        let message =
            [views::unknown_message(&r.unknown, &known), views::modern_panels_message(self.config(), requested)];
        let message: Vec<String> = message.into_iter().flatten().collect();
        set(&out, "message", &if message.is_empty() { JsValue::NULL } else { message.join(" ").into() });
        out
    }

    /// The view as text for screen readers: `{title, rowLabels, colLabels, cells, note}`, where `cells[i][j]` is the
    /// value as `fmt` writes it ("nan" for NaN; "(changed)" after it when the last edit changed it) and the title
    /// ends with the view's status after an edit ("(3 of 16 changed)"). Grids over 1024 cells give their first 32 × 32, and `note` says so
    /// ("first 32 of N rows and 32 of M columns"); else null.
    fn describe(&self, view: &str, fmt: Option<String>) -> Result<Object, JsError> {
        let fmt = parse_fmt(fmt)?;
        let (view, status) = self.view_status(view)?;
        let d = heatmap::describe(&view, fmt).map_err(js_err)?;
        let out = Object::new();
        let title = status.map_or(d.title.clone(), |s| format!("{} ({s})", d.title));
        set(&out, "title", &title.into());
        set(&out, "rowLabels", &strings(&d.row_labels));
        set(&out, "colLabels", &strings(&d.col_labels));
        let cells: Array = d.cells.iter().map(|row| JsValue::from(strings(row))).collect();
        set(&out, "cells", &cells);
        set(&out, "note", &d.note.map_or(JsValue::NULL, |n| n.into()));
        Ok(out)
    }

    /// Cell (i, j) of a view for a keyboard cursor or a tooltip: `{row, col, value, full}` (its row and column labels,
    /// the value as `fmt` writes it, the value as a number), or `None` off the grid.
    fn cell_text(&self, view: &str, i: usize, j: usize, fmt: Option<String>) -> Result<Option<Object>, JsError> {
        let fmt = parse_fmt(fmt)?;
        let Some(c) = heatmap::cell_text(&self.view(view)?, i, j, fmt).map_err(js_err)? else { return Ok(None) };
        let out = Object::new();
        // The tooltip as a whole (tables::tip), written by the core.
        set(&out, "tip", &crate::tables::tip(self.config(), self.figure.trace(), view, i, j, &c).into());
        set(&out, "row", &c.row.into());
        set(&out, "col", &c.col.into());
        set(&out, "value", &c.value.into());
        set(&out, "full", &c.full.into());
        // Why the key is masked (`Options::reason`'s bits), for a view whose rows are queries and columns keys: the
        // tooltip says it in words. Present only when some rule masks in this config.
        if let Some(code) = self.masked(view, i, j) {
            set(&out, "masked", &code.into());
            let query = if matches!(self.config().mechanism, Mechanism::Cross { .. }) { 0 } else { i };
            if let Some(why) = crate::tables::mask_reason(self.config(), query, j, code) {
                set(&out, "reason", &why.into());
            }
            // A key outside the window that a sink keeps open: said too (its code alone is 0, "attended").
            if self.config().options.sink_opens(query, j) {
                set(&out, "sink", &true.into());
            }
        }
        Ok(Some(out))
    }

    #[cfg(feature = "full")]
    /// An import planned against the config now (see the module's comment): `{error}` or `{dialog, message}`.
    fn import_plan(&self, job: &JsValue) -> Result<JsValue, JsError> {
        let out = Object::new();
        let planned = super::command::import_job(job)?.and_then(|(found, target, source)| {
            let (import, dialog) = crate::import::Import::new(self.config(), found, target.as_deref(), &source)?;
            let into: Array = import.inputs().into_iter().map(JsValue::from_str).collect();
            Ok((dialog, import.apply(self.config())?.message, into))
        });
        match planned {
            Err(why) => set(&out, "error", &why.into()),
            Ok((dialog, message, into)) => {
                set(&out, "into", &into.into());
                let dialog = dialog.map_or(JsValue::NULL, |d| {
                    let o = Object::new();
                    set(&o, "title", &d.title.into());
                    set(&o, "what", &d.what.into());
                    set(&o, "fix", &d.fix.into());
                    set(&o, "resize", &d.resize.into());
                    o.into()
                });
                set(&out, "dialog", &dialog);
                set(&out, "message", &message.into());
            }
        }
        Ok(out.into())
    }

    /// `Options::reason` for a cell of a queries × keys view (the weights, scores, mask heatmaps), `None` for any other
    /// view or a config that masks nothing.
    fn masked(&self, view: &str, i: usize, j: usize) -> Option<u8> {
        let config = self.config();
        let o = &config.options;
        if o.mask == Mask::None && o.valid_lens.is_none() && o.window.is_none() {
            return None;
        }
        let stage = view.rsplit('.').next().unwrap_or(view);
        if !matches!(stage, "scores" | "scaled" | "capped" | "weights" | "naive_weights" | "mask" | "bias") {
            return None;
        }
        let query = if matches!(config.mechanism, Mechanism::Cross { .. }) { 0 } else { i };
        Some(o.reason(query, j))
    }
}
