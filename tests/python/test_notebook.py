"""A notebook's outputs stay small: big arrays ride in the element's attribute as text85 of float64 or float32 bytes,
byte-shuffled and deflated (decoded back by Python's base85, NumPy and zlib here: the very numbers of the config), and in a Jupyter
kernel only the notebook's first figure output carries the engine, the single-file build deflated (the cell's
execution faked: ``_figure._kernel_execution``)."""

import base64
import json
import re
import zlib
from pathlib import Path

import numpy as np
import pytest

import attention_viz as av
from attention_viz import _figure
from test_html import Tags, from_text85


def attribute(html):
    (el,) = [a for t, a in Tags(html).tags if t == "attention-viz"]
    return json.loads(el["config"])


def unpacked(value):
    """What the element's unpack() makes of a packed array, written independently: float64 as they are, float32 as
    their shortest decimals (NumPy's str)."""
    if not (isinstance(value, dict) and "text85" in value):
        return value
    size = {"float64": 8, "float32": 4}[value["dtype"]]
    raw = from_text85(value["text85"])
    if value.get("deflate"):
        grouped = np.frombuffer(zlib.decompress(raw, -15), dtype=np.uint8)
        raw = grouped.reshape(size, -1).T.tobytes()
    a = np.frombuffer(raw, dtype=f"<f{size}").reshape(value["shape"])
    return a.astype(str).astype(np.float64) if size == 4 else a


def softmaxed(shape, seed=0):
    a = np.random.default_rng(seed).random(shape)
    return a / a.sum(-1, keepdims=True)


def test_big_float64_arrays_ride_as_float64_bit_for_bit():
    a = softmaxed((2, 3, 12, 12))
    f = av.show_attention(a, tokens=[f"t{i}" for i in range(12)])
    got = attribute(f.to_html(script=False))
    assert got["attention"]["dtype"] == "float64" and got["attention"]["shape"] == [2, 3, 12, 12]
    assert unpacked(got["attention"]).tobytes() == a.astype("<f8").tobytes()
    assert got["tokens"] == [f"t{i}" for i in range(12)]  # names stay JSON
    assert isinstance(f.config["attention"], list)  # fig.config keeps plain lists


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_float32_arrays_ride_as_float32_their_shortest_decimals(dtype):
    a = softmaxed((4, 16, 16), seed=3).astype(dtype)
    f = av.show_attention(a)
    got = attribute(f.to_html(script=False))["attention"]
    assert got["dtype"] == "float32"
    # NumPy's shortest decimals, as the JSON held them: the numbers of fig.config, every one
    assert np.array_equal(unpacked(got), a.astype(str).astype(np.float64))
    assert np.array_equal(unpacked(got), np.asarray(f.config["attention"]))


def test_float64_values_that_happen_to_fit_float32_stay_float64():
    a = softmaxed((4, 16, 16), seed=3).astype(np.float32).astype(np.float64)  # exact float32 values, given as float64
    got = attribute(av.show_attention(a).to_html(script=False))["attention"]
    assert got["dtype"] == "float64" and unpacked(got).tobytes() == a.tobytes()


def test_deflate_only_where_it_is_shorter():
    # A causal stack: half its weights are 0, which deflate takes to almost nothing.
    a = np.tril(softmaxed((3, 4, 32, 32)).astype(np.float32))
    got = attribute(av.show_attention(a / a.sum(-1, keepdims=True)).to_html(script=False))["attention"]
    assert got.get("deflate") is True and len(got["text85"]) < 0.6 * a.size * 4 * 5 / 4
    # Random bits do not deflate: plain bytes.
    b = np.random.default_rng(2).integers(0, 2**62, (16, 16)).view(np.float64)
    got = _figure.packed(b.tolist())
    assert "deflate" not in got and unpacked(got).tobytes() == b.tobytes()


# Bytes whose float32 or float64 values are every kind there is: NaN (quiet, signalling, with a payload), ±inf,
# ±0, the least and largest subnormals and normals, and random bit patterns.
def every_kind(dtype):
    info, bits = np.finfo(dtype), {"<f4": np.uint32, "<f8": np.uint64}[dtype]
    special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, info.smallest_subnormal, -info.smallest_subnormal,
                        info.tiny - info.smallest_subnormal, info.tiny, info.max, -info.max, info.eps, 1.0], dtype=dtype)
    top = bits(1) << bits(8 * np.dtype(dtype).itemsize - 1)
    payloads = np.array([top - 1, bits(0x7FF0_0000_0000_0001) if dtype == "<f8" else bits(0x7F80_0001)], dtype=bits)
    noise = np.random.default_rng(7).integers(0, np.iinfo(bits).max, 997, dtype=bits, endpoint=True)
    return special.tobytes() + payloads.tobytes() + noise.tobytes()


@pytest.mark.parametrize("dtype", ["<f4", "<f8"])
def test_packed_bytes_come_back_bit_for_bit(dtype):
    # The coding alone (a figure's arrays are finite; these bytes need not be): byte places deflated, then text85,
    # read back by zlib and Python's base85.
    size = np.dtype(dtype).itemsize
    for raw in (every_kind(dtype), softmaxed((3, 4, 32, 32)).astype(dtype).tobytes(), bytes(size * 64)):
        back = zlib.decompress(from_text85(_figure.text85(_figure._shuffled_deflate(raw, size))), -15)
        assert np.frombuffer(back, np.uint8).reshape(size, -1).T.tobytes() == raw


def test_text85_is_rfc_1924_base85_in_the_core_s_alphabet():
    rng = np.random.default_rng(3)
    for n in [*range(13), 64, 1001]:
        for raw in (rng.bytes(n), b"\xff" * n, bytes(n)):
            assert from_text85(_figure.text85(raw)) == raw
            assert len(_figure.text85(raw)) == n // 4 * 5 + (n % 4 + 1 if n % 4 else 0)


def test_small_or_short_arrays_stay_json():
    f = av.show(preset="seed-001")
    assert attribute(f.to_html(script=False)) == f.config
    # Whichever is shorter: a packed array never takes more room than its JSON
    for a in (np.eye(8, dtype=int), np.random.default_rng(1).integers(0, 3, (8, 8)), softmaxed((8, 8))):
        f = av.show_attention(a)
        got = attribute(f.to_html(script=False))["attention"]
        plain = json.dumps(f.config["attention"], separators=(",", ":"))
        assert got == f.config["attention"] or len(json.dumps(got, separators=(",", ":"))) < len(plain)
        assert np.array_equal(unpacked(got), a)  # the numbers given, not only the config's copy of them


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


def causal(shape, seed=0):
    """A causal model's attention: each row a softmax over the tokens up to it, float32."""
    logits = 2 * np.random.default_rng(seed).standard_normal(shape)
    n = shape[-1]
    logits[..., np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]] = -np.inf
    a = np.exp(logits - logits.max(-1, keepdims=True)).astype(np.float32)
    return a / a.sum(-1, keepdims=True)


def test_eleven_figure_notebook_sizes(kernel, capsys):
    """The issue's notebook: 10 `show` figures and one 12 × 12 × 64 × 64 `show_attention`, as outputs in a kernel
    (tests/e2e/notebook.test.mjs saves it and opens its export): ≤ 3 MB with a causal model's stack. A dense stack of
    random float32 weights cannot be: its 589,824 values' entropy is 1.85 MB (23 bits of mantissa noise and 2 of
    exponent each), 2.3 MB as text85, beside the 0.63 MB engine and 0.28 MB of small figures."""
    kernel.run("c0", "m0")
    outputs = [av.show(preset=f"seed-00{i % 4}")._repr_html_().encode() for i in range(10)]
    kernel.run("c1", "m1")
    big = av.show_attention(causal((12, 12, 64, 64)))._repr_html_().encode()
    dense = softmaxed((12, 12, 64, 64)).astype(np.float32)
    dense_html = av.show_attention(dense)._repr_html_().encode()
    total = sum(map(len, outputs)) + len(big)

    def parts(h):
        text = h.decode()
        pic = re.search(r"<img [^>]*>", text).group(0)
        el = re.search(r"<attention-viz [^>]*>", text).group(0)
        return f"picture {len(pic):,} B, element {len(el):,} B"

    with capsys.disabled():
        print(f"\n  outputs: first {len(outputs[0]):,} B (the engine {len(_figure.script_tag()):,} B), next "
              f"{len(outputs[1]):,} B; causal show_attention {len(big):,} B ({parts(big)}); total {total:,} B; "
              f"a dense stack's output {len(dense_html):,} B ({parts(dense_html)})")
    assert has_engine(outputs[0].decode()) and not has_engine(big.decode()) and not has_engine(outputs[1].decode())
    assert total <= 2_900_000  # the .ipynb's JSON around them: tests/e2e/notebook.test.mjs checks the saved file
    assert all(len(o) < 40_000 for o in outputs[1:])
    # The stack's picture: a thumbnail grid, not 600,000 pixels.
    assert len(re.search(r"<img [^>]*>", big.decode()).group(0)) < 150_000
    # The README's "saves at about 2.6 MB" and "such a notebook is about 3.7 MB": within 0.1 MB of the outputs.
    readme = (Path(__file__).resolve().parents[2] / "python" / "README.md").read_text(encoding="utf-8")
    causal_mb = float(re.search(r"float32 weights saves at about ([\d.]+) MB", readme).group(1))
    dense_mb = float(re.search(r"such a notebook is about ([\d.]+) MB", readme).group(1))
    assert abs(causal_mb * 1e6 - total) < 100_000, total
    assert abs(dense_mb * 1e6 - (total - len(big) + len(dense_html))) < 100_000, total - len(big) + len(dense_html)
    # The dense stack within 1.5 % of its bytes' order-0 entropy (per byte place, NumPy's count), as text85 (5 for 4).
    planes = np.frombuffer(dense.astype("<f4").tobytes(), np.uint8).reshape(-1, 4).T
    counts = [np.bincount(p, minlength=256) / p.size for p in planes]
    entropy = sum(-(c[c > 0] * np.log2(c[c > 0])).sum() * planes.shape[1] / 8 for c in counts)
    assert len(re.search(r"<attention-viz [^>]*>", dense_html.decode()).group(0)) < 1.25 * 1.015 * entropy + 1000
