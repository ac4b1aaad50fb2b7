#!/usr/bin/env python3
"""Generate tests/fixtures/chapters-goldens.json: the numbers of the guided page's chapters 10–14 (index.html):
word order (sinusoidal positions, RoPE, ALiBi), sharing keys (GQA and the KV cache), long contexts (a
sliding window and sinks), FlashAttention's tiles and what real models' layers add (partial RoPE, soft-capping).

For each figure of those chapters: its config (index.html's `config` attribute must equal it) and the trace fields
it shows, computed here from the papers' formulas in float64 NumPy, never by the Rust core:

* sinusoidal positions, Vaswani et al. 2017 §3.5: PE[p, 2i] = sin(p / base^(2i/d)), PE[p, 2i+1] = cos(…), added to X;
  checked against the Annotated Transformer's exp-of-log form;
* RoPE, Su et al. 2021 eq. 34: pair (x_2i, x_2i+1) of each head's q and k rotated by p·θ_i, θ_i = base^(−2i/d_k);
  checked against the complex-number form (x_2i + i·x_2i+1)·e^(i·p·θ_i); partial RoPE (GPT-NeoX's rotary_pct, Phi's
  partial_rotary_factor): only the first rotary_dim values turn, θ_i = base^(−2i/rotary_dim), the rest pass unchanged;
* ALiBi, Press et al. 2022: the scaled scores gain −m·|i − j|;
* GQA, Ainslie et al. 2023: query head h reads K/V head ⌊h / (heads / kv_heads)⌋;
* a window [left, right] (i − left ≤ j ≤ i + right) with sinks (keys 0 … sinks − 1 always attended; Xiao et al. 2023);
* the KV cache at step t: q_t against the cached K, V of tokens 0 … t; checked equal to row t of the causal weights;
* FlashAttention-2's Algorithm 1 (Dao 2023): running m, l, o per (query block, key block); checked: after a block's
  last tile o / l is that block's context rows (1e-13);
* the soft cap, Gemma 2 (Gemma Team 2024): capped = c·tanh(scaled / c), which the softmax reads.

Then each "Try:" line's edit (the edited config and the fields it changes), and `quotes`: every number the chapters'
prose prints (index.html marks each with `data-q="<key>"`; tests/e2e/chapters.test.mjs checks the printed digits
against these values and each figure's trace against the fields here, at 1e-12).

Usage (only to regenerate the fixture; the tests read the committed JSON; NumPy only):

    python3 tests/goldens/gen_chapters.py
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_json import dumps, encode  # noqa: E402 (tests/goldens/fixture_json.py)
from papers import alibi_bias, sinusoidal, sinusoidal_annotated, softmax_rows  # noqa: E402 (tests/goldens/papers.py)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "fixtures", "chapters-goldens.json")
F64 = np.float64


# ---------------------------------------------------------------------------
# The formulas
# ---------------------------------------------------------------------------


def rope(x, base, first=0, rotary_dim=None):
    """Interleaved pairs (RoFormer); token p (counted from `first`) turned by p·θ_i. With `rotary_dim` only the first
    rotary_dim values of a row turn (θ_i = base^(−2i/rotary_dim)); the others are copied unturned."""
    n, d = x.shape
    r = d if rotary_dim is None else rotary_dim
    out = x.copy()
    for p in range(n):
        for i in range(r // 2):
            angle = (first + p) * base ** (-2 * i / r)
            c, s = math.cos(angle), math.sin(angle)
            a, b = 2 * i, 2 * i + 1
            out[p, a] = x[p, a] * c - x[p, b] * s
            out[p, b] = x[p, a] * s + x[p, b] * c
    return out


def rope_complex(x, base, first=0, rotary_dim=None):
    n, d = x.shape
    r = d if rotary_dim is None else rotary_dim
    theta = base ** (-2 * np.arange(r // 2) / r)
    z = (x[:, 0:r:2] + 1j * x[:, 1:r:2]) * np.exp(1j * (first + np.arange(n))[:, None] * theta[None, :])
    out = x.copy()
    out[:, 0:r:2], out[:, 1:r:2] = z.real, z.imag
    return out


def attended(config, n):
    """allowed[i, j]: the causal mask, the window and the sinks all let query i read key j."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    ok = np.ones((n, n), dtype=bool)
    if config.get("mask") == "causal":
        ok &= j <= i
    window, sinks = config.get("window"), config.get("sinks", 0)
    if window is not None:
        ok &= ((i - window[0] <= j) & (j <= i + window[1])) | (j < sinks)
    return ok


def attend(q, k, v, scale, ok, bias=None, cap=None):
    """The scores, the scaled scores, the weights, the context and the capped scores (None without a cap). With a soft
    cap the softmax reads capped = cap·tanh(scores / scale / cap), then the bias and the mask (Gemma 2 caps the
    logits themselves); the scaled scores are then scores / scale alone."""
    scores = q @ k.T
    bias = 0 if bias is None else bias
    if cap is None:
        scaled, capped = np.where(ok, scores / scale + bias, -np.inf), None
    else:
        scaled = scores / scale
        capped = np.where(ok, cap * np.tanh(scaled / cap) + bias, -np.inf)
    weights = softmax_rows(scaled if capped is None else capped, ok)
    return scores, scaled, weights, weights @ v, capped


def flash(scaled, v, rows, cols):
    """FlashAttention-2, Algorithm 1, on one head's scaled scores (−∞ where masked)."""
    n, m_keys = scaled.shape
    steps = []
    for qb in range(-(-n // rows)):
        r0, r1 = qb * rows, min((qb + 1) * rows, n)
        m, l, o = np.full(r1 - r0, -np.inf), np.zeros(r1 - r0), np.zeros((r1 - r0, v.shape[1]))
        for kb in range(-(-m_keys // cols)):
            c0, c1 = kb * cols, min((kb + 1) * cols, m_keys)
            s = scaled[r0:r1, c0:c1]
            m_new = np.maximum(m, s.max(axis=1))
            live = m_new > -np.inf
            p = np.zeros_like(s)
            p[live] = np.exp(s[live] - m_new[live, None])
            alpha = np.zeros_like(m)
            seen = live & (m > -np.inf)
            alpha[seen] = np.exp(m[seen] - m_new[seen])
            l = np.where(live, alpha * l + p.sum(axis=1), l)
            o = np.where(live[:, None], alpha[:, None] * o + p @ v[c0:c1], o)
            m = m_new
            steps.append({"q_block": qb, "k_block": kb, "m": m.copy(), "l": l.copy(), "o": o.copy()})
    return steps


def reference(config):
    """The trace fields of a self-attention config (flat names, as compute()'s layout names them). `position.offset`
    (sinusoidal and RoPE) is the position of the first token: every position shifted by it."""
    x = np.asarray(config["embeddings"], dtype=F64)
    n, d_model = x.shape
    h = config.get("heads", 1)
    kv = config.get("kv_heads", h)
    position = config.get("position") or {}
    kind = position.get("kind")
    base = float(position.get("base", 10000.0))
    first = position.get("offset", 0)
    rotary_dim = position.get("rotary_dim")
    cap = config.get("softcap")
    out = {}
    if kind == "sinusoidal":
        pe = sinusoidal(first + n, d_model, base)[first:]
        assert np.max(np.abs(pe - sinusoidal_annotated(first + n, d_model, base)[first:])) < 1e-12
        out["pe"] = pe
        x = x + pe
    if "w_q" in config:
        q, k, v = (x @ np.asarray(config[w], dtype=F64) for w in ("w_q", "w_k", "w_v"))
    else:
        q = k = v = x
    out.update(q=q, k=k, v=v)
    d_k, d_v = q.shape[1] // h, v.shape[1] // kv
    # The documents' default: ÷√d_k with projections, no scaling without (chapter 3's document 002).
    scale = config.get("scale", "sqrt_dk" if "w_q" in config else "none")
    scale = math.sqrt(d_k) if scale == "sqrt_dk" else 1.0
    ok = attended(config, n)
    heads = []
    for i in range(h):
        g = i // (h // kv)
        qi, ki, vi = q[:, i * d_k:(i + 1) * d_k], k[:, g * d_k:(g + 1) * d_k], v[:, g * d_v:(g + 1) * d_v]
        head = {"q": qi, "k": ki, "v": vi}
        if kind == "rope":
            qi, ki = rope(qi, base, first, rotary_dim), rope(ki, base, first, rotary_dim)
            for rotated, plain in ((qi, head["q"]), (ki, head["k"])):
                assert np.max(np.abs(rotated - rope_complex(plain, base, first, rotary_dim))) < 1e-13, "RoPE vs its complex form"
                if rotary_dim is not None:
                    assert np.array_equal(rotated[:, rotary_dim:], plain[:, rotary_dim:]), "past rotary_dim: unturned"
            head.update(q_rot=qi, k_rot=ki)
        bias = None
        if kind == "alibi":
            bias = alibi_bias(n, position["slopes"][i])
            head["bias"] = bias
        scores, scaled, weights, context, capped = attend(qi, ki, vi, scale, ok, bias, cap)
        head.update(scores=scores, scaled=scaled, weights=weights, context=context)
        if capped is not None:
            head["capped"] = capped
        heads.append((head, qi, ki, vi, bias))
        for key, value in head.items():
            out[f"heads.{i}.{key}"] = value
    out["context"] = np.concatenate([hd[0]["context"] for hd in heads], axis=1)
    for key in ("scores", "scaled", "weights", "capped"):
        if key in heads[config.get("head", 0)][0]:
            out[key] = heads[config.get("head", 0)][0][key]
    head, qs, ks, vs, bias = heads[config.get("head", 0)]
    if "decode_step" in config:
        t = config["decode_step"]
        b = None if bias is None else bias[t:t + 1, :t + 1]
        scores, scaled, weights, context, _ = attend(qs[t:t + 1], ks[:t + 1], vs[:t + 1], scale, ok[t:t + 1, :t + 1], b, cap)
        assert np.allclose(weights[0], head["weights"][t, :t + 1], rtol=1e-15, atol=0), "decode = causal row t"
        w_k_rows = d_model if "w_q" in config else 0
        out.update({"decode.step": t, "decode.q": qs[t], "decode.k_cache": ks[:t + 1], "decode.v_cache": vs[:t + 1],
                    "decode.scores": scores[0], "decode.scaled": scaled[0], "decode.weights": weights[0],
                    "decode.context": context[0], "decode.cache_size": (t + 1) * kv * (d_k + d_v),
                    "decode.recompute_cost": (t + 1) * w_k_rows * kv * (d_k + d_v)})
    if "tiles" in config:
        rows, cols = config["tiles"]
        steps = flash(head["scaled"], vs, rows, cols)
        out["flash.tiles"] = [rows, cols]
        blocks = -(-n // cols)
        for s, step in enumerate(steps):
            for key, value in step.items():
                out[f"flash.steps.{s}.{key}"] = value
            if step["k_block"] == blocks - 1:
                r0 = step["q_block"] * rows
                want = head["context"][r0:r0 + len(step["l"])]
                assert np.allclose(step["o"] / step["l"][:, None], want, rtol=1e-13, atol=1e-15), "o / l = context"
    return out


def pick(trace, names):
    return {name: trace[name] for name in names}


# ---------------------------------------------------------------------------
# The chapters' figures
# ---------------------------------------------------------------------------

# "a rose is a rose": two words, each twice, so a figure without positions gives each pair identical rows.
ROSE_TOKENS = ["a", "rose", "is", "a", "rose"]
ROSE_X = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1]]
ROSE_W = {
    "w_q": [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1]],
    "w_k": [[0, 1, 1, 0], [1, 0, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1]],
    "w_v": [[1, 0], [0, 1], [1, 1], [0, 0]],
}


def rose(**fields):
    return {"embeddings": ROSE_X, "tokens": ROSE_TOKENS, **ROSE_W, **fields}


# Chapter 1's four words; four query heads sharing two K/V heads, drawn as chapter 5 draws its weights.
WORDS_X = [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]]
WORDS = ["word_1", "word_2", "word_3", "word_4"]
_rs = np.random.RandomState(42)
GQA_W = {"w_q": _rs.randint(3, size=(3, 8)).tolist(), "w_k": _rs.randint(3, size=(3, 4)).tolist(),
         "w_v": _rs.randint(3, size=(3, 4)).tolist()}


def gqa(**fields):
    return {"embeddings": WORDS_X, "tokens": WORDS, "heads": 4, "kv_heads": 2, **GQA_W, **fields}


# A sentence of eight tokens, no projections (chapter 3's X·Xᵀ), under a window of 3 with one sink.
LONG_TOKENS = ["<s>", "the", "cat", "sat", "on", "the", "mat", "."]
LONG_X = [[2, 0], [1, 1], [1, -1], [0, 2], [1, 0], [1, 1], [1, -1], [2, 1]]


def long(**fields):
    return {"embeddings": LONG_X, "tokens": LONG_TOKENS, **fields}


# Chapters 6 and 7's four words and weights, without a mask.
CH7 = {"embeddings": WORDS_X, "tokens": WORDS, "w_q": [[2, 0, 2], [2, 0, 0], [2, 1, 2]],
       "w_k": [[2, 2, 2], [0, 2, 1], [0, 1, 1]], "w_v": [[1, 1, 0], [0, 1, 1], [0, 0, 0]]}

# Four words without projections (X·Xᵀ, unscaled, as in chapter 3) whose scores run up to 25, capped at c = 10.
CAP_TOKENS = ["the", "cat", "sat", "still"]
CAP_X = [[5, 0], [3, 4], [0, 5], [4, -2]]


def capped(**fields):
    return {"embeddings": CAP_X, "tokens": CAP_TOKENS, **fields}


FIGURES = {
    "chapter-10-sinusoidal": rose(position={"kind": "sinusoidal"}),
    "chapter-10-rope": rose(position={"kind": "rope"}),
    "chapter-10-alibi": rose(position={"kind": "alibi", "slopes": [0.5]}, mask="causal"),
    "chapter-11-gqa": gqa(),
    "chapter-11-decode": gqa(mask="causal", decode_step=2, query=2, head=3),
    "chapter-12": long(window=[2, 0], sinks=1),
    "chapter-13": {**CH7, "tiles": [2, 2]},
    "chapter-14-rotary": rose(position={"kind": "rope", "rotary_dim": 2}),
    "chapter-14-softcap": capped(softcap=10),
}

# Which trace fields each figure's test compares with the page (what the figure shows or the prose quotes).
SHOWN = {
    "chapter-10-sinusoidal": ["pe", "scores", "weights", "context"],
    "chapter-10-rope": ["heads.0.q_rot", "heads.0.k_rot", "scores", "weights"],
    "chapter-10-alibi": ["scores", "heads.0.bias", "scaled", "weights"],
    "chapter-11-gqa": ["k", "v"] + [f"heads.{i}.weights" for i in range(4)] + ["context"],
    "chapter-11-decode": [f"heads.{i}.weights" for i in range(4)] + [
        "decode.step", "decode.q", "decode.k_cache", "decode.v_cache", "decode.scores", "decode.weights",
        "decode.context", "decode.cache_size", "decode.recompute_cost"],
    "chapter-12": ["weights"],
    "chapter-13": ["scaled", "weights", "context", "flash.tiles"]
    + [f"flash.steps.{s}.{k}" for s in range(4) for k in ("q_block", "k_block", "m", "l", "o")],
    "chapter-14-rotary": ["q", "heads.0.q_rot", "heads.0.k_rot", "scores", "weights"],
    "chapter-14-softcap": ["scaled", "capped", "weights"],
}


def without(config, key):
    return {k: v for k, v in config.items() if k != key}


def with_cell(config, matrix, r, c, value):
    edited = {k: v for k, v in config.items()}
    edited[matrix] = [list(row) for row in config[matrix]]
    edited[matrix][r][c] = value
    return edited


# Each "Try:" line's edit: the figure, the config after it, the fields to compare. `how` says how the reader does it
# (the element's control, which tests/e2e/chapters.test.mjs drives with the real mouse and keyboard).
TRIES = {
    "sinusoidal-none": {"figure": "chapter-10-sinusoidal", "how": "position menu: none",
                        "config": without(FIGURES["chapter-10-sinusoidal"], "position"),
                        "fields": ["scores", "weights", "context"]},
    # The slider's right end is 10^7 (www/element/modern.js: 10^0 … 10^7): only the slow hand (PE's columns 2, 3)
    # changes, the fast one (columns 0, 1) turns by p radians whatever the base.
    "sinusoidal-base": {"figure": "chapter-10-sinusoidal", "how": "position menu: sinusoidal, base slider to its right end",
                        "config": rose(position={"kind": "sinusoidal", "base": 10 ** 7}), "fields": ["pe", "weights"]},
    # "shift positions" is position.offset: its + pressed three times puts the sentence at positions 3 … 7.
    "rope-shift": {"figure": "chapter-10-rope", "how": "shift positions: + three times",
                   "config": rose(position={"kind": "rope", "offset": 3}),
                   "fields": ["heads.0.q_rot", "heads.0.k_rot", "scores", "weights"]},
    # The position menu keeps the shift from RoPE to sinusoidal.
    "rope-shift-sinusoidal": {"figure": "chapter-10-rope", "how": "position menu: sinusoidal (the shift stays)",
                              "config": rose(position={"kind": "sinusoidal", "offset": 3}),
                              "fields": ["pe", "scores", "weights"]},
    "alibi-none": {"figure": "chapter-10-alibi", "how": "position menu: none",
                   "config": without(FIGURES["chapter-10-alibi"], "position"), "fields": ["scaled", "weights"]},
    "alibi-steep": {"figure": "chapter-10-alibi", "how": "ALiBi's slope: 2",
                    "config": rose(position={"kind": "alibi", "slopes": [2]}, mask="causal"),
                    "fields": ["heads.0.bias", "scaled", "weights"]},
    "gqa-w_k": {"figure": "chapter-11-gqa", "how": "type 0 into W_K row 1, column 0",
                "config": with_cell(FIGURES["chapter-11-gqa"], "w_k", 1, 0, 0),
                "fields": [f"heads.{i}.weights" for i in range(4)]},
    "decode-next": {"figure": "chapter-11-decode", "how": "decode stepper: → to step 3",
                    "config": gqa(mask="causal", decode_step=3, query=3, head=3),
                    "fields": ["decode.step", "decode.k_cache", "decode.v_cache", "decode.weights", "decode.context",
                               "decode.cache_size", "decode.recompute_cost"]},
    "window-no-sinks": {"figure": "chapter-12", "how": "window panel: sinks 0",
                        "config": long(window=[2, 0]), "fields": ["weights"]},
    "window-wide": {"figure": "chapter-12", "how": "window panel: left 7 (after sinks 0)",
                    "config": long(window=[7, 0], sinks=0), "fields": ["weights"]},
    "tiles-1x1": {"figure": "chapter-13", "how": "flash panel: tiles 1 × 1",
                  "config": {**CH7, "tiles": [1, 1]}, "fields": ["context", "flash.tiles"]},
    # "rotated" is position.rotary_dim: 4 = d_k turns every value, chapter 10's RoPE.
    "rotary-all": {"figure": "chapter-14-rotary", "how": "position panel: 4 typed into rotated",
                   "config": rose(position={"kind": "rope", "rotary_dim": 4}),
                   "fields": ["heads.0.q_rot", "heads.0.k_rot", "scores", "weights"]},
    # Gemma 2's cap, c = 50, typed into the soft cap panel's c (Enter), then the cap turned off.
    "softcap-50": {"figure": "chapter-14-softcap", "how": "soft cap panel: 50 typed into c, Enter",
                   "config": capped(softcap=50), "fields": ["scaled", "capped", "weights"]},
    "softcap-off": {"figure": "chapter-14-softcap", "how": "soft cap panel: cap the scores unticked (after c = 50)",
                    "config": capped(), "fields": ["scaled", "weights"]},
}


def main():
    traces = {name: reference(config) for name, config in FIGURES.items()}
    tries = {name: reference(t["config"]) for name, t in TRIES.items()}

    # RoPE's point: every position shifted by k (here 1 and 3) leaves every score as it was; sinusoidal's change.
    shifted = {k: reference(rose(position={"kind": "rope", "offset": k})) for k in (1, 3)}
    for k, tr in shifted.items():
        assert np.max(np.abs(tr["scores"] - traces["chapter-10-rope"]["scores"])) < 1e-12, "RoPE is shift-invariant"
        assert np.max(np.abs(tr["heads.0.q_rot"] - traces["chapter-10-rope"]["heads.0.q_rot"])) > 0.1
    assert np.array_equal(shifted[3]["scores"], tries["rope-shift"]["scores"])
    sin_shift = tries["rope-shift-sinusoidal"]
    assert np.max(np.abs(sin_shift["scores"] - traces["chapter-10-sinusoidal"]["scores"])) > 0.1
    base7, base4 = tries["sinusoidal-base"]["pe"], traces["chapter-10-sinusoidal"]["pe"]
    assert np.array_equal(base7[:, :2], base4[:, :2]) and np.max(np.abs(base7[:, 2:] - base4[:, 2:])) > 0.01

    s10, r10, a10 = traces["chapter-10-sinusoidal"], traces["chapter-10-rope"], traces["chapter-10-alibi"]
    none10 = tries["sinusoidal-none"]
    assert np.array_equal(none10["weights"][0], none10["weights"][3]), "without positions the two a's agree"
    r = r10["scores"]
    assert abs(r[0, 1] - r[3, 4]) < 1e-12 and abs(r[1, 0] - r[4, 3]) < 1e-12, "the same pair, the same distance"
    g11, d11 = traces["chapter-11-gqa"], traces["chapter-11-decode"]
    gk = tries["gqa-w_k"]
    for i in (2, 3):
        assert np.array_equal(gk[f"heads.{i}.weights"], g11[f"heads.{i}.weights"]), "heads 2, 3 keep theirs"
    for i in (0, 1):
        assert not np.array_equal(gk[f"heads.{i}.weights"], g11[f"heads.{i}.weights"])
    ungrouped = reference({**gqa(mask="causal", decode_step=2), "kv_heads": 4,
                           "w_k": np.repeat(np.asarray(GQA_W["w_k"]).reshape(3, 2, 2), 2, axis=1).reshape(3, 8).tolist(),
                           "w_v": np.repeat(np.asarray(GQA_W["w_v"]).reshape(3, 2, 2), 2, axis=1).reshape(3, 8).tolist()})
    assert np.allclose(ungrouped["context"], d11["context"], rtol=1e-15, atol=0), "GQA = MHA with copied K/V heads"
    w12, n12, wide12 = traces["chapter-12"]["weights"], tries["window-no-sinks"]["weights"], tries["window-wide"]["weights"]
    causal12 = reference(long(mask="causal"))["weights"]
    assert np.allclose(wide12, causal12, rtol=1e-15, atol=0), "a window as long as the text is the causal mask"
    f13 = traces["chapter-13"]
    steps13 = [{k: f13[f"flash.steps.{s}.{k}"] for k in ("m", "l", "o")} for s in range(4)]
    ones = tries["tiles-1x1"]
    ones_steps = [ones[f"flash.steps.{s}.o"] / ones[f"flash.steps.{s}.l"][:, None] for s in range(16) if s % 4 == 3]
    assert np.allclose(np.vstack(ones_steps), ones["context"], rtol=1e-13, atol=0)

    # Partial RoPE: past rotary_dim q and k are the projections' own; the scores still depend on i − j alone; all
    # d_k values turned is chapter 10's RoPE.
    p14, all14 = traces["chapter-14-rotary"], tries["rotary-all"]
    assert np.array_equal(p14["heads.0.q_rot"][:, 2:], p14["q"][:, 2:])
    ps = p14["scores"]
    assert abs(ps[0, 1] - ps[3, 4]) < 1e-12 and abs(ps[1, 0] - ps[4, 3]) < 1e-12, "partial RoPE: still i − j alone"
    for key in ("heads.0.q_rot", "heads.0.k_rot", "scores", "weights"):
        assert np.max(np.abs(all14[key] - r10[key])) < 1e-15, "rotary_dim = d_k is RoPE"
    # The cap: |capped| < c; off, the weights are the softmax of the scaled scores.
    c14 = traces["chapter-14-softcap"]
    assert np.all(np.abs(c14["capped"]) < FIGURES["chapter-14-softcap"]["softcap"])
    off14, cap50 = tries["softcap-off"], tries["softcap-50"]
    assert np.array_equal(off14["scaled"], c14["scaled"]) and "capped" not in off14

    rows13, cols13 = FIGURES["chapter-13"]["tiles"]
    n_long = 4096
    tile = 128
    d_head = 128
    quotes = {
        # Chapter 10: sinusoidal
        "pe.1": s10["pe"][1].tolist(),
        "sin.a0": s10["weights"][0].tolist(),
        "sin.a3": s10["weights"][3].tolist(),
        "none.a": none10["weights"][0].tolist(),
        # RoPE
        "rope.s01": r[0, 1], "rope.s34": r[3, 4], "rope.s10": r[1, 0], "rope.s43": r[4, 3],
        "rope.diag_a": r[0, 0],
        "sin_shift.s01": sin_shift["scores"][0, 1],
        "sin.s01": s10["scores"][0, 1],
        # ALiBi
        "alibi.bias4": a10["heads.0.bias"][4].tolist(),
        "alibi.w4": a10["weights"][4].tolist(),
        "alibi.ratio": a10["weights"][4, 3] / a10["weights"][4, 0],
        "alibi_none.w4": tries["alibi-none"]["weights"][4].tolist(),
        "alibi_steep.w4": tries["alibi-steep"]["weights"][4].tolist(),
        # Chapter 11: GQA
        "gqa.h0.w1": g11["heads.0.weights"][0].tolist(),
        "gqa.h1.w1": g11["heads.1.weights"][0].tolist(),
        "gqa.h3.w1": g11["heads.3.weights"][0].tolist(),
        "gqa_wk.h0.w1": gk["heads.0.weights"][0].tolist(),
        # KV cache
        "decode.weights": d11["decode.weights"].tolist(),
        "decode.context": d11["decode.context"].tolist(),
        "decode.cache_size": d11["decode.cache_size"],
        # Four K/V heads (one per query head) of the same widths: (t + 1) · heads · (d_k + d_v).
        "decode.cache_size_mha": d11["decode.cache_size"] / FIGURES["chapter-11-decode"]["kv_heads"]
        * FIGURES["chapter-11-decode"]["heads"],
        "decode.recompute_cost": d11["decode.recompute_cost"],
        # With the cache, step t projects only token t's key and value: d_model · kv_heads · (d_k + d_v).
        "decode.new_token_cost": d11["decode.recompute_cost"] / (d11["decode.step"] + 1),
        "decode_next.weights": tries["decode-next"]["decode.weights"].tolist(),
        "decode_next.cache_size": tries["decode-next"]["decode.cache_size"],
        "decode_next.recompute_cost": tries["decode-next"]["decode.recompute_cost"],
        # Chapter 12
        "win.last": w12[7].tolist(),
        "win_nosink.last": n12[7].tolist(),
        "causal.last": causal12[7].tolist(),
        "win.kept": int(attended(FIGURES["chapter-12"], 8).sum()),
        "causal.kept": int(attended(long(mask="causal"), 8).sum()),
        # Chapter 13
        "flash.scaled0": f13["scaled"][0].tolist(),
        "flash.m": [s["m"].tolist() for s in steps13],
        "flash.l": [s["l"].tolist() for s in steps13],
        "flash.rescale": math.exp(steps13[0]["m"][0] - steps13[1]["m"][0]),
        "flash.context": f13["context"].tolist(),
        "flash.memory": rows13 * cols13 + rows13 * np.shape(f13["context"])[1],
        "flash.n2": np.shape(f13["scaled"])[0] * np.shape(f13["scaled"])[1],
        "flash.long_memory": tile * tile + tile * d_head,
        "flash.long_n2": n_long * n_long,
        "flash.ones_steps": sum(1 for k in ones if k.startswith("flash.steps.") and k.endswith(".m")),
        # Chapter 14: partial RoPE (rotary_dim 2 of d_k 4), then all four turned
        "partial.q1": p14["q"][1].tolist(),
        "partial.q_rot1": p14["heads.0.q_rot"][1].tolist(),
        "partial.s01": ps[0, 1], "partial.s34": ps[3, 4],
        "partial.q_rot4": p14["heads.0.q_rot"][4].tolist(),
        "rotary_all.q_rot4": all14["heads.0.q_rot"][4].tolist(),
        # θ_1 with rotary_dim = 4: base^(−2/4).
        "rotary_all.theta1": 10000.0 ** (-2 / 4),
        # The soft cap: the first word's row, capped at 10, at 50 and not at all
        "cap.scaled0": c14["scaled"][0].tolist(),
        "cap.capped0": c14["capped"][0].tolist(),
        "cap.gap_scaled": c14["scaled"][0, 0] - c14["scaled"][0, 3],
        "cap.gap": c14["capped"][0, 0] - c14["capped"][0, 3],
        "cap.w0": c14["weights"][0].tolist(),
        "cap50.capped0": cap50["capped"][0].tolist(),
        "cap50.w0": cap50["weights"][0].tolist(),
        "cap_off.w0": off14["weights"][0].tolist(),
    }
    quotes = {k: v for k, v in quotes.items() if v is not None}

    fixture = {
        "about": "tests/goldens/gen_chapters.py: index.html chapters 10–14, from the papers' formulas in float64 NumPy",
        "versions": {"numpy": np.__version__},
        "figures": {name: {"config": FIGURES[name], "trace": pick(traces[name], SHOWN[name])} for name in FIGURES},
        "tries": {name: {"figure": t["figure"], "how": t["how"], "config": t["config"],
                         "trace": pick(tries[name], t["fields"])} for name, t in TRIES.items()},
        "quotes": quotes,
    }
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(dumps(encode(fixture)) + "\n")
    print("wrote", os.path.relpath(OUT, ROOT))
    if "--print" in sys.argv:
        np.set_printoptions(precision=4, suppress=True, linewidth=150)
        for k, v in quotes.items():
            print(k, np.round(np.asarray(v, dtype=F64), 4).tolist())


if __name__ == "__main__":
    main()
