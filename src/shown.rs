//! The snapshot's `parts`: everything the element's parts show besides the heatmaps, one entry per part the element
//! asks, built by the module that owns it — the facts, toolbar and input grids (`controls`), the breakdown and the
//! steps strip (`tables`), the variants and modern panels (`panels`), the decode and flash steppers (`steppers`). The
//! element asks only for the parts it has built and renders each as it comes; it keeps no config and derives nothing.

use crate::attention::Trace;
use crate::config::Config;
use crate::{controls, panels, steppers, tables};
use serde_json::Value;

/// What the element asks besides the part names: each input grid's window (`{name: [r0, c0]}`).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Asked {
    pub parts: Vec<String>,
    pub windows: Value,
}

/// `{facts, modern, <part>: model…}`: the facts always (every part reads them), then each asked part this figure has:
/// "toolbar", "inputs", "breakdown" (or "breakdown:naive", with the naive softmax's column), "steps", and the panels
/// `panels::panels` builds ("heads", "scoring", "temperature", "mask", "position", "kv", "window"), and the steppers
/// ("decode", "flash:s" with the flash stepper's step s); `steppers`: whether this figure can show them.
pub fn parts(config: &Config, trace: &Trace, asked: &Asked) -> Value {
    let mut out = panels::panels(config, trace, &asked.parts);
    out["facts"] = controls::facts(config);
    out["steppers"] = steppers::applies(config).into();
    for name in &asked.parts {
        // The steppers' models are the full module's (the element loads it before it shows a stepper).
        #[cfg(feature = "full")]
        if let Some(part) = steppers::part(config, trace, name) {
            out[name.split(':').next().unwrap_or(name)] = part;
            continue;
        }
        let part = match name.as_str() {
            "toolbar" => controls::toolbar(config),
            "inputs" => controls::inputs(config, &asked.windows),
            "breakdown" => tables::breakdown(config, trace, false),
            "breakdown:naive" => tables::breakdown(config, trace, true),
            "steps" => tables::steps(config, trace),
            _ => continue,
        };
        // "breakdown:naive" is the breakdown, as the element reads it.
        out[name.split(':').next().unwrap_or(name)] = part;
    }
    out
}
