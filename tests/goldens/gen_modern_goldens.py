#!/usr/bin/env python3
"""Generate tests/fixtures/modern-goldens.json: golden values for attention as today's language models use it:
sinusoidal positions, RoPE (interleaved and halves, partial, scaled), ALiBi, grouped and multi-query K/V heads
(`kv_heads`), sliding windows with sinks, the decode step with its KV cache, FlashAttention-2's tiles, and what real
models' layers add (the projections' biases, q/k RMSNorm, the soft cap).

Every expected value comes from the papers' formulas written out below in float64 NumPy ("expect", checked at
1e-12 relative), never from the Rust core, and each formula is checked against code nobody here wrote before
anything is written:

* `jax.nn.dot_product_attention` (float32 softmax, so at 1e-6): GQA/MQA through fewer K/V heads, windows through
  its `local_window_size` (with sinks, through its boolean `mask` of "window or sink"), ALiBi through its `bias`,
  causal masks through `is_causal`, valid lengths through `key_value_seq_lengths`; weights read out with one-hot
  values as tests/goldens/gen_variant_goldens.py does;
* RoPE: the complex-number form (interleaved: (x_2i + i·x_2i+1)·e^(i·p·θ_i), RoFormer eq. 34) and a transcription of
  transformers' `rotate_half` / `apply_rotary_pos_emb` (halves), at 1e-14 absolute;
* the sinusoidal table: the Annotated Transformer's `div_term = exp(arange(0, d, 2)·−ln(base)/d)` form, at 1e-12;
* ALiBi's default slopes: the paper's repository's `get_slopes` for a power-of-two number of heads;
* FlashAttention-2: the transcription of Algorithm 1 below must give o / l equal to the full softmax's context
  (1e-12), and the decode step's weights must equal row t of the causal weights;
* real models' layers (the fields b_q, b_k, b_v, b_o, q_norm, k_norm, softcap and RoPE's rotary_dim, frequencies,
  attention_factor): partial rotary against transcriptions of transformers' GPT-NeoX/Phi (`rotate_half` on
  `q[..., :rotary_ndims]`, cos and sin times `attention_scaling`) and GPT-J (`rotate_every_two`), LLaMA 3's
  frequencies from a transcription of `_compute_llama3_parameters`, the q/k norms against `Qwen3RMSNorm`'s
  rsqrt form, and the soft cap against Gemma 2's `eager_attention_forward` (cap, then the additive mask; ALiBi's bias
  added with the mask); the biases go through JAX with the rest (it reads the biased, normed, rotated q and k).

Inputs are random (np.random.default_rng(seed)) shapes: heads 1–8, kv_heads dividing them, windows, sinks, decode
steps and tiles that do not divide n; dyadic values (multiples of 2⁻⁸) so the projections are exact, and for each case
the first seed whose sums are well conditioned (Σ|terms| ≤ 200·|Σ terms|), so float64 results are meaningful to
1e-12 relative whatever the summation order.

Usage (only to regenerate the fixture; the tests read the committed JSON):

    .venv/bin/pip install -r tests/requirements-goldens.txt
    .venv/bin/python tests/goldens/gen_modern_goldens.py
"""

import json
import math
import os

import numpy as np

import jax

jax.config.update("jax_platforms", "cpu")
import jax.numpy as jnp  # noqa: E402
import jaxlib  # noqa: E402
from fixture_json import dumps, encode  # noqa: E402 (tests/goldens/fixture_json.py)
from papers import alibi_bias, sinusoidal, sinusoidal_annotated, softmax_rows  # noqa: E402 (tests/goldens/papers.py)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "fixtures", "modern-goldens.json")

F64 = np.float64
JAX_TOL = 1e-6
COND_LIMIT = 200.0


class IllConditioned(Exception):
    pass


def check_sum(result, magnitude, what):
    result = np.asarray(result, dtype=F64)
    magnitude = np.asarray(magnitude, dtype=F64)
    bad = (magnitude > 0) & ~(magnitude <= COND_LIMIT * np.abs(result))
    if np.any(bad & np.isfinite(result)):
        raise IllConditioned(what)


def is_dyadic(*arrays):
    return all(np.all(np.asarray(x) * 1024 == np.round(np.asarray(x) * 1024)) for x in arrays)


def checked_matmul(a, b, what):
    a, b = np.asarray(a, dtype=F64), np.asarray(b, dtype=F64)
    out = a @ b
    magnitude = np.abs(a) @ np.abs(b)
    if not (is_dyadic(a, b) and np.all(magnitude < 2.0**30)):
        check_sum(out, magnitude, what)
    return out


# ---------------------------------------------------------------------------
# The formulas
# ---------------------------------------------------------------------------


def rope(x, base, pairs, rotary_dim=None, frequencies=None, factor=1.0):
    """Su et al. 2021: pair i of r/2 rotated by p·θ_i, θ_i = base^(−2i/r) (or the given `frequencies`), r = rotary_dim
    (default d): only x_0 … x_r−1 rotate, laid out within them ((x_2i, x_2i+1) or (x_i, x_i+r/2)), the rest pass
    unchanged; cos and sin both times `factor` (transformers' attention_scaling): (a, b) ↦ (a·cos·f − b·sin·f,
    a·sin·f + b·cos·f)."""
    n, d = x.shape
    r = rotary_dim or d
    out = x.copy()
    for p in range(n):
        for i in range(r // 2):
            theta = frequencies[i] if frequencies is not None else base ** (-2 * i / r)
            angle = p * theta
            c, s = math.cos(angle) * factor, math.sin(angle) * factor
            a, b = (2 * i, 2 * i + 1) if pairs == "interleaved" else (i, i + r // 2)
            out[p, a] = x[p, a] * c - x[p, b] * s
            out[p, b] = x[p, a] * s + x[p, b] * c
            check_sum(out[p, a], abs(x[p, a] * c) + abs(x[p, b] * s), "rope")
            check_sum(out[p, b], abs(x[p, a] * s) + abs(x[p, b] * c), "rope")
    return out


def rope_complex(x, base):
    """Interleaved RoPE as RoFormer writes it: (x_2i + i·x_2i+1)·e^(i·p·θ_i)."""
    n, d = x.shape
    theta = base ** (-2 * np.arange(d // 2) / d)
    z = x[:, 0::2] + 1j * x[:, 1::2]
    z = z * np.exp(1j * np.arange(n)[:, None] * theta[None, :])
    out = np.zeros_like(x)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def rope_rotate_half(x, base):
    """transformers' LLaMA `apply_rotary_pos_emb`: x·cos + rotate_half(x)·sin, cos/sin of cat(freqs, freqs)."""
    n, d = x.shape
    inv_freq = 1.0 / (base ** (np.arange(0, d, 2).astype(F64) / d))
    freqs = np.outer(np.arange(n).astype(F64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb), np.sin(emb)

    def rotate_half(t):
        t1, t2 = t[..., : d // 2], t[..., d // 2:]
        return np.concatenate([-t2, t1], axis=-1)
    return x * cos + rotate_half(x) * sin


def rope_neox_partial(x, base, rotary_dim, inv_freq=None, attention_scaling=1.0):
    """transformers' GPT-NeoX / Phi partial rotary: `q_rot, q_pass = q[..., :rotary_ndims], q[..., rotary_ndims:]`,
    q_rot·cos + rotate_half(q_rot)·sin with cos, sin of cat(freqs, freqs) times attention_scaling (the rotary
    embedding's `cos = cos * self.attention_scaling`), then cat(q_rot, q_pass)."""
    n, d = x.shape
    r = rotary_dim
    if inv_freq is None:
        inv_freq = 1.0 / (base ** (np.arange(0, r, 2).astype(F64) / r))
    freqs = np.outer(np.arange(n).astype(F64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb) * attention_scaling, np.sin(emb) * attention_scaling
    x_rot, x_pass = x[:, :r], x[:, r:]

    def rotate_half(t):
        t1, t2 = t[..., : r // 2], t[..., r // 2:]
        return np.concatenate([-t2, t1], axis=-1)
    return np.concatenate([x_rot * cos + rotate_half(x_rot) * sin, x_pass], axis=-1)


def rope_gptj_partial(x, base, rotary_dim):
    """transformers' GPT-J: `create_sinusoidal_positions(max_pos, rotary_dim)` (inv_freq of arange(0, dim, 2) / dim),
    sin and cos repeat_interleaved by 2, `k_rot = k[..., :rotary_dim]`, k_rot·cos + rotate_every_two(k_rot)·sin
    (rotate_every_two: stack((−x[..., 1::2], x[..., ::2]), −1).flatten(−2)), then cat(k_rot, k_pass)."""
    n, d = x.shape
    r = rotary_dim
    inv_freq = 1.0 / (base ** (np.arange(0, r, 2).astype(F64) / r))
    sinusoid = np.outer(np.arange(n).astype(F64), inv_freq)
    sin, cos = np.repeat(np.sin(sinusoid), 2, axis=1), np.repeat(np.cos(sinusoid), 2, axis=1)
    x_rot, x_pass = x[:, :r], x[:, r:]
    every_two = np.stack((-x_rot[:, 1::2], x_rot[:, ::2]), axis=-1).reshape(n, r)
    return np.concatenate([x_rot * cos + every_two * sin, x_pass], axis=-1)


def llama3_inv_freq(base, dim, factor, low_freq_factor, high_freq_factor, original_max_position_embeddings):
    """transformers' `_compute_llama3_parameters` (modeling_rope_utils.py): the default inv_freq, long wavelengths
    divided by `factor`, short ones kept, the band between smoothed."""
    inv_freq = 1.0 / (base ** (np.arange(0, dim, 2).astype(F64) / dim))
    low_freq_wavelen = original_max_position_embeddings / low_freq_factor
    high_freq_wavelen = original_max_position_embeddings / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (original_max_position_embeddings / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return np.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)


def rms_norm(x, weight, eps):
    """RMSNorm of each row: x / sqrt(mean(x²) + eps) · weight."""
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] / math.sqrt(float(np.mean(x[i] ** 2)) + eps) * np.asarray(weight, dtype=F64)
    return out


def rms_norm_qwen3(x, weight, eps):
    """transformers' Qwen3RMSNorm: variance = x.pow(2).mean(−1), x·rsqrt(variance + eps), then weight·x."""
    variance = np.mean(x ** 2, axis=-1, keepdims=True)
    return np.asarray(weight, dtype=F64) * (x * (1.0 / np.sqrt(variance + eps)))


def alibi_slopes(h):
    """The issue's default: m_h = 2^(−8(h+1)/H)."""
    return [2.0 ** (-8 * (i + 1) / h) for i in range(h)]


def alibi_get_slopes_power_of_2(n):
    """ofirpress/attention_with_linear_biases, get_slopes_power_of_2."""
    start = 2 ** (-2 ** -(math.log2(n) - 3))
    ratio = start
    return [start * ratio**i for i in range(n)]


def mask_codes(config, n):
    """codes[i, j]: 1 masked by `mask`, 2 beyond `valid_lens`, 4 outside the window and not a sink; summed."""
    codes = np.zeros((n, n), dtype=int)
    mask = config.get("mask", "none")
    window = config.get("window")
    sinks = config.get("sinks", 0)
    for i in range(n):
        for j in range(n):
            by_mask = (mask == "causal" and j > i) or (isinstance(mask, list) and not mask[i][j])
            by_len = "valid_lens" in config and j >= config["valid_lens"][i]
            by_window = window is not None and not (i - window[0] <= j <= i + window[1]) and j >= sinks
            codes[i, j] = int(by_mask) + 2 * int(by_len) + 4 * int(by_window)
    return codes


def attend(q, k, v, scale, temperature, attended, bias, masked_row, what, softcap=None):
    """scores → scaled (÷ scale ÷ T) → [with a soft cap: capped = softcap·tanh(scaled / softcap)] → + bias (ALiBi)
    → −∞ where masked → softmax → context. Returns scores, scaled, capped (None without a cap), weights, context; the
    bias and the mask go to the softmax's input, which is capped when there is one."""
    scores = checked_matmul(q, k.T, what + " q·k")
    scaled = scores / scale / temperature
    capped = None if softcap is None else softcap * np.tanh(scaled / softcap)
    logits = scaled if capped is None else capped
    if bias is not None:
        unbiased = logits
        logits = logits + bias
        check_sum(logits, np.abs(unbiased) + np.abs(bias), what + " + bias")
    logits = np.where(attended, logits, -np.inf)
    if capped is None:
        scaled = logits
    else:
        capped = logits
    weights = softmax_rows(logits, attended, masked_row)
    ok = ~np.isnan(weights).any(axis=1)
    context = np.full((q.shape[0], v.shape[1]), np.nan)
    context[ok] = checked_matmul(weights[ok], v, what + " weights·V")
    return scores, scaled, capped, weights, context


def flash_forward(scaled, v, rows, cols):
    """FlashAttention-2 (Dao 2023), Algorithm 1, on the scaled scores S (masked −∞) of one head: for each query block
    Q_i, m = −∞, l = 0, O = 0; for each key block j: m_new = max(m, rowmax(S_ij)), P = exp(S_ij − m_new),
    l = exp(m − m_new)·l + rowsum(P), O = diag(exp(m − m_new))·O + P·V_j, m = m_new. A row whose keys so far are all
    masked keeps m = −∞, l = 0, O = 0 (exp(−∞ − (−∞)) is taken as 0: there is nothing to rescale)."""
    n, m_keys = scaled.shape
    steps = []
    for qb in range(-(-n // rows)):
        r0, r1 = qb * rows, min((qb + 1) * rows, n)
        m = np.full(r1 - r0, -np.inf)
        l = np.zeros(r1 - r0)
        o = np.zeros((r1 - r0, v.shape[1]))
        for kb in range(-(-m_keys // cols)):
            c0, c1 = kb * cols, min((kb + 1) * cols, m_keys)
            s = scaled[r0:r1, c0:c1]
            m_new = np.maximum(m, s.max(axis=1))
            live = m_new > -np.inf
            p = np.zeros_like(s)
            p[live] = np.exp(s[live] - m_new[live, None])
            alpha = np.zeros_like(m)
            alpha[live & (m > -np.inf)] = np.exp(m[live & (m > -np.inf)] - m_new[live & (m > -np.inf)])
            l = np.where(live, alpha * l + p.sum(axis=1), l)
            o = np.where(live[:, None], alpha[:, None] * o + p @ v[c0:c1], o)
            m = m_new
            steps.append({"q_block": qb, "k_block": kb, "m": m.copy(), "l": l.copy(), "o": o.copy()})
    return steps


def reference(config):
    """Every trace field of a self-attention config with the modern fields, from the formulas."""
    x = np.asarray(config["embeddings"], dtype=F64)
    n, d_model = x.shape
    h = config.get("heads", 1)
    kv = config.get("kv_heads", h)
    position = config.get("position")
    expect = {}
    if position and position["kind"] == "sinusoidal":
        pe = sinusoidal(n, d_model, position.get("base", 10000.0))
        expect["pe"] = pe
        x = x + pe
    q = checked_matmul(x, config["w_q"], "Q")
    k = checked_matmul(x, config["w_k"], "K")
    v = checked_matmul(x, config["w_v"], "V")
    # The projections' biases (Qwen2, Phi, GPT-2, BERT): X·W + b, each row.
    for name, bias in (("b_q", "q"), ("b_k", "k"), ("b_v", "v")):
        if name in config:
            b = np.asarray(config[name], dtype=F64)
            if bias == "q":
                q = q + b
            elif bias == "k":
                k = k + b
            else:
                v = v + b
    d_k, d_v = q.shape[1] // h, v.shape[1] // kv
    assert k.shape[1] == kv * d_k
    expect.update(q=q, k=k, v=v)
    scale = config.get("scale", "sqrt_dk")
    scale = math.sqrt(d_k) if scale == "sqrt_dk" else (1.0 if scale == "none" else float(scale))
    temperature = float(config.get("temperature", 1.0))
    codes = mask_codes(config, n)
    attended = codes == 0
    masked_row = config.get("masked_row", "zero")
    slopes = None
    if position and position["kind"] == "alibi":
        slopes = position.get("slopes") or alibi_slopes(h)
    softcap = config.get("softcap")
    heads = []
    for i in range(h):
        g = i // (h // kv)  # the kv head of query head i (GQA)
        qi, ki, vi = q[:, i * d_k:(i + 1) * d_k], k[:, g * d_k:(g + 1) * d_k], v[:, g * d_v:(g + 1) * d_v]
        head = {"q": qi, "k": ki, "v": vi}
        qs, ks = qi, ki
        # Qwen3's q/k norms: each head's rows after the bias, before RoPE.
        if "q_norm" in config:
            qs = rms_norm(qs, config["q_norm"]["weight"], config["q_norm"]["eps"])
            head["q_normed"] = qs
        if "k_norm" in config:
            ks = rms_norm(ks, config["k_norm"]["weight"], config["k_norm"]["eps"])
            head["k_normed"] = ks
        if position and position["kind"] == "rope":
            pairs, base = position.get("pairs", "interleaved"), position.get("base", 10000.0)
            extra = dict(rotary_dim=position.get("rotary_dim"), frequencies=position.get("frequencies"),
                         factor=position.get("attention_factor", 1.0))
            qs, ks = rope(qs, base, pairs, **extra), rope(ks, base, pairs, **extra)
            head.update(q_rot=qs, k_rot=ks)
        bias = None
        if slopes is not None:
            bias = alibi_bias(n, slopes[i])
            head["bias"] = bias
        scores, scaled, capped, weights, context = attend(qs, ks, vi, scale, temperature, attended, bias, masked_row,
                                                          f"head {i}", softcap)
        head.update(scores=scores, scaled=scaled, weights=weights, context=context)
        if capped is not None:
            head["capped"] = capped
        head["_qs"], head["_ks"], head["_bias"] = qs, ks, bias
        head["_logits"] = scaled if capped is None else capped
        heads.append(head)
        for key in ("q", "k", "v", "scores", "scaled", "capped", "weights", "context", "q_normed", "k_normed",
                    "q_rot", "k_rot", "bias"):
            if key in head:
                expect[f"heads.{i}.{key}"] = head[key]
    expect["context"] = np.concatenate([hd["context"] for hd in heads], axis=1)
    if "w_o" in config:
        output = checked_matmul(expect["context"], config["w_o"], "output")
        if "b_o" in config:
            output = output + np.asarray(config["b_o"], dtype=F64)
        expect["output"] = output
    if h == 1:
        for key in ("scores", "scaled", "capped", "weights"):
            if key in heads[0]:
                expect[key] = heads[0][key]
    followed = heads[config.get("head", 0)]
    query = config.get("query", 0)
    expect["query.masked"] = codes[query].astype(F64)
    expect["query.weights"] = followed["weights"][query]
    expect["query.scaled"] = followed["scaled"][query]
    if "capped" in followed:
        expect["query.capped"] = followed["capped"][query]
    if "decode_step" in config:
        t = config["decode_step"]
        qt = followed["_qs"][t:t + 1]
        kc, vc = followed["_ks"][:t + 1], followed["v"][:t + 1]
        bias = None if followed["_bias"] is None else followed["_bias"][t:t + 1, :t + 1]
        scores, scaled, capped, weights, context = attend(qt, kc, vc, scale, temperature, attended[t:t + 1, :t + 1],
                                                          bias, masked_row, "decode", softcap)
        if capped is not None:
            expect["decode.capped"] = capped[0]
        assert np.array_equal(weights[0], followed["weights"][t, :t + 1]) or np.allclose(
            weights[0], followed["weights"][t, :t + 1], rtol=1e-15, atol=0), "decode weights = causal row t"
        assert np.all(followed["weights"][t, t + 1:] == 0)
        expect.update({"decode.step": t, "decode.q": qt[0], "decode.k_cache": kc, "decode.v_cache": vc,
                       "decode.scores": scores[0], "decode.scaled": scaled[0], "decode.weights": weights[0],
                       "decode.context": context[0],
                       "decode.cache_size": (t + 1) * kv * (d_k + d_v),
                       "decode.recompute_cost": (t + 1) * d_model * kv * (d_k + d_v)})
    if "tiles" in config:
        rows, cols = config["tiles"]
        steps = flash_forward(followed["_logits"], followed["v"], rows, cols)
        expect["flash.tiles"] = [rows, cols]
        blocks = -(-n // cols)
        for s, step in enumerate(steps):
            for key, value in step.items():
                expect[f"flash.steps.{s}.{key}"] = value
            if step["k_block"] == blocks - 1:  # the block's last tile: o / l is its context
                r0 = step["q_block"] * rows
                live = step["l"] > 0
                want = followed["context"][r0:r0 + len(step["l"])]
                got = step["o"][live] / step["l"][live, None]
                assert np.allclose(got, want[live], rtol=1e-13, atol=0), "o / l = context"
        assert len(steps) == -(-n // rows) * blocks
    return expect, dict(q=q, k=k, v=v, heads=heads, h=h, kv=kv, d_k=d_k, d_v=d_v, scale=scale,
                        temperature=temperature, codes=codes)


# ---------------------------------------------------------------------------
# Cross-checks against code nobody here wrote
# ---------------------------------------------------------------------------

def pad_last(x, width):
    out = np.zeros(x.shape[:-1] + (width,))
    out[..., :x.shape[-1]] = x
    return out


def jax_check(config, info):
    """jax.nn.dot_product_attention with K/V heads as given (GQA), local_window_size, bias (ALiBi): each head's
    weights and the context, float32."""
    heads, h, kv, d_k, d_v = info["heads"], info["h"], info["kv"], info["d_k"], info["d_v"]
    n = info["q"].shape[0]
    q = np.stack([hd["_qs"] for hd in heads], axis=1)  # n × h × d_k
    k = np.stack([heads[g * (h // kv)]["_ks"] for g in range(kv)], axis=1)  # n × kv × d_k
    v = np.stack([heads[g * (h // kv)]["v"] for g in range(kv)], axis=1)
    kwargs = {"scale": 1.0 / (info["scale"] * info["temperature"])}
    mask = config.get("mask", "none")
    window, sinks = config.get("window"), config.get("sinks", 0)
    if isinstance(mask, list):
        raise ValueError("matrix masks are not used here")
    extra = None
    if window is not None and sinks:
        # StreamingLLM: attend a key in the window, or a sink — as a boolean mask, JAX's own causal mask on top.
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        extra = ((i - window[0] <= j) & (j <= i + window[1])) | (j < sinks)
    elif window is not None:
        kwargs["local_window_size"] = tuple(window)
    if mask == "causal":
        kwargs["is_causal"] = True
    bias = None
    if any(hd["_bias"] is not None for hd in heads):
        bias = np.stack([hd["_bias"] for hd in heads])  # h × n × n

    def run(qx, kx, vx):
        kw = dict(kwargs)
        if "valid_lens" in config:
            # One batch row per query, each with its own key_value_seq_lengths.
            qb = qx[:, None]
            kb = np.broadcast_to(kx, (n,) + kx.shape)
            vb = np.broadcast_to(vx, (n,) + vx.shape)
            rows = np.ones((n, n), dtype=bool)
            if kw.pop("is_causal", False):
                rows &= np.tril(np.ones((n, n), dtype=bool))
            if "local_window_size" in kw:
                left, right = kw.pop("local_window_size")
                i, j = np.arange(n)[:, None], np.arange(n)[None, :]
                rows &= (i - left <= j) & (j <= i + right)
            if extra is not None:
                rows &= extra
            kw["mask"] = jnp.asarray(rows)[:, None, None, :]
            kw["key_value_seq_lengths"] = jnp.asarray(np.asarray(config["valid_lens"], dtype=np.int32))
            if bias is not None:
                kw["bias"] = jnp.asarray(np.transpose(bias, (1, 0, 2))[:, :, None, :], dtype=jnp.float32)
        else:
            qb, kb, vb = qx[None], kx[None], vx[None]
            if extra is not None:
                kw["mask"] = jnp.asarray(extra)[None, None]
            if bias is not None:
                kw["bias"] = jnp.asarray(bias[None], dtype=jnp.float32)
        out = jax.nn.dot_product_attention(jnp.asarray(qb, jnp.float32), jnp.asarray(kb, jnp.float32),
                                           jnp.asarray(vb, jnp.float32), **kw)
        out = np.asarray(out, dtype=F64)
        return out[0] if "valid_lens" not in config else out[:, 0]

    width = max(d_k, d_v)
    context = run(pad_last(q, width), pad_last(k, width), pad_last(v, width))[:, :, :d_v]
    width = max(d_k, n)
    one_hot = np.zeros((n, kv, width))
    for j in range(n):
        one_hot[j, :, j] = 1.0
    weights = run(pad_last(q, width), pad_last(k, width), one_hot)[:, :, :n]
    out = {f"heads.{i}.weights": weights[:, i] for i in range(h)}
    out["context"] = context.reshape(n, h * d_v)
    return out


def gemma2_check(config, info):
    """transformers' Gemma 2 `eager_attention_forward`: attn = q·kᵀ·scaling; attn / softcap, tanh, · softcap; then the
    additive mask (the causal mask's large negative, ALiBi's bias where a model has one) added; softmax. Each head's
    weights at 1e-12, the rows with a key to attend."""
    softcap = config["softcap"]
    attended = info["codes"] == 0
    for hd in info["heads"]:
        attn = (hd["_qs"] @ hd["_ks"].T) * (1.0 / (info["scale"] * info["temperature"]))
        attn = np.tanh(attn / softcap) * softcap
        additive = np.where(attended, 0.0, -np.inf)
        if hd["_bias"] is not None:
            additive = additive + hd["_bias"]
        attn = attn + additive
        for i in np.flatnonzero(attended.any(axis=1)):
            e = np.exp(attn[i] - attn[i].max())
            w = e / e.sum()
            assert np.allclose(w, hd["weights"][i], rtol=1e-12, atol=1e-15), "soft cap vs Gemma 2's eager attention"


def close(got, want, tol):
    got, want = np.asarray(got, dtype=F64), np.asarray(want, dtype=F64)
    return bool(np.all(np.abs(got - want) <= tol * np.maximum(np.abs(want), 1.0)))


def cross_checks(config, expect, info):
    """The formulas against other people's code; returns whether JAX was used."""
    position = config.get("position")
    n = info["q"].shape[0]
    if position and position["kind"] == "sinusoidal":
        other = sinusoidal_annotated(n, expect["pe"].shape[1], position.get("base", 10000.0))
        assert np.max(np.abs(other - expect["pe"])) < 1e-12, "sinusoidal vs the Annotated Transformer"
    if position and position["kind"] == "rope":
        base = position.get("base", 10000.0)
        r, freqs = position.get("rotary_dim"), position.get("frequencies")
        factor = position.get("attention_factor", 1.0)
        interleaved = position.get("pairs", "interleaved") == "interleaved"
        plain = freqs is None and factor == 1.0
        if interleaved and plain and r is None:
            form = rope_complex
        elif interleaved and plain:
            def form(x, base):
                return rope_gptj_partial(x, base, r)
        elif not interleaved and plain and r is None:
            form = rope_rotate_half
        elif not interleaved:
            def form(x, base):
                inv_freq = None if freqs is None else np.asarray(freqs, dtype=F64)
                return rope_neox_partial(x, base, r or x.shape[1], inv_freq, factor)
        else:
            raise SystemExit("no code of others' to check interleaved RoPE with frequencies or a factor against")
        for hd in info["heads"]:
            for raw, rotated in ((hd.get("q_normed", hd["q"]), hd["q_rot"]), (hd.get("k_normed", hd["k"]), hd["k_rot"])):
                worst = np.max(np.abs(form(raw, base) - rotated)) / max(1.0, np.max(np.abs(raw)))
                assert worst < 1e-14, f"RoPE vs {getattr(form, '__name__', 'form')}: {worst}"
    for name, row in (("q_norm", "q"), ("k_norm", "k")):
        if name in config:
            for hd in info["heads"]:
                other = rms_norm_qwen3(hd[row], config[name]["weight"], config[name]["eps"])
                worst = np.max(np.abs(other - hd[f"{row}_normed"]) / np.maximum(np.abs(other), 1e-300))
                assert worst < 1e-13, f"RMSNorm vs Qwen3RMSNorm: {worst}"
    if "softcap" in config:
        gemma2_check(config, info)
    if position and position["kind"] == "alibi" and "slopes" not in position:
        h = info["h"]
        if h & (h - 1) == 0:
            assert np.allclose(alibi_get_slopes_power_of_2(h), alibi_slopes(h), rtol=1e-15, atol=0)
    fully_masked = not (info["codes"] == 0).any(axis=1).all()
    if config.get("scoring", "dot") != "dot" or isinstance(config.get("mask"), list) or fully_masked:
        return False
    if "softcap" in config:
        return False  # jax.nn.dot_product_attention has no soft cap: gemma2_check has checked it
    values = jax_check(config, info)
    for field, got in values.items():
        if not close(got, expect[field], JAX_TOL):
            worst = np.nanmax(np.abs(np.asarray(got) - expect[field]))
            raise SystemExit(f"JAX and NumPy disagree on {field} (max |Δ| {worst:.3g})")
    return True


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

CASES = []


def dyadic(rng, shape, low, high):
    return np.round(rng.uniform(low, high, shape) * 256) / 256


def add_case(name, config, about):
    expect, info = reference(config)
    used_jax = cross_checks(config, expect, info)
    CASES.append({"name": name, "about": about, "source": "jax+numpy" if used_jax else "numpy", "config": config,
                  "expect": expect})


def seeded(name, seed, build, about):
    for s in range(seed, seed + 4000):
        config = build(np.random.default_rng(s))
        try:
            reference(config)
        except IllConditioned:
            continue
        add_case(name, config, f"{about} (np.random.default_rng({s}))".strip())
        return
    raise SystemExit(f"{name}: no well-conditioned seed")


def projections(rng, n, d_model, h, kv, d_k, d_v):
    return {"embeddings": dyadic(rng, (n, d_model), 0, 1).tolist(),
            "w_q": dyadic(rng, (d_model, h * d_k), -1, 1).tolist(),
            "w_k": dyadic(rng, (d_model, kv * d_k), -1, 1).tolist(),
            "w_v": dyadic(rng, (d_model, kv * d_v), 0, 1).tolist()}


def build_cases():
    # Each field on its own, small and readable.
    def one(position=None, h=1, kv=None, d_k=2, d_v=2, n=5, d_model=3, **options):
        def build(rng):
            config = projections(rng, n, d_model, h, kv or h, d_k, d_v)
            if h != 1:
                config["heads"] = h
            if kv is not None:
                config["kv_heads"] = kv
            if position is not None:
                config["position"] = position
            config.update(options)
            return config
        return build

    seeded("sinusoidal", 1, one({"kind": "sinusoidal"}, d_model=4), "PE added to X, d_model 4")
    seeded("sinusoidal_base_100_h2", 2, one({"kind": "sinusoidal", "base": 100}, h=2, d_model=6, mask="causal"),
           "base 100")
    seeded("rope_interleaved", 3, one({"kind": "rope"}, d_k=4), "RoFormer's pairs")
    seeded("rope_halves", 4, one({"kind": "rope", "pairs": "halves"}, d_k=4), "LLaMA's rotate_half")
    seeded("rope_halves_base_500_h2_gqa", 5,
           one({"kind": "rope", "base": 500, "pairs": "halves"}, h=4, kv=2, d_k=2, mask="causal", n=6),
           "RoPE with 4 query heads on 2 kv heads")
    seeded("alibi_default_h4_causal", 6, one({"kind": "alibi"}, h=4, mask="causal", n=6),
           "the paper's slopes 1/4, 1/16, 1/64, 1/256")
    seeded("alibi_slopes_h2", 7, one({"kind": "alibi", "slopes": [0.5, 0.125]}, h=2, temperature=2),
           "given slopes, temperature 2")
    seeded("alibi_default_h3", 8, one({"kind": "alibi"}, h=3, n=4), "default slopes for 3 heads: 2^(−8/3)…")
    seeded("mqa_h4", 9, one(h=4, kv=1, d_k=3, mask="causal"), "multi-query: one K/V head")
    seeded("gqa_h6_kv3", 10, one(h=6, kv=3, d_k=2, d_v=3, head=5, query=2), "6 query heads, 3 kv heads")
    seeded("window_1_0_causal", 11, one(window=[1, 0], mask="causal", n=6), "each query: itself and one before")
    seeded("window_1_1", 12, one(window=[1, 1], n=6, query=3), "a band of three keys")
    seeded("window_sinks", 13, one(window=[1, 0], sinks=1, mask="causal", n=7, query=5),
           "StreamingLLM: key 0 stays attended")
    seeded("window_sinks_valid_lens", 14,
           one(window=[2, 1], sinks=2, valid_lens=[6, 6, 3, 6, 5, 4, 6], n=7, query=4),
           "window, sinks and valid lengths together: query 4 has codes 0, 2, 4 and 6")
    seeded("decode_step_3", 15, one(mask="causal", decode_step=3, n=6), "generating token 3")
    seeded("decode_rope_alibi_free", 16, one({"kind": "rope"}, h=2, kv=1, mask="causal", decode_step=4, head=1,
                                             n=6, d_k=4), "decode with RoPE and MQA, following head 1")
    seeded("decode_alibi_window", 17, one({"kind": "alibi"}, h=2, mask="causal", window=[2, 0], sinks=1,
                                          decode_step=5, n=7), "decode with ALiBi, a window and a sink")
    seeded("tiles_2_3", 18, one(tiles=[2, 3], n=5), "5 tokens in 2 × 3 tiles: neither divides")
    seeded("tiles_causal_3_2", 19, one(tiles=[3, 2], mask="causal", n=7, h=2, head=1),
           "causal: the first tiles of a block are fully masked for its early rows")
    seeded("tiles_1_1", 20, one(tiles=[1, 1], n=3), "one entry a tile")
    seeded("tiles_window_alibi", 21, one({"kind": "alibi"}, tiles=[4, 3], window=[1, 1], sinks=1, n=9),
           "windowed rows start with masked tiles: m stays −∞")

    # Real models' layers: biases (Qwen2, Phi, GPT-2), partial rotary (GPT-NeoX, Phi, GPT-J), scaled RoPE's frequencies
    # (LLaMA 3) and attention_factor (YaRN), q/k norms (Qwen3), the soft cap (Gemma 2).
    def layer(h=1, kv=None, d_k=4, d_v=2, n=5, d_model=3, biases=(), w_o=False, b_o=False, norms=(), softcap=None,
              position=None, **options):
        def build(rng):
            kvh = kv or h
            config = projections(rng, n, d_model, h, kvh, d_k, d_v)
            widths = {"b_q": h * d_k, "b_k": kvh * d_k, "b_v": kvh * d_v}
            for name in biases:
                config[name] = dyadic(rng, widths[name], -1, 1).tolist()
            if w_o:
                config["w_o"] = dyadic(rng, (h * d_v, 3), -1, 1).tolist()
                if b_o:
                    config["b_o"] = dyadic(rng, 3, -1, 1).tolist()
            for name in norms:
                config[name] = {"weight": dyadic(rng, d_k, 0.5, 1.5).tolist(), "eps": 1e-6}
            if softcap is not None:
                config["softcap"] = softcap
            if h != 1:
                config["heads"] = h
            if kv is not None:
                config["kv_heads"] = kv
            if position is not None:
                config["position"] = position
            config.update(options)
            return config
        return build

    qkv = ("b_q", "b_k", "b_v")
    seeded("qwen2_bias_gqa", 30, layer(h=2, kv=1, d_k=2, biases=qkv, mask="causal", n=6),
           "Qwen2: Q, K, V with their biases; 2 query heads on 1 kv head")
    seeded("gpt2_bias_w_o", 31, layer(h=2, d_k=2, biases=qkv, w_o=True, b_o=True, mask="causal"),
           "GPT-2: c_attn's and c_proj's biases")
    seeded("neox_partial_rotary", 32, layer(d_k=6, position={"kind": "rope", "pairs": "halves", "rotary_dim": 2},
                                            mask="causal", n=6),
           "GPT-NeoX: the first 2 of 6 values rotate, rotate_half within them")
    seeded("phi_partial_rotary_bias", 33,
           layer(h=2, d_k=4, biases=qkv, w_o=True, b_o=True, mask="causal",
                 position={"kind": "rope", "pairs": "halves", "rotary_dim": 2, "base": 100}),
           "Phi: partial rotary, biased projections and output")
    seeded("gptj_interleaved_partial", 34, layer(d_k=6, position={"kind": "rope", "rotary_dim": 4}, mask="causal"),
           "GPT-J: rotate_every_two on the first 4 of 6 values")
    llama3 = llama3_inv_freq(500000.0, 8, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                             original_max_position_embeddings=8192)
    seeded("llama3_frequencies", 35,
           layer(d_k=8, n=6, mask="causal",
                 position={"kind": "rope", "pairs": "halves", "base": 500000, "frequencies": llama3.tolist(),
                           "attention_factor": 0.1 * math.log(8.0) + 1.0}),
           "LLaMA 3's frequencies (factor 8, low 1, high 4, 8192 positions), YaRN's attention_factor 0.1·ln 8 + 1")
    seeded("qwen3_qk_norm", 36, layer(h=2, kv=1, d_k=4, norms=("q_norm", "k_norm"), mask="causal", n=6,
                                      position={"kind": "rope", "pairs": "halves", "base": 1000000}),
           "Qwen3: RMSNorm of each head's q and k before RoPE")
    seeded("q_norm_bias_decode_tiles", 37,
           layer(h=2, d_k=4, norms=("q_norm",), biases=("b_k",), position={"kind": "rope"}, mask="causal",
                 decode_step=3, tiles=[2, 3], n=6, head=1),
           "q_norm alone, a key bias, the decode step and tiles of the normed, rotated head")
    seeded("gemma2_softcap_causal", 38, layer(h=2, kv=1, d_k=4, softcap=0.5, mask="causal", n=6,
                                              position={"kind": "rope", "pairs": "halves"}),
           "Gemma 2: scores capped at ±0.5, then the causal mask")
    seeded("softcap_alibi", 39, layer(h=2, d_k=2, softcap=0.75, position={"kind": "alibi"}, mask="causal"),
           "ALiBi's bias added after the cap")
    seeded("softcap_decode_tiles_window", 40,
           layer(d_k=3, softcap=1.0, mask="causal", window=[2, 0], sinks=1, decode_step=4, tiles=[2, 2], n=6),
           "the decode step and the tiles read the capped scores")
    seeded("softcap_valid_lens_uniform", 41,
           layer(d_k=2, softcap=2.0, valid_lens=[3, 0, 5, 2, 4], masked_row="uniform", query=1),
           "a capped row with every key masked: 1/m each")

    def random_layer(rng):
        h = int(rng.integers(1, 5))
        kv = int(rng.choice([x for x in range(1, h + 1) if h % x == 0]))
        n = int(rng.integers(3, 8))
        d_model = int(rng.integers(2, 5))
        rope_on = rng.random() < 0.6
        d_k = 2 * int(rng.integers(1, 4)) if rope_on else int(rng.integers(1, 4))
        d_v = int(rng.integers(1, 4))
        config = projections(rng, n, d_model, h, kv, d_k, d_v)
        widths = {"b_q": h * d_k, "b_k": kv * d_k, "b_v": kv * d_v}
        for name in ("b_q", "b_k", "b_v"):
            if rng.random() < 0.6:
                config[name] = dyadic(rng, widths[name], -1, 1).tolist()
        if rng.random() < 0.5:
            config["w_o"] = dyadic(rng, (h * d_v, 2), -1, 1).tolist()
            if rng.random() < 0.7:
                config["b_o"] = dyadic(rng, 2, -1, 1).tolist()
        for name in ("q_norm", "k_norm"):
            if rng.random() < 0.4:
                config[name] = {"weight": dyadic(rng, d_k, 0.5, 1.5).tolist(), "eps": float(rng.choice([1e-6, 0.01]))}
        if rng.random() < 0.5:
            config["softcap"] = float(rng.choice([0.5, 1.0, 3.0]))
        if h != 1:
            config["heads"] = h
            config["head"] = int(rng.integers(0, h))
        if kv != h:
            config["kv_heads"] = kv
        if rope_on:
            pairs = str(rng.choice(["interleaved", "halves"]))
            position = {"kind": "rope", "base": float(rng.choice([10000, 500, 10])), "pairs": pairs}
            if d_k > 2 and rng.random() < 0.6:
                position["rotary_dim"] = 2 * int(rng.integers(1, d_k // 2))
            r = position.get("rotary_dim", d_k)
            if pairs == "halves" and rng.random() < 0.5:
                position["frequencies"] = np.round(rng.uniform(0.01, 1.5, r // 2) * 256).tolist()
                position["frequencies"] = [f / 256 for f in position["frequencies"]]
            if pairs == "halves" and rng.random() < 0.5:
                position["attention_factor"] = float(rng.choice([0.75, 1.25, 1.5]))
            config["position"] = position
        elif rng.random() < 0.4:
            config["position"] = {"kind": "alibi"}
        causal = rng.random() < 0.7
        if causal:
            config["mask"] = "causal"
            if rng.random() < 0.5:
                config["decode_step"] = int(rng.integers(0, n))
        if rng.random() < 0.3:
            config["window"] = [int(rng.integers(0, 3)), int(rng.integers(0, 2))]
        if rng.random() < 0.5:
            config["tiles"] = [int(rng.integers(1, 4)), int(rng.integers(1, 4))]
        config["query"] = int(rng.integers(0, n))
        return config

    for k in range(16):
        seeded(f"random_layer_{k:02d}", 5000 + 100 * k, random_layer, "random real-layer fields")

    # Random: heads 1–8, kv_heads dividing them, every field mixed.
    def random_build(rng):
        h = int(rng.integers(1, 9))
        kv = int(rng.choice([x for x in range(1, h + 1) if h % x == 0]))
        n = int(rng.integers(3, 10))
        d_model = int(rng.integers(2, 6))
        kind = rng.choice(["none", "sinusoidal", "rope", "alibi"])
        d_k = 2 * int(rng.integers(1, 3)) if kind == "rope" else int(rng.integers(1, 4))
        d_v = int(rng.integers(1, 4))
        config = projections(rng, n, d_model, h, kv, d_k, d_v)
        if h != 1:
            config["heads"] = h
            config["head"] = int(rng.integers(0, h))
        if kv != h:
            config["kv_heads"] = kv
        if kind == "sinusoidal":
            config["position"] = {"kind": "sinusoidal", "base": float(rng.choice([10000, 100, 50]))}
        elif kind == "rope":
            config["position"] = {"kind": "rope", "base": float(rng.choice([10000, 500, 10])),
                                  "pairs": str(rng.choice(["interleaved", "halves"]))}
        elif kind == "alibi":
            config["position"] = {"kind": "alibi"}
            if rng.random() < 0.4:
                config["position"]["slopes"] = (np.round(rng.uniform(0.05, 1, h) * 64) / 64).tolist()
        causal = rng.random() < 0.6
        if causal:
            config["mask"] = "causal"
        if rng.random() < 0.6:
            config["window"] = [int(rng.integers(0, 4)), int(rng.integers(0, 3))]
            if rng.random() < 0.6:
                config["sinks"] = int(rng.integers(1, 3))
        if rng.random() < 0.25:
            config["valid_lens"] = [int(x) for x in rng.integers(1, n + 1, n)]
        if rng.random() < 0.3:
            config["temperature"] = float(rng.choice([0.5, 2.0, 1.5]))
        if causal and rng.random() < 0.7:
            config["decode_step"] = int(rng.integers(0, n))
        rows, cols = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        while n % rows == 0 and rows > 1:
            rows = int(rng.integers(2, 5))
        while n % cols == 0 and cols > 1:
            cols = int(rng.integers(2, 5))
        config["tiles"] = [rows, cols]
        config["query"] = int(rng.integers(0, n))
        return config

    for k in range(24):
        seeded(f"random_{k:02d}", 1000 + 100 * k, random_build, "random shapes and fields")


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------


def main():
    build_cases()
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names))
    heads = sorted({c["config"].get("heads", 1) for c in CASES})
    assert heads == list(range(1, 9)), heads
    golden = {
        "about": "Golden values of the modern fields (position: sinusoidal, rope with rotary_dim, frequencies and "
                 "attention_factor, alibi; kv_heads; window and sinks; decode_step; tiles) and of real models' layers "
                 "(b_q, b_k, b_v, b_o; q_norm, k_norm; softcap). Generated by tests/goldens/gen_modern_goldens.py; "
                 "do not edit by hand. 'expect': a float64 NumPy transcription of the papers' formulas (check at 1e-12 "
                 "relative), cross-checked against jax.nn.dot_product_attention (source 'jax+numpy'), RoPE's complex "
                 "and rotate_half forms, transformers' partial rotary (GPT-NeoX, GPT-J), LLaMA 3 frequencies, "
                 "Qwen3RMSNorm and Gemma 2's capped eager attention, and FlashAttention-2's o / l against the softmax. "
                 "NaN and -inf are the strings \"NaN\" and \"-Infinity\".",
        "versions": {"jax": jax.__version__, "jaxlib": jaxlib.__version__, "numpy": np.__version__},
        "cases": encode(CASES),
    }
    with open(OUT, "w") as f:
        f.write(dumps(golden))
        f.write("\n")
    jax_count = sum(1 for c in CASES if c["source"] == "jax+numpy")
    print(f"wrote {OUT}: {len(CASES)} cases ({jax_count} cross-checked with JAX), heads {heads}")


if __name__ == "__main__":
    main()
