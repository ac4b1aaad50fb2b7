"""The figure's numbers in Python: ``av.compute`` (the Rust core, run by wasmtime) against values NumPy/JAX computed
independently (tests/fixtures/variant-goldens.json, tests/goldens/gen_variant_goldens.py) and the seed documents' values
(tests/fixtures/seed-values.json), at 1e-12."""

import numpy as np
import pytest

import attention_viz as av
from attention_viz import presets
from conftest import golden, load

RTOL = ATOL = 1e-12
CASES = load("variant-goldens.json")["cases"]


def flat(trace):
    """The trace's fields by the core's names: ``heads.0.weights``, ``query.exp``… (as the goldens name them)."""
    out = {}
    for key, value in trace.items():
        if key == "heads":
            for i, head in enumerate(value):
                out.update({f"heads.{i}.{k}": v for k, v in head.items()})
        elif isinstance(value, dict):
            out.update({f"{key}.{k}": v for k, v in value.items()})
        else:
            out[key] = value
    return out


def compute(config):
    return flat(av.compute(config))


def close(got, want):
    got, want = np.asarray(got, dtype=np.float64), golden(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_variant_goldens(case):
    trace = compute(case["config"])
    assert case["expect"], f"{case['name']}: compares nothing"
    for name, want in case["expect"].items():
        assert name in trace, f"{case['name']}: no {name}"
        close(trace[name], want)
    for name in case.get("absent", []):
        assert name not in trace, f"{case['name']}: {name} should be absent"


JAX_CASES = [c for c in CASES if c["source"] == "jax+numpy"]


@pytest.mark.parametrize("case", JAX_CASES, ids=[c["name"] for c in JAX_CASES])
def test_variant_goldens_match_jax(case):
    """The heads' weights, the context and the output against jax.nn.dot_product_attention, a second implementation
    (float32, so at 1e-6 of max(|JAX's value|, 1), as tests/variants.rs compares the core with it)."""
    trace = compute(case["config"])
    assert case["jax"], f"{case['name']}: compares nothing"
    for name, want in case["jax"].items():
        assert name in trace, f"{case['name']}: no {name}"
        got, want = np.asarray(trace[name], dtype=np.float64), golden(want)
        assert got.shape == want.shape, (name, got.shape, want.shape)
        off = np.abs(got - want) > 1e-6 * np.maximum(np.abs(want), 1)
        assert not off.any(), (case["name"], name, got[off][:5], want[off][:5])


def test_seed_000_001(seed_values):
    s = seed_values["seed_000_001"]
    for name in ("seed-000", "seed-001"):
        t = compute(presets()[name])
        close(t["q"], s["Q"]), close(t["k"], s["K"]), close(t["v"], s["V"])
        close(t["scores"], s["scores"])
        close(t["scaled"], s["scaled_scores"])
        close(t["weights"], s["weights"])
        close(t["context"], s["attention"])
        assert t["scale"] == pytest.approx(s["scale_sqrt3"], rel=1e-15)


def test_seed_002(seed_values):
    s = seed_values["seed_002"]
    cfg = presets()["seed-002"]
    close(cfg["embeddings"], s["input"])
    t = compute(cfg)
    close(t["scores"], s["scores"])
    close(t["weights"], s["weights"])
    close(t["context"], s["contexts"])


def test_seed_003(seed_values):
    s = seed_values["seed_003"]
    t = compute(presets()["seed-003"])
    close(t["scores"], s["scores"])
    close(t["weights"], s["stable_softmax"]["weights"])
    close(t["applied"], s["stable_softmax"]["applied_attention"])
    close(t["context"], s["stable_softmax"]["context_vector"])


def test_weights_mechanism_gains_leading_axes():
    a = np.arange(6.0).reshape(2, 3)
    t = compute({"mechanism": "weights", "attention": a.tolist()})
    assert t["attention"].shape == (1, 1, 2, 3)
    assert t["attention"][0, 0].tolist() == a.tolist()


MODERN = load("modern-goldens.json")["cases"]


def dotted(value, prefix=""):
    """Every number and array of a trace by its dotted name, lists indexed (``flash.steps.3.m``), as the core names them."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return {prefix: value}
    out = {}
    for key, item in items:
        out.update(dotted(item, f"{prefix}.{key}" if prefix else str(key)))
    return out


@pytest.mark.parametrize("case", MODERN, ids=[c["name"] for c in MODERN])
def test_modern_goldens(case):
    """The modern fields (positions, kv_heads, windows and sinks, the decode step, the tiles) through ``av.compute``:
    the NumPy transcription of the papers' formulas, itself checked against JAX, at 1e-12 relative."""
    trace = dotted(av.compute(case["config"]))
    for name, want in case["expect"].items():
        assert name in trace, f"{case['name']}: no {name}"
        got, want = np.asarray(trace[name], dtype=np.float64), golden(want)
        assert got.shape == want.shape, (name, got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300, equal_nan=True, err_msg=f"{case['name']}: {name}")
