"""A notebook's outputs stay small: big arrays ride in the element's attribute as base64 of float64 (decoded back
by NumPy here, bit for bit the arrays given), and in a Jupyter kernel only the notebook's first figure output carries
the single-file build (the cell's execution faked: ``_figure._kernel_execution``)."""

import base64
import json

import numpy as np
import pytest

import attention_viz as av
from attention_viz import _figure
from test_html import Tags


def attribute(html):
    (el,) = [a for t, a in Tags(html).tags if t == "attention-viz"]
    return json.loads(el["config"])


def unpacked(value):
    if isinstance(value, dict) and value.get("dtype") == "float64":
        return np.frombuffer(base64.b64decode(value["base64"]), dtype="<f8").reshape(value["shape"])
    return value


def softmaxed(shape, seed=0):
    a = np.random.default_rng(seed).random(shape)
    return a / a.sum(-1, keepdims=True)


def test_big_arrays_ride_as_float64_base64_bit_for_bit():
    a = softmaxed((2, 3, 12, 12))
    f = av.show_attention(a, tokens=[f"t{i}" for i in range(12)])
    got = attribute(f.to_html(script=False))
    assert set(got["attention"]) == {"dtype", "shape", "base64"} and got["attention"]["shape"] == [2, 3, 12, 12]
    assert unpacked(got["attention"]).tobytes() == a.astype("<f8").tobytes()
    assert got["tokens"] == [f"t{i}" for i in range(12)]  # names stay JSON
    assert isinstance(f.config["attention"], list)  # fig.config keeps plain lists


def test_float32_arrays_ride_as_their_shortest_decimals():
    a = softmaxed((4, 16, 16), seed=3).astype(np.float32)
    got = unpacked(attribute(av.show_attention(a).to_html(script=False))["attention"])
    assert np.array_equal(got, a.astype(str).astype(np.float64))  # NumPy's shortest decimals, as the JSON held them


def test_small_or_short_arrays_stay_json():
    f = av.show(preset="seed-001")
    assert attribute(f.to_html(script=False)) == f.config
    # 0/1 integers: JSON's 2 bytes a value beat base64's 10⅔
    ones = np.eye(12)
    assert attribute(av.show_attention(ones).to_html(script=False))["attention"] == ones.tolist()


@pytest.fixture
def kernel(monkeypatch):
    """Fakes the running cell: kernel.run(cell, msg) sets it; None is outside a kernel."""
    class Kernel:
        now = None

        def run(self, cell, msg):
            self.now = (cell, msg)

    k = Kernel()
    monkeypatch.setattr(_figure, "_kernel_execution", lambda: k.now)
    monkeypatch.setattr(_figure, "_carrier", [None])
    return k


def has_engine(html):
    return "window.AttentionViz" in html


def note_of(html):
    return "attention-viz-engine-note\"" in html


def test_engine_once_per_notebook(kernel):
    f = av.show(preset="seed-001")
    kernel.run("a", "m1")
    first, again = f._repr_html_(), f._repr_html_()
    assert has_engine(first) and not note_of(first)
    assert not has_engine(again) and note_of(again)  # the same execution's second figure
    kernel.run("b", "m2")
    assert not has_engine(f._repr_html_())
    kernel.run("a", "m3")  # the carrier cell again: its new output replaces the one with the engine
    assert has_engine(f._repr_html_())
    kernel.run("b", "m4")
    assert not has_engine(f._repr_html_())
    kernel.run("c", "m5")
    engine = av.init_notebook()._repr_html_()
    assert has_engine(engine)
    kernel.run("c", "m6")  # init_notebook's cell is now the carrier
    assert has_engine(f._repr_html_())


def test_engine_in_every_output_outside_a_kernel(kernel):
    f = av.show(preset="seed-001")
    assert has_engine(f._repr_html_()) and has_engine(f._repr_html_())
    kernel.run("a", "m1")
    f._repr_html_()
    assert has_engine(f.to_html())  # to_html and save_html stand alone


def test_outside_ipython_there_is_no_kernel_execution():
    assert _figure._kernel_execution() is None


def test_eleven_figure_notebook_sizes(kernel, capsys):
    """The issue's notebook: 10 `show` figures and one 12 × 12 × 64 × 64 `show_attention`, as outputs in a kernel."""
    kernel.run("c0", "m0")
    sizes = [len(av.show(preset=f"seed-00{i % 4}")._repr_html_().encode()) for i in range(10)]
    kernel.run("c1", "m1")
    big = av.show_attention(softmaxed((12, 12, 64, 64)).astype(np.float32))._repr_html_()
    total = sum(sizes) + len(big.encode())
    with capsys.disabled():
        print(f"\n  outputs: first {sizes[0]:,} B, next {sizes[1]:,} B; show_attention {len(big.encode()):,} B; "
              f"total {total:,} B")
    assert has_engine(big) is False and sizes[1] < 100_000
