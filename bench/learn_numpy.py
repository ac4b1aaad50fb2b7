#!/usr/bin/env python3
"""The NumPy side of the "learn" benchmark suite (bench/learn.mjs): training the `reversal` model of src/learn in
NumPy, float64, on this machine.

A transcription of the formulas of src/learn (README "Trained models"), not of its code: the model is
x0 = tok_emb[ids] + pos_emb[:n]; per layer, per head h (columns h*dh ... of x@W_Q, x@W_K, x@W_V)
A = softmax(Q K^T / sqrt(dh)) (-inf above the diagonal when causal), x <- x + concat(A V) @ W_O; logits = x @ W_U;
the loss is the mean cross-entropy over the scored positions; the gradient is written out by hand (reverse mode);
Adam with bias correction (beta1 = 0.9, beta2 = 0.999, eps = 1e-8, lr = 0.003). The draws are the trainer's:
np.random.RandomState(seed), each parameter matrix in the order tok_emb, pos_emb, per layer W_Q, W_K, W_V, W_O, W_U
drawn as (2 * rand(rows, cols) - 1) * sqrt(3 / d), then per step 32 sequences of randint(0, 10, 6). Its numbers are not
meant to be the WASM trainer's bit for bit (summation orders and exp differ); the final weights' largest difference
from models/reversal.json is printed for information.

Timed with time.perf_counter: `--repeats` runs of `--steps` steps each (the held-out accuracy, on 200 sequences from
RandomState(1000003) as the trainer's, is scored every 25 steps outside the timed span). Prints one JSON document.

Usage: python3 bench/learn_numpy.py [--steps 1000] [--repeats 3] [--seed 0]
"""
import argparse
import json
import math
import os
import platform
import sys
import time

import numpy as np

VOCAB, SEQ, D, LAYERS, HEADS, CAUSAL = 10, 6, 8, 1, 1, False
BATCH, LR = 32, 0.003
HELD_OUT_SEED, HELD_OUT = 1_000_003, 200


def init(rs):
    a = math.sqrt(3.0 / D)
    draw = lambda r, c: (2.0 * rs.rand(r, c) - 1.0) * a
    p = {"tok_emb": draw(VOCAB, D), "pos_emb": draw(SEQ, D), "layers": []}
    for _ in range(LAYERS):
        p["layers"].append({k: draw(D, D) for k in ("w_q", "w_k", "w_v", "w_o")})
    p["w_u"] = draw(D, VOCAB)
    return p


def batch(rs, count):
    """`count` reversal examples: inputs (count, 6) and targets (the inputs reversed)."""
    x = np.array([rs.randint(0, 10, SEQ) for _ in range(count)])
    return x, x[:, ::-1]


def heads(m, b, n):
    return m.reshape(b, n, HEADS, D // HEADS).transpose(0, 2, 1, 3)


def merge(m, b, n):
    return m.transpose(0, 2, 1, 3).reshape(b, n, D)


def forward(p, ids):
    b, n = ids.shape
    dh = D // HEADS
    x = p["tok_emb"][ids] + p["pos_emb"][:n]
    keep = []
    for layer in p["layers"]:
        q, k, v = (heads(x @ layer[w], b, n) for w in ("w_q", "w_k", "w_v"))
        s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(dh)
        if CAUSAL:
            s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
        e = np.exp(s - s.max(-1, keepdims=True))
        a = e / e.sum(-1, keepdims=True)
        concat = merge(a @ v, b, n)
        keep.append((x, q, k, v, a, concat))
        x = x + concat @ layer["w_o"]
    return x, x @ p["w_u"], keep


def grads(p, ids, targets):
    """The mean cross-entropy over every position and its gradient."""
    b, n = ids.shape
    dh = D // HEADS
    top, logits, keep = forward(p, ids)
    z = logits - logits.max(-1, keepdims=True)
    probs = np.exp(z)
    probs /= probs.sum(-1, keepdims=True)
    count = b * n
    onehot = np.eye(VOCAB)[targets]
    loss = -np.sum(onehot * np.log(probs)) / count
    dlogits = (probs - onehot) / count
    g = {"w_u": np.einsum("bnd,bnv->dv", top, dlogits), "layers": [None] * LAYERS}
    dx = dlogits @ p["w_u"].T
    for l in reversed(range(LAYERS)):
        layer = p["layers"][l]
        x, q, k, v, a, concat = keep[l]
        gl = {"w_o": np.einsum("bni,bnj->ij", concat, dx)}
        dctx = heads(dx @ layer["w_o"].T, b, n)
        da = dctx @ v.transpose(0, 1, 3, 2)
        dv = a.transpose(0, 1, 3, 2) @ dctx
        ds = a * (da - np.sum(a * da, -1, keepdims=True)) / math.sqrt(dh)
        dq, dk = ds @ k, ds.transpose(0, 1, 3, 2) @ q
        dq, dk, dv = (merge(m, b, n) for m in (dq, dk, dv))
        for name, dm in (("w_q", dq), ("w_k", dk), ("w_v", dv)):
            gl[name] = np.einsum("bni,bnj->ij", x, dm)
            dx = dx + dm @ layer[name].T
        g["layers"][l] = gl
    g["tok_emb"] = np.zeros_like(p["tok_emb"])
    np.add.at(g["tok_emb"], ids.reshape(-1), dx.reshape(-1, D))
    g["pos_emb"] = np.zeros_like(p["pos_emb"])
    g["pos_emb"][:n] = dx.sum(0)
    return loss, g


def flat(p):
    """Every matrix in the fixed order (views, so updates write through)."""
    out = [p["tok_emb"], p["pos_emb"]]
    for layer in p["layers"]:
        out += [layer["w_q"], layer["w_k"], layer["w_v"], layer["w_o"]]
    return out + [p["w_u"]]


class Adam:
    def __init__(self, p):
        self.m = [np.zeros_like(x) for x in flat(p)]
        self.v = [np.zeros_like(x) for x in flat(p)]
        self.b1t = self.b2t = 1.0

    def update(self, p, g):
        b1, b2, eps = 0.9, 0.999, 1e-8
        self.b1t *= b1
        self.b2t *= b2
        for x, gx, m, v in zip(flat(p), flat(g), self.m, self.v):
            m *= b1
            m += (1 - b1) * gx
            v *= b2
            v += (1 - b2) * gx * gx
            x -= LR * (m / (1 - self.b1t)) / (np.sqrt(v / (1 - self.b2t)) + eps)


def accuracy(p, x, y):
    _, logits, _ = forward(p, x)
    return float(np.mean(logits.argmax(-1) == y))


def train(seed, steps, held):
    rs = np.random.RandomState(seed)
    p = init(rs)
    adam = Adam(p)
    timed, first_perfect, loss = 0.0, None, None
    for step in range(1, steps + 1):
        t0 = time.perf_counter()
        x, y = batch(rs, BATCH)
        loss, g = grads(p, x, y)
        adam.update(p, g)
        timed += time.perf_counter() - t0
        if first_perfect is None and step % 25 == 0 and accuracy(p, *held) == 1.0:
            first_perfect = step
    return p, timed, first_perfect, float(loss)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    held = batch(np.random.RandomState(HELD_OUT_SEED), HELD_OUT)
    runs = []
    for _ in range(args.repeats):
        p, seconds, first_perfect, loss = train(args.seed, args.steps, held)
        runs.append({"seconds": seconds, "ms_per_step": 1000 * seconds / args.steps, "first_perfect_step": first_perfect,
                     "final_loss": loss, "final_accuracy": accuracy(p, *held)})
    shipped = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models", "reversal.json")
    diff = None
    if args.seed == 0 and args.steps == 1000 and os.path.exists(shipped):
        with open(shipped) as f:
            want = json.load(f)["params"]
        want_flat = [want["tok_emb"], want["pos_emb"]]
        for layer in want["layers"]:
            want_flat += [layer["w_q"], layer["w_k"], layer["w_v"], layer["w_o"]]
        want_flat.append(want["w_u"])
        diff = max(float(np.max(np.abs(np.array(w) - x))) for w, x in zip(want_flat, flat(p)))
    ms = sorted(r["ms_per_step"] for r in runs)
    json.dump({
        "numpy": np.__version__, "python": platform.python_version(), "steps": args.steps, "seed": args.seed,
        "ms_per_step_median": ms[len(ms) // 2], "steps_per_s": 1000 / ms[len(ms) // 2], "runs": runs,
        "max_abs_diff_from_shipped": diff,
    }, sys.stdout)


if __name__ == "__main__":
    main()
