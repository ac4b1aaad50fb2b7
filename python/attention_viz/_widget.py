"""``Widget``: the figure as an anywidget, two-way.

Synced with the page: ``config`` (the learner's edits, from the element's ``change`` event; setting it from Python
checks it like ``show`` does and redraws the figure), ``options`` and ``error`` (the page's message when it refused a
config). ``trace`` is not synced: Python computes it from ``config`` with the core (``compute``, the same .wasm the
page runs) each time ``config`` changes, so no trace crosses the wire. The front end (``_widget.js``) carries the
single-file build inside, so it works offline.

The learner's edits reach the kernel throttled: at most one message every 300 ms while they type or scrub (the
config alone), and always the last state. A config from the page is not checked again in Python: the page's core
checked it (its trace is computed here, by the same core).

Displayed in a notebook (``_ipython_display_``), the widget is two outputs: the widget view, and the figure's
picture, which a live view of the widget hides (a stylesheet it adds to the page) and which follows the widget's
state (a display update on each change of ``config`` or ``options``). Static exports (nbconvert, myst-nb, GitHub)
and a notebook reopened without its kernel show the picture whatever they make of the widget view.
"""

from __future__ import annotations

import secrets
from importlib import resources

import anywidget
import numpy as np
import traitlets

from . import _api, _config, _core
from ._figure import build_js, wire


def _esm() -> str:
    widget = resources.files(__package__).joinpath("_widget.js").read_text(encoding="utf-8")
    return "if (!window.AttentionViz) {\n" + build_js() + "\n}\n" + widget


class Widget(anywidget.AnyWidget):
    """``Widget(**config)``: any config field (arrays as NumPy/torch/lists), ``preset=``, and the
    element options as in ``show``. ``.config`` follows the learner's edits; ``.trace`` is its trace (``compute()``'s
    structure, vectors and matrices as nested lists of floats), computed in Python, None when the core refuses the
    config (``.error`` then says why)."""

    _esm = traitlets.Unicode().tag(sync=True)
    # To the page as the element's config attribute reads it (`_wire`: big arrays as packed bytes); from it as JSON.
    config = traitlets.Dict().tag(sync=True, to_json=lambda config, widget: widget._wire(config))
    # Not synced: computed from `config` here (_compute_trace), so the page sends the config alone.
    trace = traitlets.Dict(allow_none=True, default_value=None)
    options = traitlets.Dict().tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)
    # Names this widget's picture outputs, for the stylesheet a live view adds to hide them.
    _uid = traitlets.Unicode("").tag(sync=True)
    # A model's stack over the core's limit: the core's overview of every head (SVG), shown beside the figure, whose
    # config is the head picked (a click on a head's thumbnail asks for another: `pick`). "" for any other config.
    overview = traitlets.Unicode("").tag(sync=True)

    def __init__(self, preset=None, **kwargs):
        over = None
        if preset is None and set(kwargs) - set(_config.option_names()) <= set(_core.facts()["weights"]["fields"]):
            over = _api.overview_of(kwargs)
        # What the page gets instead of a big array's lists (`_wire`), and the trace of a config computed before it was
        # set (a picked head's: computing it is the core's check).
        self._arrays, self._float32, self._computed = {}, frozenset(), None
        if over is not None:
            opts = _config.options({k: v for k, v in kwargs.items() if k in _config.option_names()})
            config = self._head(*over)
        else:
            narrow = set()
            config, opts = _api.split(kwargs, preset, narrow)
            self._float32 = frozenset(narrow)
        self._pictures = []
        self._refused = None  # the message this side put in `error`, cleared when a config is accepted again
        self._overview = over
        # Setting config here runs _compute_trace: the trace is there from the start. Checked already (split, _head).
        self._checked = True
        try:
            super().__init__(_esm=_esm(), config=config, options=opts, _uid=secrets.token_hex(8),
                             overview=self._overview_svg())
        finally:
            self._checked = False
        self.on_msg(self._on_message)

    def _overview_svg(self) -> str:
        return "" if self._overview is None else self._overview[0].picture(*self._overview[1:], self.options)[0]

    def _head(self, over, layer: int, head: int) -> dict:
        """The config of head (layer, head) of a stack over the limit, as plain JSON values, its trace computed (the
        core's check: ``ValueError`` before anything changes); the page gets its weights as packed bytes of the array
        (``_wire``), not from the lists."""
        model, narrow = _core.facts()["weights"], set()
        prepared = _api.config_of(over.head_fields(model, layer, head), check=False, float32=narrow)
        trace = _core.compute(prepared)
        config = _config.plain(prepared)
        stack = model["stack"]
        self._arrays = {stack: (config[stack], prepared[stack])}
        self._float32 = frozenset(narrow)
        self._computed = (config, trace)
        return config

    def pick(self, layer: int, head: int) -> None:
        """Draws head ``head`` of layer ``layer`` of a model's attention; for a stack over the core's limit, the head in
        full (what a click on its thumbnail does). ``ValueError`` with the core's message for a head the stack does
        not have (or a config that is no model's attention)."""
        model = _core.facts()["weights"]
        if self._overview is None:
            self.config = {**self.config, **dict(zip(model["pick"], (layer, head)))}
            return
        over = self._overview[0]
        layer, head = over.selected(model, dict(zip(model["pick"], (layer, head))))
        config = self._head(over, layer, head)
        self._overview = (over, layer, head)
        self._checked = True  # checked just now: the lists need no second walk (a 512 × 512 head's took 0.9 s)
        try:
            self.config = config
        finally:
            self._checked = False
        self.overview = self._overview_svg()

    def _wire(self, config: dict) -> dict:
        """``config`` as the page gets it: big numeric arrays as packed bytes (``_figure.wire``, what the element's
        config attribute reads), from the NumPy array where Python holds one for that very list (a picked head's: 1 M
        values made into lists and read back took longer than the rest of a pick). A config the page sent is sent back
        as it came, so ipywidgets sees it unchanged and does not echo it."""
        if config is self._property_lock.get("config"):
            return config
        arrays = {k: a for k, (lists, a) in self._arrays.items() if config.get(k) is lists}
        out = wire({**config, **arrays}, self._float32)
        return {k: config[k] if isinstance(v, np.ndarray) else v for k, v in out.items()}

    def _on_message(self, _widget, content, _buffers):
        if isinstance(content, dict) and isinstance(content.get("pick"), list) and len(content["pick"]) == 2:
            try:
                self.pick(*content["pick"])
            except ValueError as e:
                self.error = str(e)

    def set_state(self, sync_data):
        # What the front end sends: the page's core checked it already (and pick's, checked here). Its numbers are
        # the page's, float64: none is sent back as float32.
        if "config" in sync_data:
            self._arrays, self._float32 = {}, frozenset()
        self._checked = True
        try:
            super().set_state(sync_data)
        finally:
            self._checked = False

    @traitlets.validate("config")
    def _check_config(self, proposal):
        if self._checked and isinstance(proposal["value"], dict):
            return proposal["value"]
        narrow = set()
        config = _config.plain(_api.config_of(dict(proposal["value"]), float32=narrow))
        self._arrays, self._float32 = {}, frozenset(narrow)
        return config

    @traitlets.validate("options")
    def _check_options(self, proposal):
        return _config.options(dict(proposal["value"]))

    @traitlets.observe("config")
    def _compute_trace(self, change):
        # Every config, from Python or from the page, gets its trace from the core, as compute() gives it in the page.
        computed, self._computed = self._computed, None
        try:
            trace = computed[1] if computed is not None and computed[0] is self.config else _core.compute(dict(self.config))
        except ValueError as e:
            self.trace = None
            self._refused = str(e)
            self.error = self._refused
            return
        if self._refused is not None and self.error == self._refused:
            self.error = ""
        self._refused = None
        self.trace = _lists(trace)

    @traitlets.observe("config", "options")
    def _follow(self, change):
        if not self._pictures:
            return
        data = self._picture_data()
        for handle in self._pictures:
            handle.update(data, raw=True)

    def __repr__(self) -> str:
        return f"<attention_viz.Widget {_figure_repr(self)}>"

    def _picture_data(self) -> dict:
        cls = f"attention-viz-widget-picture attention-viz-widget-{self._uid}"
        fig = self.figure()
        return {"text/html": f'<div class="{cls}">{fig.picture()}{fig.overview()}</div>', "text/plain": repr(self)}

    def _ipython_display_(self, **kwargs):
        # Two outputs: nbconvert and myst-nb pick the stored widget view of an output over its text/html (and show
        # nothing offline: the widget manager comes from a CDN), and JupyterLab reopened without the kernel says
        # "model not found" there; the second output, the picture, shows in all of them.
        from IPython.display import display

        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return
        data, meta = bundle if isinstance(bundle, tuple) else (bundle, {})
        view = {k: v for k, v in data.items() if k != "text/html"}
        view["text/plain"] = repr(self)
        display(view, metadata=meta, raw=True)
        self._pictures.append(display(self._picture_data(), raw=True, display_id=True))

    def _repr_mimebundle_(self, **kwargs):
        # Where the widget is shown as one output (a front end that asks for the bundle, not IPython's display):
        # beside the widget view, the figure as it is now as HTML.
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        data, meta = bundle if isinstance(bundle, tuple) else (bundle, {})
        data = dict(data)
        data["text/html"] = self.figure().to_html()
        return data, meta

    def figure(self):
        """The current state as a static ``Figure`` (for ``save_html`` or a picture)."""
        from ._figure import Figure
        fig = Figure(dict(self.config), dict(self.options))
        fig._overview = self._overview
        return fig


def _lists(value):
    """compute()'s trace as JSON-like values: each NumPy array as nested lists of Python floats (-inf and NaN
    included, as the page's trace holds them)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_lists(v) for v in value]
    return value


def _figure_repr(w) -> str:
    from ._figure import mechanism
    return " ".join([mechanism(dict(w.config))] + [f"{k}={v!r}" for k, v in w.options.items()])
