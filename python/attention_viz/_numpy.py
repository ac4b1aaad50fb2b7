"""The attention stages in NumPy, for the static picture (the page computes its own in Rust).

A transcription of the formulas in the README's "Config" section, float64 throughout:
Q = X·W_Q, K = X·W_K, V = X·W_V split into heads by columns (PyTorch's layout);
scores by dot, general (q·W_a·kᵀ), additive (v_a·tanh(q·W_a + k·U_a)) or cosine
(q·k / max(‖q‖·‖k‖, 1e-8)); scaled = scores / scale / temperature with masked entries −∞;
a stable softmax; a fully masked query gets 0, 1/m or NaN (``masked_row``); context =
weights·V, the heads side by side, then ·W_O. Names follow the trace ("heads.0.weights").
Input: a config as ``_config.normalize`` returns it.
"""

from __future__ import annotations

import numpy as np

COSINE_EPS = 1e-8


def _a(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _scores(q, k, scoring, w_a=None, u_a=None, v_a=None):
    """n × m scores, and for additive scoring the n × m × d_a features tanh(q·W_a + k·U_a)."""
    if scoring == "dot":
        return q @ k.T, None
    if scoring == "general":
        return (q @ w_a) @ k.T, None
    if scoring == "cosine":
        norms = np.linalg.norm(q, axis=1)[:, None] * np.linalg.norm(k, axis=1)[None, :]
        return (q @ k.T) / np.maximum(norms, COSINE_EPS), None
    features = np.tanh((q @ w_a)[:, None, :] + (k @ u_a)[None, :, :])
    return features @ v_a, features


def _softmax(scaled, allowed, masked_row):
    """Row-wise stable softmax over the allowed keys; rows with none follow ``masked_row``."""
    n, m = scaled.shape
    weights = np.zeros((n, m))
    for i in range(n):
        keep = allowed[i]
        if not keep.any():
            weights[i] = {"zero": 0.0, "uniform": 1.0 / m, "nan": np.nan}[masked_row]
            continue
        e = np.exp(scaled[i, keep] - scaled[i, keep].max())
        weights[i, keep] = e / e.sum()
    return weights


def _allowed(cfg, n, m, cross):
    """(allowed n × m booleans, reasons n × m: 0 attended, 1 by mask, 2 beyond valid_lens, 3 both)."""
    by_mask = np.zeros((n, m), dtype=bool)
    mask = cfg.get("mask", "none")
    if mask == "causal":
        by_mask = np.triu(np.ones((n, m), dtype=bool), k=1)
    elif not isinstance(mask, str):
        by_mask = ~_a(mask).reshape(n, m).astype(bool)
    by_len = np.zeros((n, m), dtype=bool)
    if "valid_lens" in cfg:
        for i, length in enumerate(cfg["valid_lens"]):
            by_len[i, length:] = True
    reasons = by_mask * 1 + by_len * 2
    return reasons == 0, reasons


def _scale(cfg, d_k, projections, scoring):
    default = "sqrt_dk" if projections and scoring == "dot" else "none"
    s = cfg.get("scale", default)
    if s == "sqrt_dk":
        return float(np.sqrt(d_k))
    if s == "none":
        return 1.0
    return float(s)


def _attend(q, k, v, cfg, scale, cross):
    scoring = cfg.get("scoring", "dot")
    w_a = _a(cfg["w_a"]) if "w_a" in cfg else None
    u_a = _a(cfg["u_a"]) if "u_a" in cfg else None
    v_a = _a(cfg["v_a"]) if "v_a" in cfg else None
    scores, features = _scores(q, k, scoring, w_a, u_a, v_a)
    n, m = scores.shape
    allowed, reasons = _allowed(cfg, n, m, cross)
    scaled = scores / scale / float(cfg.get("temperature", 1.0))
    scaled = np.where(allowed, scaled, -np.inf)
    weights = _softmax(scaled, allowed, cfg.get("masked_row", "zero"))
    context = weights @ v
    # A fully masked "zero" row: the context is 0 (0 · v), already; "nan": NaN propagates.
    return {"scores": scores, "scaled": scaled, "weights": weights, "context": context}, features, reasons


def compute(cfg: dict) -> dict:
    """The trace's stages as NumPy arrays, keyed by trace name."""
    mech = cfg.get("mechanism") or ("weights" if "attention" in cfg else
                                    "cross" if "decoder_state" in cfg else "self")
    if mech == "weights":
        a = _a(cfg["attention"])
        return {"attention": a.reshape((1,) * (4 - a.ndim) + a.shape)}
    if mech == "cross":
        h = _a(cfg["decoder_state"])[None, :]
        ann = _a(cfg["annotations"])
        scale = _scale(cfg, h.shape[1], False, cfg.get("scoring", "dot"))
        stage, features, reasons = _attend(h, ann, ann, cfg, scale, True)
        out = {k: v[0] for k, v in stage.items()}
        out["applied"] = (ann * stage["weights"][0][:, None]).T
        out["scale"] = scale
        out["query.masked"] = reasons[0]
        if features is not None:
            out["query.features"] = features[0]
        return out
    x = _a(cfg["embeddings"])
    projections = "w_q" in cfg
    if projections:
        q, k, v = x @ _a(cfg["w_q"]), x @ _a(cfg["w_k"]), x @ _a(cfg["w_v"])
    else:
        q = k = v = x
    heads = int(cfg.get("heads", 1))
    d_k, d_v = q.shape[1] // heads, v.shape[1] // heads
    scale = _scale(cfg, d_k, projections, cfg.get("scoring", "dot"))
    out = {"q": q, "k": k, "v": v, "scale": scale}
    contexts = []
    query = int(cfg.get("query", 0))
    follow = int(cfg.get("head", 0))
    for i in range(heads):
        hq, hk, hv = q[:, i * d_k:(i + 1) * d_k], k[:, i * d_k:(i + 1) * d_k], v[:, i * d_v:(i + 1) * d_v]
        stage, features, reasons = _attend(hq, hk, hv, cfg, scale, False)
        out.update({f"heads.{i}.q": hq, f"heads.{i}.k": hk, f"heads.{i}.v": hv})
        out.update({f"heads.{i}.{name}": value for name, value in stage.items()})
        contexts.append(stage["context"])
        if i == follow:
            out["query.masked"] = reasons[query]
            if features is not None:
                out["query.features"] = features[query]
    out["context"] = np.concatenate(contexts, axis=1)
    if heads == 1:
        for name in ("scores", "scaled", "weights"):
            out[name] = out[f"heads.0.{name}"]
    if "w_o" in cfg:
        out["output"] = out["context"] @ _a(cfg["w_o"])
    return out
