#!/usr/bin/env python3
"""Generate tests/fixtures/variant-goldens.json: golden values for the attention
variants (heads, W_O, masks, valid lengths, masked rows, temperature,
scale, and the general / additive / cosine scoring functions), for the native
test tests/variants.rs.

Every expected value comes from code nobody on the project wrote:

* "expect" (checked at 1e-12 relative): a float64 NumPy transcription of the
  papers' formulas, written out below from the formulas, not from the Rust core:
    - scaled dot-product attention and its heads (Vaswani et al. 2017,
      "Attention is all you need": softmax(QKᵀ/√d_k)·V per head, heads side by
      side, times W_O; head i takes columns i·d_k … (i+1)·d_k − 1 as PyTorch's
      in-projection does);
    - "general" q·W_a·kᵀ (Luong et al. 2015), "additive" v_a·tanh(q·W_a + k·U_a)
      (Bahdanau et al. 2015), cosine q·k / max(‖q‖·‖k‖, 1e-8) (the eps of
      PyTorch's cosine_similarity);
    - scaled = scores / scale / temperature (two divisions, in that order);
      masked entries −∞; the stable softmax exp(x − max) / Σ over the attended
      keys; valid lengths as d2l's masked_softmax (key j < valid_lens[i]);
    - a row with every key masked: 0 ("zero"), 1/m ("uniform") or NaN ("nan").
  Before any case is written, the transcription must reproduce the seed
  documents' own values (seed-values.json: documents 000/001, 002 and 003).
* "jax" (checked at 1e-6; JAX computes the softmax in float32):
  `jax.nn.dot_product_attention` on CPU for every case it can express: heads as
  its N axis, `is_causal`, boolean `mask`, and valid lengths as its
  `key_value_seq_lengths` (one query per batch row, so each query gets its own
  length). The attention weights are read out of it by passing one-hot values
  (value row j = e_j, so the output is the weight row). Cosine scoring is given
  to it as unit-length q and k, general scoring as q·W_a, temperature and any
  scale as its `scale` argument. Its fully masked rows are uniform (it fills
  masked logits with a large negative number), so only masked_row "uniform"
  cases carry JAX values for them. The script asserts that JAX and the NumPy
  transcription agree at 1e-6 before writing anything.

The inputs are the seed documents' (tests/fixtures/seed-values.json): the word
embeddings of documents 000/001 with weights drawn as they draw theirs,
`np.random.seed(42)` then `randint(3, size=(3, h·3))` for W_Q, W_K, W_V in that
order (h = 1 is the documents' own W_Q, W_K, W_V, asserted), then W_O from the
same stream; document 002's input; document 003's decoder state and
annotations; and random floats from `np.random.default_rng(seed)`. For random
floats the script takes the first seed from the one named whose sums are well
conditioned (Σ|terms| ≤ 200·|Σ terms| for every dot product), so that a float64
result is meaningful to 1e-12 relative whatever the summation order.

Numbers in the fixture are JSON numbers (shortest round-trip repr); NaN and −∞
are the strings "NaN" and "-Infinity".

Usage (only to regenerate the fixture; CI reads the committed JSON):

    python3 -m venv /tmp/goldens/venv
    /tmp/goldens/venv/bin/pip install -r tests/requirements-goldens.txt
    /tmp/goldens/venv/bin/python tests/goldens/gen_variant_goldens.py
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
from papers import softmax_rows  # noqa: E402 (tests/goldens/papers.py)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SEEDS = os.path.join(ROOT, "tests", "fixtures", "seed-values.json")
OUT = os.path.join(ROOT, "tests", "fixtures", "variant-goldens.json")

F64 = np.float64
JAX_TOL = 1e-6
COND_LIMIT = 200.0


# ---------------------------------------------------------------------------
# Well-conditioned sums
# ---------------------------------------------------------------------------

class IllConditioned(Exception):
    pass


def checked_matmul(a, b, what):
    """a @ b in float64, refusing sums that cancel (Σ|terms| > 200·|Σ terms|)."""
    a = np.asarray(a, dtype=F64)
    b = np.asarray(b, dtype=F64)
    out = a @ b
    magnitude = np.abs(a) @ np.abs(b)
    if not (is_dyadic(a, b) and np.all(magnitude < 2.0**30)):
        check_sum(out, magnitude, what)
    return out


def check_sum(result, magnitude, what):
    result = np.asarray(result, dtype=F64)
    magnitude = np.asarray(magnitude, dtype=F64)
    bad = (magnitude > 0) & ~(magnitude <= COND_LIMIT * np.abs(result))
    if np.any(bad & np.isfinite(result)):
        raise IllConditioned(what)


def is_dyadic(*arrays):
    """Every value a multiple of 2⁻¹⁰: products and their sums (below 2³⁰) are exact, cancelling or not."""
    return all(np.all(np.asarray(x) * 1024 == np.round(np.asarray(x) * 1024)) for x in arrays)


# ---------------------------------------------------------------------------
# The formulas, in float64 NumPy
# ---------------------------------------------------------------------------

def arr(x):
    return np.asarray(x, dtype=F64)


def mask_codes(config, n, m):
    """codes[i, j]: 0 attended, 1 masked by `mask`, 2 beyond valid_lens, 3 both."""
    by_mask = np.zeros((n, m), dtype=bool)
    mask = config.get("mask", "none")
    if mask == "causal":
        for i in range(n):
            for j in range(m):
                by_mask[i, j] = j > i
    elif mask != "none":
        rows = mask if isinstance(mask[0], list) else [mask]
        for i in range(n):
            for j in range(m):
                by_mask[i, j] = not bool(rows[i][j])
    beyond = np.zeros((n, m), dtype=bool)
    if "valid_lens" in config:
        for i in range(n):
            for j in range(m):
                beyond[i, j] = j >= config["valid_lens"][i]
    return by_mask.astype(int) + 2 * beyond.astype(int)


def scale_of(config, scoring, projections, d_k):
    scale = config.get("scale")
    if scale is None:
        scale = "sqrt_dk" if (scoring == "dot" and projections) else "none"
    if scale == "sqrt_dk":
        return math.sqrt(d_k)
    if scale == "none":
        return 1.0
    return float(scale)


def score_matrix(q, k, config, what):
    """scores[i, j] of queries q (n × d_q) against keys k (m × d_k); features for additive."""
    scoring = config.get("scoring", "dot")
    n, m = q.shape[0], k.shape[0]
    if scoring == "dot":
        return checked_matmul(q, k.T, what + " q·k"), None
    if scoring == "general":
        w_a = arr(config["w_a"])
        qw = checked_matmul(q, w_a, what + " q·W_a")
        return checked_matmul(qw, k.T, what + " (q·W_a)·k"), None
    if scoring == "additive":
        w_a, u_a, v_a = arr(config["w_a"]), arr(config["u_a"]), arr(config["v_a"])
        qw = checked_matmul(q, w_a, what + " q·W_a")
        ku = checked_matmul(k, u_a, what + " k·U_a")
        features = np.zeros((n, m, len(v_a)))
        scores = np.zeros((n, m))
        for i in range(n):
            for j in range(m):
                pre = qw[i] + ku[j]
                check_sum(pre, np.abs(qw[i]) + np.abs(ku[j]), what + " q·W_a + k·U_a")
                features[i, j] = np.tanh(pre)
                scores[i, j] = features[i, j] @ v_a
                check_sum(scores[i, j], np.abs(features[i, j]) @ np.abs(v_a), what + " v_a·tanh")
        return scores, features
    if scoring == "cosine":
        dots = checked_matmul(q, k.T, what + " q·k")
        scores = np.zeros((n, m))
        for i in range(n):
            for j in range(m):
                norm_q = math.sqrt(float(np.sum(q[i] * q[i])))
                norm_k = math.sqrt(float(np.sum(k[j] * k[j])))
                scores[i, j] = dots[i, j] / max(norm_q * norm_k, 1e-8)
        return scores, None
    raise ValueError(scoring)


def attend(q, k, v, config, scale, what):
    """One head: scores, scaled, weights, context, and the additive features."""
    n, m = q.shape[0], k.shape[0]
    temperature = float(config.get("temperature", 1.0))
    codes = mask_codes(config, n, m)
    attended = codes == 0
    scores, features = score_matrix(q, k, config, what)
    scaled = scores / scale / temperature
    scaled = np.where(attended, scaled, -np.inf)
    weights = softmax_rows(scaled, attended, config.get("masked_row", "zero"))
    ok = ~np.isnan(weights).any(axis=1)
    context = np.full((n, v.shape[1]), np.nan)
    context[ok] = checked_matmul(weights[ok], v, what + " weights·V")
    return dict(scores=scores, scaled=scaled, weights=weights, context=context, features=features,
                codes=codes)


def reference_self(config):
    x = arr(config["embeddings"])
    h = config.get("heads", 1)
    projections = "w_q" in config
    if projections:
        q = checked_matmul(x, arr(config["w_q"]), "Q")
        k = checked_matmul(x, arr(config["w_k"]), "K")
        v = checked_matmul(x, arr(config["w_v"]), "V")
    else:
        q = k = v = x
    d_k, d_v = q.shape[1] // h, v.shape[1] // h
    assert d_k * h == q.shape[1] and d_v * h == v.shape[1]
    scoring = config.get("scoring", "dot")
    scale = scale_of(config, scoring, projections, d_k)
    expect = {"q": q, "k": k, "v": v}
    heads = []
    for i in range(h):
        qi, ki, vi = q[:, i * d_k:(i + 1) * d_k], k[:, i * d_k:(i + 1) * d_k], v[:, i * d_v:(i + 1) * d_v]
        head = attend(qi, ki, vi, config, scale, f"head {i}")
        heads.append(head)
        expect[f"heads.{i}.q"] = qi
        expect[f"heads.{i}.k"] = ki
        expect[f"heads.{i}.v"] = vi
        for stage in ("scores", "scaled", "weights", "context"):
            expect[f"heads.{i}.{stage}"] = head[stage]
    context = np.concatenate([head["context"] for head in heads], axis=1)
    expect["context"] = context
    if "w_o" in config:
        w_o = arr(config["w_o"])
        out = np.full((context.shape[0], w_o.shape[1]), np.nan)
        ok = ~np.isnan(context).any(axis=1)
        out[ok] = checked_matmul(context[ok], w_o, "context·W_O")
        expect["output"] = out
    if h == 1:
        for stage in ("scores", "scaled", "weights"):
            expect[stage] = heads[0][stage]
    query = config.get("query", 0)
    if "mask" in config or "valid_lens" in config:
        expect["query.masked"] = heads[0]["codes"][query].astype(F64)
    if scoring == "additive":
        expect["query.features"] = heads[0]["features"][query]
    absent = [] if h == 1 else ["scores", "scaled", "weights"]
    if "w_o" not in config:
        absent.append("output")
    return expect, absent, dict(q=q, k=k, v=v, h=h, d_k=d_k, d_v=d_v, scale=scale)


def reference_cross(config):
    s = arr(config["decoder_state"])[None, :]
    a = arr(config["annotations"])
    m = a.shape[0]
    cfg = dict(config)
    if "mask" in cfg and cfg["mask"] not in ("none", "causal"):
        cfg["mask"] = [cfg["mask"]]
    scoring = config.get("scoring", "dot")
    scale = scale_of(config, scoring, False, a.shape[1])
    head = attend(s, a, a, cfg, scale, "cross")
    expect = {stage: head[stage][0] for stage in ("scores", "scaled", "weights", "context")}
    if "mask" in config or "valid_lens" in config:
        expect["query.masked"] = head["codes"][0].astype(F64)
    if scoring == "additive":
        expect["query.features"] = head["features"][0]
    assert expect["weights"].shape == (m,)
    return expect, [], dict(scale=scale)


# ---------------------------------------------------------------------------
# JAX: jax.nn.dot_product_attention (float32)
# ---------------------------------------------------------------------------

def pad_last(x, width):
    out = np.zeros(x.shape[:-1] + (width,))
    out[..., :x.shape[-1]] = x
    return out


def jax_attention(q, k, v, factor, default_scale, causal, mask, valid_lens):
    """Weights (h × n × m) and contexts (n × h × d_v) from jax.nn.dot_product_attention.

    q: n × h × d_k, k: m × h × d_k, v: m × h × d_v (float64, cast to float32).
    factor: the number the logits are multiplied by, or None for JAX's default 1/√d_k.
    mask: n × m booleans (True = attend) or None; valid_lens: n ints or None.
    """
    n, h, d_k = q.shape
    m, _, d_v = v.shape
    assert default_scale == (factor is None)

    def run(qx, kx, vx, scale):
        kwargs = dict(scale=scale)
        if valid_lens is None:
            # One batch of n queries; JAX's own causal mask where asked.
            qb, kb, vb = qx[None], kx[None], vx[None]
            kwargs["is_causal"] = causal
            if mask is not None:
                kwargs["mask"] = jnp.asarray(mask)[None, None, :, :]
        else:
            # One batch row per query, each with its key_value_seq_lengths.
            qb = qx[:, None]
            kb = np.broadcast_to(kx, (n,) + kx.shape)
            vb = np.broadcast_to(vx, (n,) + vx.shape)
            rows = mask
            if causal:
                rows = np.tril(np.ones((n, m), dtype=bool))
            if rows is not None:
                kwargs["mask"] = jnp.asarray(rows)[:, None, None, :]
            kwargs["key_value_seq_lengths"] = jnp.asarray(np.asarray(valid_lens, dtype=np.int32))
        out = jax.nn.dot_product_attention(
            jnp.asarray(qb, dtype=jnp.float32), jnp.asarray(kb, dtype=jnp.float32),
            jnp.asarray(vb, dtype=jnp.float32), **kwargs)
        out = np.asarray(out, dtype=F64)
        return out[0] if valid_lens is None else out[:, 0]

    # Contexts: values as they are (q, k, v zero-padded to one head width; padding adds 0 to q·k).
    width = max(d_k, d_v)
    scale = None if (factor is None and width == d_k) else (factor if factor is not None else 1 / math.sqrt(d_k))
    context = run(pad_last(q, width), pad_last(k, width), pad_last(v, width), scale)[:, :, :d_v]
    # Weights: one-hot values, value row j = e_j in every head.
    width = max(d_k, m)
    one_hot = np.zeros((m, h, width))
    for j in range(m):
        one_hot[j, :, j] = 1.0
    scale = None if (factor is None and width == d_k) else (factor if factor is not None else 1 / math.sqrt(d_k))
    weights = run(pad_last(q, width), pad_last(k, width), one_hot, scale)[:, :, :m]
    return np.transpose(weights, (1, 0, 2)), context


def jax_inputs(q, k, config, scale):
    """q and k as JAX's dot product must see them for this scoring, and the logit factor."""
    scoring = config.get("scoring", "dot")
    temperature = float(config.get("temperature", 1.0))
    if scoring == "general":
        q = q @ arr(config["w_a"])
    elif scoring == "cosine":
        # Unit vectors; a zero vector stays zero (its scores are 0 either way).
        def unit(x):
            norm = np.linalg.norm(x, axis=-1, keepdims=True)
            return x / np.where(norm > 0, norm, 1.0)
        q, k = unit(q), unit(k)
    elif scoring != "dot":
        raise ValueError(f"JAX has no {scoring} scoring")
    return q, k, 1.0 / (scale * temperature)


def jax_masks(config, n, m):
    mask = config.get("mask", "none")
    causal = mask == "causal"
    matrix = None
    if mask not in ("none", "causal"):
        rows = mask if isinstance(mask[0], list) else [mask]
        matrix = np.array([[bool(x) for x in row] for row in rows])
    return causal, matrix, config.get("valid_lens")


def jax_self(config, info):
    q, k, v, h, d_k, d_v = (info[x] for x in ("q", "k", "v", "h", "d_k", "d_v"))
    n, m = q.shape[0], k.shape[0]
    qs = q.reshape(n, h, d_k)
    ks = k.reshape(m, h, d_k)
    vs = v.reshape(m, h, d_v)
    qj, kj, factor = jax_inputs(qs, ks, config, info["scale"])
    plain = (config.get("scoring", "dot") == "dot" and config.get("temperature", 1.0) == 1.0
             and config.get("scale", "sqrt_dk") == "sqrt_dk" and "w_q" in config)
    causal, matrix, valid_lens = jax_masks(config, n, m)
    weights, context = jax_attention(qj, kj, vs, None if plain else factor, plain, causal, matrix, valid_lens)
    out = {f"heads.{i}.weights": weights[i] for i in range(h)}
    out["context"] = context.reshape(n, h * d_v)
    if "w_o" in config:
        out["output"] = out["context"] @ arr(config["w_o"])
    return out


def jax_cross(config, info):
    s = arr(config["decoder_state"])[None, None, :]
    a = arr(config["annotations"])[:, None, :]
    qj, kj, factor = jax_inputs(s, a, config, info["scale"])
    causal, matrix, valid_lens = jax_masks(config, 1, a.shape[0])
    weights, context = jax_attention(qj, kj, a, factor, False, causal, matrix, valid_lens)
    return {"weights": weights[0, 0], "context": context[0, 0]}


def close(got, want, tol):
    got, want = np.asarray(got, dtype=F64), np.asarray(want, dtype=F64)
    both_nan = np.isnan(got) & np.isnan(want)
    return bool(np.all(both_nan | (np.abs(got - want) <= tol * np.maximum(np.abs(want), 1.0))))


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------

SEED = json.load(open(SEEDS))
WORDS = SEED["seed_000_001"]["words"]
DOC002 = SEED["seed_002"]["input"]
DEC003 = SEED["seed_003"]["dec_hidden_state"]
# The document prints the annotations with encoder states as columns; configs take one row per state.
ANN003 = [list(col) for col in zip(*SEED["seed_003"]["annotations_rows_are_dims_columns_are_encoder_states"])]
TOKENS = ["word_1", "word_2", "word_3", "word_4"]


def ints(a):
    return [[int(x) for x in row] for row in np.asarray(a)]


def seed42(heads, d_out=None):
    """np.random.seed(42); W_Q, W_K, W_V = randint(3, size=(3, heads·3)) each; then W_O."""
    np.random.seed(42)
    w = {name: ints(np.random.randint(3, size=(3, 3 * heads))) for name in ("w_q", "w_k", "w_v")}
    if d_out is not None:
        w["w_o"] = ints(np.random.randint(3, size=(3 * heads, d_out)))
    return w


# Document 000's own weights.
assert seed42(1) == {"w_q": SEED["seed_000_001"]["W_Q"], "w_k": SEED["seed_000_001"]["W_K"],
                     "w_v": SEED["seed_000_001"]["W_V"]}


def words(heads=1, d_out=None, **options):
    config = {"embeddings": WORDS, "tokens": TOKENS}
    config.update(seed42(heads, d_out))
    if heads != 1 or options.pop("explicit_heads", False):
        config["heads"] = heads
    config.update(options)
    return config


def rounded(x, digits=6):
    return np.round(np.asarray(x, dtype=F64), digits).tolist()


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

CASES = []


def case(name, config, jax_ok=True, about=""):
    """Add a case; jax_ok says whether JAX can express it (it is then cross-checked)."""
    if "decoder_state" in config:
        expect, absent, info = reference_cross(config)
        jax_values = jax_cross(config, info) if jax_ok else None
    else:
        expect, absent, info = reference_self(config)
        jax_values = jax_self(config, info) if jax_ok else None
    entry = {"name": name, "about": about, "source": "jax+numpy" if jax_ok else "numpy", "config": config,
             "expect": expect}
    if absent:
        entry["absent"] = absent
    if jax_ok:
        for field, values in jax_values.items():
            if not close(values, expect[field], JAX_TOL):
                worst = np.nanmax(np.abs(np.asarray(values) - expect[field]))
                raise SystemExit(f"{name}: JAX and NumPy disagree on {field} (max |Δ| {worst:.3g}):\n"
                                 f"jax   {values}\nnumpy {expect[field]}")
        entry["jax"] = jax_values
    CASES.append(entry)


def random_case(name, seed, build, jax_ok=True, about=""):
    """build(rng) → config; the first seed from `seed` whose sums are well conditioned."""
    for s in range(seed, seed + 1000):
        config = build(np.random.default_rng(s))
        try:
            reference_self(config) if "embeddings" in config else reference_cross(config)
        except IllConditioned:
            continue
        case(name, config, jax_ok, f"{about} (np.random.default_rng({s}))".strip())
        return
    raise SystemExit(f"{name}: no well-conditioned seed")


def build_cases():
    # 1. Heads on the documents' word embeddings, seed-42 weights, with and without W_O.
    case("heads1_explicit", words(1, explicit_heads=True), about="document 000 as one explicit head")
    case("heads1_w_o", words(1, d_out=2, query=3), about="document 000 with W_O (3 × 2)")
    case("heads2", words(2), about="h = 2, d_k = d_v = 3")
    case("heads2_w_o", words(2, d_out=3, query=1), about="h = 2 with W_O (6 × 3)")
    case("heads3", words(3, query=2), about="h = 3")
    case("heads3_w_o", words(3, d_out=4), about="h = 3 with W_O (9 × 4)")
    case("heads4", words(4), about="h = 4")
    case("heads4_w_o", words(4, d_out=2, query=3), about="h = 4 with W_O (12 × 2)")

    # 2. Masks, valid lengths, fully masked rows.
    custom_bool = [[True, False, True, False], [True, True, False, False], [False, True, True, True],
                   [True, False, False, True]]
    custom_01 = [[1, 1, 0, 0], [0, 1, 0, 1], [1, 1, 1, 0], [0, 0, 1, 1]]
    case("causal_h1", words(1, mask="causal", query=1))
    case("causal_h2", words(2, mask="causal", query=2))
    case("mask_bool_h1", words(1, mask=custom_bool, query=2), about="boolean mask matrix")
    case("mask_01_h2", words(2, mask=custom_01, query=1), about="0/1 mask matrix")
    case("valid_lens_h1", words(1, valid_lens=[2, 3, 1, 4], query=0), about="d2l valid lengths")
    case("valid_lens_h2", words(2, valid_lens=[1, 4, 2, 3], query=2))
    case("mask_and_valid_lens_h1", words(1, mask=[[1, 0, 1, 1], [1, 0, 1, 0], [0, 1, 1, 1], [1, 1, 1, 1]],
                                         valid_lens=[3, 2, 4, 1], query=1),
         about="query 1 has every code: attended, masked, beyond valid_lens, both")
    case("causal_and_valid_lens_h2", words(2, mask="causal", valid_lens=[1, 1, 2, 3], query=3))
    case("causal_valid_lens_w_o_h3", words(3, d_out=3, mask="causal", valid_lens=[4, 2, 2, 3], query=1))
    full_mask = [[1, 0, 1, 0], [0, 0, 0, 0], [1, 1, 1, 0], [0, 1, 0, 1]]
    case("fully_masked_default_h1", words(1, mask=full_mask, query=1), jax_ok=False,
         about="row 1 fully masked, masked_row left to its default (zero)")
    case("fully_masked_zero_h1", words(1, mask=full_mask, masked_row="zero", query=1), jax_ok=False)
    case("fully_masked_uniform_h1", words(1, mask=full_mask, masked_row="uniform", query=1),
         about="JAX's large-negative fill gives the same uniform row")
    case("fully_masked_nan_h1", words(1, mask=full_mask, masked_row="nan", query=1), jax_ok=False)
    case("fully_masked_zero_h2", words(2, d_out=3, valid_lens=[3, 0, 4, 2], masked_row="zero", query=1),
         jax_ok=False, about="row 1 has valid length 0")
    case("fully_masked_uniform_h2", words(2, d_out=3, mask="causal", valid_lens=[0, 2, 3, 4],
                                          masked_row="uniform", query=0))
    case("fully_masked_nan_h2", words(2, d_out=3, mask=full_mask, valid_lens=[4, 4, 1, 3], masked_row="nan",
                                      query=1), jax_ok=False)

    # 3. Temperature, with dot (document 000, 1 and 2 heads) and cosine (document 002) scoring.
    for t in (0.05, 0.5, 3, 20):
        tag = str(t).replace(".", "_")
        case(f"temperature_{tag}_dot", words(1, temperature=t))
        case(f"temperature_{tag}_dot_h2", words(2, temperature=t, mask="causal"))
        case(f"temperature_{tag}_cosine", {"embeddings": DOC002, "scoring": "cosine", "temperature": t,
                                           "query": 1})
    case("cosine_zero_vector", {"embeddings": [[0.0, 0.0, 0.0]] + DOC002[1:], "scoring": "cosine",
                                "temperature": 0.5, "query": 0},
         about="a zero embedding: ‖q‖·‖k‖ = 0 < 1e-8, its scores are 0")

    # 4. Scoring functions.
    rng = np.random.default_rng(12)
    w_a_002 = rounded(rng.uniform(0.2, 1.5, size=(3, 3)), 3)
    case("general_self", {"embeddings": DOC002, "scoring": "general", "w_a": w_a_002, "query": 1},
         about="document 002 input, no projections, W_a 3 × 3")
    np.random.seed(5)
    w_a_int = ints(np.random.randint(3, size=(3, 3)))
    case("general_self_projections", words(1, scoring="general", w_a=w_a_int, scale=10, query=2),
         about="document 000 projections, W_a = randint(3) after np.random.seed(5), scale 10")
    case("general_self_sqrt_dk", words(1, scoring="general", w_a=w_a_int, scale="sqrt_dk", temperature=4),
         about="explicit sqrt_dk with general scoring: d_k = 3")
    case("general_self_default_scale", words(1, scoring="general", w_a=[[0.1, 0, 0.05], [0, 0.2, 0],
                                                                          [0.05, 0, 0.1]]),
         about="general scoring's default scale is none")
    case("additive_self", {"embeddings": DOC002, "scoring": "additive",
                           "w_a": [[0.5, -1.0, 0.25, 2.0], [1.5, 0.5, -0.75, 0.0], [-0.5, 1.0, 1.25, -1.5]],
                           "u_a": [[1.0, 0.5, -0.5, 0.25], [-1.25, 0.75, 1.0, 0.5], [0.5, -0.25, 0.75, 1.0]],
                           "v_a": [1.0, -0.5, 2.0, 0.75], "query": 1},
         jax_ok=False, about="document 002 input, no projections, d_a = 4")
    case("additive_self_projections", words(1, scoring="additive",
                                            w_a=[[0.25, -0.5, 0.125], [0.1875, 0.3125, -0.125],
                                                 [-0.125, 0.0625, 0.375]],
                                            u_a=[[0.3125, 0.125, -0.1875], [-0.25, 0.1875, 0.125],
                                                 [0.125, -0.3125, 0.375]],
                                            v_a=[2.0, -1.0, 1.5], mask="causal", query=3),
         jax_ok=False, about="document 000 projections, d_a = 3, causal")
    cross = {"decoder_state": DEC003, "annotations": ANN003}
    case("dot_cross", dict(cross, scale=100), about="document 003, scores / 100")
    case("general_cross", dict(cross, scoring="general",
                               w_a=[[0.01, 0.0, 0.002], [0.0, 0.02, 0.0], [0.001, 0.0, 0.003]]),
         about="document 003, W_a 3 × 3")
    case("general_cross_temperature", dict(cross, scoring="general", temperature=0.5, scale=2,
                                           w_a=[[0.01, 0.0, 0.002], [0.0, 0.02, 0.0], [0.001, 0.0, 0.003]]))
    case("additive_cross", dict(cross, scoring="additive",
                                w_a=[[0.02, -0.01, 0.05], [0.01, 0.03, -0.02], [-0.015, 0.02, 0.01]],
                                u_a=[[0.01, 0.02, -0.01], [-0.02, 0.01, 0.015], [0.005, -0.01, 0.02]],
                                v_a=[1.5, -2.0, 0.5]),
         jax_ok=False, about="document 003, d_a = 3")
    case("additive_cross_saturated", dict(cross, scoring="additive", w_a=[[1, 0], [0, 1], [1, 1]],
                                          u_a=[[0, 1], [1, 0], [-1, 1]], v_a=[1, 2], mask=[1, 1, 0, 1]),
         jax_ok=False, about="document 003 with integer W_a, U_a: most tanh saturate to ±1")
    case("cosine_self_h2", words(2, scoring="cosine", query=1), about="cosine per head, default scale none")
    case("cosine_cross", dict(cross, scoring="cosine", temperature=0.1), about="document 003")
    case("cross_mask_valid_lens", dict(cross, scale=50, mask=[1, 0, 1, 1], valid_lens=[3]),
         about="codes 0, 1, 0, 2")
    case("cross_fully_masked_zero", dict(cross, mask=[0, 1, 1, 0], valid_lens=[1]), jax_ok=False)
    case("cross_fully_masked_uniform", dict(cross, valid_lens=[0], masked_row="uniform"))
    case("cross_fully_masked_nan", dict(cross, mask=[0, 0, 0, 0], masked_row="nan"), jax_ok=False)

    # 5. Scale as a number and "none", with heads.
    case("scale_number_h2", words(2, scale=2.5, query=1))
    case("scale_none_h3", words(3, scale="none", d_out=2))
    case("scale_number_h4_temperature", words(4, scale=0.75, temperature=2, query=2))
    case("scale_none_no_projections", {"embeddings": DOC002, "scale": "none", "query": 1})
    case("scale_number_no_projections", {"embeddings": DOC002, "scale": 0.25, "query": 3})
    case("scale_sqrt_dk_no_projections", {"embeddings": DOC002, "scale": "sqrt_dk"},
         about="d_k = d_model = 3 without projections")

    # Random floats.
    def random_heads(rng):
        n, d_model, h, d_k, d_v = 5, 4, 2, 3, 2
        return {"embeddings": rng.uniform(-1, 1, (n, d_model)).tolist(),
                "w_q": rng.normal(size=(d_model, h * d_k)).tolist(),
                "w_k": rng.normal(size=(d_model, h * d_k)).tolist(),
                "w_v": rng.normal(size=(d_model, h * d_v)).tolist(),
                "w_o": rng.normal(size=(h * d_v, 3)).tolist(),
                "heads": h, "query": 4}
    random_case("random_h2_w_o", 2024, random_heads, about="n 5, d_model 4, h 2, d_k 3, d_v 2, W_O 4 × 3")

    def random_masked(rng):
        n, d_model, h, d_k, d_v = 6, 5, 3, 2, 4
        return {"embeddings": rng.normal(size=(n, d_model)).tolist(),
                "w_q": rng.normal(size=(d_model, h * d_k)).tolist(),
                "w_k": rng.normal(size=(d_model, h * d_k)).tolist(),
                "w_v": rng.uniform(0, 2, (d_model, h * d_v)).tolist(),
                "heads": h, "mask": "causal", "valid_lens": [1, 2, 2, 6, 3, 5], "temperature": 1.5,
                "query": 4}
    random_case("random_h3_causal_valid_lens", 7, random_masked, about="n 6, h 3, d_k 2, d_v 4, temperature 1.5")

    def random_temperature(rng):
        n, d_model, d_k = 4, 3, 5
        return {"embeddings": rng.uniform(0, 1, (n, d_model)).tolist(),
                "w_q": rng.normal(size=(d_model, d_k)).tolist(),
                "w_k": rng.normal(size=(d_model, d_k)).tolist(),
                "w_v": rng.normal(size=(d_model, 2)).tolist(),
                "temperature": 0.3, "query": 2}
    random_case("random_temperature", 99, random_temperature, about="d_k 5, d_v 2, temperature 0.3")

    def random_general(rng):
        n, d_model, d_k = 5, 3, 4
        return {"embeddings": rng.uniform(-1, 1, (n, d_model)).tolist(),
                "w_q": rng.normal(size=(d_model, d_k)).tolist(),
                "w_k": rng.normal(size=(d_model, d_k)).tolist(),
                "w_v": rng.normal(size=(d_model, d_k)).tolist(),
                "scoring": "general", "w_a": rng.normal(size=(d_k, d_k)).tolist(),
                "mask": rng.integers(0, 2, (n, n)).astype(bool).tolist(), "masked_row": "uniform",
                "query": 0}
    random_case("random_general_mask", 5, random_general, about="random boolean mask, masked_row uniform")

    def random_additive(rng):
        n, d_model, d_a = 5, 4, 3
        return {"embeddings": rng.normal(size=(n, d_model)).tolist(), "scoring": "additive",
                "w_a": rng.normal(size=(d_model, d_a)).tolist(), "u_a": rng.normal(size=(d_model, d_a)).tolist(),
                "v_a": rng.normal(size=d_a).tolist(), "valid_lens": [5, 1, 3, 4, 2], "query": 3}
    random_case("random_additive", 11, random_additive, jax_ok=False, about="no projections, d_a 3")

    def random_cross(rng):
        m, d = 6, 5
        return {"decoder_state": rng.normal(size=d).tolist(), "annotations": rng.normal(size=(m, d)).tolist(),
                "scoring": "cosine", "temperature": 0.3, "mask": [1, 1, 0, 1, 1, 1], "valid_lens": [5]}
    random_case("random_cross_cosine", 3, random_cross, about="m 6, d 5, temperature 0.3")

    def random_cross_additive(rng):
        m, d, d_a = 5, 4, 6
        return {"decoder_state": rng.normal(size=d).tolist(), "annotations": rng.normal(size=(m, d)).tolist(),
                "scoring": "additive", "w_a": rng.normal(size=(d, d_a)).tolist(),
                "u_a": rng.normal(size=(d, d_a)).tolist(), "v_a": rng.normal(size=d_a).tolist()}
    random_case("random_cross_additive", 17, random_cross_additive, jax_ok=False, about="m 5, d 4, d_a 6")


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------


def check_documents():
    """The transcription reproduces the documents' own values (seed-values.json) before anything else."""
    doc = SEED["seed_000_001"]
    expect, _, _ = reference_self(words(1))
    for field, key in (("q", "Q"), ("k", "K"), ("v", "V"), ("scores", "scores"), ("scaled", "scaled_scores"),
                       ("weights", "weights"), ("context", "attention")):
        assert np.allclose(expect[field], arr(doc[key]), rtol=1e-15, atol=0), field
    expect, _, _ = reference_self({"embeddings": DOC002})
    for field, key in (("scores", "scores"), ("weights", "weights"), ("context", "contexts")):
        assert np.allclose(expect[field], arr(SEED["seed_002"][key]), rtol=1e-14, atol=0), field
    expect, _, _ = reference_cross({"decoder_state": DEC003, "annotations": ANN003})
    stable = SEED["seed_003"]["stable_softmax"]
    assert np.array_equal(expect["scores"], arr(SEED["seed_003"]["scores"]))
    assert np.allclose(expect["weights"], arr(stable["weights"]), rtol=1e-15, atol=0)
    assert np.allclose(expect["context"], arr(stable["context_vector"]), rtol=1e-15, atol=0)


def main():
    check_documents()
    build_cases()
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names)), "case names must be unique"
    golden = {
        "about": "Golden values of the attention variants (heads, W_O, masks, valid_lens, masked rows, temperature, "
                 "scale, general/additive/cosine scoring). Generated by tests/goldens/gen_variant_goldens.py; do not edit "
                 "by hand. 'expect': a float64 NumPy transcription of the papers' formulas (check at 1e-12 "
                 "relative); 'jax': jax.nn.dot_product_attention in float32 (check at 1e-6). NaN and -inf are the "
                 "strings \"NaN\" and \"-Infinity\".",
        "versions": {"jax": jax.__version__, "jaxlib": jaxlib.__version__, "numpy": np.__version__},
        "cases": encode(CASES),
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write(dumps(golden))
        f.write("\n")
    jax_count = sum(1 for c in CASES if "jax" in c)
    print(f"wrote {OUT}: {len(CASES)} cases ({jax_count} cross-checked with JAX)")


if __name__ == "__main__":
    main()
