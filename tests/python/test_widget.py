"""av.Widget: an anywidget whose config follows the page and whose trace Python computes from it (never
synced), and its ImportError without anywidget."""

import subprocess
import sys

import anywidget  # the widget extra; tests/requirements-python.txt installs it, so without it these tests fail
import numpy as np
import pytest

import attention_viz as av


def softmax_weights(x, w_q, w_k):
    """The self-attention weights by hand: softmax over each row of (X W_Q)(X W_K)ᵀ / √d_k."""
    q, k = np.asarray(x, float) @ np.asarray(w_q, float), np.asarray(x, float) @ np.asarray(w_k, float)
    scaled = q @ k.T / np.sqrt(k.shape[1])
    e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_traitlets_exist_and_sync(seed_values):
    w = av.Widget(preset="seed-001", views="weights", theme="light")
    assert isinstance(w, anywidget.AnyWidget)
    for name in ("config", "options", "error", "_esm"):
        assert w.has_trait(name)
        assert w.trait_metadata(name, "sync")
    # The trace is Python's, computed from the config: it never crosses the wire.
    assert w.has_trait("trace") and not w.trait_metadata("trace", "sync")
    assert "trace" not in w.get_state()
    # The seed document's inputs (tests/fixtures/seed-values.json).
    s = seed_values["seed_000_001"]
    assert [w.config[k] for k in ("embeddings", "w_q", "w_k", "w_v")] == [s["words"], s["W_Q"], s["W_K"], s["W_V"]]
    assert w.options == {"views": "weights", "theme": "light"}
    # The trace of the shown config from the start, as nested lists of floats.
    assert isinstance(w.trace["weights"], list) and isinstance(w.trace["weights"][0][0], float)
    np.testing.assert_allclose(w.trace["weights"], softmax_weights(s["words"], s["W_Q"], s["W_K"]), rtol=1e-12)
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


def test_edits_from_the_page_round_trip(seed_values):
    w = av.Widget(preset="seed-001")
    s = seed_values["seed_000_001"]
    seen = []
    w.observe(lambda change: seen.append((change["name"], w.trace)), names=["config", "trace"])
    x = [[1, 0, 0], [0, 2, 0], [1, 1, 0], [0, 0, 1]]
    edited = dict(w.config, embeddings=x)
    # What the front end's model.set('config', …) + save_changes() delivers to the kernel: the config alone.
    w.set_state({"config": edited})
    assert w.config["embeddings"][1] == [0, 2, 0]
    expected = softmax_weights(x, s["W_Q"], s["W_K"])
    np.testing.assert_allclose(w.trace["weights"], expected, rtol=1e-12)
    assert not np.allclose(expected, softmax_weights(s["words"], s["W_Q"], s["W_K"]))  # the edit changed them
    # observe(names="trace") sees the new trace; an observer of config finds the trace already current.
    assert sorted(name for name, _ in seen) == ["config", "trace"]
    assert all(trace is w.trace for _, trace in seen)
    assert w.figure().config == w.config


def test_a_trace_sent_by_the_page_is_not_taken():
    # An older front end sent its trace with the config: Python keeps the one it computes.
    w = av.Widget(embeddings=[[1, 0], [0, 1]], w_q=[[1, 0], [0, 1]], w_k=[[1, 0], [0, 1]], w_v=[[1, 0], [0, 1]])
    edited = dict(w.config, embeddings=[[2, 0], [0, 0]])
    w.set_state({"config": edited, "trace": {"weights": [[0.25, 0.75], [0.5, 0.5]]}})
    # Row 0: scores [4, 0] / √2; row 1: scores [0, 0].
    e = np.exp(4 / np.sqrt(2))
    np.testing.assert_allclose(w.trace["weights"], [[e / (e + 1), 1 / (e + 1)], [0.5, 0.5]], rtol=1e-12)


def test_config_set_from_python_updates_the_trace():
    eye = [[1, 0], [0, 1]]
    w = av.Widget(embeddings=eye, w_q=eye, w_k=eye, w_v=eye)
    np.testing.assert_allclose(w.trace["weights"], softmax_weights(eye, eye, eye), rtol=1e-12)
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    w.config = {"embeddings": x, "w_q": np.eye(2), "w_k": [[0, 1], [1, 0]], "w_v": np.eye(2)}
    np.testing.assert_allclose(w.trace["weights"], softmax_weights(x, np.eye(2), [[0, 1], [1, 0]]), rtol=1e-12)
    assert w.error == ""


def test_a_config_from_the_page_the_core_refuses_leaves_no_trace():
    w = av.Widget(preset="seed-001")
    good = dict(w.config)
    w.set_state({"config": dict(good, embeddings=[[1, 0, 0], [0, 1]])})
    assert w.trace is None
    assert w.error == "embeddings row 1 has 2 values, expected 3 (like row 0)"
    w.set_state({"config": good})
    assert w.trace is not None and w.error == ""


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
