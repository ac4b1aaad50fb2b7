//! The wasm-bindgen layer in a real browser (headless Chromium): configs in,
//! typed arrays out, errors as exceptions that leave the module usable.
#![cfg(target_arch = "wasm32")]

use attention_viz::web::{call, JsRandomState};
use js_sys::{Float64Array, Reflect};
use serde_json::json;
use wasm_bindgen::{JsCast, JsError, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A request object as the JS side writes one.
fn request(fields: serde_json::Value) -> JsValue {
    js_sys::JSON::parse(&fields.to_string()).unwrap()
}

/// `method` of a bindings object, called.
fn method(target: &JsValue, name: &str) -> JsValue {
    js_sys::Function::from(Reflect::get(target, &name.into()).unwrap()).call0(target).unwrap()
}

fn preset_json(name: &str) -> Option<String> {
    attention_viz::presets::preset(name).map(|c| c.to_value().to_string())
}

/// compute()'s JSON path through `call`: the trace the core holds in its memory until the next compute, read there as
/// www/attention-viz.js reads it (each field's `offset` into the module's memory), each field's values copied out as
/// `data`.
fn compute_json(config_json: &str) -> Result<JsValue, JsError> {
    let layout = call(request(json!({"kind": "compute", "config_json": config_json})), None)?;
    let memory = wasm_bindgen::memory().unchecked_into::<js_sys::WebAssembly::Memory>();
    let heap = Float64Array::new(&memory.buffer());
    let fields = Reflect::get(&layout, &"fields".into()).unwrap();
    for name in js_sys::Object::keys(&fields.clone().into()).iter() {
        let entry = Reflect::get(&fields, &name).unwrap();
        let shape: Vec<f64> = js_sys::Array::from(&Reflect::get(&entry, &"shape".into()).unwrap())
            .iter()
            .map(|d| d.as_f64().unwrap())
            .collect();
        let offset = Reflect::get(&entry, &"offset".into()).unwrap().as_f64().unwrap() as u32;
        let len = shape.iter().product::<f64>() as u32;
        Reflect::set(&entry, &"data".into(), &heap.slice(offset, offset + len)).unwrap();
    }
    // FlashAttention's steps, one table (attention::Flash::table): each step's parts as fields of their own here,
    // `flash.steps.{s}.{part}`, as compute() nests them.
    let steps = Reflect::get(&layout, &"flash_steps".into()).unwrap();
    if !steps.is_undefined() {
        let number = |key: &str| Reflect::get(&steps, &key.into()).unwrap().as_f64().unwrap() as u32;
        let (width, cols) = (number("width"), number("o_cols"));
        let table = Float64Array::from(Reflect::get(&steps, &"table".into()).unwrap()).to_vec();
        for (s, row) in table.chunks(width as usize).enumerate() {
            let rows = row[2] as u32;
            let parts = [
                ("q_block", Float64Array::from(&row[0..1])),
                ("k_block", Float64Array::from(&row[1..2])),
                ("m", heap.slice(row[3] as u32, row[3] as u32 + rows)),
                ("l", heap.slice(row[4] as u32, row[4] as u32 + rows)),
                ("o", heap.slice(row[5] as u32, row[5] as u32 + rows * cols)),
            ];
            for (part, data) in parts {
                let entry = js_sys::Object::new();
                Reflect::set(&entry, &"data".into(), &data).unwrap();
                Reflect::set(&fields, &format!("flash.steps.{s}.{part}").into(), &entry).unwrap();
            }
        }
    }
    Ok(layout)
}

/// normalizeConfig through `call`, as JSON text.
fn normalize_config(config_json: &str) -> Result<String, JsError> {
    let config = call(request(json!({"kind": "normalize", "config_json": config_json})), None)?;
    Ok(js_sys::JSON::stringify(&config).unwrap().into())
}

/// A `RandomStateCore` request's numbers.
fn draw(rng: &mut JsRandomState, fields: serde_json::Value) -> Result<Vec<f64>, JsError> {
    Ok(Float64Array::from(rng.call(request(fields))?).to_vec())
}

fn field(trace: &JsValue, name: &str) -> Vec<f64> {
    let fields = Reflect::get(trace, &"fields".into()).unwrap();
    let entry = Reflect::get(&fields, &name.into()).unwrap();
    Float64Array::from(Reflect::get(&entry, &"data".into()).unwrap()).to_vec()
}

#[wasm_bindgen_test]
fn seed_001_through_the_bindings() {
    let trace: JsValue = compute_json(&preset_json("seed-001").unwrap()).unwrap().into();
    assert_eq!(field(&trace, "scores"), vec![8., 2., 10., 2., 4., 0., 4., 0., 12., 2., 14., 2., 10., 4., 14., 3.]);
    let context = field(&trace, "context");
    assert!((context[0] - 0.9852202489021356).abs() < 1e-12);
    assert_eq!(Reflect::get(&trace, &"scale".into()).unwrap().as_f64(), Some(3f64.sqrt()));
}

#[wasm_bindgen_test]
fn seed_003_is_finite_in_the_browser() {
    let trace: JsValue = compute_json(&preset_json("seed-003").unwrap()).unwrap().into();
    let w = field(&trace, "weights");
    assert!((w[0] - 0.11920292202211755).abs() < 1e-15 && (w[3] - 0.8807970779778823).abs() < 1e-15);
    assert_eq!(w[2], 0.0);
    assert!(field(&trace, "naive_weights")[0].is_nan());
}

#[wasm_bindgen_test]
fn errors_are_exceptions_and_the_module_keeps_working() {
    for bad in
        ["", "[]", "{\"embeddings\": [[1, 0], [1]]}", "{\"embeddings\": [[\"NaN\"]]}", "{\"embeddings\": [[1e200]]}"]
    {
        assert!(compute_json(bad).is_err(), "{bad}");
    }
    let trace: JsValue = compute_json("{\"embeddings\": [[1, 0], [0, 1]]}").unwrap().into();
    assert_eq!(field(&trace, "scores"), vec![1., 0., 0., 1.]);
}

/// `call` answers each kind with the value its caller reads (text, a flag, a Float64Array, a held trace); a refused or
/// malformed request throws and the module keeps working; a large figure's job and a trainer answer their own requests.
#[wasm_bindgen_test]
fn the_calls_and_the_objects_requests() {
    use attention_viz::web::{JsTrainer, LargeJob};
    let ask = |fields: serde_json::Value| call(request(fields), None);
    assert_eq!(ask(json!({"kind": "text", "cut": "1".repeat(50)})).unwrap().as_string().unwrap().chars().count(), 40);
    let note = ask(json!({"kind": "height_note", "text": "0.4", "value": 0.4})).unwrap();
    assert_eq!(note.as_string().unwrap(), "height 0.4 is outside 40–4000 CSS pixels: the heatmaps are 40 px high.");
    assert!(ask(json!({"kind": "paste_length", "length": 3})).unwrap().is_undefined());
    let small = json!([{"name": "embeddings", "shape": [2, 2]}]);
    assert_eq!(ask(json!({"kind": "large_takes", "config_json": "{}", "flat": small})).unwrap().as_bool(), Some(false));
    let shortest = call(request(json!({"kind": "shortest", "dtype": "float32"})), Some(vec![f64::from(0.1f32)]));
    assert_eq!(Float64Array::from(shortest.unwrap()).to_vec(), vec![0.1]);
    assert!(ask(json!({"kind": "nope"})).is_err());
    assert!(ask(json!({"kind": "last_panic"})).unwrap().is_undefined(), "no panic since the last one was taken");
    let long = json!([{"name": "embeddings", "shape": [5000, 2]}]);
    assert!(message(ask(json!({"kind": "check_declared", "config_json": "{}", "flat": long})).unwrap_err())
        .contains("5000"));
    // A number that is not finite travels as one (the text "NaN" in the core's JSON).
    let cell = request(json!({"kind": "large_cell_text", "row": "a", "col": "b"}));
    Reflect::set(&cell, &"value".into(), &f64::NAN.into()).unwrap();
    assert_eq!(call(cell, None).unwrap().as_string().unwrap(), "a, b: nan");
    let layout =
        call(request(json!({"kind": "compute", "config_json": "{}", "flat": small})), Some(vec![1., 0., 0., 1.]));
    assert_eq!(get(&layout.unwrap(), "mechanism").as_string().unwrap(), "self");
    let model = r#"{"mechanism": "model", "model": "reversal", "input": [1, 2]}"#;
    let e = message(ask(json!({"kind": "compute_model", "config_json": model})).unwrap_err());
    assert!(e.contains("not loaded yet"), "{e}");
    // A large figure's job, one step per request.
    let config = r#"{"embeddings": [[1, 0], [0, 1], [1, 1]]}"#;
    let mut job = LargeJob::new(request(json!({"config_json": config})), None).unwrap();
    let progress = job.call(request(json!({"kind": "progress", "step": 0}))).unwrap().as_string().unwrap();
    assert!(progress.contains("step 1 of 3"), "{progress}");
    let view = json!({"kind": "view", "name": "weights", "max_px": 64, "bar_px": 100});
    assert!(job.call(request(view.clone())).is_err(), "no view before the stages");
    job.call(request(json!({"kind": "project"}))).unwrap();
    job.call(request(json!({"kind": "attend"}))).unwrap();
    let weights = job.call(request(view)).unwrap();
    assert_eq!(get(&weights, "rows").as_f64(), Some(3.0));
    let result = job.call(request(json!({"kind": "result"}))).unwrap();
    assert_eq!(js_sys::Array::from(&get(&result, "tokens")).length(), 3);
    assert_eq!(get(&result, "scale").as_f64(), Some(1.0), "no projections: no scale");
    // A trainer: steps, then a report.
    let mut trainer = JsTrainer::new("reversal", 0.0).unwrap();
    let at = Float64Array::from(trainer.call(request(json!({"kind": "step", "n": 2}))).unwrap()).to_vec();
    assert_eq!(at[0], 2.0);
    let report = trainer.call(request(json!({"kind": "report"}))).unwrap();
    assert_eq!(get(&report, "step").as_f64(), Some(2.0));
    assert!(get(&report, "model").as_string().unwrap().starts_with('{'));
    assert!(trainer.call(request(json!({"kind": "jump"}))).is_err());
}

#[wasm_bindgen_test]
fn presets_and_normalisation() {
    let facts = call(request(json!({"kind": "facts"})), None).unwrap();
    let names = js_sys::Object::keys(&Reflect::get(&facts, &"presets".into()).unwrap().into());
    assert_eq!(
        names.iter().map(|n| n.as_string().unwrap()).collect::<Vec<_>>(),
        ["seed-000", "seed-001", "seed-002", "seed-003"]
    );
    let normal = normalize_config("{\"embeddings\": [[1]]}").unwrap();
    assert!(normal.contains("\"scale\":\"none\""), "{normal}");
}

#[wasm_bindgen_test]
fn random_state_matches_numpy() {
    let mut rng = JsRandomState::new(42.0).unwrap();
    let ints = draw(&mut rng, json!({"kind": "randint", "low": 0, "high": 3, "count": 9})).unwrap();
    assert_eq!(ints, vec![2., 0., 2., 2., 0., 0., 2., 1., 2.]);
    let mut rng = JsRandomState::new(42.0).unwrap();
    assert_eq!(draw(&mut rng, json!({"kind": "rand", "count": 1})).unwrap(), vec![0.3745401188473625]);
    assert!(JsRandomState::new(-1.0).is_err());
    assert!(JsRandomState::new(1.5).is_err());
    assert!(draw(&mut rng, json!({"kind": "randint", "low": 5, "high": 5, "count": 1})).is_err());
    assert!(rng.call(request(json!({"kind": "seed", "seed": 42}))).unwrap().is_undefined());
    assert_eq!(draw(&mut rng, json!({"kind": "rand", "count": 1})).unwrap(), vec![0.3745401188473625]);
}

#[wasm_bindgen_test]
fn randn_in_the_browser_matches_numpy_vectors() {
    // wasm32 uses the correctly rounded ln (src/math/log.rs) instead of the portable libm.
    let want = [
        0.4967141530112327,
        -0.13826430117118466,
        0.6476885381006925,
        1.5230298564080254,
        -0.23415337472333597,
        -0.23413695694918055,
        1.5792128155073915,
        0.7674347291529088,
    ];
    let randn = |seed: f64| draw(&mut JsRandomState::new(seed).unwrap(), json!({"kind": "randn", "count": 8})).unwrap();
    assert_eq!(randn(42.0), want);
    let want0 = [
        1.764052345967664,
        0.4001572083672233,
        0.9787379841057392,
        2.240893199201458,
        1.8675579901499675,
        -0.977277879876411,
        0.9500884175255894,
        -0.1513572082976979,
    ];
    assert_eq!(randn(0.0), want0);
}

/// The SIMD kernels the browser computes with give their scalar twins' numbers
/// (which the native tests check against NumPy) bit for bit, edges included.
#[wasm_bindgen_test]
fn simd_kernels_match_their_scalar_twins_bit_for_bit() {
    use attention_viz::math::kernels::{
        exp_shifted_into, exp_shifted_scalar, matmul_into, matmul_scalar, matmul_transposed_into,
        matmul_transposed_scalar,
    };
    use attention_viz::random::RandomState;
    let mut rs = RandomState::new(7);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    // Panels of 8 columns and their leftovers, odd rows, and row chunks (k = 700: 23 rows a chunk).
    for (m, k, p) in [
        (1, 1, 1),
        (4, 3, 4),
        (5, 7, 9),
        (8, 64, 12),
        (3, 2, 1),
        (13, 5, 6),
        (0, 3, 4),
        (4, 0, 4),
        (64, 64, 64),
        (7, 9, 17),
        (37, 700, 19),
    ] {
        let a: Vec<f64> = rs.randn(m * k).into_iter().map(|x| x * 1e3).collect();
        let b = rs.randn(k * p);
        let (mut simd, mut scalar) = (vec![f64::NAN; m * p], vec![f64::NAN; m * p]);
        matmul_into(&a, &b, &mut simd, m, k, p);
        matmul_scalar(&a, &b, &mut scalar, m, k, p);
        assert_eq!(bits(&simd), bits(&scalar), "matmul {m}×{k}·{k}×{p}");
        // b read as the transpose of a p × k matrix: the same numbers as the plain product.
        let mut bt = vec![0.0; p * k];
        for kk in 0..k {
            for j in 0..p {
                bt[j * k + kk] = b[kk * p + j];
            }
        }
        let (mut simd_t, mut scalar_t) = (vec![f64::NAN; m * p], vec![f64::NAN; m * p]);
        matmul_transposed_into(&a, &bt, &mut simd_t, m, k, p);
        matmul_transposed_scalar(&a, &bt, &mut scalar_t, m, k, p);
        assert_eq!(bits(&simd_t), bits(&scalar), "matmul_transposed {m}×{k}·({p}×{k})ᵀ");
        assert_eq!(bits(&scalar_t), bits(&scalar), "matmul_transposed_scalar {m}×{k}·({p}×{k})ᵀ");
    }
    let mut x: Vec<f64> = rs.randn(4001).into_iter().map(|x| x * 300.0).collect();
    x.extend([
        0.0,
        -0.0,
        -745.0,
        -746.0,
        -1e308,
        709.0,
        710.0,
        1e308,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        5e-324,
    ]);
    for shift in [0.0, 3.5, -700.0] {
        // Every remainder of the SIMD loop's eight values a turn (pairs left, a value left, both, none).
        let tails = (0..8).map(|r| x.len() - r);
        for len in tails.chain([17, 16, 15, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]) {
            let (mut simd, mut scalar) = (vec![0.0; len], vec![0.0; len]);
            let s1 = exp_shifted_into(&x[..len], shift, &mut simd);
            let s2 = exp_shifted_scalar(&x[..len], shift, &mut scalar);
            assert_eq!(bits(&simd), bits(&scalar), "exp, shift {shift}, length {len}");
            assert_eq!(s1.to_bits(), s2.to_bits(), "exp sum, shift {shift}, length {len}");
            let part = &x[..len];
            let fold = part.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
            assert_eq!(attention_viz::math::kernels::min_max(part), fold, "min_max, length {len}");
            let finite = part.iter().all(|v| v.is_finite());
            assert_eq!(attention_viz::math::kernels::all_finite(part), finite, "all_finite, length {len}");
            let finite_part: Vec<f64> = part.iter().copied().filter(|v| v.is_finite()).collect();
            assert!(attention_viz::math::kernels::all_finite(&finite_part));
        }
    }
}

/// The message of a binding's error.
fn message(e: impl Into<JsValue>) -> String {
    let v: JsValue = e.into();
    Reflect::get(&v, &"message".into()).unwrap().as_string().unwrap()
}

fn get(o: &JsValue, key: &str) -> JsValue {
    Reflect::get(o, &key.into()).unwrap()
}

/// A JS object from JSON text: a question, a drawing or an edit as the element sends it.
fn js(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap()
}

fn canvas(width: u32, height: u32) -> web_sys::HtmlCanvasElement {
    use wasm_bindgen::JsCast;
    let c: web_sys::HtmlCanvasElement = js_sys::eval("document.createElement('canvas')").unwrap().dyn_into().unwrap();
    c.set_width(width);
    c.set_height(height);
    c
}

fn viz_of(config: &str) -> attention_viz::web::Viz {
    attention_viz::web::Viz::create(config, None, None, None).unwrap()
}

/// `{kind: "heatmap", view, …}` with `rest` (JSON fields) drawn on `c`.
fn heatmap(
    viz: &attention_viz::web::Viz,
    c: &web_sys::HtmlCanvasElement,
    view: &str,
    rest: &str,
) -> Result<(), String> {
    let what = js(&format!(r#"{{"kind": "heatmap", "view": "{view}", "dpr": 1{rest}}}"#));
    viz.draw(c.clone(), what).map_err(message)
}

#[wasm_bindgen_test]
fn fmt_and_contrast_through_the_bindings() {
    let mut viz = viz_of(&preset_json("seed-001").unwrap());
    let mut svg = |rest: &str| viz.ask(js(&format!(r#"{{"kind": "svg", "view": "weights"{rest}}}"#))).map_err(message);
    let out = svg(r#", "fmt": ".1%", "contrast": "more""#).unwrap().as_string().unwrap();
    assert!(out.contains("74.9%") && out.contains("#000000"), "fmt and contrast reach the SVG");
    let e = svg(r#", "fmt": ".2q""#).unwrap_err();
    assert!(e.starts_with("fmt \".2q\" is not one of seaborn's format specs: use .2g, .3g"), "{e}");
    assert!(svg(r#", "contrast": "most""#).unwrap_err().contains("contrast"));
    // "d" on weights that are not whole: .2g, and the note says why.
    let out = svg(r#", "fmt": "d""#).unwrap().as_string().unwrap();
    assert!(out.contains("fmt d needs whole numbers (0.236… here): written with .2g"), "{out}");
    let svg =
        json!({"kind": "svg", "config_json": preset_json("seed-003").unwrap(), "view": "decoder_state", "fmt": "d"});
    assert!(call(request(svg), None).unwrap().as_string().unwrap().contains(">\n20\n<"));
    // The canvas: the same checks, and the outlines as 5-tuples.
    let c = canvas(400, 200);
    let hl = r#", "dark": true, "highlights": [0, 0, 0, 1, 4, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4], "fmt": ".3g", "contrast": "more""#;
    heatmap(&viz, &c, "weights", hl).unwrap();
    let e = heatmap(&viz, &c, "weights", r#", "highlights": [0, 0, 1, 1]"#).unwrap_err();
    assert!(e.contains("not a multiple of 5"), "{e}");
    let e = heatmap(&viz, &c, "weights", r#", "highlights": [4, 0, 0, 1, 1]"#).unwrap_err();
    assert!(e.contains("highlight kind 4"), "{e}");
    assert!(heatmap(&viz, &c, "weights", r#", "fmt": "x""#).is_err());
    let size = viz.ask(js(r#"{"kind": "preferredSize", "view": "weights"}"#)).unwrap();
    assert_eq!(js_sys::Array::from(&size).length(), 2);
    assert!(viz.ask(js(r#"{"kind": "preferredSize", "view": "weights", "fmt": "?"}"#)).is_err());
    let at = |viz: &mut attention_viz::web::Viz, view: &str| {
        let q = format!(
            r#"{{"kind": "cellAt", "view": "{view}", "width": 362, "height": 164, "dpr": 1, "x": 60, "y": 30}}"#
        );
        viz.ask(js(&q)).unwrap()
    };
    assert_eq!(js_sys::Array::from(&at(&mut viz, "weights")).to_vec(), [JsValue::from(0), JsValue::from(0)]);
    assert!(at(&mut viz, "nope").is_undefined());
    // What the figure is not asked or drawn: said.
    assert!(message(viz.ask(js(r#"{"kind": "colour"}"#)).unwrap_err()).contains("not a question the figure answers"));
    let e = message(viz.draw(c.clone(), js(r#"{"kind": "pie"}"#)).unwrap_err());
    assert!(e.contains("not a drawing the figure makes"), "{e}");
}

#[wasm_bindgen_test]
fn the_figure_as_text() {
    let mut viz = viz_of(&preset_json("seed-001").unwrap());
    let described = viz.ask(js(r#"{"kind": "describeViews", "views": ["weights", "nope"]}"#)).unwrap();
    let described = js_sys::Array::from(&described);
    assert!(described.get(1).is_null(), "no view of that name: null");
    let d = described.get(0);
    assert_eq!(get(&d, "title").as_string().unwrap(), "weights = softmax(scaled)");
    let cells = js_sys::Array::from(&get(&d, "cells"));
    let row0: Vec<String> = js_sys::Array::from(&cells.get(0)).iter().map(|v| v.as_string().unwrap()).collect();
    assert_eq!(row0, ["0.24", "0.0074", "0.75", "0.0074"]);
    assert_eq!(js_sys::Array::from(&get(&d, "rowLabels")).get(3).as_string().unwrap(), "word_4");
    assert!(get(&d, "note").is_null());
    let c = viz.ask(js(r#"{"kind": "cellText", "view": "weights", "i": 0, "j": 2, "fmt": ".3f"}"#)).unwrap();
    assert_eq!(get(&c, "value").as_string().unwrap(), "0.749");
    assert_eq!(get(&c, "row").as_string().unwrap(), "word_1");
    assert_eq!(get(&c, "col").as_string().unwrap(), "word_3");
    assert!((get(&c, "full").as_f64().unwrap() - 0.7491303855446881).abs() < 1e-15);
    assert!(viz.ask(js(r#"{"kind": "cellText", "view": "weights", "i": 9, "j": 0}"#)).unwrap().is_undefined());
    // The palette: a name that, passed back, keeps the colours.
    let mut palette =
        |rest: &str| viz.ask(js(&format!(r#"{{"kind": "palette"{rest}}}"#))).unwrap().as_string().unwrap();
    assert_eq!(palette(r#", "view": "weights""#), "sequential");
    assert_eq!(palette(r#", "view": "q""#), "purple");
    assert_eq!(palette(r#", "view": "weights", "palette": "rocket""#), "rocket");
    // query.exp and query.sum, like the other query fields.
    let row = |viz: &mut attention_viz::web::Viz, name: &str| {
        Float64Array::from(viz.ask(js(&format!(r#"{{"kind": "row", "name": "{name}", "i": 0}}"#))).unwrap()).to_vec()
    };
    assert_eq!(row(&mut viz, "query.sum").len(), 1);
    assert_eq!(row(&mut viz, "query.exp")[2], 1.0);
    assert!(!viz.ask(js(r#"{"kind": "field", "name": "query.exp"}"#)).unwrap().is_undefined());
    assert!(viz.ask(js(r#"{"kind": "field", "name": "nope"}"#)).unwrap().is_undefined());
    // cellRect is cellAt's inverse: the centre of each cell's rectangle is that cell; outside the grid, none.
    for dpr in [1.0, 2.0] {
        let (w, h) = ((362.0 * dpr) as u32, (164.0 * dpr) as u32);
        let size = format!(r#""view": "weights", "width": {w}, "height": {h}, "dpr": {dpr}"#);
        for (i, j) in [(0, 0), (1, 3), (3, 2)] {
            let r = viz.ask(js(&format!(r#"{{"kind": "cellRect", {size}, "i": {i}, "j": {j}}}"#))).unwrap();
            let r: Vec<f64> = js_sys::Array::from(&r).iter().map(|x| x.as_f64().unwrap()).collect();
            let (x, y) = ((r[0] + r[2]) / 2.0, (r[1] + r[3]) / 2.0);
            let at = viz.ask(js(&format!(r#"{{"kind": "cellAt", {size}, "x": {x}, "y": {y}}}"#))).unwrap();
            assert_eq!(js_sys::Array::from(&at).to_vec(), [JsValue::from(i), JsValue::from(j)]);
        }
        assert!(viz.ask(js(&format!(r#"{{"kind": "cellRect", {size}, "i": 4, "j": 0}}"#))).unwrap().is_undefined());
    }
}

/// The embeddings of a figure's config, as the core writes it.
fn embeddings(viz: &mut attention_viz::web::Viz) -> Vec<Vec<f64>> {
    let config: serde_json::Value =
        serde_json::from_str(&viz.ask(js(r#"{"kind": "config"}"#)).unwrap().as_string().unwrap()).unwrap();
    let rows = config["embeddings"].as_array().unwrap().iter();
    rows.map(|r| r.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()).collect()
}

/// `edit`: a command becomes one edit and its snapshot; a refused one throws the core's message and changes nothing;
/// a flat config whose other fields are not JSON throws `null` (the caller sends JSON); `new Viz` takes a flat config.
#[wasm_bindgen_test]
fn edits_and_their_snapshots_through_the_bindings() {
    use attention_viz::web::Viz;
    let mut viz = viz_of(&preset_json("seed-001").unwrap());
    let request = js(r#"{"views": ["weights", "nope"], "fields": ["query.exp#q"], "parts": []}"#);
    let snap = viz.edit(js(r#"{"value": ["embeddings", 0, 0, -0]}"#), request.clone()).unwrap();
    let value = js_sys::Array::from(&get(&snap, "value"));
    assert_eq!(value.get(0).as_string().unwrap(), "embeddings");
    assert!(value.get(3).as_f64().unwrap().is_sign_negative(), "-0 stays -0");
    assert!(get(&snap, "config").is_undefined(), "a snapshot holds no config: the element keeps none");
    assert!(!get(&get(&get(&snap, "views"), "weights"), "key").is_undefined());
    assert!(get(&get(&snap, "views"), "nope").is_undefined());
    assert!(get(&get(&get(&snap, "views"), "weights"), "size").is_undefined(), "an edit measures nothing");
    let snap = viz.edit(js(r#"{"query": 2}"#), request.clone()).unwrap();
    assert_eq!(get(&get(&get(&snap, "parts"), "facts"), "query").as_f64(), Some(2.0), "the facts follow the query");
    // Without a request: the edit alone.
    let out = viz.edit(js(r#"{"insertToken": [0, "first"]}"#), JsValue::UNDEFINED).unwrap();
    assert_eq!(js_sys::Object::keys(&out.into()).length(), 0);
    let config = viz.ask(js(r#"{"kind": "config"}"#)).unwrap().as_string().unwrap();
    assert!(config.contains("\"first\""), "{config}");
    // Refused: the core's message, nothing changed.
    let e = message(viz.edit(js(r#"{"removeHead": 3}"#), request.clone()).unwrap_err());
    assert!(!e.is_empty());
    let e = message(viz.edit(js(r#"{"scale": ["sqrt", 1]}"#), JsValue::UNDEFINED).unwrap_err());
    assert_eq!(e, "scale must be sqrt_dk, none or custom, got \"sqrt\"");
    let e = message(viz.edit(js(r#"{"paint": 1}"#), JsValue::UNDEFINED).unwrap_err());
    assert!(e.starts_with("not an edit the figure knows (one of value, block, mask"), "{e}");
    assert_eq!(viz.ask(js(r#"{"kind": "config"}"#)).unwrap().as_string().unwrap(), config);
    // A restored state says its naive flag; Reset comes back to the author's config.
    let state = viz.ask(js(r#"{"kind": "shareState", "naive": true}"#)).unwrap().as_string().unwrap();
    let edit = js_sys::Object::new();
    Reflect::set(&edit, &"shareState".into(), &js_sys::Array::of2(&state.into(), &false.into())).unwrap();
    let out = viz.edit(edit.into(), JsValue::UNDEFINED).unwrap();
    assert_eq!(get(&out, "naive").as_bool(), Some(true));
    viz.edit(js(r#"{"reset": true}"#), JsValue::UNDEFINED).unwrap();
    assert_eq!(viz.ask(js(r#"{"kind": "config"}"#)).unwrap(), viz.ask(js(r#"{"kind": "authored"}"#)).unwrap());
    assert_eq!(viz.ask(js(r#"{"kind": "usable"}"#)).unwrap().as_bool(), Some(true));
    // Flat configs: the constructor and the {config} edit; other fields that are not JSON: `null`, nothing changed.
    let names = vec!["embeddings".to_string()];
    let flat = Viz::create("{}", Some(names.clone()), Some(vec![2, 2, 2]), Some(vec![1.0, 0.0, 0.0, 1.0])).unwrap();
    let mut flat = flat;
    assert_eq!(embeddings(&mut flat), [[1.0, 0.0], [0.0, 1.0]]);
    assert!(Viz::create("{", Some(names), Some(vec![2, 2, 2]), Some(vec![1.0, 0.0, 0.0, 1.0]))
        .err()
        .unwrap()
        .is_null());
    let edit = js(r#"{"config": {"json": "{", "names": ["embeddings"], "shapes": [2, 1, 1], "data": [3]}}"#);
    assert!(flat.edit(edit, JsValue::UNDEFINED).unwrap_err().is_null());
    let edit = js(r#"{"config": {"json": "{}", "names": ["embeddings"], "shapes": [2, 1, 2], "data": [3, 4]}}"#);
    flat.edit(edit, JsValue::UNDEFINED).unwrap();
    assert_eq!(embeddings(&mut flat), [[3.0, 4.0]]);
}

/// A fixture number: "NaN", "-Infinity" and "Infinity" are the floats.
fn number(v: &serde_json::Value) -> f64 {
    match v {
        serde_json::Value::String(s) if s == "NaN" => f64::NAN,
        serde_json::Value::String(s) if s == "-Infinity" => f64::NEG_INFINITY,
        serde_json::Value::String(s) if s == "Infinity" => f64::INFINITY,
        other => other.as_f64().unwrap(),
    }
}

/// A fixture value's numbers in row-major order.
fn flatten(v: &serde_json::Value, out: &mut Vec<serde_json::Value>) {
    match v {
        serde_json::Value::Array(items) => items.iter().for_each(|i| flatten(i, out)),
        other => out.push(other.clone()),
    }
}

/// The golden values of heads, masks, temperature and scorings (tests/variants.rs natively) through the SIMD
/// kernels: masked weights exactly 0 (exp of −∞), every value within 1e-12 of the float64 NumPy transcription.
#[wasm_bindgen_test]
fn variant_goldens_hold_in_the_browser() {
    let fixture: serde_json::Value = serde_json::from_str(include_str!("fixtures/variant-goldens.json")).unwrap();
    let mut checked = 0;
    for case in fixture["cases"].as_array().unwrap() {
        let trace: JsValue = compute_json(&case["config"].to_string()).unwrap().into();
        for (name, expected) in case["expect"].as_object().unwrap() {
            let mut want = vec![];
            flatten(expected, &mut want);
            let got = field(&trace, name);
            assert_eq!(got.len(), want.len(), "{} {name}", case["name"]);
            for (k, (g, w)) in got.iter().zip(want.iter().map(number)).enumerate() {
                let ok = if w.is_finite() {
                    (g - w).abs() <= 1e-12 * w.abs().max(1e-300)
                } else {
                    g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan())
                };
                assert!(ok, "{} {name}[{k}]: got {g}, want {w}", case["name"]);
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked} values");
}

/// The colour bar's ticks on wasm (its own log10 and fmod) are seaborn's, as natively
/// (tests/heatmap_draw.rs, tests/fixtures/colorbar-ticks.json).
#[wasm_bindgen_test]
fn colour_bar_ticks_are_seaborns_on_wasm() {
    use attention_viz::heatmap::draw::{colorbar_scale, colorbar_tick_space};
    let fixture: serde_json::Value = serde_json::from_str(include_str!("fixtures/colorbar-ticks.json")).unwrap();
    let float = |v: &serde_json::Value| v.as_str().unwrap().parse::<f64>().unwrap();
    for case in fixture["seed_figures"].as_array().unwrap().iter().chain(fixture["more"].as_array().unwrap()) {
        let space =
            colorbar_tick_space(case["bar_length_pt"].as_f64().unwrap(), case["label_size_pt"].as_f64().unwrap());
        let got = colorbar_scale(float(&case["vmin"]), float(&case["vmax"]), space);
        let labels: Vec<&str> = got.ticks.iter().map(|(_, l)| l.as_str()).collect();
        let want: Vec<&str> = case["labels"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
        assert_eq!(labels, want, "{}", case["name"]);
        assert_eq!(got.offset, case["offset_text"].as_str().unwrap(), "{}", case["name"]);
    }
}

/// The modern fields (position, kv_heads, window, sinks, decode_step, tiles; tests/modern.rs natively) through the
/// bindings and the SIMD kernels: every value within 1e-12 of the float64 NumPy transcription; the decode step's
/// weights are the causal row t and o / l after each query block's last tile is its context.
#[wasm_bindgen_test]
fn modern_goldens_hold_in_the_browser() {
    let fixture: serde_json::Value = serde_json::from_str(include_str!("fixtures/modern-goldens.json")).unwrap();
    let same = |g: f64, w: f64| {
        if w.is_finite() {
            (g - w).abs() <= 1e-12 * w.abs().max(1e-300)
        } else {
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan())
        }
    };
    let (mut checked, mut identities) = (0, 0);
    for case in fixture["cases"].as_array().unwrap() {
        let trace: JsValue = compute_json(&case["config"].to_string()).unwrap().into();
        for (name, expected) in case["expect"].as_object().unwrap() {
            let mut want = vec![];
            flatten(expected, &mut want);
            let got = field(&trace, name);
            assert_eq!(got.len(), want.len(), "{} {name}", case["name"]);
            for (k, (g, w)) in got.iter().zip(want.iter().map(number)).enumerate() {
                assert!(same(*g, w), "{} {name}[{k}]: got {g}, want {w}", case["name"]);
                checked += 1;
            }
        }
        let config = attention_viz::config::Config::from_value(&case["config"]).unwrap();
        let attention_viz::attention::Trace::SelfAttention(t) = attention_viz::attention::compute(&config).unwrap()
        else {
            panic!("self-attention")
        };
        let h = t.head(config.options.head);
        if let Some(d) = &t.decode {
            let s = d.step as usize;
            for (j, &w) in h.weights.row(s).iter().enumerate() {
                assert!(same(d.weights.get(j).copied().unwrap_or(0.0), w), "{} decode weight {j}", case["name"]);
            }
            identities += 1;
        }
        if let Some(f) = &t.flash {
            let (rows, cols) = (f.tiles[0] as usize, f.tiles[1] as usize);
            let last = h.weights.rows().div_ceil(cols) - 1;
            for step in f.steps.iter().filter(|s| s.k_block as usize == last) {
                for (r, &l) in step.l.iter().enumerate().filter(|(_, &l)| l > 0.0) {
                    for (c, &o) in step.o.row(r).iter().enumerate() {
                        let want = h.context.get(step.q_block as usize * rows + r, c);
                        assert!(same(o / l, want), "{} o / l", case["name"]);
                    }
                }
                identities += 1;
            }
        }
    }
    assert!(checked > 10_000 && identities > 50, "{checked} values, {identities} identities");
}

/// The steppers' drawings: the flash tile's outline (kind 3) on the scaled scores, and the decode views.
#[wasm_bindgen_test]
fn the_steppers_bindings() {
    let fixture: serde_json::Value = serde_json::from_str(include_str!("fixtures/modern-goldens.json")).unwrap();
    let case = |name: &str| fixture["cases"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap().clone();
    let flash = case("tiles_causal_3_2");
    let mut viz = viz_of(&flash["config"].to_string());
    let canvas = canvas(400, 300);
    heatmap(&viz, &canvas, "scaled", r#", "highlights": [3, 0, 2, 3, 4]"#).unwrap();
    let e = heatmap(&viz, &canvas, "scaled", r#", "highlights": [4, 0, 0, 1, 1]"#).unwrap_err();
    assert!(e.contains("3 (FlashAttention's tile)"), "{e}");
    // No decode step here: no decode views.
    assert!(viz.ask(js(r#"{"kind": "svg", "view": "decode.weights"}"#)).is_err());
    let decode = case("decode_step_3");
    let viz = viz_of(&decode["config"].to_string());
    for v in ["decode.q", "decode.k_cache", "decode.v_cache", "decode.scores", "decode.weights", "decode.context"] {
        heatmap(&viz, &canvas, v, r#", "dark": true"#).unwrap();
    }
}

/// `position.offset` up to 2⁴⁰ is every position shifted, exactly: wasm's 32-bit usize must not wrap it (2³² + 5 read
/// as 5), in the trace or in the config the page keeps. PE rows from NumPy (p / 10000^(2⌊j/2⌋/4), sin/cos, float64).
#[wasm_bindgen_test]
fn position_offsets_past_two_to_the_32_are_not_wrapped() {
    let cases = [
        (4294967301u64, [0.719409269064724, -0.6945864262881615, -0.9962855074302945, 0.08611148404458291]),
        (1099511627776, [-0.40570501153282873, -0.914004071991557, 0.15230681735863497, -0.9883332602852559]),
    ];
    for (offset, want) in cases {
        let config = format!(
            r#"{{"embeddings": [[1, 0, 0, 1], [0, 2, 1, 0], [1, 1, 2, 2]], "position": {{"kind": "sinusoidal", "offset": {offset}}}}}"#
        );
        let trace: JsValue = compute_json(&config).unwrap().into();
        let pe = field(&trace, "pe");
        for (j, w) in want.iter().enumerate() {
            assert!((pe[j] - w).abs() < 1e-12, "offset {offset}: pe[0][{j}] {} vs NumPy {w}", pe[j]);
        }
        let kept = normalize_config(&config).unwrap();
        assert!(kept.contains(&format!("\"offset\":{offset}")), "offset {offset} kept as given: {kept}");
    }
}
