"""``show``, ``show_attention`` and ``compute``: keyword arguments and arrays in, the core's judgement and numbers out."""

from __future__ import annotations

import copy

import numpy as np

from . import _config, _core, _overview
from ._figure import Figure


def presets() -> dict:
    """The seed documents' configs by name (``seed-000`` … ``seed-003``), as the core defines them."""
    return copy.deepcopy(_core.facts()["presets"])


def _with_preset(fields: dict, preset) -> dict:
    if preset is None:
        return fields
    preset = _config.scalar(preset, "preset")
    known = presets()
    if not isinstance(preset, str):
        raise ValueError(f"preset must be a preset's name ({', '.join(known)}), got {_config.quote(preset)}")
    if preset not in known:
        near = _config.closest(preset, list(known))
        hint = f' (did you mean "{near}"?)' if near else ""
        raise ValueError(f"unknown preset {_config.quote(preset)}{hint}; presets are {', '.join(known)}")
    base = known[preset]
    # A preset's fields, overridden by the ones given; a field that says the mechanism (the core's list) drops them.
    if any(k in fields for k in _core.facts()["mechanism_fields"]):
        base = {}
    return {**base, **fields}


def config_of(fields: dict, check: bool = True, float32: set | None = None) -> dict:
    """The config from Python values (conversion only), checked by the core: ``ValueError`` with its message.
    ``check=False``: only its shapes (the caller's next call into the core validates it anyway). ``float32``: a set
    this adds the fields given as float32 or narrower arrays to (their values become float32s' shortest decimals).
    A field given as None is sent as JSON null, for the core to judge as it judges the page's null (the words match)."""
    given = {k: _config.to_numpy(v, k) for k, v in fields.items()}
    if float32 is not None:
        float32.update(k for k, v in given.items()
                       if isinstance(v, np.ndarray) and v.dtype.kind == "f" and v.dtype.itemsize <= 4)
    _core.check_declared(given)  # a stack over the limit is refused from its shape, before its values are read
    # A list no field but a matrix could hold goes as its length (the core's stand-in), before its items are read.
    matrices = set(_core.facts()["matrices"])
    given = {k: v if k in matrices else _config.long_lists(v, k) for k, v in given.items()}
    config = {k: _config.prepare(v, k) for k, v in given.items()}
    if check:
        _core.check(config)
    return config


def split(kwargs: dict, preset=None, float32: set | None = None) -> tuple[dict, dict]:
    """(the checked config, as plain JSON values; the element attributes) from ``show``'s keyword arguments;
    ``float32`` as ``config_of``'s."""
    fields, opts = {}, {}
    known, options = _config.fields(), _config.option_names()
    for key, value in kwargs.items():
        if key in options:
            opts[key] = value
        elif key in known or _config.closest(key, known + options) not in options:
            fields[key] = value  # an unknown field is the core's config check's to name
        else:
            raise _config.unknown(key, "fields")
    options = _config.options(opts)
    return _config.plain(config_of(_with_preset(fields, preset), float32=float32)), options


def show(preset=None, **kwargs) -> Figure:
    """A figure of any config: ``show(embeddings=X, w_q=W_Q, w_k=W_K, w_v=W_V)``,
    ``show(preset="seed-003")``; element options (``views``, ``palette``, ``fmt``,
    ``height``, ``editable``, ``theme``, ``contrast``) as keyword arguments too.
    Arrays may be NumPy, torch, jax, pandas or nested lists. Raises ``ValueError``
    with the core's message (the one ``compute()`` throws in the page) for a config it refuses."""
    narrow = set()
    config, opts = split(kwargs, preset, narrow)
    return Figure(config, opts, float32=narrow)


def compute(config: dict | None = None, preset=None, fields=None, **config_fields) -> dict:
    """The trace of a config, computed by the core (the figure's own numbers): ``compute(preset="seed-001")``,
    ``compute(dict(embeddings=X))`` or ``compute(embeddings=X)``. Every vector and matrix is a NumPy array; the
    structure is ``compute()``'s in JavaScript, its objects as dicts (its ``weights``, ``heads[0].scores``,
    ``query.exp``…). ``fields=["weights", "output"]``: only those top-level fields, as compute()'s ``fields`` option
    (the core skips what only the others need). Raises ``ValueError`` with the core's message for a config it
    refuses, or a field name it does not know."""
    given = {**(config or {}), **config_fields}
    return _core.compute(config_of(_with_preset(given, preset), check=False), fields)


NO_ATTENTIONS = "the model returned no attention weights (attentions is %s)."


def stack_attention(attention):
    """n × m, heads × n × m or layers × heads × n × m as given; Hugging Face's ``outputs.attentions`` (a tuple of
    per-layer (batch, heads, n, m) tensors) stacked with its batch axis dropped; a model's whole output (its
    ``.attentions``) too. Anything else goes to the core as it is, to be judged there."""
    # Hugging Face's ModelOutput: the caller passed `outputs`, not `outputs.attentions`.
    if not isinstance(attention, (tuple, list, np.ndarray)) and hasattr(attention, "attentions") \
            and not hasattr(attention, "__array__") and not hasattr(attention, "detach"):
        attention = attention.attentions
    if attention is None:
        raise ValueError(NO_ATTENTIONS % "None" + " Call the model with output_attentions=True: "
                         "outputs = model(**inputs, output_attentions=True).")
    if isinstance(attention, (tuple, list)) and all(a is None for a in attention):
        # transformers 5's default attention (sdpa) computes no weights and returns (); 4.x gave one None a layer.
        raise ValueError(NO_ATTENTIONS % _config.quote(attention) + " The model's attention implementation "
                         "(sdpa, transformers 5's default) computes none: load the model with "
                         'attn_implementation="eager", e.g. AutoModel.from_pretrained(name, attn_implementation="eager"); '
                         'a model built from a config takes it on the config, e.g. LlamaConfig(..., '
                         'attn_implementation="eager") or config._attn_implementation = "eager" before building it; '
                         "and call it with output_attentions=True.")
    name = _config.weights_stack()  # the config field the weights go to, which messages name
    if isinstance(attention, (tuple, list)) and attention:
        first = _config.to_numpy(attention[0], name)
        if isinstance(first, np.ndarray) and first.ndim in (3, 4):
            layers = [np.asarray(_config.to_numpy(a, name)) for a in attention]
            shapes = {a.shape for a in layers}
            if len(shapes) > 1:
                raise ValueError(f"the layers' attentions differ in shape: {sorted(shapes)}")
            attention = np.stack(layers)
    arr = _config.to_numpy(attention, name)
    if isinstance(arr, np.ndarray) and arr.ndim == 5:  # layers × batch × heads × n × m
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
    ``head`` pick the head drawn in full. A stack over the core's limit is refused before any HTML is written."""
    arguments = dict(locals())  # the arguments are named as the weights config's fields they give
    model = _core.facts()["weights"]  # a weights config: its mechanism, the field of its weights, its other fields
    fields = {**model["config"], model["stack"]: stack_attention(attention)}
    # The signature's own defaults: an argument left at None is not given (a config field passed as None to show() or
    # compute() is, as null).
    fields.update((k, arguments[k]) for k in model["fields"] if k != model["stack"] and arguments.get(k) is not None)
    for key in element_options:
        if key not in _config.option_names():
            raise _config.unknown(key, "arguments")
    options = _config.options(element_options)
    narrow = set()
    over = overview_of(fields)
    if over is not None:
        fields = over[0].head_fields(model, *over[1:])
    fig = Figure(_config.plain(config_of(fields, float32=narrow)), options, float32=narrow)
    fig._overview = over
    return fig


def overview_of(fields: dict):
    """(``Overview``, layer, head) for weights config fields whose stack is over the core's limit (each head within
    it), the selection checked by the core; None for any other config (the usual path judges it)."""
    model = _core.facts()["weights"]
    stack = fields.get(model["stack"])
    stack = _config.to_numpy(stack, model["stack"]) if stack is not None else None
    if not isinstance(stack, np.ndarray) or stack.dtype.kind not in "fiu" or not 2 <= stack.ndim <= 4:
        return None
    stack = stack.reshape((1,) * (4 - stack.ndim) + stack.shape)
    side = _overview.raster(stack.shape)
    if side is None:
        return None
    shared = {k: v for k, v in fields.items() if k in model["fields"] and k not in (model["stack"], *model["pick"])}
    over = _overview.Overview(stack, side, shared)
    layer, head = over.selected(model, {k: fields[k] for k in model["pick"] if k in fields})
    return over, layer, head
