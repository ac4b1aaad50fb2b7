#!/usr/bin/env python3
"""Generate tests/fixtures/learn-goldens.json for tests/learn.rs: the logits and attention
weights of the shipped models (models/reversal.json, models/induction.json) on a few inputs,
computed by a float64 NumPy transcription of the attention-only transformer's formulas, and
initial weights as np.random.RandomState draws them (`init`, which learn::Model::init must
give bit for bit).

Written from the formulas, not from the Rust code:

    x = tok_emb[ids] + pos_emb[:n]                          (n × d)
    for each layer:
        Q, K, V = x @ W_Q, x @ W_K, x @ W_V                 (n × d)
        head h takes columns h·d_h … (h+1)·d_h − 1 (PyTorch's in-projection layout), d_h = d / H
        weights_h = softmax(Q_h K_hᵀ / √d_h), with −∞ above the diagonal when causal
        x = x + [weights_0 V_0, …, weights_{H−1} V_{H−1}] @ W_O
    logits = x @ W_U                                        (n × V)

    python3 tests/goldens/gen_learn_goldens.py            # writes the fixture
    python3 tests/goldens/gen_learn_goldens.py --print    # prints it instead (tests/learn.rs runs this)
"""
import json
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]

INPUTS = {
    "reversal": [[3, 1, 4, 1, 5, 9], [0, 0, 0, 0, 0, 0], [9, 8, 7, 6, 5, 4], [2, 7, 1, 8, 2, 8], [5, 0, 5]],
    # Distinct tokens with one segment repeated (3 12 0 5 9 at 1 and at 8), as the task draws
    # them; a shorter prefix; and a sequence the task never draws (repeats everywhere).
    "induction": [
        [7, 3, 12, 0, 5, 9, 1, 14, 3, 12, 0, 5, 9, 2, 11, 6],
        [4, 10, 15, 8, 13, 4, 10, 15, 8],
        [1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3, 0, 0, 0, 0],
    ],
}


def softmax(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def forward(model, ids):
    p = model["params"]
    d, heads, causal = model["d_model"], model["heads"], model["causal"]
    dh = d // heads
    n = len(ids)
    x = np.array(p["tok_emb"])[ids] + np.array(p["pos_emb"])[:n]
    all_weights = []
    for layer in p["layers"]:
        q, k, v = (x @ np.array(layer[w]) for w in ("w_q", "w_k", "w_v"))
        contexts, layer_weights = [], []
        for h in range(heads):
            cols = slice(h * dh, (h + 1) * dh)
            s = q[:, cols] @ k[:, cols].T / np.sqrt(dh)
            if causal:
                s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
            w = softmax(s)
            layer_weights.append(w.tolist())
            contexts.append(w @ v[:, cols])
        x = x + np.concatenate(contexts, axis=1) @ np.array(layer["w_o"])
        all_weights.append(layer_weights)
    logits = x @ np.array(p["w_u"])
    return {"input": ids, "logits": logits.tolist(), "prediction": logits.argmax(axis=1).tolist(), "weights": all_weights}


def init(shape, seed):
    """The documented initialisation: every matrix, in the order tok_emb, pos_emb, per layer
    w_q w_k w_v w_o, w_u, is (2 rand − 1)·√(3/d) from one np.random.RandomState(seed)."""
    v, t, d, layers = shape["vocab"], shape["seq_len"], shape["d_model"], shape["layers"]
    rs = np.random.RandomState(seed)
    a = np.sqrt(3.0 / d)
    draw = lambda rows, cols: ((2.0 * rs.rand(rows, cols) - 1.0) * a).tolist()
    tok_emb = draw(v, d)
    pos_emb = draw(t, d)
    layer_list = [{w: draw(d, d) for w in ("w_q", "w_k", "w_v", "w_o")} for _ in range(layers)]
    return {"seed": seed, "shape": shape, "params": {"tok_emb": tok_emb, "pos_emb": pos_emb, "layers": layer_list, "w_u": draw(d, v)}}


def main():
    out = {"numpy": np.__version__}
    # The reversal model's shape, and a wider one with two layers.
    out["init"] = [
        init({"vocab": 10, "seq_len": 6, "d_model": 8, "layers": 1}, 0),
        init({"vocab": 5, "seq_len": 4, "d_model": 6, "layers": 2}, 7),
    ]
    for name, inputs in INPUTS.items():
        model = json.loads((ROOT / "models" / f"{name}.json").read_text())
        out[name] = [forward(model, ids) for ids in inputs]
    text = json.dumps(out, indent=1) + "\n"
    if "--print" in sys.argv:
        sys.stdout.write(text)
    else:
        (ROOT / "tests" / "fixtures" / "learn-goldens.json").write_text(text)


if __name__ == "__main__":
    main()
