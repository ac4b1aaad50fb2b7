//! Owns planning an import of arrays into a figure's inputs (files dropped or picked with Import…, a .npz or a JSON
//! object of named arrays, a whole array pasted into a grid): which array goes to which input, which ones this figure
//! cannot take and why, the other inputs whose shapes no longer agree and the resize that fixes them
//! (`np.random.seed(42)`, then one `np.random.rand(rows, columns)` per resized input in reading order), the token
//! fields that follow a new token count, every sentence the reader reads about it, and the fields one
//! `Config::with_fields` applies. Pure: reading the files and showing the dialog are the element's.
//!
//! The shapes are symbols: n tokens, D the input width (d_model), K and V the widths of W_Q/W_K and W_V (all heads
//! side by side), O the output width of W_O, A the width of additive scoring. Without projections the queries and
//! keys are the inputs themselves, so what K or V shapes, D shapes.

use crate::config::{self, Config, Mask, Mechanism, Scoring, INPUTS, PROJECTIONS, VECTORS};
use crate::random::{RandomState, MAX_RANDOM};
use serde_json::{Map, Value};

/// The seed of the random values that fill resized inputs: `np.random.seed(42)`, then one `rand(…)` per input.
pub const IMPORT_SEED: u32 = 42;

/// An array as the reader's file or paste holds it (www/arrays.js reads it): its shape (empty for a single number)
/// and its values in row-major order. NaN and ±∞ are kept: the plan refuses them by position.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    shape: Vec<usize>,
    values: Vec<f64>,
    /// What makes it no array of numbers, found while reading it (see [`Array::from_nested`]).
    problem: Option<Problem>,
}

/// Why a nested list read from a file is no array of numbers.
#[derive(Clone, Debug, PartialEq)]
enum Problem {
    /// Its rows differ in shape: the sentence saying which.
    Ragged(String),
    /// The first value (row-major) that is not a number, and what it is (JavaScript's `typeof`): held as NaN.
    NotNumber(usize, &'static str),
}

/// A value as the reader's file gives it (www/arrays.js: nested lists of numbers, booleans, 64-bit integers, and
/// in JSON anything else).
#[derive(Clone, Debug, PartialEq)]
pub enum Nested {
    Number(f64),
    /// Not a number: what it is, as JavaScript's `typeof` says (`"string"`, `"object"` for null…).
    Other(&'static str),
    List(Vec<Nested>),
}

impl Array {
    /// `None` when `values` does not hold exactly the shape's count of values.
    pub fn new(shape: Vec<usize>, values: Vec<f64>) -> Option<Array> {
        let count = shape.iter().try_fold(1usize, |n, &s| n.checked_mul(s))?;
        (count == values.len()).then_some(Array { shape, values, problem: None })
    }

    /// A list of numbers.
    pub fn vector(values: &[f64]) -> Array {
        Array { shape: vec![values.len()], values: values.to_vec(), problem: None }
    }

    /// The array nested lists hold (booleans count 1 and 0): its shape ends at the first empty list; rows that
    /// differ in shape, or a value that is not a number, are said by [`fit_array`] with the input's name.
    pub fn from_nested(nested: &Nested) -> Array {
        match nested_shape(nested) {
            Err(why) => Array { shape: vec![], values: vec![], problem: Some(Problem::Ragged(why)) },
            Ok(shape) => {
                let mut values = Vec::new();
                let mut other = None;
                flatten(nested, &mut values, &mut other);
                let problem = other.map(|(k, kind)| Problem::NotNumber(k, kind));
                Array { shape, values, problem }
            }
        }
    }

    /// Rows of numbers; `None` when they differ in length.
    pub fn rows<R: AsRef<[f64]>>(rows: &[R]) -> Option<Array> {
        let cols = rows.first().map_or(0, |r| r.as_ref().len());
        let values: Vec<f64> = rows.iter().flat_map(|r| r.as_ref().iter().copied()).collect();
        Array::new(vec![rows.len(), cols], values)
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// As a config field: a list for a vector, rows for a matrix (the config's number writing).
    fn to_value(&self) -> Value {
        match self.shape[..] {
            [_, cols] if cols > 0 => Value::Array(self.values.chunks(cols).map(config::numbers_value).collect()),
            _ => config::numbers_value(&self.values),
        }
    }
}

/// Nested lists' shape (`[]` for one value, ending at the first empty list), or the sentence saying that their
/// rows differ: "its rows differ in shape: row 0 has 3, row 1 has 2".
fn nested_shape(nested: &Nested) -> Result<Vec<usize>, String> {
    let Nested::List(items) = nested else { return Ok(vec![]) };
    let Some(first) = items.first() else { return Ok(vec![0]) };
    let inner = nested_shape(first)?;
    let said = |s: &[usize]| if s.is_empty() { "one number".to_string() } else { shape_text(s) };
    for (i, item) in items.iter().enumerate().skip(1) {
        let shape = nested_shape(item)?;
        if shape != inner {
            return Err(format!("its rows differ in shape: row 0 has {}, row {i} has {}", said(&inner), said(&shape)));
        }
    }
    Ok([vec![items.len()], inner].concat())
}

/// Nested lists' values in row-major order, a value that is not a number as NaN (the first one noted).
fn flatten(nested: &Nested, out: &mut Vec<f64>, other: &mut Option<(usize, &'static str)>) {
    match nested {
        Nested::Number(x) => out.push(*x),
        Nested::Other(kind) => {
            other.get_or_insert((out.len(), kind));
            out.push(f64::NAN);
        }
        Nested::List(items) => items.iter().for_each(|item| flatten(item, out, other)),
    }
}

/// One array read from the reader's files: the name it came under, and whether the file itself named it (a .npz
/// member, a key of a JSON object of arrays) rather than being one array under the file's name.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub member: String,
    pub named: bool,
    pub array: Array,
}

/// What importing arrays into a config takes, once each array fits its input (see [`plan_import`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The imported inputs as the config will hold them (a vector as one list), in reading order.
    pub values: Vec<(&'static str, Array)>,
    /// The other inputs that must change shape for them, in reading order.
    pub resize: Vec<(&'static str, Vec<usize>)>,
    /// One sentence per symbol that disagrees: "embeddings are 10 × 64 but W_Q is 3 × 3: W_Q, W_K, W_V need 64 rows".
    pub disagree: Vec<String>,
    /// The token count before and after.
    pub tokens: (usize, usize),
}

/// The shape-mismatch dialog's texts, for a plan that resizes other inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Dialog {
    /// "Import embeddings: the shapes disagree".
    pub title: String,
    /// The plan's disagreements, one sentence each.
    pub what: String,
    /// What Resize does: the new shapes, the seed, and the tokens added or removed.
    pub fix: String,
    /// The Resize button's label: "Resize W_Q, W_K, W_V".
    pub resize: String,
}

/// An import ready to apply: the fields for `Config::with_fields` and what the reader is told once it is applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    pub fields: Value,
    pub message: String,
}

/// An import the reader asked for: the arrays this figure takes by input name (in the order they came), the
/// names it left out (with the reason), and where they came from. Planned against the config when made
/// ([`Import::new`]) and again when applied ([`Import::apply`]), as the reader may have edited in between.
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    incoming: Vec<(String, Array)>,
    ignored: Vec<String>,
    source: String,
}

impl Import {
    /// The import of the arrays read from the reader's files (`found`, in the files' order) or pasted, into
    /// `config`. `target`: the input whose grid they were dropped on, picked for or pasted into (`None`: dropped
    /// above the grids); `source`: what the messages call them ("w_q.npy", "model.npz", "the pasted array").
    ///
    /// One array goes to `target`, whatever its file is called, unless it is a .npz member named after an input;
    /// otherwise each array goes to the input its name says (`W_Q.npy` → `w_q`) and the others are ignored. Inputs
    /// this figure cannot take are ignored too, with the reason.
    ///
    /// Returns the import and, when other inputs must change shape, the dialog to ask first (`None`: apply it at
    /// once); or the refusal to show, word for word (nothing changes). The element's part, around it: a paste is one
    /// unnamed array with its grid as `target` and "the pasted array" as `source`; a file that cannot be read is
    /// refused before (`refused(file name, why)`); once the reader presses Resize, or at once, [`Import::apply`]
    /// against the config then gives the fields to set and the sentence to say, and a refusal of those fields is
    /// said through [`Import::refused`].
    pub fn new(
        config: &Config,
        found: Vec<Found>,
        target: Option<&str>,
        source: &str,
    ) -> Result<(Import, Option<Dialog>), String> {
        let (incoming, mut ignored) = route(config, found, target, source)?;
        let names: Vec<&str> = incoming.iter().map(|(n, _)| n.as_str()).collect();
        let mut usable = vec![];
        for (name, array) in &incoming {
            match not_here(config, name, &names) {
                Some(why) => ignored.push(format!("{name} ({why})")),
                None => usable.push((name.clone(), array.clone())),
            }
        }
        if usable.is_empty() {
            return Err(format!("{source}: nothing this figure takes; ignored: {}", ignored.join(", ")));
        }
        let import = Import { incoming: usable, ignored, source: source.to_string() };
        let plan = import.plan(config)?;
        let dialog = import.dialog(config, &plan);
        Ok((import, dialog))
    }

    /// The inputs it fills, in the order they came.
    pub fn inputs(&self) -> Vec<&str> {
        self.incoming.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// The plan against `config`, or the refusal to show.
    pub fn plan(&self, config: &Config) -> Result<Plan, String> {
        let incoming: Vec<(&str, &Array)> = self.incoming.iter().map(|(n, a)| (n.as_str(), a)).collect();
        plan_import(config, &incoming).map_err(|e| self.refused(&e))
    }

    /// The dialog for `plan`, when it resizes other inputs.
    fn dialog(&self, config: &Config, plan: &Plan) -> Option<Dialog> {
        if plan.resize.is_empty() {
            return None;
        }
        let into: Vec<&str> = self.incoming.iter().map(|(n, _)| title(n)).collect();
        let resized: Vec<&str> = plan.resize.iter().map(|(n, _)| title(n)).collect();
        let shapes: Vec<String> = plan.resize.iter().map(|(n, s)| format!("{} {}", title(n), shape_text(s))).collect();
        let mut fix = format!(
            "Resize makes {}, of random values in [0, 1): np.random.seed({IMPORT_SEED}), then \
             np.random.rand(rows, columns) for each, in this order.",
            shapes.join(", ")
        );
        if plan.tokens.0 != plan.tokens.1 {
            fix = format!("{fix} {}", token_note(config, plan.tokens));
        }
        Some(Dialog {
            title: format!("Import {}: the shapes disagree", list(&into)),
            what: format!("{}.", plan.disagree.join(". ")),
            fix,
            resize: format!("Resize {}", resized.join(", ")),
        })
    }

    /// The import planned again against `config` (the config now): the fields to apply and what to tell the reader
    /// once they are; or the refusal to show.
    pub fn apply(&self, config: &Config) -> Result<Applied, String> {
        let plan = self.plan(config)?;
        let mut fields = fix_fields(config, &plan).map_err(|e| self.refused(&e))?;
        let (follow, notes) = width_fields(config, &fields);
        fields.extend(follow);
        let done: Vec<String> =
            plan.values.iter().map(|(n, a)| format!("{} ({})", title(n), shape_text(a.shape()))).collect();
        let ignored =
            if self.ignored.is_empty() { String::new() } else { format!("; ignored: {}", self.ignored.join(", ")) };
        let mut parts = vec![format!("Imported {} from {}{ignored}.", list(&done), self.source)];
        if !plan.resize.is_empty() {
            let resized: Vec<String> =
                plan.resize.iter().map(|(n, s)| format!("{} to {}", title(n), shape_text(s))).collect();
            parts.push(format!("Resized {} with np.random.seed({IMPORT_SEED}) rand values.", resized.join(", ")));
        }
        if plan.tokens.0 != plan.tokens.1 {
            parts.push(token_note(config, plan.tokens));
        }
        parts.extend(notes);
        Ok(Applied { fields: Value::Object(fields), message: parts.join(" ") })
    }

    /// The refusal of this import for `why` (a plan's, or the core's refusal of the applied fields).
    pub fn refused(&self, why: &str) -> String {
        refused(&self.source, why)
    }
}

/// A refusal of an import from `source` ("w_q.npy", "the pasted array") for `why`: nothing changed.
pub fn refused(source: &str, why: &str) -> String {
    format!("{source}: {why}; nothing was imported")
}

/// Arrays by the input they go to, in the order they came, and the members named after no input.
type Routed = (Vec<(String, Array)>, Vec<String>);

/// Which input each found array goes to (a later array of the same name replaces an earlier one).
fn route(config: &Config, found: Vec<Found>, target: Option<&str>, source: &str) -> Result<Routed, String> {
    // An empty name is no grid's, as the element's `target && …` reads it.
    let target = target.filter(|t| !t.is_empty());
    let names_an_input = |f: &Found| INPUTS.contains(&input_name(&f.member).as_str());
    if let (Some(target), [only]) = (target, &found[..]) {
        if !(only.named && names_an_input(only)) {
            return Ok((vec![(target.to_string(), only.array.clone())], vec![]));
        }
    }
    let mut incoming: Vec<(String, Array)> = vec![];
    let mut ignored = vec![];
    for f in found {
        let name = input_name(&f.member);
        if !INPUTS.contains(&name.as_str()) {
            ignored.push(f.member);
        } else if let Some(slot) = incoming.iter_mut().find(|(n, _)| *n == name) {
            slot.1 = f.array;
        } else {
            incoming.push((name, f.array));
        }
    }
    if incoming.is_empty() {
        let has: Vec<&str> = INPUTS.iter().copied().filter(|n| config.input_shape(n).is_some()).collect();
        let why = match target {
            Some(t) => format!("drop one array on {}, or a .npz of arrays named after the inputs", title(t)),
            None => "drop a file on the grid it is for, or a .npz of arrays named after the inputs".to_string(),
        };
        return Err(format!("{source}: no array named after an input of this figure ({}); {why}", has.join(", ")));
    }
    Ok((incoming, ignored))
}

/// A file's or a .npz member's name as an input's name: `W_Q.npy` → `w_q`, `decoder state.csv` → `decoder_state`
/// (its last extension of letters and digits cut, trimmed, lower case, each run of spaces and dashes one `_`).
pub fn input_name(member: &str) -> String {
    let stem = match member.rfind('.') {
        Some(dot) if dot + 1 < member.len() && member[dot + 1..].bytes().all(|b| b.is_ascii_alphanumeric()) => {
            &member[..dot]
        }
        _ => member,
    };
    let lower = stem.trim_matches(js_space).to_lowercase();
    let mut out = String::with_capacity(lower.len());
    let mut in_run = false;
    for c in lower.chars() {
        let gap = c == '-' || js_space(c);
        if !gap {
            out.push(c);
        } else if !in_run {
            out.push('_');
        }
        in_run = gap;
    }
    out
}

/// White space as JavaScript's `\s` and `trim` see it (Unicode's White_Space without U+0085, with U+FEFF).
fn js_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// What a message calls input `name`: "embeddings", "W_Q", "decoder state", "W_a", …
pub fn title(name: &str) -> &str {
    match name {
        "w_q" => "W_Q",
        "w_k" => "W_K",
        "w_v" => "W_V",
        "w_o" => "W_O",
        "w_a" => "W_a",
        "u_a" => "U_a",
        "decoder_state" => "decoder state",
        _ => name,
    }
}

/// Inputs whose name is a plural ("embeddings are …").
fn plural(name: &str) -> bool {
    matches!(name, "embeddings" | "annotations")
}

/// "3 × 4".
fn shape_text(shape: &[usize]) -> String {
    shape.iter().map(usize::to_string).collect::<Vec<_>>().join(" × ")
}

/// "embeddings are 10 × 64", "W_Q is 3 × 3", "v_a has 4 values".
fn described(name: &str, shape: &[usize]) -> String {
    match shape {
        [len] => format!("{} has {len} values", title(name)),
        _ => format!("{} {} {}", title(name), if plural(name) { "are" } else { "is" }, shape_text(shape)),
    }
}

/// "W_K, W_V need" / "W_K needs" / "embeddings need".
fn needs(names: &[&str]) -> String {
    let titles: Vec<&str> = names.iter().map(|n| title(n)).collect();
    let verb = if names.len() > 1 || names.first().is_some_and(|n| plural(n)) { "need" } else { "needs" };
    format!("{} {verb}", titles.join(", "))
}

/// "a", "a and b", "a, b and c".
fn list<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} and {}", rest.join(", "), last.as_ref())
        }
    }
}

/// A value that is not finite as JavaScript writes it: NaN, Infinity, -Infinity.
fn js_not_finite(x: f64) -> &'static str {
    if x.is_nan() {
        "NaN"
    } else if x > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}

/// An imported array as input `name` takes it: a vector as one list (it also takes one row or one column), a
/// matrix as rows, every value finite; or why not.
pub fn fit_array(name: &str, array: &Array) -> Result<Array, String> {
    let what = title(name);
    if let Some(Problem::Ragged(why)) = &array.problem {
        return Err(format!("{what} cannot take this array: {why}"));
    }
    // Nested lists end at the first empty axis: a 0 × 3 array is [], shape (0).
    let shape = match array.shape.iter().position(|&s| s == 0) {
        Some(at) => &array.shape[..=at],
        None => &array.shape[..],
    };
    if shape.contains(&0) {
        return Err(format!("{what} cannot take an empty array (shape {})", shape_text(shape)));
    }
    let got = || match shape.len() {
        0 => "a single number".to_string(),
        d => format!("a {d}-d array ({})", shape_text(shape)),
    };
    let vector = VECTORS.contains(&name);
    let fitted = match (vector, shape) {
        (true, [len]) => vec![*len],
        (true, [rows, cols]) if *rows == 1 || *cols == 1 => vec![rows * cols],
        (true, _) => return Err(format!("{what} is a vector: it needs a 1-d array (or one row), got {}", got())),
        (false, [rows, cols]) => vec![*rows, *cols],
        (false, [len]) => {
            return Err(format!(
                "{} a 2-d array (rows × columns), got a 1-d array of {len} values: reshape it, e.g. \
                 x.reshape(1, -1) for one row",
                needs(&[name])
            ))
        }
        (false, _) => return Err(format!("{} a 2-d array (rows × columns), got {}", needs(&[name]), got())),
    };
    if let Some(k) = array.values.iter().position(|x| !x.is_finite()) {
        let at = match fitted[..] {
            [_, cols] => format!("row {}, column {}", k / cols, k % cols),
            _ => format!("value {k}"),
        };
        if let Some(Problem::NotNumber(at_k, kind)) = array.problem {
            if at_k == k {
                return Err(format!("{what} {at} is not a number ({kind}): every value must be a finite number"));
            }
        }
        let x = js_not_finite(array.values[k]);
        return Err(format!("{what} {at} is {x}: every value must be a finite number"));
    }
    Ok(Array { shape: fitted, values: array.values.clone(), problem: None })
}

/// Why this figure cannot take input `name`, imported together with `names`; `None` when it can.
pub fn not_here(config: &Config, name: &str, names: &[&str]) -> Option<String> {
    let mech = match config.mechanism {
        Mechanism::SelfAttention { .. } => "self-attention",
        Mechanism::Cross { .. } => "encoder–decoder (cross) attention",
        Mechanism::Weights { .. } => return Some("this figure shows given attention weights".into()),
    };
    let cross = matches!(config.mechanism, Mechanism::Cross { .. });
    let only = if cross { config::SELF_ONLY } else { config::CROSS_ONLY };
    if only.contains(&name) {
        return Some(format!("this figure is {mech}"));
    }
    let projections = config.input_shape("w_q").is_some();
    if PROJECTIONS.contains(&name) && !projections && !PROJECTIONS.iter().all(|w| names.contains(w)) {
        return Some("W_Q, W_K and W_V go together".into());
    }
    let with_projections = projections || PROJECTIONS.iter().all(|w| names.contains(w));
    if matches!(name, "b_q" | "b_k" | "b_v") && !with_projections {
        return Some(format!("{name} is added to X·W: this figure has no W_Q, W_K and W_V"));
    }
    if name == "b_o" && config.input_shape("w_o").is_none() && !names.contains(&"w_o") {
        return Some("b_o is added to context·W_O: this figure has no W_O".into());
    }
    let scoring = config.options.scoring.name();
    if matches!(name, "w_a" | "u_a" | "v_a") && config.input_shape(name).is_none() {
        let owner = config::owner(name);
        return Some(format!("this figure's scoring is {scoring} ({} belongs to {owner})", title(name)));
    }
    None
}

/// A shape's symbol (see the module's comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Symbol {
    N,
    D,
    K,
    V,
    O,
    A,
}

impl Symbol {
    /// What messages call it.
    fn name(self) -> &'static str {
        match self {
            Symbol::N => "tokens",
            Symbol::D => "d_model",
            Symbol::K => "d_k",
            Symbol::V => "d_v",
            Symbol::O => "d_out",
            Symbol::A => "d_a",
        }
    }
}

/// One size per symbol, where known.
type Sizes = [Option<usize>; 6];

/// One axis of an input's shape: a symbol times how many heads lie side by side along it (W_Q's columns are
/// heads · d_k, W_K's and W_V's kv_heads · d_k and kv_heads · d_v, W_O's rows heads · d_v; 1 elsewhere).
type Axis = (Symbol, usize);

/// Input `name`'s shape in symbols (a vector has one), with or without `projections`; `None` for a name that is no
/// input of this mechanism (any name of a weights figure).
fn layout(config: &Config, projections: bool, name: &str) -> Option<Vec<Axis>> {
    use Symbol::{A, D, K, N, O, V};
    let general = matches!(config.options.scoring, Scoring::General { .. });
    let (heads, kv) = (config.options.heads, config.options.kv_heads());
    let (k, v, h) = match config.mechanism {
        Mechanism::SelfAttention { .. } if projections => (K, V, heads),
        Mechanism::SelfAttention { .. } => (D, D, 1),
        Mechanism::Cross { .. } => (D, D, 1),
        Mechanism::Weights { .. } => return None,
    };
    let cross = matches!(config.mechanism, Mechanism::Cross { .. });
    Some(match name {
        "decoder_state" if cross => vec![(D, 1)],
        "annotations" if cross => vec![(N, 1), (D, 1)],
        "embeddings" if !cross => vec![(N, 1), (D, 1)],
        "w_q" if !cross && projections => vec![(D, 1), (K, heads)],
        "w_k" if !cross && projections => vec![(D, 1), (K, kv)],
        "w_v" if !cross && projections => vec![(D, 1), (V, kv)],
        "w_o" if !cross => vec![(v, h), (O, 1)],
        // The biases: one number per column of their matrix.
        "b_q" if !cross && projections => vec![(K, heads)],
        "b_k" if !cross && projections => vec![(K, kv)],
        "b_v" if !cross && projections => vec![(V, kv)],
        "b_o" if !cross => vec![(O, 1)],
        // Scoring matrices have one head (config.rs refuses general and additive scoring with several).
        "w_a" if general => vec![(k, 1), (k, 1)],
        "w_a" => vec![(k, 1), (A, 1)],
        "u_a" => vec![(k, 1), (A, 1)],
        "v_a" => vec![(A, 1)],
        _ => return None,
    })
}

/// What importing `incoming` (input name → array) into `config` takes: each array fitted to its input, the other
/// inputs that must change shape for them, one sentence per disagreement, and the token count before and after;
/// or the message saying exactly why it cannot be done. Names that are not inputs are passed over; one that is
/// no input of this figure is refused ([`Import::new`] has left those out, with [`not_here`]'s reason). Pure: the
/// random values are drawn by [`fix_fields`].
pub fn plan_import(config: &Config, incoming: &[(&str, &Array)]) -> Result<Plan, String> {
    let mut values = vec![];
    for &name in INPUTS {
        if let Some((_, array)) = incoming.iter().rev().find(|(n, _)| *n == name) {
            values.push((name, fit_array(name, array)?));
        }
    }
    let names: Vec<&'static str> = values.iter().map(|(n, _)| *n).collect();
    let self_attention = matches!(config.mechanism, Mechanism::SelfAttention { .. });
    let had_projections = config.input_shape("w_q").is_some();
    let projections = had_projections || (self_attention && names.contains(&"w_q"));
    // The symbols' sizes now (per head), read from the inputs the config has.
    let mut current: Sizes = [None; 6];
    for name in INPUTS {
        if let (Some(shape), Some(axes)) = (config.input_shape(name), layout(config, had_projections, name)) {
            for ((s, times), size) in axes.into_iter().zip(shape) {
                current[s as usize].get_or_insert(size / times);
            }
        }
    }
    let (bound, bound_by) = bind(config, projections, &values)?;
    let value = |s: Symbol| bound[s as usize].or(current[s as usize]);
    let shape_of = |name: &str| values.iter().find(|(n, _)| *n == name).map(|(_, a)| a.shape().to_vec());
    // Every other input whose shape no longer agrees is resized; each disagreement is said once per symbol.
    let mut resize = vec![];
    let mut affected: Vec<(Symbol, Vec<(&'static str, &'static str, usize)>)> = vec![];
    for &name in INPUTS {
        let (Some(have), Some(axes)) = (config.input_shape(name), layout(config, projections, name)) else { continue };
        if names.contains(&name) {
            continue;
        }
        let want: Vec<usize> =
            axes.iter().zip(&have).map(|(&(s, times), &h)| value(s).map_or(h, |v| v * times)).collect();
        if want == have {
            continue;
        }
        resize.push((name, want.clone()));
        let mut seen = vec![];
        for (a, &(s, _)) in axes.iter().enumerate() {
            if seen.contains(&s) {
                continue;
            }
            seen.push(s);
            if axes.iter().zip(want.iter().zip(&have)).all(|(&(t, _), (w, h))| t != s || w == h) {
                continue;
            }
            let kind = match axes[..] {
                [_] => "values",
                [(r, _), (c, _)] if r == c => "rows and columns",
                [(r, _), _] if r == s => "rows",
                _ => "columns",
            };
            let hit = (name, kind, want[a]);
            match affected.iter_mut().find(|(t, _)| *t == s) {
                Some((_, hits)) => hits.push(hit),
                None => affected.push((s, vec![hit])),
            }
        }
    }
    let disagree = affected
        .iter()
        .map(|(s, hit)| {
            let mut kinds: Vec<(&str, usize)> = vec![];
            for &(_, kind, size) in hit {
                if !kinds.contains(&(kind, size)) {
                    kinds.push((kind, size));
                }
            }
            let groups: Vec<String> = kinds
                .iter()
                .map(|&(kind, size)| {
                    let names: Vec<&str> = hit.iter().filter(|h| h.1 == kind && h.2 == size).map(|h| h.0).collect();
                    format!("{} {size} {kind}", needs(&names))
                })
                .collect();
            let first = hit[0].0;
            let src = match bound_by[*s as usize] {
                Some(by) => format!("{} but ", described(by, &shape_of(by).unwrap_or_default())),
                None => String::new(),
            };
            let have = config.input_shape(first).unwrap_or_default();
            format!("{src}{}: {}", described(first, &have), groups.join("; "))
        })
        .collect();
    let rows_of = if self_attention { "embeddings" } else { "annotations" };
    let n = shape_of(rows_of).map_or(config.tokens.len(), |s| s[0]);
    Ok(Plan { values, resize, disagree, tokens: (config.tokens.len(), n) })
}

/// The symbols' sizes (per head) the fitted arrays fix, and which array fixed each; two arrays (or one array's two
/// axes) that disagree cannot both be right, and heads side by side split an axis evenly or not at all.
fn bind(
    config: &Config,
    projections: bool,
    values: &[(&'static str, Array)],
) -> Result<(Sizes, [Option<&'static str>; 6]), String> {
    let mut bound: Sizes = [None; 6];
    let mut bound_by: [Option<&'static str>; 6] = [None; 6];
    // The first axis that heads cannot split evenly: said once the arrays are known to agree.
    let mut uneven = None;
    for (name, array) in values {
        let Some(axes) = layout(config, projections, name) else {
            let why = not_here(config, name, &[name]).unwrap_or_default();
            return Err(format!("this figure cannot take {}: {why}", title(name)));
        };
        for (axis, (&(s, times), &size)) in axes.iter().zip(array.shape()).enumerate() {
            let (Some(was), Some(by)) = (bound[s as usize], bound_by[s as usize]) else {
                if size % times != 0 && uneven.is_none() {
                    let who = if times == config.options.heads {
                        format!("{times} heads")
                    } else {
                        format!("{times} key/value heads")
                    };
                    uneven = Some(format!(
                        "{} but {who} split its {size} columns evenly: it needs a multiple of {times} columns",
                        described(name, array.shape())
                    ));
                }
                bound[s as usize] = Some(size / times);
                bound_by[s as usize] = Some(name);
                continue;
            };
            let first = values.iter().find(|(n, _)| *n == by).map(|(_, a)| a.shape()).unwrap_or_default();
            // The size the first array fixed, as this axis holds it.
            let by_times = layout(config, projections, by)
                .and_then(|l| l.into_iter().find(|&(t, _)| t == s))
                .map_or(1, |(_, t)| t);
            let binder_size = first
                .iter()
                .zip(layout(config, projections, by).unwrap_or_default())
                .find(|(_, (t, _))| *t == s)
                .map_or(was * by_times, |(&sz, _)| sz);
            let expected = binder_size * times / by_times.max(1);
            if size * by_times == binder_size * times {
                continue;
            }
            if by == *name {
                return Err(format!(
                    "{} but its rows and columns are both {} here ({} scoring): it must be square",
                    described(name, array.shape()),
                    s.name(),
                    config.options.scoring.name()
                ));
            }
            return Err(format!(
                "{} but {}: {} {expected} {}",
                described(by, first),
                described(name, array.shape()),
                needs(&[name]),
                if axis == 0 { "rows" } else { "columns" }
            ));
        }
    }
    match uneven {
        Some(why) => Err(why),
        None => Ok((bound, bound_by)),
    }
}

/// The fields that apply `plan` to `config`: the imported inputs, the resized ones filled with NumPy's legacy
/// generator (`np.random.seed(42)`, then `np.random.rand(rows, columns)`, or `rand(length)` for a vector, for each
/// resized input in reading order), and the token fields when the token count changes; or why the random values
/// cannot be drawn.
pub fn fix_fields(config: &Config, plan: &Plan) -> Result<Map<String, Value>, String> {
    let mut fields = Map::new();
    for (name, array) in &plan.values {
        fields.insert((*name).into(), array.to_value());
    }
    let mut rng = RandomState::new(IMPORT_SEED);
    for (name, shape) in &plan.resize {
        let count: usize = shape.iter().product();
        if count > MAX_RANDOM {
            let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
            return Err(format!(
                "rand({}) asks for {count} values; at most {MAX_RANDOM} are supported",
                dims.join(", ")
            ));
        }
        let drawn = Array { shape: shape.clone(), values: rng.rand(count), problem: None };
        fields.insert((*name).into(), drawn.to_value());
    }
    if plan.tokens.0 != plan.tokens.1 {
        fields.extend(token_fields(config, plan.tokens.1));
    }
    Ok(fields)
}

/// The fields that keep what is shaped by a head's width d_k fitting it once `fields` apply (an import that changes
/// W_Q's columns, or the embeddings' without projections): the q/k norms' weights keep their first values (1 for new
/// ones); RoPE's `rotary_dim` past the new d_k, and `frequencies` no longer one per pair of rotated values, are
/// dropped. With the sentences that say so.
fn width_fields(config: &Config, fields: &Map<String, Value>) -> (Map<String, Value>, Vec<String>) {
    let mut out = Map::new();
    let mut notes = vec![];
    let Mechanism::SelfAttention { .. } = config.mechanism else { return (out, notes) };
    let columns = |name: &str| match fields.get(name) {
        Some(v) => v.get(0).and_then(Value::as_array).map(Vec::len),
        None => config.input_shape(name).map(|s| s[1]),
    };
    let d_k = match columns("w_q") {
        Some(cols) => cols / config.options.heads.max(1),
        None => columns("embeddings").unwrap_or(0),
    };
    let l = &config.options.layers;
    let norms = [("q_norm", &l.q_norm), ("k_norm", &l.k_norm)];
    let mut followed = vec![];
    for (name, norm) in norms {
        let Some(n) = norm.as_ref().filter(|n| n.weight.len() != d_k) else { continue };
        let weight: Vec<f64> = (0..d_k).map(|i| n.weight.get(i).copied().unwrap_or(1.0)).collect();
        out.insert(name.into(), config::Norm { weight, eps: n.eps }.to_value());
        followed.push(name);
    }
    if !followed.is_empty() {
        notes.push(format!(
            "{}'s weight follows d_k = {d_k}: its first values kept, 1 for new ones.",
            followed.join(" and ")
        ));
    }
    if let Some(p @ config::Position::Rope { rotary_dim, frequencies, .. }) = &config.options.position {
        let mut value = p.to_value();
        let mut r = rotary_dim.unwrap_or(d_k);
        if rotary_dim.is_some_and(|r| r > d_k) {
            value.as_object_mut().map(|o| o.remove("rotary_dim"));
            notes.push(format!(
                "RoPE's rotary_dim {r} no longer fits d_k = {d_k}: dropped (every value of a row turns)."
            ));
            r = d_k;
        }
        if frequencies.as_ref().is_some_and(|f| f.len() != r / 2) {
            value.as_object_mut().map(|o| o.remove("frequencies"));
            notes.push(format!(
                "RoPE's frequencies no longer number rotary_dim / 2 = {}: dropped (θ_i from the base again).",
                r / 2
            ));
        }
        if value != p.to_value() {
            out.insert("position".into(), value);
        }
    }
    (out, notes)
}

/// The fields that keep tokens, mask, valid lengths and the followed query consistent with `n` rows (the core
/// refuses a config whose token count disagrees): kept names and entries for the rows that stay, and for new rows
/// the core's default names, mask entries that allow them (as + token does) and valid lengths of all keys.
pub fn token_fields(config: &Config, n: usize) -> Map<String, Value> {
    let old = config.tokens.len();
    let self_attention = matches!(config.mechanism, Mechanism::SelfAttention { .. });
    let mut fields = Map::new();
    let tokens: Vec<Value> =
        (0..n).map(|i| config.tokens.get(i).cloned().unwrap_or_else(|| new_token(config, i)).into()).collect();
    fields.insert("tokens".into(), Value::Array(tokens));
    let fit = |row: &[f64]| {
        let kept: Vec<f64> = (0..n).map(|j| row.get(j).copied().unwrap_or(1.0)).collect();
        config::numbers_value(&kept)
    };
    if let Mask::Matrix(mask) = &config.options.mask {
        let value = if self_attention {
            Value::Array((0..n).map(|i| if i < old { fit(mask.row(i)) } else { fit(&[]) }).collect())
        } else {
            fit(mask.row(0))
        };
        fields.insert("mask".into(), value);
    }
    if let (true, Some(lens)) = (self_attention, &config.options.valid_lens) {
        let lens: Vec<Value> = (0..n).map(|i| lens.get(i).copied().unwrap_or(n).into()).collect();
        fields.insert("valid_lens".into(), Value::Array(lens));
    }
    if self_attention && config.query >= n {
        fields.insert("query".into(), n.saturating_sub(1).into());
    }
    fields
}

/// The core's name of a row added at index `i` (`word_1` …, `h_1` …).
pub fn new_token(config: &Config, i: usize) -> String {
    let prefix = match config.mechanism {
        Mechanism::Cross { .. } => config::CROSS_TOKENS,
        _ => config::SELF_TOKENS,
    };
    config::token_name(prefix, i)
}

/// "1 token added (word_5).", "3 tokens added (word_5 … word_7).", "2 tokens removed (6 → 4).".
fn token_note(config: &Config, (from, to): (usize, usize)) -> String {
    let s = |k: usize| if k > 1 { "s" } else { "" };
    if to < from {
        return format!("{} token{} removed ({from} → {to}).", from - to, s(from - to));
    }
    let added = match to - from {
        1 => new_token(config, from),
        2 => format!("{}, {}", new_token(config, from), new_token(config, to - 1)),
        _ => format!("{} … {}", new_token(config, from), new_token(config, to - 1)),
    };
    format!("{} token{} added ({added}).", to - from, s(to - from))
}
