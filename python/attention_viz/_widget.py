"""``Widget``: the figure as an anywidget, two-way.

``config`` and ``trace`` follow the learner's edits in the page (the element's ``change``
event); setting ``config`` from Python checks it like ``show`` does and redraws the figure.
``error`` holds the page's message when it refused a config. The front end
(``_widget.js``) carries the single-file build inside, so it works offline.
"""

from __future__ import annotations

from importlib import resources

import anywidget
import traitlets

from . import _api, _config
from ._figure import build_js


def _esm() -> str:
    widget = resources.files(__package__).joinpath("_widget.js").read_text(encoding="utf-8")
    return "if (!window.AttentionViz) {\n" + build_js() + "\n}\n" + widget


class Widget(anywidget.AnyWidget):
    """``Widget(**config)``: any config field (arrays as NumPy/torch/lists), ``preset=``, and the
    element options as in ``show``. ``.config`` and ``.trace`` follow the learner's edits."""

    _esm = traitlets.Unicode().tag(sync=True)
    config = traitlets.Dict().tag(sync=True)
    trace = traitlets.Dict(allow_none=True, default_value=None).tag(sync=True)
    options = traitlets.Dict().tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)

    def __init__(self, preset=None, **kwargs):
        config, opts = _api.split(kwargs, preset)
        super().__init__(_esm=_esm(), config=config, options=opts)

    @traitlets.validate("config")
    def _check_config(self, proposal):
        return _config.plain(_api.config_of(dict(proposal["value"])))

    @traitlets.validate("options")
    def _check_options(self, proposal):
        return _config.options(dict(proposal["value"]))

    def _repr_mimebundle_(self, **kwargs):
        # Beside the widget view, the figure as it is now as HTML: front ends with a widget manager show the
        # live widget; static renderings (nbconvert, GitHub, nbviewer) show this instead of nothing.
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
        return Figure(dict(self.config), dict(self.options))
