"""A model's attention over the core's limit from Python: one head in full (a config the core takes) beside the core's
overview of every head as thumbnails, pooled by NumPy as the core pools them; a Widget picks another head."""

import base64
import re

import numpy as np
import pytest

import attention_viz as av
from attention_viz import _core, _overview

PNG = re.compile(r'style="image-rendering:pixelated" href="data:image/png;base64,([A-Za-z0-9+/=]+)"')


def softmax_stack(shape, seed=0, dtype=np.float64):
    x = np.random.default_rng(seed).standard_normal(shape) * 3
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(dtype)


def svg_of(img: str) -> str:
    return base64.b64decode(re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', img).group(1)).decode("utf-8")


def said(svg: str) -> str:
    """An SVG's texts, its lines joined."""
    return " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))


@pytest.mark.parametrize("shape", [(2, 3, 40, 40), (2, 3, 20, 50), (3, 2, 5, 70), (1, 2, 16, 16), (2, 2, 7, 9),
                                   (2, 40, 33, 33), (2, 3, 64, 48)])
def test_the_thumbnails_are_the_cores_grid_pixel_for_pixel(shape):
    # A stack the core holds: its picture's grid (pooled by the core) against the overview's (pooled by NumPy).
    a = softmax_stack(shape)
    a[0, 0, 0, :] = 0.0  # a zero row (a fully masked query) and the sharp peaks a mean would hide
    layer, head = shape[0] - 1, shape[1] - 1
    fig = av.show_attention(a, layer=layer, head=head)
    cores = PNG.findall(fig.picture_svg())[-1]
    side = _core.call("av_call", {"kind": "overview_raster", "shape": list(shape)})[0]
    assert side == "null"  # within the limit: no overview is needed, but one can be drawn
    thumbs = _overview.Overview(a, _side(shape), {})
    ours = PNG.findall(thumbs.picture(layer, head, {})[0])
    assert ours == [cores]


def test_pooling_leaves_out_nan_as_the_cores_comparisons_do():
    # The core refuses a NaN in a config, so this is held against its rule as written: a block's largest weight that
    # is larger (NaN never is), from 0.
    a = softmax_stack((2, 2, 64, 64))
    b = a.copy()
    b[1, 0, 5, 7] = np.nan  # one cell of a block: the block's largest of the rest
    b[0, 1, :4, :4] = np.nan  # a whole block: 0
    a[1, 0, 5, 7] = 0.0
    expect = _overview.pool(a, 16)
    expect[0, 1, 0, 0] = 0.0
    assert expect[1, 0, 1, 1] > 0
    np.testing.assert_array_equal(_overview.pool(b, 16), expect)


def _side(shape):
    # The side the core's picture pools every head to (`picture::grid_raster`), read back from its own request: an
    # overview of any other side is refused as not fitting the shape.
    for side in range(1, 17):
        try:
            _overview.Overview(np.zeros(shape), side, {}).picture(0, 0, {})
            return side
        except ValueError:
            continue
    raise AssertionError("no side fits")


def test_a_stack_over_the_limit_shows_one_head_in_full_and_every_head_as_a_thumbnail():
    shape = (3, 4, 1200, 1200)  # 17.3 M values: over the 8.4 M a figure holds
    a = softmax_stack(shape, dtype=np.float32)
    with pytest.raises(ValueError, match="at most 8388608 are supported"):
        av.show(attention=a)  # a config still refuses it, with its message
    fig = av.show_attention(a, layer=2, head=1, tokens=[f"t{i}" for i in range(1200)])
    stack = np.asarray(fig.config["attention"], dtype=np.float32)
    assert stack.shape == (1, 1, 1200, 1200)
    np.testing.assert_array_equal(stack[0, 0], a[2, 1])  # the head drawn in full is the caller's, bit for bit
    assert len(fig.config["tokens"]) == 1200
    html = fig.to_html(script=False)
    assert html.count('class="attention-viz-overview"') == 1
    overview = svg_of(fig.overview())
    assert overview.count("data-layer=") == 12
    assert 'data-layer="2" data-head="1"' in overview
    assert "layer 2, head 1 is drawn in full" in said(overview)
    assert "show_attention(attention, layer=L, head=H)" in said(overview) and "17,280,000 values" in said(overview)
    # The selection is the core's to judge.
    with pytest.raises(ValueError, match="head must be a whole number from 0 to 3"):
        av.show_attention(a, head=4)
    # Heads' thumbnails come from every head: a peak in the last head's corner shows in its thumbnail only.
    assert av.show_attention(a).overview() != ""


def test_a_stack_within_the_limit_has_no_overview():
    fig = av.show_attention(softmax_stack((2, 2, 8, 8)))
    assert fig.overview() == "" and "attention-viz-overview" not in fig.to_html(script=False)


def test_a_widget_picks_another_head_of_a_stack_over_the_limit():
    pytest.importorskip("anywidget")
    a = softmax_stack((2, 3, 1300, 1300), dtype=np.float32)
    w = av.Widget(attention=a, head=1, theme="light")
    assert np.asarray(w.config["attention"]).shape == (1, 1, 1300, 1300)
    assert 'data-layer="1" data-head="2"' in w.overview and w.trace is not None
    first = w.overview
    w._on_message(w, {"pick": [1, 2]}, [])  # what the page sends for a click on head 2 of layer 1
    np.testing.assert_array_equal(np.asarray(w.config["attention"], dtype=np.float32)[0, 0], a[1, 2])
    assert w.overview != first and "layer 1, head 2 is drawn in full" in said(w.overview)
    w._on_message(w, {"pick": [5, 0]}, [])
    assert "layer must be a whole number from 0 to 1" in w.error
    np.testing.assert_array_equal(np.asarray(w.config["attention"], dtype=np.float32)[0, 0], a[1, 2])


def test_a_widget_sends_the_picked_head_as_packed_float32_bytes():
    pytest.importorskip("anywidget")
    import json

    a = softmax_stack((2, 3, 1300, 1300), dtype=np.float32)
    a[1, 2] = np.tril(a[1, 2])  # a causal head: its zeros deflate
    w = av.Widget(attention=a)
    w.pick(1, 2)
    sent = w.get_state()["config"]  # what ipywidgets sends the page
    head = sent["attention"]
    assert head["dtype"] == "float32" and head["shape"] == [1, 1, 1300, 1300]
    # The page gets the packed bytes, not 1.69 M numbers as JSON (~20 bytes each): at most the float32 bytes and
    # their text encoding's overhead. Python keeps the head's numbers as lists, the caller's float32 values.
    assert len(json.dumps(sent)) <= 1.4 * 4 * 1300 * 1300
    np.testing.assert_array_equal(np.asarray(w.config["attention"], dtype=np.float32)[0, 0], a[1, 2])
    # A config the page sent is not sent back to it as an update (ipywidgets compares it with what came, as it came;
    # its "echo_update", for the other views of the widget, carries what came).
    sent = []

    class Comm:  # the kernel's end of the widget's channel, stood in for
        kernel, comm_id = True, "test"

        def send(self, data=None, metadata=None, buffers=None):
            sent.append(data)

        def on_msg(self, callback):
            pass

        def close(self, *args, **kwargs):
            pass

    w.comm = Comm()
    w.set_state({"config": dict(w.config, query=3)})
    assert w.config["query"] == 3 and [m["method"] for m in sent] == ["echo_update"]
    w.pick(0, 1)  # Python's own change does go, packed
    assert [m["state"]["config"]["attention"]["dtype"] for m in sent if m["method"] == "update" and "config" in m["state"]] == ["float32"]
