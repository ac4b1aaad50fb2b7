"""attention-viz from Python: show attention as the interactive ``<attention-viz>`` figure.

``show(**config)`` and ``show_attention(attention)`` return a ``Figure`` that a notebook
displays live (the element and its WASM core travel inside the output: no CDN, no network)
and, where scripts do not run, as a static picture. ``compute(config)`` returns the figure's
numbers (the trace) as NumPy arrays. Every check, number and picture is the Rust core's: the
same .wasm as the page, run in Python by wasmtime. ``Widget(**config)`` is the same figure
as an anywidget whose ``config`` follows the learner's edits back into Python (the config crosses
the wire, the trace never), and whose ``trace`` Python computes from it with the core.
``show_layer(model, inputs, layer=L)`` is the editable figure of a transformers model's layer, whose config
``layer_config`` returns.
"""

from __future__ import annotations

from ._api import compute, presets, show, show_attention
from ._figure import Figure, init_notebook
from ._figure import script_tag as engine_script
from ._layers import layer_config, show_layer

try:
    from importlib.metadata import PackageNotFoundError, version

    __version__ = version("attention-viz")
except PackageNotFoundError:  # imported from a source checkout
    __version__ = "0+unknown"

try:
    from ._widget import Widget
except ImportError as _missing:  # anywidget is the optional extra "widget"
    if getattr(_missing, "name", None) not in ("anywidget", "traitlets", "ipywidgets"):
        raise
    _reason = str(_missing)

    class Widget:  # type: ignore[no-redef]
        """Placeholder: the live widget needs anywidget (``pip install "attention-viz[widget]"``)."""

        def __init__(self, *args, **kwargs):
            raise ImportError(f'attention_viz.Widget needs anywidget ({_reason}): pip install "attention-viz[widget]"')

__all__ = ["Figure", "Widget", "compute", "engine_script", "init_notebook", "layer_config", "presets", "show", "show_attention", "show_layer", "__version__"]
