#!/usr/bin/env python3
"""Generate tests/fixtures/real-layers.json: real transformers models' attention layers, as ``av.layer_config``
reads them, with what transformers computed and an independent NumPy transcription.

For each architecture ``layer_config`` reads (python/attention_viz/_layers.py), the tiny random-init model of
tests/models/tiny.py (no download: hidden 16, 4 heads, 2 K/V heads where the architecture has grouped-query
attention, 2 layers, seeded; eager attention), in float32 and in float64, runs on 6 seeded token ids. Each case
records:

* ``config``: what ``layer_config`` gives for the layer (the fixture's input; plain JSON numbers, float32 values
  widened exactly and written with repr, so they stay exact);
* ``transformers``: that layer's ``output_attentions`` (heads × n × n) and its attention module's output (n × d_out:
  the self-attention module's, or BERT's attention.output.dense before the residual and LayerNorm), from hooks;
* ``numpy``: the weights and output of a float64 NumPy transcription of the config's formulas, written below from
  the config alone (``attend``): the independent golden;
* ``max_diff``: the largest absolute difference between the NumPy transcription and transformers, per array.

float64 cases run transformers with its float32 upcasts (softmax's dtype=torch.float32, RoPE's .float(), RMSNorm's
.to(torch.float32), meant for half precision) kept at float64 (tiny.py's ``Float64Mode``), so that its numbers are
float64 end to end; ``plain_f64_diff`` records how far transformers' own float64 run, with those float32 steps, is
from the NumPy transcription, for the record. The library versions are in the fixture.

Not part of ``make test``; needs torch, transformers and numpy (``make test-models`` makes a venv with them):

    .venv-models/bin/python tests/goldens/gen_real_layers.py
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import torch
import transformers

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tests" / "models"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from attention_viz import _layers  # noqa: E402  (reads models; needs no .wasm)
from fixture_json import dumps, encode  # noqa: E402
from tiny import CASES, SEED, Float64Mode, build, token_ids, transformers_run  # noqa: E402

# ---------------------------------------------------------------------------
# The NumPy transcription: the config's formulas, float64, from the config alone
# ---------------------------------------------------------------------------

def rms(x, norm):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + norm["eps"]) * np.asarray(norm["weight"])


def rope(x, position):
    """The first rotary_dim dims of each row rotate (rotate_half over them), the rest pass through."""
    r = position["rotary_dim"]
    f = np.asarray(position["frequencies"])
    p = np.arange(x.shape[0])[:, None] + position["offset"]
    angle = p * f[None, :]
    cos, sin = np.cos(angle) * position["attention_factor"], np.sin(angle) * position["attention_factor"]
    x1, x2 = x[:, : r // 2], x[:, r // 2: r]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin, x[:, r:]], axis=1)


def attend(config):
    """(weights heads × n × n, output n × d_out) of a config: Q = X·W_Q + b_q …, per head q/k RMSNorm, RoPE,
    scores / scale, softcap, causal mask and window, softmax, contexts side by side · W_O + b_o."""
    x = np.asarray(config["embeddings"])
    n, heads = x.shape[0], config["heads"]
    kv = config.get("kv_heads", heads)
    proj = {c: np.asarray(config[f"w_{c}"]) for c in "qkvo"}
    bias = {c: np.asarray(config.get(f"b_{c}", np.zeros(proj[c].shape[1]))) for c in "qkvo"}
    q, k, v = (x @ proj[c] + bias[c] for c in "qkv")
    d_k, d_v = proj["q"].shape[1] // heads, proj["v"].shape[1] // kv
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    allowed = np.ones((n, n), dtype=bool)
    if config.get("mask") == "causal":
        allowed &= j <= i
    if config.get("window"):
        left, right = config["window"]
        allowed &= (j >= i - left) & (j <= i + right)
    scale = config.get("scale", "sqrt_dk")
    scale = math.sqrt(d_k) if scale == "sqrt_dk" else 1.0 if scale == "none" else scale
    weights, contexts = [], []
    for h in range(heads):
        g = h // (heads // kv)
        qh, kh, vh = q[:, h * d_k:(h + 1) * d_k], k[:, g * d_k:(g + 1) * d_k], v[:, g * d_v:(g + 1) * d_v]
        if "q_norm" in config:
            qh, kh = rms(qh, config["q_norm"]), rms(kh, config["k_norm"])
        if config.get("position"):
            qh, kh = rope(qh, config["position"]), rope(kh, config["position"])
        scaled = qh @ kh.T / scale
        if config.get("softcap"):
            scaled = config["softcap"] * np.tanh(scaled / config["softcap"])
        scaled = np.where(allowed, scaled, -np.inf)
        e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
        w = e / e.sum(axis=1, keepdims=True)
        weights.append(w)
        contexts.append(w @ vh)
    return np.stack(weights), np.concatenate(contexts, axis=1) @ proj["o"] + bias["o"]


def case(name, config_class, model_class, kwargs, layer, dtype, seed):
    model = build(config_class, model_class, kwargs, dtype, seed)
    ids = token_ids(seed)
    wide = dtype == torch.float64
    plain = None
    if wide:
        plain = attend(_layers.layer_config(model, ids, layer=layer))
        plain_t = transformers_run(model, model_class, layer, ids)
    with Float64Mode() if wide else torch.no_grad():
        config = _layers.layer_config(model, ids, layer=layer)
        weights, output = transformers_run(model, model_class, layer, ids)
    np_weights, np_output = attend(config)
    out = {"name": f"{name}-{'f64' if wide else 'f32'}", "model_type": model.config.model_type,
           "dtype": "float64" if wide else "float32", "layer": layer, "config": config,
           "transformers": {"weights": weights, "output": output},
           "numpy": {"weights": np_weights, "output": np_output},
           "max_diff": {"weights": float(np.abs(np_weights - weights).max()),
                        "output": float(np.abs(np_output - output).max())}}
    if plain is not None:
        out["plain_f64_diff"] = {"weights": float(np.abs(plain[0] - plain_t[0]).max()),
                                 "output": float(np.abs(plain[1] - plain_t[1]).max())}
    return out


def main():
    cases = []
    for k, (name, config_class, model_class, kwargs, layer) in enumerate(CASES):
        for dtype in (torch.float32, torch.float64):
            c = case(name, config_class, model_class, kwargs, layer, dtype, SEED + k)
            cases.append(c)
            print(f"{c['name']:22} numpy vs transformers: weights {c['max_diff']['weights']:.1e} "
                  f"output {c['max_diff']['output']:.1e}"
                  + (f"  (plain float64 transformers: {c['plain_f64_diff']['weights']:.1e} "
                     f"{c['plain_f64_diff']['output']:.1e})" if "plain_f64_diff" in c else ""))
    fixture = {"generator": "tests/goldens/gen_real_layers.py",
               "versions": {"torch": torch.__version__, "transformers": transformers.__version__,
                            "numpy": np.__version__, "python": sys.version.split()[0]},
               "cases": cases}
    path = ROOT / "tests/fixtures/real-layers.json"
    path.write_text(dumps(encode(fixture)) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
