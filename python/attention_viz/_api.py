"""``show`` and ``show_attention``: keyword arguments and arrays in, a checked ``Figure`` out."""

from __future__ import annotations

import copy

import numpy as np

from . import _config
from ._figure import Figure
from ._picture import assets


def presets() -> dict:
    """The seed documents' configs by name (``seed-000`` … ``seed-003``), as the core defines them."""
    return copy.deepcopy(assets().get("presets", {}))


def split(kwargs: dict, preset=None) -> tuple[dict, dict]:
    """(the checked config, the element attributes) from ``show``'s keyword arguments."""
    fields, opts = {}, {}
    for key, value in kwargs.items():
        if key in _config.FIELDS:
            fields[key] = value
        elif key in _config.OPTIONS:
            opts[key] = value
        else:
            raise _config.unknown_field(key, _config.FIELDS + _config.OPTIONS + ("preset",),
                                        "config field or element option")
    if preset is not None:
        preset = _config.scalar(preset, "preset")
        known = presets()
        if not isinstance(preset, str):
            raise ValueError(f"preset must be a preset's name ({', '.join(known) or 'none: no assets'}), "
                             f"got {_config.quote(preset)}")
        if preset not in known:
            near = _config.closest(preset, list(known)) if known else None
            hint = f' (did you mean "{near}"?)' if near else ""
            raise ValueError(f"unknown preset {_config.quote(preset)}{hint}; presets are "
                             f"{', '.join(known) or 'none (no assets)'}")
        base = known[preset]
        # A preset's fields, overridden by the ones given; switching mechanism drops the preset's.
        if "mechanism" in fields or any(k in fields for k in ("embeddings", "decoder_state", "annotations", "attention")):
            base = {}
        fields = {**base, **fields}
    return _config.normalize(fields), _config.options(opts)


def show(preset=None, **kwargs) -> Figure:
    """A figure of any config: ``show(embeddings=X, w_q=W_Q, w_k=W_K, w_v=W_V)``,
    ``show(preset="seed-003")``; element options (``views``, ``palette``, ``fmt``,
    ``height``, ``editable``, ``theme``, ``contrast``) as keyword arguments too.
    Arrays may be NumPy, torch, jax, pandas or nested lists. Raises ``ValueError``
    with the core's kind of message for a config the page would refuse."""
    config, opts = split(kwargs, preset)
    return Figure(config, opts)


def stack_attention(attention) -> np.ndarray:
    """n × m, heads × n × m or layers × heads × n × m as an array; Hugging Face's
    ``outputs.attentions`` (a tuple of per-layer (batch, heads, n, m) tensors) stacked with its
    batch axis dropped."""
    if isinstance(attention, (tuple, list)) and attention and not _config._is_number(attention[0]):
        first = _config.to_numpy(attention[0])
        if isinstance(first, np.ndarray) and first.ndim in (3, 4):
            layers = [_config.as_array(a, f"attention[{i}]", (first.ndim,)) for i, a in enumerate(attention)]
            shapes = {a.shape for a in layers}
            if len(shapes) > 1:
                raise ValueError(f"the layers' attentions differ in shape: {sorted(shapes)}")
            attention = np.stack(layers)
    arr = _config.as_array(attention, "attention", (2, 3, 4, 5), _config.WEIGHTS_SHAPES)
    if arr.ndim == 5:  # layers × batch × heads × n × m
        if arr.shape[1] != 1:
            raise ValueError(
                f"attention holds a batch of {arr.shape[1]} sentences (shape {arr.shape}): pick one, e.g. "
                "show_attention([layer[0] for layer in outputs.attentions]) for the first")
        arr = arr[:, 0]
    return arr


def show_attention(attention, tokens=None, key_tokens=None, *, layer=None, head=None, query=None,
                   **element_options) -> Figure:
    """A model's attention weights (``mechanism: "weights"``): n × n, heads × n × n,
    layers × heads × n × n, or Hugging Face's ``outputs.attentions`` for one sentence.
    ``tokens`` label the queries, ``key_tokens`` the keys when they differ; ``layer`` and
    ``head`` pick the head drawn in full."""
    arr = stack_attention(attention)
    fields = {"mechanism": "weights", "attention": arr, "tokens": tokens, "key_tokens": key_tokens,
              "layer": layer, "head": head, "query": query}
    for key in element_options:
        if key not in _config.OPTIONS:
            raise _config.unknown_field(key, _config.OPTIONS + ("tokens", "key_tokens", "layer", "head", "query"),
                                        "argument")
    return Figure(_config.normalize(fields), _config.options(element_options))
