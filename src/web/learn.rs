//! The bindings of the trained models (`crate::learn`): the shipped models the page hands over, as JSON, and
//! `compute({mechanism: "model"})`'s forward pass (`call`'s `requests::ModelsRequest`), and the `TrainerCore` that
//! `train()`'s Web Worker drives a few steps per message.
//!
//! Thin, like the rest of `web`: the checks and the numbers are `crate::learn`'s; this file converts. Messages
//! are located for the caller's config (`model: …`, `input[3] …`).

use super::calls::value_of;
use super::{js_err, set};
use crate::learn::{self, Example, Model, Task, Trainer};
use crate::math::Matrix;
use crate::requests::{ModelsRequest, TrainerRequest};
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

/// A shipped models' request: the file's text handed over (parsed on first use) or why it could not be had
/// (nothing), a model's JSON text (`undefined` for a name that is not one), a model config's forward pass.
pub(crate) fn answer(request: ModelsRequest) -> Result<JsValue, JsError> {
    match request {
        ModelsRequest::Load(text) => SHIPPED.with(|s| *s.borrow_mut() = Shipped::Text(text)),
        ModelsRequest::Failed(reason) => SHIPPED.with(|s| *s.borrow_mut() = Shipped::Failed(reason)),
        ModelsRequest::Json(name) => return Ok(model_json(&name)?.map_or(JsValue::UNDEFINED, JsValue::from)),
        ModelsRequest::Compute(config_json) => return compute_model(&config_json).map(JsValue::from),
    }
    Ok(JsValue::UNDEFINED)
}

/// Every shipped model from the models file's text, each checked as `Model::from_json` checks a caller's.
fn parse_shipped(text: &str) -> Result<Vec<(&'static str, Rc<Model>)>, String> {
    let value: serde_json::Value =
        crate::config::json::parse(text).map_err(|e| format!("the models file is not valid JSON: {e}"))?;
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

/// A shipped model as the JSON of `Model::to_json` (what `train()` resolves with), `None` for a name that is
/// not one; throws when the shipped models could not be loaded.
fn model_json(name: &str) -> Result<Option<String>, JsError> {
    Ok(shipped(name).map_err(js_err)?.map(|m| m.to_json().to_string()))
}

/// compute()'s `{mechanism: "model", model, input}` (the config as JSON text): the forward pass of a shipped model
/// (`model` its name) or of a model object on `input` (token ids), every field checked by `learn::read_request`.
/// Returns `{mechanism: "model", model: <task or null>, input, tokens, prediction, probabilities, logits,
/// layers: [{residual, heads: [{q, k, v, scores, scaled, weights, context}]}], repeats}`, every matrix a list of rows
/// (masked entries of `scaled` are −∞; `repeats`: `learn::Repeats`).
fn compute_model(config_json: &str) -> Result<Object, JsError> {
    let config: serde_json::Value =
        crate::config::json::parse(config_json).map_err(|e| js_err(format!("config is not valid JSON: {e}")))?;
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
    let repeats = js_sys::JSON::parse(&forward.repeats().to_json().to_string()).map_err(|_| js_err("repeats"))?;
    set(&out, "repeats", &repeats);
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
            let tasks: Vec<&str> = Task::ALL.iter().map(|t| t.name()).collect();
            js_err(format!("unknown task {}; the tasks are {}", crate::text::quote(task), tasks.join(", ")))
        })?;
        if !(seed.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&seed)) {
            return Err(js_err(format!("seed must be a whole number from 0 to 2**32 - 1, got {seed}")));
        }
        Ok(JsTrainer { trainer: Trainer::new(task, seed as u32), held_out: task.held_out(HELD_OUT) })
    }

    /// `{kind: "step", n}`: takes `n` steps, then `[step, loss]` (a Float64Array; the loss of the last step's batch);
    /// `{kind: "report"}`: `{step, loss, accuracy, model}`, the held-out accuracy (the fraction of its sequences'
    /// positions the model predicts right) and the model as the JSON text of `Model::to_json`.
    pub fn call(&mut self, request: JsValue) -> Result<JsValue, JsError> {
        let n = match TrainerRequest::parse(value_of(&request)?).map_err(js_err)? {
            TrainerRequest::Step(n) => n,
            TrainerRequest::Report => {
                let p = self.trainer.step(0);
                let out = Object::new();
                set(&out, "step", &(p.step as f64).into());
                set(&out, "loss", &p.loss.into());
                set(&out, "accuracy", &self.held_out_accuracy().into());
                set(&out, "model", &self.trainer.model().to_json().to_string().into());
                return Ok(out.into());
            }
        };
        let p = self.trainer.step(n);
        Ok(Float64Array::from(&[p.step as f64, p.loss][..]).into())
    }
}

impl JsTrainer {
    fn held_out_accuracy(&self) -> f64 {
        let t = self.trainer.task();
        // The held-out examples are the task's own, so they always suit its model.
        t.accuracy(self.trainer.model(), &self.held_out).unwrap_or(f64::NAN)
    }
}
