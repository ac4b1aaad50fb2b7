"""Real transformers models' layers (tests/fixtures/real-layers.json, tests/goldens/gen_real_layers.py) through
av.compute: the config layer_config gave gives transformers' weights and output, float32 to 2e-5 and float64 to 1e-9
(and the NumPy transcription's, to 1e-9); and layer_config's refusals that need no torch. tests/models/ runs
layer_config itself on live models (make test-models)."""

import subprocess
import sys

import numpy as np
import pytest

import attention_viz as av
from conftest import golden, load

CASES = load("real-layers.json")["cases"]
BOUNDS = [("float32", "transformers", 2e-5), ("float64", "numpy", 1e-9), ("float64", "transformers", 1e-9)]


@pytest.mark.parametrize("dtype,source,bound", BOUNDS, ids=[f"{d}-vs-{s}" for d, s, _ in BOUNDS])
def test_compute_reproduces_the_layer(dtype, source, bound):
    cases = [c for c in CASES if c["dtype"] == dtype]
    assert len(cases) >= 14
    failures = []
    for case in cases:
        trace = av.compute(case["config"])
        weights = np.stack([h["weights"] for h in trace["heads"]])
        want = golden(case[source]["weights"])
        assert weights.shape == want.shape, case["name"]
        w = np.abs(weights - want).max()
        o = np.abs(trace["output"] - golden(case[source]["output"])).max()
        if not (w <= bound and o <= bound):
            failures.append(f"{case['name']}: weights {w:.1e}, output {o:.1e}")
    assert not failures, f"over {bound:g} against {source}: " + "; ".join(failures)


def test_the_fixture_names_its_versions():
    versions = load("real-layers.json")["versions"]
    assert {"torch", "transformers", "numpy"} <= set(versions)


class _Config:
    def __init__(self, model_type):
        self.model_type = model_type


class _Model:
    """Stands for a transformers model: a config naming its architecture, and modules (none)."""

    def __init__(self, model_type):
        self.config = _Config(model_type)

    def named_modules(self):
        return iter(())


@pytest.mark.parametrize("call", [av.layer_config, av.show_layer], ids=["layer_config", "show_layer"])
def test_an_unknown_architecture_is_refused_by_name(call):
    with pytest.raises(ValueError, match=r"^mixtral: layer_config does not read this architecture yet: it reads "
                                         r"llama, mistral, .*gpt2, bert"):
        call(_Model("mixtral"), [1, 2, 3], layer=0)


def test_gemma3_multimodal_is_sent_to_its_text_model():
    with pytest.raises(ValueError, match=r"^gemma3: .*model\.model\.language_model"):
        av.layer_config(_Model("gemma3"), [1, 2, 3])


@pytest.mark.parametrize("model", [object(), np.zeros(3), {"model_type": "llama"}], ids=["object", "array", "dict"])
def test_what_is_no_model_is_refused(model):
    with pytest.raises(ValueError, match="a Hugging Face transformers model"):
        av.layer_config(model, [1, 2, 3])


def test_importing_attention_viz_imports_no_torch():
    code = "import sys, attention_viz; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
