"""A model's attention over the core's limit (more values than a figure holds, e.g. 12 × 12 heads at 512 tokens): one
head in full, as a one-head weights config the core takes, beside an overview of every head as thumbnails.

The core says when a stack needs one and how large each thumbnail is (``overview_raster``), checks the selection and
draws the overview (``overview``: the grid, the head drawn in full outlined, each head a click target, its words).
The pooling runs here, with NumPy, on the caller's array: the whole stack never crosses into the core (a 32 × 32 ×
1024² stack is 4 GiB). Its rule is the core's (``heatmap::model::grid``: pixel p of a side of ``count`` covers
[p·count/side, max((p+1)·count/side, start + 1)), its value the block's largest weight, at least 0, NaN left out);
tests/python/test_overview.py checks that both give the same thumbnails."""

from __future__ import annotations

import json

import numpy as np

from . import _core


def raster(shape) -> int | None:
    """The thumbnails' side for a stack of ``shape`` (layers, heads, n, m) a figure cannot hold; None for one it holds
    (or refuses whatever its size: the config's own check then says why)."""
    if len(shape) != 4:
        return None
    return json.loads(_core.call("av_call", {"kind": "overview_raster", "shape": [int(d) for d in shape]})[0])


def _spans(count: int, side: int) -> tuple[np.ndarray, np.ndarray]:
    p = np.arange(side)
    start = np.minimum(p * count // side, count - 1)
    end = np.minimum(np.maximum((p + 1) * count // side, start + 1), count)
    return start, end


def _pool_axis(a: np.ndarray, count: int, side: int, axis: int, exact: bool) -> np.ndarray:
    start, _ = _spans(count, side)
    if count % side == 0 and not exact:  # equal blocks: a reshape's max, 9 times as fast as reduceat
        return a.reshape(a.shape[:axis] + (side, count // side) + a.shape[axis + 1:]).max(axis=axis + 1)
    if count >= side:  # the blocks tile the axis in order: each ends where the next starts
        return np.fmax.reduceat(a, start, axis=axis)
    return np.take(a, start, axis=axis)  # fewer cells than pixels: each block is one cell (end = start + 1)


def _pooled(stack: np.ndarray, side: int, exact: bool = False) -> np.ndarray:
    _, _, n, m = stack.shape
    return _pool_axis(_pool_axis(stack, n, side, 2, exact), m, side, 3, exact).astype(np.float64)


def pool(stack: np.ndarray, side: int) -> np.ndarray:
    """Every head of a layers × heads × n × m stack max-pooled to side × side (float64), as the core's grid pools it."""
    out = _pooled(stack, side)
    # `max` keeps a NaN where the core's comparisons skip it: those heads again with fmax, which skips it too.
    for layer, head in {tuple(i[:2]) for i in np.argwhere(np.isnan(out))}:
        out[layer, head] = _pooled(stack[layer, head][None, None], side, exact=True)[0, 0]
    # The core's largest starts at 0: a block of NaN or of weights ≤ 0 is 0.
    return np.where(np.isnan(out), 0.0, np.maximum(out, 0.0))


class Overview:
    """A stack over the limit: its array as given (never copied), its thumbnails, and the fields its heads' configs
    share (tokens, key tokens, query)."""

    def __init__(self, stack: np.ndarray, side: int, shared: dict):
        self.stack = stack
        self.shape = tuple(int(d) for d in stack.shape)
        self.thumbs = pool(stack, side)
        self.shared = dict(shared)

    def selected(self, model: dict, selection: dict) -> tuple[int, int]:
        """(layer, head) as the core reads ``selection`` for this stack (defaults filled in), or its ``ValueError``."""
        standin = {**model["config"], model["stack"]: np.zeros(self.shape[:2] + (1, 1)), **selection}
        normal = _core.normalize(standin)
        layer, head = model["pick"]
        return int(normal.get(layer, 0)), int(normal.get(head, 0))  # its JSON leaves out the first (0)

    def head_fields(self, model: dict, layer: int, head: int) -> dict:
        """The config fields of head (layer, head) in full: a one-head weights config."""
        return {**model["config"], **self.shared, model["stack"]: self.stack[layer, head][None, None]}

    def picture(self, layer: int, head: int, options: dict) -> tuple[str, str]:
        """(the overview's SVG, its alt text), drawn by the core."""
        request = {"kind": "overview", "shape": list(self.shape), "selected_layer": layer, "selected_head": head,
                   "options": dict(options)}
        answer = json.loads(_core.call("av_call", request, self.thumbs.ravel())[0])
        return _core.compress_images(answer["svg"]), answer["alt"]
