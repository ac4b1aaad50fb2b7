//! The element's edits as it sends them, read into the core's one `Edit` (src/figure.rs): the only place a JS
//! command becomes a change. A command is an object with one field, named after the edit, holding its arguments:
//!
//! `{value: [matrix, row, col, x]}` (x as typed: -0 stays -0), `{block: [matrix, row, col, rows]}` (a paste),
//! `{mask: [row, col, x]}`, `{toggleMask: [row, col]}` (the mask's entry there switched), `{query: i}`,
//! `{fields: {…}}` (`null` removes a field), `{flashTiles: [rows, cols]}` (the
//! flash panel's two fields as typed: `steppers::typed_tiles`), `{scale: [kind, value]}`,
//! `{scoring: [name, seed]}`, `{outputProjection: on}`, `{insertHead: true}`, `{removeHead: at}`,
//! `{selectHead: [layer, head]}`, `{kvHeads: kv}`, `{insertToken: [at, name]}`, `{removeToken: at}`,
//! `{renameToken: [at, name]}`, `{insertDim: at}`, `{removeDim: at}`, `{randomize: [seed, dist, high]}`,
//! `{config: json}` or `{config: {json, names, shapes, data}}` (its matrices flat, as `computeFlat` takes them),
//! `{restoreSaved: text}`, `{shareState: [text, json]}`, `{reset: true}`, `{markAuthored: true}`; `{addToken: true}`,
//! `{removeLastToken: true}`, `{addDim: true}`, `{removeLastDim: true}` (at the end: the core knows where that is);
//! `{import: {found: [{member, named, array}], target, source}}` (arrays read from the reader's files or a paste,
//! nested lists as www/arrays.js gives them; see [`import_job`]). The figure core (the build without `full`) makes
//! neither `flashTiles`, `restoreSaved`, `shareState` nor `import`: it says they need the full module.

use super::args::{list, uint};
use super::{compute, js_err, seed_u32};
use crate::config::Config;
use crate::edits::Distribution;
use crate::figure::{self, Edit};
#[cfg(feature = "full")]
use crate::import::{self, Array as Imported, Found, Nested};
use js_sys::{Array, Float64Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The edits by name, as a command names them.
const NAMES: &[&str] = &[
    "value",
    "block",
    "mask",
    "toggleMask",
    "query",
    "fields",
    "flashTiles",
    "scale",
    "scoring",
    "outputProjection",
    "insertHead",
    "removeHead",
    "selectHead",
    "kvHeads",
    "insertToken",
    "removeToken",
    "renameToken",
    "insertDim",
    "removeDim",
    "randomize",
    "config",
    "restoreSaved",
    "shareState",
    "reset",
    "markAuthored",
    "addToken",
    "removeLastToken",
    "addDim",
    "removeLastDim",
    "import",
];

/// The edit `command` asks for; `None` for a flat config whose other fields are not JSON (nothing is changed: the
/// caller sends the config as JSON instead, whose message places the problem in the whole text). A config or
/// share state that cannot be read throws the core's message, as every refused edit does.
pub(crate) fn parse(command: &JsValue) -> Result<Option<Edit>, JsError> {
    let found = NAMES.iter().find_map(|&name| {
        let v = js_sys::Reflect::get(command, &name.into()).ok().filter(|v| !v.is_undefined())?;
        Some((name, v))
    });
    let Some((name, v)) = found else {
        return Err(js_err(format!("not an edit the figure knows (one of {})", NAMES.join(", "))));
    };
    let malformed = || js_err(format!("not an edit the figure knows: {name} is malformed"));
    let a = list(&v).unwrap_or_default();
    let index = |x: JsValue| x.as_f64().filter(|i| i.fract() == 0.0 && *i >= 0.0).map(|i| i as usize);
    let at = |x: JsValue| x.as_f64().map(|x| uint(x) as usize).ok_or_else(malformed);
    let text = |x: JsValue| x.as_string().ok_or_else(malformed);
    let number = |x: JsValue| x.as_f64().ok_or_else(malformed);
    let edit = match name {
        "value" => match (a.length(), a.get(0).as_string(), index(a.get(1)), index(a.get(2)), a.get(3).as_f64()) {
            (4, Some(matrix), Some(row), Some(col), Some(value)) => Edit::Value { matrix, row, col, value },
            _ => return Err(malformed()),
        },
        "block" => {
            let rows = list(&a.get(3)).ok_or_else(malformed)?;
            let values = rows.iter().map(|r| numbers(&r).ok_or_else(malformed)).collect::<Result<_, _>>()?;
            Edit::Block { matrix: text(a.get(0))?, row: at(a.get(1))?, col: at(a.get(2))?, values }
        }
        "mask" => Edit::MaskCell { row: at(a.get(0))?, col: at(a.get(1))?, value: number(a.get(2))? },
        "toggleMask" => Edit::ToggleMask { row: at(a.get(0))?, col: at(a.get(1))? },
        "query" => Edit::Query(index(v).ok_or_else(malformed)?),
        "fields" => {
            let json = js_sys::JSON::stringify(&v).ok().and_then(|t| t.as_string()).ok_or_else(malformed)?;
            let fields = crate::config::json::parse(&json)
                .map_err(|e| js_err(format!("the fields to change are not valid JSON: {e}")))?;
            Edit::Fields(fields)
        }
        #[cfg(feature = "full")]
        "flashTiles" => Edit::Fields(crate::steppers::typed_tiles(&text(a.get(0))?, &text(a.get(1))?)),
        "scale" => Edit::Scale(figure::scale(&text(a.get(0))?, a.get(1).as_f64().unwrap_or(f64::NAN)).map_err(js_err)?),
        "scoring" => Edit::Scoring { name: text(a.get(0))?, seed: seed_u32(number(a.get(1))?)? },
        "outputProjection" => Edit::OutputProjection(v.is_truthy()),
        "insertHead" => Edit::InsertHead,
        "removeHead" => Edit::RemoveHead(at(v)?),
        "selectHead" => Edit::SelectHead { layer: at(a.get(0))?, head: at(a.get(1))? },
        "kvHeads" => Edit::KvHeads(at(v)?),
        "insertToken" => Edit::InsertToken { at: at(a.get(0))?, name: text(a.get(1))? },
        "removeToken" => Edit::RemoveToken(at(v)?),
        "renameToken" => Edit::RenameToken { at: at(a.get(0))?, name: text(a.get(1))? },
        "insertDim" => Edit::InsertDim(at(v)?),
        "removeDim" => Edit::RemoveDim(at(v)?),
        "randomize" => {
            let dist = Distribution::parse(&text(a.get(1))?, number(a.get(2))?).map_err(js_err)?;
            Edit::Randomize { seed: seed_u32(number(a.get(0))?)?, dist }
        }
        "config" => match v.as_string() {
            Some(json) => Edit::Config(Config::from_json(&json).map_err(js_err)?),
            None => match flat(&v)? {
                Some(config) => Edit::Config(config),
                None => return Ok(None),
            },
        },
        #[cfg(feature = "full")]
        "restoreSaved" => Edit::RestoreSaved(text(v)?),
        #[cfg(feature = "full")]
        "shareState" => Edit::ShareState { text: text(a.get(0))?, json: a.get(1).is_truthy() },
        "reset" => Edit::ResetToAuthored,
        "addToken" => Edit::AppendToken,
        "removeLastToken" => Edit::RemoveLastToken,
        "addDim" => Edit::AppendDim,
        "removeLastDim" => Edit::RemoveLastDim,
        #[cfg(feature = "full")]
        "import" => {
            let (found, target, source) = import_job(&v)?.map_err(js_err)?;
            Edit::Import { found, target, source }
        }
        "markAuthored" => Edit::MarkAuthored,
        // The figure core (the build without `full`) leaves the steppers', share links', saved state's and imports'
        // edits to the full module, which the element loads before it sends one.
        _ => return Err(js_err(format!("not an edit the figure core makes: {name} needs the full module"))),
    };
    Ok(Some(edit))
}

/// An import's arrays, the grid they went to, and what messages call them.
#[cfg(feature = "full")]
pub(crate) type Job = (Vec<Found>, Option<String>, String);

#[cfg(feature = "full")]
/// An import as the element sends it: `{found: [{member, named, array} | {member, error}], target, source}`. A file
/// the element could not read (`error`, its reader's message) is the import's refusal, in the core's words.
pub(crate) fn import_job(v: &JsValue) -> Result<Result<Job, String>, JsError> {
    let args = super::args::Args { object: v, what: "an import" };
    let source = args.string("source")?;
    let target = args.opt_string("target");
    let mut found = vec![];
    for item in list(&args.get("found").unwrap_or(JsValue::UNDEFINED)).unwrap_or_default().iter() {
        let item_args = super::args::Args { object: &item, what: "an imported array" };
        let member = item_args.string("member")?;
        if let Some(why) = item_args.opt_string("error") {
            return Ok(Err(import::refused(&member, &why)));
        }
        let array = Imported::from_nested(&nested(&item_args.get("array").unwrap_or(JsValue::UNDEFINED)));
        found.push(Found { member, named: item_args.flag("named"), array });
    }
    Ok(Ok((found, target, source)))
}

#[cfg(feature = "full")]
/// A value of a file as www/arrays.js reads it: nested arrays of numbers, booleans and 64-bit integers (BigInt),
/// in JSON anything else (each said by its `typeof`).
fn nested(v: &JsValue) -> Nested {
    if let Some(x) = v.as_f64() {
        return Nested::Number(x);
    }
    if let Some(b) = v.as_bool() {
        return Nested::Number(if b { 1.0 } else { 0.0 });
    }
    if v.is_bigint() {
        return Nested::Number(js_sys::Number::from(v.clone()).value_of());
    }
    if js_sys::Array::is_array(v) {
        let items: js_sys::Array = v.clone().unchecked_into();
        return Nested::List(items.iter().map(|x| nested(&x)).collect());
    }
    Nested::Other(if v.is_string() {
        "string"
    } else if v.is_undefined() {
        "undefined"
    } else if v.is_function() {
        "function"
    } else if v.is_symbol() {
        "symbol"
    } else {
        "object"
    })
}

/// A row of numbers (an Array or a typed array).
fn numbers(row: &JsValue) -> Option<Vec<f64>> {
    list(row)?.iter().map(|x| x.as_f64()).collect()
}

/// A config sent as `{json, names, shapes, data}` (see `computeFlat`); `None` when `json` does not parse.
pub(crate) fn flat(v: &JsValue) -> Result<Option<Config>, JsError> {
    let args = super::args::Args { object: v, what: "a flat config" };
    let json = args.string("json")?;
    let names = args.strings("names")?;
    let shapes = args.uints("shapes")?;
    let data = match args.get("data") {
        Some(d) => match d.dyn_into::<Float64Array>() {
            Ok(typed) => typed.to_vec(),
            Err(d) => Float64Array::new(&Array::from(&d)).to_vec(),
        },
        None => vec![],
    };
    compute::flat_config_owned(&json, &names, &shapes, data)
}
