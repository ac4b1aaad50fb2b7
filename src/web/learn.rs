//! The bindings of the trained models (`crate::learn`): `compute({mechanism: "model"})`'s forward pass, the shipped
//! models as JSON, and the `TrainerCore` that `train()`'s Web Worker drives a few steps per message.
//!
//! Thin, like the rest of `web`: the checks and the numbers are `crate::learn`'s; this file converts. Messages
//! are located for the caller's config (`model: …`, `input[3] …`).

use super::{js_err, set};
use crate::learn::{self, Example, Model, Task, Trainer};
use crate::math::Matrix;
use js_sys::{Array, Float64Array, Object};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// How many held-out sequences `train()`'s progress is scored on: enough that 100 % means the task is learned
/// (1,200 reversal positions), few enough to score in a few milliseconds every report.
const HELD_OUT: usize = 200;

thread_local! {
    /// The shipped models: not in the .wasm (they would be a third of it) but fetched beside it by `loadModels()`
    /// (www/attention-viz.js; a page of seed figures never asks) and handed over as text, parsed on first use: `compute()` on a named model runs on
    /// every keystroke of a figure, and parsing the induction model's JSON costs more than its forward pass.
    static SHIPPED: RefCell<Shipped> = const { RefCell::new(Shipped::Missing) };
}

/// Where the shipped models are.
enum Shipped {
    /// Not handed over (yet): `loadModels()` has not resolved, or the bare wasm-bindgen module is used.
    Missing,
    /// The models file's text (`{"reversal": <model>, "induction": <model>}`), not parsed yet.
    Text(String),
    Parsed(Vec<(&'static str, Rc<Model>)>),
    /// Why they could not be loaded: every named model says so.
    Failed(String),
}

/// Hands the core the shipped models' file (its text); parsed on first use.
#[wasm_bindgen(js_name = loadModels)]
pub fn load_models(text: String) {
    SHIPPED.with(|s| *s.borrow_mut() = Shipped::Text(text));
}

/// Records why the shipped models could not be loaded (a failed fetch): a config naming one says this.
#[wasm_bindgen(js_name = modelsFailed)]
pub fn models_failed(reason: String) {
    SHIPPED.with(|s| *s.borrow_mut() = Shipped::Failed(reason));
}

/// Every shipped model from the models file's text, each checked as `Model::from_json` checks a caller's.
fn parse_shipped(text: &str) -> Result<Vec<(&'static str, Rc<Model>)>, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("the models file is not valid JSON: {e}"))?;
    learn::PRESETS
        .iter()
        .map(|&name| {
            let json = value.get(name).ok_or_else(|| format!("the models file has no {}", crate::text::quote(name)))?;
            Model::from_json(json).map(|m| (name, Rc::new(m))).map_err(|e| format!("the models file's {name}: {e}"))
        })
        .collect()
}

/// The shipped model called `name`: `Ok(None)` for a name that is not one, `Err` (a message) when the shipped
/// models could not be loaded.
fn shipped(name: &str) -> Result<Option<Rc<Model>>, String> {
    let Some(&known) = learn::PRESETS.iter().find(|&&n| n == name) else { return Ok(None) };
    SHIPPED.with(|cell| {
        let mut state = cell.borrow_mut();
        if let Shipped::Text(text) = &*state {
            *state = parse_shipped(text).map_or_else(Shipped::Failed, Shipped::Parsed);
        }
        match &*state {
            Shipped::Parsed(models) => Ok(models.iter().find(|(n, _)| *n == known).map(|(_, m)| m.clone())),
            Shipped::Failed(why) => {
                Err(format!("the shipped model {} could not be loaded: {why}", crate::text::quote(name)))
            }
            Shipped::Missing | Shipped::Text(_) => Err(format!(
                "the shipped model {} is not loaded yet: await `loadModels()` first",
                crate::text::quote(name)
            )),
        }
    })
}

/// The names of the shipped models (`models` on the JS side).
#[wasm_bindgen(js_name = modelNames)]
pub fn model_names() -> Vec<String> {
    learn::PRESETS.iter().map(|s| s.to_string()).collect()
}

/// A shipped model as the JSON of `Model::to_json` (what `train()` resolves with), `undefined` for a name that is
/// not one; throws when the shipped models could not be loaded.
#[wasm_bindgen(js_name = modelJson)]
pub fn model_json(name: &str) -> Result<Option<String>, JsError> {
    Ok(shipped(name).map_err(js_err)?.map(|m| m.to_json().to_string()))
}

/// compute()'s `{mechanism: "model", model, input}` (the config as JSON text): the forward pass of a shipped model
/// (`model` its name) or of a model object on `input` (token ids), every field checked by `learn::read_request`.
/// Returns `{mechanism: "model", model: <task or null>, input, tokens, prediction, probabilities, logits,
/// layers: [{heads: [{q, k, v, scores, scaled, weights, context}]}]}`, every matrix a list of rows (masked
/// entries of `scaled` are −∞).
#[wasm_bindgen(js_name = computeModel)]
pub fn compute_model(config_json: &str) -> Result<Object, JsError> {
    let config: serde_json::Value =
        serde_json::from_str(config_json).map_err(|e| js_err(format!("config is not valid JSON: {e}")))?;
    let request = learn::read_request(&config).map_err(js_err)?;
    let model = match request.model {
        learn::ModelRef::Named(name) => shipped(name).map_err(|e| js_err(format!("model: {e}")))?.ok_or_else(|| {
            js_err(format!(
                "model: unknown model {}; the shipped models are {} (or give a model object)",
                crate::text::quote(name),
                learn::PRESETS.join(", ")
            ))
        })?,
        learn::ModelRef::Object(json) => Rc::new(Model::from_json(json).map_err(|e| js_err(format!("model: {e}")))?),
    };
    let input = &request.input[..];
    let ids = token_ids(&model, input)?;
    let forward = model.forward(&ids).map_err(|e| js_err(format!("model: {e}")))?;
    let out = Object::new();
    set(&out, "mechanism", &"model".into());
    set(&out, "model", &model.task.as_deref().map_or(JsValue::NULL, JsValue::from_str));
    set(&out, "input", &ids.iter().map(|&i| JsValue::from(i as f64)).collect::<Array>());
    set(&out, "tokens", &forward.tokens.iter().map(|t| JsValue::from_str(t)).collect::<Array>());
    set(&out, "prediction", &forward.prediction.iter().map(|&i| JsValue::from(i as f64)).collect::<Array>());
    set(&out, "probabilities", &rows(&forward.probabilities));
    set(&out, "logits", &rows(&forward.logits));
    let layers: Array = forward
        .layers
        .iter()
        .map(|layer| {
            let heads: Array = layer
                .heads
                .iter()
                .map(|h| {
                    let head = Object::new();
                    let stages = [
                        ("q", &h.q),
                        ("k", &h.k),
                        ("v", &h.v),
                        ("scores", &h.stages.scores),
                        ("scaled", &h.stages.scaled),
                        ("weights", &h.stages.weights),
                        ("context", &h.stages.context),
                    ];
                    for (name, m) in stages {
                        set(&head, name, &rows(m));
                    }
                    JsValue::from(head)
                })
                .collect();
            let l = Object::new();
            set(&l, "residual", &rows(&layer.residual));
            set(&l, "heads", &heads);
            JsValue::from(l)
        })
        .collect();
    set(&out, "layers", &layers);
    Ok(out)
}

/// The input as ids, with `Model::check_input`'s messages; an id too large for `usize` is named as given.
fn token_ids(model: &Model, input: &[f64]) -> Result<Vec<usize>, JsError> {
    let vocab = model.shape.vocab;
    let ids: Vec<usize> = input.iter().map(|&x| if x < vocab as f64 { x as usize } else { vocab }).collect();
    if let Err(e) = model.check_input(&ids) {
        // check_input names the first id ≥ V; say the caller's number rather than the stand-in.
        if let Some((i, x)) = input.iter().enumerate().find(|(_, &x)| x >= vocab as f64) {
            if !ids.is_empty() && ids.len() <= model.shape.seq_len {
                return Err(js_err(format!("input[{i}] is {x}; token ids go from 0 to {}", vocab - 1)));
            }
        }
        return Err(js_err(e));
    }
    Ok(ids)
}

/// A matrix as a list of rows (plain arrays of numbers, −∞ and NaN kept as they are).
fn rows(m: &Matrix) -> Array {
    (0..m.rows()).map(|i| JsValue::from(Array::from(&Float64Array::from(m.row(i))))).collect()
}

/// The default number of training steps of `task` (the shipped model's), or `undefined` for an unknown task.
#[wasm_bindgen(js_name = taskSteps)]
pub fn task_steps(task: &str) -> Option<usize> {
    Task::from_name(task).map(Task::steps)
}

/// One input sequence of `task` as its training draws them (token ids), from `RandomState(seed)`; `undefined` for an
/// unknown task. The guided page's "another sequence" button.
#[wasm_bindgen(js_name = taskExample)]
pub fn task_example(task: &str, seed: u32) -> Option<Vec<u32>> {
    let task = Task::from_name(task)?;
    Some(task.example(&mut crate::random::RandomState::new(seed)).input.into_iter().map(|i| i as u32).collect())
}

/// The names of the tasks `train()` knows.
#[wasm_bindgen(js_name = taskNames)]
pub fn task_names() -> Vec<String> {
    Task::ALL.iter().map(|t| t.name().to_string()).collect()
}

/// A `Trainer` and its task's held-out sequences, for `train()`'s worker.
#[wasm_bindgen(js_name = TrainerCore)]
pub struct JsTrainer {
    trainer: Trainer,
    held_out: Vec<Example>,
}

#[wasm_bindgen(js_class = TrainerCore)]
impl JsTrainer {
    /// A fresh model for `task` from `seed` (a whole number 0 … 2³² − 1, checked by the caller too).
    #[wasm_bindgen(constructor)]
    pub fn new(task: &str, seed: f64) -> Result<JsTrainer, JsError> {
        let task = Task::from_name(task).ok_or_else(|| {
            js_err(format!("unknown task {}; the tasks are {}", crate::text::quote(task), task_names().join(", ")))
        })?;
        if !(seed.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&seed)) {
            return Err(js_err(format!("seed must be a whole number from 0 to 2**32 - 1, got {seed}")));
        }
        Ok(JsTrainer { trainer: Trainer::new(task, seed as u32), held_out: task.held_out(HELD_OUT) })
    }

    /// Takes `n` steps; returns `[step, loss]` after them (the loss of the last step's batch).
    pub fn step(&mut self, n: usize) -> Float64Array {
        let p = self.trainer.step(n);
        Float64Array::from(&[p.step as f64, p.loss][..])
    }

    /// The fraction of the held-out sequences' positions the model predicts right.
    #[wasm_bindgen(js_name = heldOutAccuracy)]
    pub fn held_out_accuracy(&self) -> f64 {
        let t = self.trainer.task();
        // The held-out examples are the task's own, so they always suit its model.
        t.accuracy(self.trainer.model(), &self.held_out).unwrap_or(f64::NAN)
    }

    /// The model as the JSON of `Model::to_json`.
    #[wasm_bindgen(js_name = modelJson)]
    pub fn model_json(&self) -> String {
        self.trainer.model().to_json().to_string()
    }
}
