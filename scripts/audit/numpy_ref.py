"""The audit's independent NumPy: every accepted config of scripts/audit/audit.mjs recomputed from the papers'
formulas in float64, written here from README's field table (not from the Rust), and compared with the trace the core
gave: each head's weights and context, Q/K/V, the output, the sinusoidal table, the decode row and FlashAttention's
final o / l. Prints a summary line and each disagreement. Usage: python numpy_ref.py DIR (reads DIR/accepted.jsonl)."""

import json
import math
import sys
from pathlib import Path

import numpy as np


# A relative nudge of the angles' frequencies (PE's divisors, RoPE's θ): at a position of 2³² an angle's last bit is
# worth 1e-7 of a sine, and two libraries' pow() may round θ one ulp apart. The reference is computed at −2ε, 0 and
# +2ε; the core must lie within that spread (plus the usual tolerance), which is how far the formula itself is defined.
ULP = [0.0]


def arr(x):
    return np.array(x, dtype=np.float64)


def attended_matrix(c, n, m, cross=False):
    ok = np.ones((n, m), dtype=bool)
    mask = c.get("mask", "none")
    if mask == "causal":
        ok &= np.tril(np.ones((n, m), dtype=bool))
    elif isinstance(mask, list):
        mm = np.array(mask, dtype=object)
        if cross and mm.ndim == 1:
            mm = mm[None, :]
        ok &= np.vectorize(lambda v: bool(v))(mm).astype(bool)
    if "valid_lens" in c:
        for i, L in enumerate(c["valid_lens"]):
            ok[i, L:] = False
    if c.get("window") is not None:
        left, right = c["window"]
        sinks = c.get("sinks", 0)
        for i in range(n):
            for j in range(m):
                if not (i - left <= j <= i + right) and j >= sinks:
                    ok[i, j] = False
    return ok


def softmax(scaled, ok, masked_row):
    n, m = scaled.shape
    w = np.zeros((n, m))
    for i in range(n):
        if ok[i].any():
            x = scaled[i, ok[i]]
            e = np.exp(x - x.max())
            w[i, ok[i]] = e / e.sum()
        elif masked_row == "uniform":
            w[i] = 1.0 / m
        elif masked_row == "nan":
            w[i] = np.nan
    return w


def scores_of(c, q, k):
    scoring = c.get("scoring", "dot")
    if scoring == "dot":
        return q @ k.T
    if scoring == "general":
        return q @ arr(c["w_a"]) @ k.T
    if scoring == "additive":
        wa, ua, va = arr(c["w_a"]), arr(c["u_a"]), arr(c["v_a"])
        a, b = q @ wa, k @ ua
        return np.array([[va @ np.tanh(a[i] + b[j]) for j in range(k.shape[0])] for i in range(q.shape[0])])
    if scoring == "cosine":
        s = q @ k.T
        nq, nk = np.linalg.norm(q, axis=1), np.linalg.norm(k, axis=1)
        return s / np.maximum(nq[:, None] * nk[None, :], 1e-8)
    raise ValueError(scoring)


def rope(x, offset, base, pairs, rotary_dim=None, freqs=None, factor=1.0):
    n, d = x.shape
    r = d if rotary_dim is None else rotary_dim
    theta = np.array(freqs, dtype=np.float64) if freqs is not None else base ** (-2.0 * np.arange(r // 2) / r)
    theta = theta * (1 + ULP[0])
    out = x.copy()
    for row in range(n):
        p = float(row + offset)
        for i, t in enumerate(theta):
            a, b = (2 * i, 2 * i + 1) if pairs == "interleaved" else (i, i + r // 2)
            cos, sin = math.cos(p * t) * factor, math.sin(p * t) * factor
            out[row, a] = x[row, a] * cos - x[row, b] * sin
            out[row, b] = x[row, a] * sin + x[row, b] * cos
    return out


def rms(x, norm):
    w, eps = arr(norm["weight"]), norm["eps"]
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps) * w


def self_ref(c):
    x = arr(c["embeddings"])
    n, d_model = x.shape
    pos = c.get("position")
    out = {}
    if pos and pos["kind"] == "sinusoidal":
        base, off = pos.get("base", 10000.0), pos.get("offset", 0)
        pe = np.zeros((n, d_model))
        for r in range(n):
            p = float(r + off)
            for j in range(d_model):
                ang = p / (base ** (2 * (j // 2) / d_model) * (1 + ULP[0]))
                pe[r, j] = math.sin(ang) if j % 2 == 0 else math.cos(ang)
        out["pe"] = pe
        x = x + pe
    proj = "w_q" in c
    if proj:
        q, k, v = x @ arr(c["w_q"]), x @ arr(c["w_k"]), x @ arr(c["w_v"])
        for name, b in (("b_q", q), ("b_k", k), ("b_v", v)):
            if name in c:
                b += arr(c[name])
    else:
        q = k = v = x
    out.update(q=q, k=k, v=v)
    h = c.get("heads", 1)
    kv = c.get("kv_heads", h)
    d_k, d_v = q.shape[1] // h, v.shape[1] // kv
    scoring = c.get("scoring", "dot")
    scale = c.get("scale", "sqrt_dk" if scoring == "dot" and proj else "none")
    scale = math.sqrt(d_k) if scale == "sqrt_dk" else 1.0 if scale == "none" else float(scale)
    temp = float(c.get("temperature", 1.0))
    ok = attended_matrix(c, n, n)
    masked_row = c.get("masked_row", "zero")
    slopes = None
    if pos and pos["kind"] == "alibi":
        slopes = pos.get("slopes") or [2 ** (-8 * (i + 1) / h) for i in range(h)]
    heads = []
    for i in range(h):
        g = i // (h // kv)
        qi, ki, vi = q[:, i * d_k:(i + 1) * d_k], k[:, g * d_k:(g + 1) * d_k], v[:, g * d_v:(g + 1) * d_v]
        if "q_norm" in c:
            qi = rms(qi, c["q_norm"])
        if "k_norm" in c:
            ki = rms(ki, c["k_norm"])
        if pos and pos["kind"] == "rope":
            args = (pos.get("offset", 0), pos.get("base", 10000.0), pos.get("pairs", "interleaved"),
                    pos.get("rotary_dim"), pos.get("frequencies"), pos.get("attention_factor", 1.0))
            qi, ki = rope(qi, *args), rope(ki, *args)
        scores = scores_of(c, qi, ki)
        scaled = scores / scale / temp
        if "softcap" in c:
            scaled = c["softcap"] * np.tanh(scaled / c["softcap"])
        if slopes is not None:
            scaled = scaled + np.array([[-slopes[i] * abs(a - b) for b in range(n)] for a in range(n)])
        w = softmax(np.where(ok, scaled, -np.inf), ok, masked_row)
        ctx = w @ vi if not np.isnan(w).any() else np.array([(row @ vi) for row in w])
        heads.append({"weights": w, "context": ctx, "scores": scores, "_s": np.where(ok, scaled, -np.inf), "_v": vi})
    context = np.concatenate([hd["context"] for hd in heads], axis=1)
    if "w_o" in c:
        out["output"] = context @ arr(c["w_o"]) + (arr(c["b_o"]) if "b_o" in c else 0.0)
    out["heads"] = heads
    f = heads[c.get("head", 0)]
    if "decode_step" in c:
        t = c["decode_step"]
        out["decode"] = {"weights": f["weights"][t, :t + 1], "context": f["context"][t]}
    if "tiles" in c:
        out["flash_ctx"] = (c["tiles"], f["_s"], f["_v"], f["context"])
    return out


def cross_ref(c):
    s = arr(c["decoder_state"])[None, :]
    a = arr(c["annotations"])
    m = a.shape[0]
    scale = c.get("scale", "none")
    scale = math.sqrt(s.shape[1]) if scale == "sqrt_dk" else 1.0 if scale == "none" else float(scale)
    scores = scores_of(c, s, a)
    scaled = scores / scale / float(c.get("temperature", 1.0))
    ok = attended_matrix(c, 1, m, cross=True)
    w = softmax(np.where(ok, scaled, -np.inf), ok, c.get("masked_row", "zero"))
    return {"weights": w[0], "context": (a.T * w[0]).sum(axis=1)}


def close(got, want, what, bad, scores=0.0, spread=None):
    """Equal within 1e-9 of the magnitude, or within what rounding the scores allows: a weight moves by about
    |score|·n·ε when the two sides sum a score's products in another order (scores of 1e10 → 1e-4)."""
    got = np.array([np.nan if x is None else x for x in np.ravel(np.array(got, dtype=object))], dtype=np.float64)
    want = np.ravel(np.asarray(want, dtype=np.float64))
    if got.shape != want.shape:
        bad.append(f"{what}: shape {got.shape} vs {want.shape}")
        return
    big = max(1.0, float(np.nanmax(np.abs(want))) if np.isfinite(want).any() else 1.0)
    tol = max(1e-9, 1e-13 * scores) * big
    if spread is not None:
        tol = tol + 2 * np.ravel(np.nan_to_num(spread, nan=0.0, posinf=0.0))
    same = (np.isnan(got) & np.isnan(want)) | (np.abs(got - want) <= tol) | (got == want)
    if not same.all():
        i = int(np.argmin(same))
        bad.append(f"{what}: [{i}] {got[i]!r} vs NumPy {want[i]!r}")


def plain(c):
    """A field given as null is absent (README); whole numbers given as floats (2.0, −0.0) are indices."""
    c = {k: v for k, v in c.items() if v is not None}
    for k in ("position", "q_norm", "k_norm"):
        if isinstance(c.get(k), dict):
            c[k] = {a: b for a, b in c[k].items() if b is not None}
    for k in ("heads", "kv_heads", "head", "query", "decode_step", "sinks"):
        if isinstance(c.get(k), float):
            c[k] = int(c[k])
    for k in ("window", "tiles", "valid_lens"):
        if isinstance(c.get(k), list):
            c[k] = [int(x) for x in c[k]]
    if isinstance(c.get("position"), dict) and isinstance(c["position"].get("offset"), float):
        c["position"]["offset"] = int(c["position"]["offset"])
    return c


def check(case):
    c, t = plain(case["config"]), case["trace"]
    bad = []
    if t["mechanism"] == "weights":
        return bad
    if t["mechanism"] == "cross":
        ref = cross_ref(c)
        close(t["weights"], ref["weights"], "weights", bad)
        close(t["context"], ref["context"], "context", bad)
        return bad
    ref = self_ref(c)
    nudged = []
    if c.get("position") and c["position"].get("kind") in ("sinusoidal", "rope"):
        for u in (-4.5e-16, 4.5e-16):
            ULP[0] = u
            nudged.append(self_ref(c))
        ULP[0] = 0.0

    def spread(get):
        """How far the nudged references move `get`'s values (0 without a position)."""
        base = np.asarray(get(ref), dtype=np.float64)
        out = np.zeros_like(base)
        for other in nudged:
            with np.errstate(invalid="ignore"):
                out = np.fmax(out, np.abs(np.asarray(get(other), dtype=np.float64) - base))
        return out
    for key in ("q", "k", "v", "output", "pe"):
        if key in ref or key in t:
            if key not in t or key not in ref:
                bad.append(f"{key}: present in only one")
            else:
                close(t[key], ref[key], key, bad, 0.0, spread(lambda r, key=key: r[key]))
    smax = max((float(np.nanmax(np.abs(rh["scores"]))) if rh["scores"].size else 0.0) for rh in ref["heads"])
    for i, (th, rh) in enumerate(zip(t["heads"], ref["heads"])):
        close(th["weights"], rh["weights"], f"head {i} weights", bad, smax,
              spread(lambda r, i=i: r["heads"][i]["weights"]))
        close(th["context"], rh["context"], f"head {i} context", bad, smax,
              spread(lambda r, i=i: r["heads"][i]["context"]))
    if "output" in ref and "output" in t:
        bad[:] = [b for b in bad if not b.startswith("output")]
        close(t["output"], ref["output"], "output", bad, smax, spread(lambda r: r["output"]))
    if "decode" in ref:
        close(t["decode"]["weights"], ref["decode"]["weights"], "decode weights", bad)
        close(t["decode"]["context"], ref["decode"]["context"], "decode context", bad)
    if "flash_ctx" in ref:
        (rows, cols), s, v, ctx = ref["flash_ctx"]
        n = s.shape[0]
        blocks = -(-n // cols)
        for step in t["flash"]:
            if step["k_block"] != blocks - 1:
                continue
            r0 = step["q_block"] * rows
            l, o = np.array(step["l"], dtype=np.float64), np.array(step["o"], dtype=np.float64)
            live = l > 0
            close((o[live] / l[live, None]), ctx[r0:r0 + len(l)][live], f"flash block {step['q_block']} o/l", bad)
    return bad


def main():
    d = Path(sys.argv[1])
    cases = [json.loads(line) for line in (d / "accepted.jsonl").read_text().splitlines() if line.strip()]
    wrong = {}
    for case in cases:
        try:
            bad = check(case)
        except Exception as e:  # the reference itself failing is reported, not hidden
            bad = [f"reference error: {type(e).__name__}: {e}"]
        if bad:
            wrong.setdefault(case["surface"], []).append({"bad": bad[:3], "config": json.dumps(case["config"])[:600]})
    checked = {}
    for case in cases:
        checked[case["surface"]] = checked.get(case["surface"], 0) + 1
    print(json.dumps({"checked": checked, "wrong": {k: len(v) for k, v in wrong.items()}}))
    for surface, items in wrong.items():
        for item in items[:10]:
            print(surface, item["bad"], item["config"])
    (d / "numpy.json").write_text(json.dumps({"checked": checked, "wrong": wrong}, indent=1))


if __name__ == "__main__":
    main()
