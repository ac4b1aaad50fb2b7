"""The picture's numbers: attention_viz._numpy against values NumPy/JAX computed independently
(tests/fixtures/variant-goldens.json, tests/goldens/gen_variant_goldens.py) and the seed documents'
values (tests/fixtures/seed-values.json), at 1e-12."""

import numpy as np
import pytest

from attention_viz import _config, _numpy, presets
from conftest import golden, load

RTOL = ATOL = 1e-12
CASES = load("variant-goldens.json")["cases"]


def close(got, want):
    got, want = np.asarray(got, dtype=np.float64), golden(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_variant_goldens(case):
    trace = _numpy.compute(_config.normalize(case["config"]))
    for name, want in case["expect"].items():
        assert name in trace, f"{case['name']}: no {name}"
        close(trace[name], want)
    for name in case.get("absent", []):
        assert name not in trace, f"{case['name']}: {name} should be absent"


def test_golden_count():
    assert len(CASES) >= 60


def test_seed_000_001(seed_values):
    s = seed_values["seed_000_001"]
    for name in ("seed-000", "seed-001"):
        t = _numpy.compute(presets()[name])
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
    t = _numpy.compute(cfg)
    close(t["scores"], s["scores"])
    close(t["weights"], s["weights"])
    close(t["context"], s["contexts"])


def test_seed_003(seed_values):
    s = seed_values["seed_003"]
    t = _numpy.compute(presets()["seed-003"])
    close(t["scores"], s["scores"])
    close(t["weights"], s["stable_softmax"]["weights"])
    close(t["applied"], s["stable_softmax"]["applied_attention"])
    close(t["context"], s["stable_softmax"]["context_vector"])


def test_weights_mechanism_gains_leading_axes():
    a = np.arange(6.0).reshape(2, 3)
    t = _numpy.compute({"mechanism": "weights", "attention": a.tolist()})
    assert t["attention"].shape == (1, 1, 2, 3)
    assert t["attention"][0, 0].tolist() == a.tolist()
