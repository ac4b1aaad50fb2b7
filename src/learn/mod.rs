//! Attention that learned: tiny attention-only transformers, trained by the crate itself.
//!
//! This module owns the model (token and position embeddings, attention-only layers of one or
//! more heads on a residual stream, an unembedding: no MLP, no LayerNorm), its forward pass
//! with every head's stages, the hand-written backward pass of the mean cross-entropy, Adam,
//! the tasks the shipped models were trained on (`reversal`, `induction`), the trainer the
//! browser runs a few steps at a time, the model JSON and the shipped presets.
//!
//! Everything is deterministic on every platform: parameters start from NumPy's `rand`
//! (bit for bit, see [`Model::init`]), batches come from `randint`, exponentials are the
//! crate's own [`crate::math::exp`] (not libm's, which differs between native and wasm) and
//! no operation is fused, so the same seed gives the same weights bit for bit natively and in
//! WebAssembly. The shipped weights in `models/*.json` are what
//! `cargo run --release --example train -- <task>` writes. Native builds (tests, examples) have
//! them by name ([`preset`]); the WebAssembly build does not carry them: the page fetches them
//! beside the .wasm and hands their text to `web::learn` (a third of the module's size otherwise).
//!
//! The parts:
//! - [`model`]: [`Model`], [`Shape`], [`Params`], the forward pass ([`Forward`]) and the JSON;
//! - [`grad`]: the loss and its gradient with respect to every parameter;
//! - [`request`]: compute()'s model config read and checked ([`read_request`]);
//! - [`task`]: [`Task`] and its examples, batches and accuracy;
//! - [`train`]: [`Adam`], [`Trainer`] and [`Progress`];
//! - [`preset`]: the shipped models by name (native builds).

pub mod grad;
pub mod model;
pub mod request;
pub mod task;
pub mod train;

pub use grad::{gradients, loss};
pub use model::{Forward, LayerParams, LayerTrace, Model, Params, Repeats, Shape, Trained};
pub use request::{read_request, ModelRef, ModelRequest, MODEL_FIELDS};
pub use task::{Example, Task};
pub use train::{Adam, Progress, Trainer};

/// The names [`preset`] knows.
pub const PRESETS: [&str; 2] = ["reversal", "induction"];

/// A shipped model by name (`"reversal"`, `"induction"`), parsed from the committed
/// `models/<name>.json`; `None` for any other name. Not in the WebAssembly build, which gets the
/// same files' text at run time (`web::learn::load_models`).
#[cfg(not(target_arch = "wasm32"))]
pub fn preset(name: &str) -> Option<Model> {
    let text = match name {
        "reversal" => include_str!("../../models/reversal.json"),
        "induction" => include_str!("../../models/induction.json"),
        _ => return None,
    };
    // The committed files are checked by tests/learn.rs, so a failure here is a build bug.
    Some(Model::from_json_str(text).expect("a shipped model is valid"))
}
