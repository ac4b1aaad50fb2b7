"""``Figure``: a checked config with its element options, written out as HTML.

Every HTML form carries the static picture (an ``<img>``, what survives sanitizers and scriptless
renderings) and the ``<attention-viz>`` element with the config as an escaped attribute, its big
numeric arrays as little-endian float32 or float64 bytes in text of 85 characters (``wire``). ``to_html()`` and
``save_html()`` also carry the single-file build (the element and its WASM core) as an inline script, so they work
offline and from ``file://``. In a Jupyter kernel, ``_repr_html_`` carries the build in one output per
notebook page only (``engine_wanted``): every output of a notebook is in one document, where the
element, once defined, draws every ``<attention-viz>``. An output that finds no engine on its page
keeps its picture and says how to bring the live figure back (``av.init_notebook()``). Loading the
build twice on one page is harmless: the script runs only where ``window.AttentionViz`` is not there
yet, and the element guards its own definition. The element hides the picture once it has drawn the
figure (where no script of the output runs too: Panel, Gradio); a small script says when the engine is missing.
"""

from __future__ import annotations

import base64
import html
import itertools
import json
import os
import re
import sys
import zlib
from functools import lru_cache
from importlib import resources

import numpy as np

from . import _core

_ids = itertools.count(1)


ENGINE = "static/attention-viz.engine.js"


@lru_cache(maxsize=1)
def build_js() -> str:
    """The engine: the single-file build (the element and its WASM core) less its trained models, its .wasm and text
    deflated as text85 (scripts/python-assets.mjs: 0.63 MB where the build is 1.8), made safe to sit inside an inline
    ``<script>``. Run, it defines ``window.AttentionViz`` and the element at once, as the build does."""
    try:
        text = resources.files(__package__).joinpath(ENGINE).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError) as e:
        raise RuntimeError(f"attention_viz/{ENGINE} is missing: install the package from its "
                           "wheel (`make wheel` builds it), not from the source tree") from e
    # "</script" would end the inline script and "<!--" / "<script" change how HTML reads it; in the engine they
    # occur only in strings (text85 holds no "<"), where "\x3C" reads as "<".
    return re.sub(r"<(?=/?script|!--)", r"\\x3C", text, flags=re.IGNORECASE)


def script_tag() -> str:
    """The engine (the single-file build) as one ``<script>``, loaded once per page however often it is included:
    ``av.engine_script()``, for a page's head where the figure's own HTML goes in through innerHTML (Gradio)."""
    return "<script>if (!window.AttentionViz) {\n" + build_js() + "\n}</script>"


# The element hides the picture before it once it shows this figure (and shows it again when it refuses the config:
# www/element/index.js `_picture`), so this script only says when the engine is missing: no output on this page
# loaded it (the first output cleared), and the picture is all there is.
_ENGINE_CHECK = """<script>(function () {
  // The script's own output first: a notebook may run it before the output is in the document.
  var me = document.currentScript, root = (me && me.closest && me.closest('.attention-viz-output'))
    || document.getElementById(%s);
  var reg = window.customElements, note = root && root.querySelector('.attention-viz-engine-note');
  if (!note || !reg) return;
  var late = setTimeout(function () { if (!reg.get('attention-viz')) note.style.display = 'block'; }, 1500);
  reg.whenDefined('attention-viz').then(function () { clearTimeout(late); note.style.display = 'none'; });
})();</script>"""

# Figure.page() in a frame (Streamlit's components.html, marimo's mo.iframe): the frame as tall as the page, which
# changes as the figure draws and as the reader edits (a fixed height cuts it or leaves a gap). A cross-origin frame
# (frameElement is null) keeps the height its page gave it.
_FIT_FRAME = """<script>(function () {
  var frame = null;
  try { frame = window.frameElement; } catch (e) { /* cross-origin */ }
  if (!frame || !window.ResizeObserver) return;
  new ResizeObserver(function () {
    var h = Math.ceil(document.body.getBoundingClientRect().height) + 'px';
    if (frame.style.height !== h) frame.style.height = h;
  }).observe(document.body);
})();</script>"""

# Shown (by _ENGINE_CHECK, only where scripts run) when no output on this page has loaded the engine.
ENGINE_NOTE = ('<p class="attention-viz-engine-note" style="display:none;font:13px system-ui,sans-serif;margin:4px 0">'
               "The live figure needs attention-viz's engine, which another output of this notebook carries and is "
               "not on this page (cleared?): run <code>av.init_notebook()</code> in a cell, or re-run the first "
               "figure's cell. The picture shows this figure's numbers.</p>")



def xml_text(text) -> str:
    """Text for an XML attribute or element: the characters XML 1.0 forbids become U+FFFD, by the core's rule for its
    SVGs (``av_text``; a lone surrogate too, as every text Python hands the core)."""
    from ._core import call

    return call("av_text", {"xml": str(text)})[0]


# Arrays of at least this many numbers go packed when that is shorter than their JSON.
PACK_MIN = 64


def text85(raw: bytes) -> str:
    """``raw`` as text of the core's 85-character alphabet (``facts()["text85"]``; read back by www/text85.js): each
    4 bytes a big-endian word written as 5 base-85 digits, most significant first; the last k bytes (k = 1…3) as
    the first k + 1 digits of their word padded with zeros (RFC 1924's base85, in characters nothing escapes)."""
    alphabet = np.frombuffer(_core.facts()["text85"].encode("ascii"), dtype=np.uint8)
    pad = -len(raw) % 4
    words = np.frombuffer(raw + b"\0" * pad, dtype=">u4").astype(np.uint32)
    digits = np.empty((words.size, 5), dtype=np.uint8)
    for k in range(4, -1, -1):
        digits[:, k] = words % 85
        words //= 85
    text = alphabet[digits].tobytes()
    return text[: len(text) - pad].decode("ascii")


def _plane(plane: bytes) -> bytes:
    """One byte place's bytes as deflate blocks ending on a byte (a sync flush), coded as suits them, the shortest of:
    Huffman codes alone (a dense stack's exponent bytes: level 1's matches took 161,806 bytes of 12 × 12 × 64 × 64
    float32 weights' 589,824, Huffman codes 104,377), runs (a causal stack's zeros), or stored (mantissa bytes are
    noise). That stack: 1,873,132 bytes (dense: its order-0 entropy is 1,853,727) and 1,090,965 (causal), where level
    1 over all the planes gave 1,933,649 and 1,172,688, in about the same time."""
    def coded(strategy, level=1):
        z = zlib.compressobj(level, zlib.DEFLATED, -15, 9, strategy)
        return z.compress(plane) + z.flush(zlib.Z_SYNC_FLUSH)
    return min((coded(zlib.Z_HUFFMAN_ONLY), coded(zlib.Z_RLE), coded(zlib.Z_DEFAULT_STRATEGY, 0)), key=len)


def _shuffled_deflate(raw: bytes, size: int) -> bytes:
    """The bytes grouped by their place in each value (every value's byte 0, then every byte 1…), then deflated (raw
    deflate, no header): sign and exponent bytes repeat where mantissa bytes do not, so grouped they compress. One
    stream, each place's blocks coded as suits it (``_plane``), any inflater reads."""
    planes = np.frombuffer(raw, dtype=np.uint8).reshape(-1, size).T
    return b"".join(_plane(p.tobytes()) for p in planes) + b"\x03\x00"  # an empty final block of fixed codes


def packed(value, float32: bool = False):
    """A numeric array (nested lists, or a NumPy array holding the same numbers) as ``{"dtype", "shape", "text85"}``
    (and ``"deflate": true`` when its bytes are byte-shuffled
    and deflated, where that is shorter) when that is shorter than its JSON; anything else as it is.

    The dtype: ``float32`` for an array given as float32 (or float16, bfloat16; e.g. a model's attention from
    torch), whose values ``_config.prepare`` made their shortest decimals: the element rebuilds those decimals from
    the float32 bytes, so it gets the very numbers the JSON held, at 4 bytes a value; anything else ``float64``,
    exact bit for bit, at 8. Never a rounding: the figure's numbers are the ones ``fig.config`` holds. The element
    decodes it before the config reaches the core (``unpack`` in www/element/index.js, which reads the ``"base64"``
    of older outputs too)."""
    if not isinstance(value, (list, np.ndarray)):
        return value
    try:
        a = np.asarray(value)
    except ValueError:  # ragged: the core judged it already; JSON carries it as it is
        return value
    if a.dtype.kind not in "iuf" or a.ndim == 0 or a.size < PACK_MIN or 0 in a.shape:
        return value  # booleans and names stay JSON: as numbers they would come back as other values
    given = a
    a = a.astype("<f8")
    if not np.isfinite(a).all():
        return value
    if float32 and not np.isfinite(a.astype("<f4")).all():
        float32 = False
    size = 4 if float32 else 8
    raw = a.astype("<f4" if float32 else "<f8").tobytes()
    deflated = _shuffled_deflate(raw, size)
    out = {"dtype": "float32" if float32 else "float64", "shape": list(a.shape)}
    if len(deflated) < len(raw):
        raw, out["deflate"] = deflated, True
    out["text85"] = text85(raw)
    if len(out["text85"]) + 60 >= json_length(value, given):
        return value
    return out


# Arrays of more values than this have their JSON's length estimated from a sample instead of written out: writing a
# 12 × 12 × 128 stack's JSON only to measure it took 10 of the 15 s of its to_html.
JSON_SAMPLE = 4096


def json_length(value, a: np.ndarray) -> int:
    """The length of ``value``'s compact JSON (``a`` is the same as an array): exact up to ``JSON_SAMPLE`` values, else
    its numbers' mean length over an even sample times their count, plus the brackets and commas. It only decides
    which form is shorter: either carries the same numbers."""
    if a.size <= JSON_SAMPLE:
        return len(json.dumps(a.tolist() if isinstance(value, np.ndarray) else value, separators=(",", ":")))
    flat = a.ravel()
    sample = flat[:: max(1, flat.size // JSON_SAMPLE)].tolist()
    numbers = len(json.dumps(sample, separators=(",", ":"))) - 1 - len(sample)  # less "[", "]" and the commas
    rows = flat.size // a.shape[-1]
    return round(numbers / len(sample) * flat.size) + flat.size + 2 * rows


def wire(config: dict, float32=()) -> dict:
    """The config as the element's attribute carries it: its big numeric arrays ``packed`` (the fields named in
    ``float32`` were given as float32 or narrower)."""
    return {k: packed(v, k in float32) for k, v in config.items()}


def element_tag(config: dict, attrs: dict, extra: str = "", float32=()) -> str:
    parts = [f'config="{html.escape(json.dumps(wire(config, float32), allow_nan=False, separators=(",", ":")), quote=True)}"']
    parts += [f'{k}="{html.escape(xml_text(v), quote=True)}"' for k, v in attrs.items()]
    return f"<attention-viz {' '.join(parts)}{extra}></attention-viz>"


def mechanism(config: dict) -> str:
    """The mechanism the figure shows, as the core judges ``config`` (its inference, not a copy of it); for a config
    the core refuses, ``refused (<its message>)``: a repr never raises."""
    try:
        return _core.check(config)
    except (ValueError, TypeError) as e:  # TypeError: a value JSON cannot hold
        return f"refused ({e})"


def _kernel_execution():
    """(cell id or None, message id) of the Jupyter cell running now, where every output of the notebook shares one
    page (JupyterLab, Notebook, VS Code, nbclient/nbconvert, Voilà); None elsewhere (plain Python, marimo, Colab,
    whose outputs are each a frame of their own), where each output carries the engine."""
    if "google.colab" in sys.modules:
        return None
    ipython = sys.modules.get("IPython")
    try:
        shell = ipython.get_ipython() if ipython else None
    except Exception:  # noqa: BLE001 — an odd IPython: behave as outside a kernel
        return None
    if shell is None or type(shell).__name__ != "ZMQInteractiveShell":
        return None
    parent = getattr(shell, "parent_header", None) or {}
    msg = (parent.get("header") or {}).get("msg_id")
    if not msg:
        return None
    return (parent.get("metadata") or {}).get("cellId"), msg


# The execution (cell id, message id) whose output carries the engine on this kernel's notebook page.
_carrier: list = [None]


def engine_wanted(mark: bool = False) -> bool:
    """Whether this output must carry the engine: outside a shared notebook page always; in one, the first output
    since the kernel started, and again when the cell that carried it runs again (its new output replaces the one
    with the engine). ``mark``: this output carries it whatever came before (``init_notebook``)."""
    now = _kernel_execution()
    if now is None:
        return True
    held = _carrier[0]
    if mark or held is None or (now[0] is not None and now[0] == held[0] and now[1] != held[1]):
        _carrier[0] = now
        return True
    return False


class Engine:
    """``av.init_notebook()``'s output: the engine, for a notebook whose output that carried it is gone."""

    def __repr__(self) -> str:
        return "<attention_viz engine: display it (a cell's last line) to load the live figures>"

    def _repr_html_(self) -> str:
        engine_wanted(mark=True)
        return ('<div class="attention-viz-engine" style="font:13px system-ui,sans-serif">attention-viz: the engine '
                "of the live figures is in this output.</div>\n" + script_tag())


def init_notebook() -> Engine:
    """Loads the engine of the live figures on this notebook page when displayed (as a cell's last line). Each
    figure output in a notebook leaves the engine to the first one; when that output is cleared, the others show
    their pictures and say to run this."""
    return Engine()


class Figure:
    """One attention-viz figure: ``config`` (plain JSON-able dict) and the element options.

    In a notebook its ``_repr_html_`` shows the live figure (and, where scripts do not run,
    the static picture); ``to_html()`` gives the same fragment and ``save_html(path)`` a
    standalone page.
    """

    def __init__(self, config: dict, options: dict | None = None, float32=()):
        self.config = config
        self.options = dict(options or {})
        # The fields given as float32 (or narrower): their values are float32s' shortest decimals, sent as float32.
        self._float32 = frozenset(float32)
        # (Overview, layer, head) for a model's stack over the core's limit, whose head (layer, head) is the config.
        self._overview = None

    def __repr__(self) -> str:
        mech = mechanism(self.config)
        return f"<attention_viz.Figure {mech} {', '.join(f'{k}={v!r}' for k, v in self.options.items())}>".replace(" >", ">")

    def picture(self) -> str:
        """The static picture alone: ``<img src="data:image/svg+xml;base64,…" alt="…">``, the SVG the core draws
        (``picture_svg``)."""
        doc, alt = _core.picture(self.config, self.options)
        uri = "data:image/svg+xml;base64," + base64.b64encode(doc.encode("utf-8")).decode("ascii")
        return (f'<img src="{uri}" alt="{html.escape(alt, quote=True)}" class="attention-viz-picture" '
                'style="max-width:100%;height:auto;display:block">')

    def overview(self) -> str:
        """For a stack over the core's limit (``show_attention`` shows one head of it in full): every head's thumbnail
        as an ``<img>`` of the core's SVG, which stays beside the live figure; "" for any other figure."""
        if self._overview is None:
            return ""
        over, layer, head = self._overview
        doc, alt = over.picture(layer, head, self.options)
        uri = "data:image/svg+xml;base64," + base64.b64encode(doc.encode("utf-8")).decode("ascii")
        return (f'<img src="{uri}" alt="{html.escape(alt, quote=True)}" class="attention-viz-overview" '
                'style="max-width:100%;height:auto;display:block">')

    def picture_svg(self) -> str:
        """The static picture as an SVG document (text): the figure's main heatmaps drawn by the core, with the
        live figure's colours, ticks, numbers and (for a model's stack) max-pooled thumbnails of every head."""
        return _core.picture(self.config, self.options)[0]

    def to_html(self, script: bool = True) -> str:
        """The HTML fragment: picture, element, and (``script=True``) the inline build; ``script=False``: the page
        must load the build (another output's, ``init_notebook()``), and the output says so when it does not."""
        uid = f"attention-viz-{os.getpid()}-{next(_ids)}"
        out = [f'<div class="attention-viz-output" id="{uid}">', self.picture()]
        if not script:
            out.append(ENGINE_NOTE)
        out += [element_tag(self.config, self.options, float32=self._float32), _ENGINE_CHECK % json.dumps(uid)]
        if self._overview is not None:
            out.append(self.overview())
        if script:  # after the reveal, so its `error` listener is there before the element loads
            out.append(script_tag())
        out.append("</div>")
        return "\n".join(out)

    def _repr_html_(self) -> str:
        """What a notebook shows: in a Jupyter kernel, the engine in the notebook's first figure output only."""
        return self.to_html(script=engine_wanted())

    def page(self, title: str = "attention-viz") -> str:
        """A standalone HTML document of the figure (the build inline) for a frame of its own: Streamlit's
        ``components.html(fig.page(), height=600)``, marimo's ``mo.iframe``. Shown in a same-origin frame, it makes
        the frame as tall as the figure while it draws and as the reader edits (``_FIT_FRAME``)."""
        return ("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                f"<title>{html.escape(xml_text(title))}</title>\n"
                "<style>body{font-family:system-ui,sans-serif;margin:0;padding:1px 0}</style>\n"
                f"</head>\n<body>\n{self.to_html()}\n{_FIT_FRAME}\n</body>\n</html>\n")

    def _display_(self):
        """marimo's display (its first choice, before ``_repr_html_``): HTML with an inline script lands in a frame of
        400 px, and marimo fits a frame to its content only for a document in standards mode, which a fragment is
        not; the page is one, and fits its frame itself too."""
        import marimo as mo

        return mo.iframe(self.page())

    def save_html(self, path, title: str = "attention-viz") -> str:
        """Writes a standalone page (works from ``file://``, no network); returns the path."""
        page = ("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                f"<title>{html.escape(xml_text(title))}</title>\n"
                "<style>body{font-family:system-ui,sans-serif;margin:1rem;max-width:1200px}</style>\n"
                f"</head>\n<body>\n{self.to_html()}\n</body>\n</html>\n")
        path = os.fspath(path)
        with open(path, "w", encoding="utf-8") as f:
            f.write(page)
        return path
