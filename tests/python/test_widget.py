"""av.Widget: an anywidget whose config/trace traitlets follow the page, and its ImportError
without anywidget."""

import subprocess
import sys

import anywidget  # the widget extra; tests/requirements-python.txt installs it, so without it these tests fail
import numpy as np
import pytest

import attention_viz as av


def test_traitlets_exist_and_sync(seed_values):
    w = av.Widget(preset="seed-001", views="weights", theme="light")
    assert isinstance(w, anywidget.AnyWidget)
    for name in ("config", "trace", "options", "error", "_esm"):
        assert w.has_trait(name)
        assert w.trait_metadata(name, "sync")
    # The seed document's inputs (tests/fixtures/seed-values.json).
    s = seed_values["seed_000_001"]
    assert [w.config[k] for k in ("embeddings", "w_q", "w_k", "w_v")] == [s["words"], s["W_Q"], s["W_K"], s["W_V"]]
    assert w.options == {"views": "weights", "theme": "light"}
    assert w.trace is None
    assert "export default" in w._esm and "attention-viz engine for notebooks" in w._esm  # the engine: the build, deflated
    state = w.get_state()
    assert state["config"] == w.config


def test_config_from_python_is_checked_and_converted():
    w = av.Widget(embeddings=np.eye(3))
    w.config = {"embeddings": np.arange(6.0).reshape(3, 2), "tokens": np.array(["a", "b", "c"])}
    assert w.config == {"embeddings": [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], "tokens": ["a", "b", "c"]}
    with pytest.raises(ValueError, match=r"embeddings row 0, column 1 is NaN"):
        w.config = {"embeddings": [[1.0, float("nan")]]}
    assert w.config["tokens"] == ["a", "b", "c"]  # the refused config left it as it was


def test_edits_from_the_page_round_trip():
    w = av.Widget(preset="seed-001")
    seen = []
    w.observe(lambda change: seen.append(change["name"]), names=["config", "trace"])
    edited = dict(w.config, embeddings=[[1, 0, 0], [0, 2, 0], [1, 1, 0], [0, 0, 1]])
    trace = {"weights": [[0.25] * 4] * 4, "scale": 1.7320508075688772}
    # What the front end's model.set(...) + save_changes() delivers to the kernel.
    w.set_state({"config": edited, "trace": trace})
    assert w.config["embeddings"][1] == [0, 2, 0]
    assert w.trace == trace
    assert seen == ["config", "trace"]
    assert w.figure().config == w.config


def test_widget_without_anywidget_says_how_to_install():
    code = (
        "import sys; sys.modules['anywidget'] = None\n"
        "import attention_viz as av\n"
        "av.show(preset='seed-001')._repr_html_()\n"
        "try:\n    av.Widget(preset='seed-001')\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert 'pip install "attention-viz[widget]"' in out


def test_mimebundle_has_the_widget_view_and_a_static_fallback():
    w = av.Widget(preset="seed-003")
    data, _ = w._repr_mimebundle_()
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == w.model_id
    assert data["text/html"].count("<img") == 1 and "<attention-viz " in data["text/html"]
