"""The Rust core, run in Python: the .wasm of the single-file build (``static/attention_viz_bg.wasm``), through wasmtime.

Every rule, limit, message, colour and number of the figure is the core's: this module only moves bytes. It calls
the module's C-ABI exports (src/ffi.rs): a request (JSON text) and the big matrices (f64s, row-major) go in, an
answer (JSON text, and f64s for a trace) or the core's message comes out. The wasm-bindgen module also imports a
few JavaScript functions (the browser's console, canvases…); none is reachable from these exports, so each is a
stub that traps, saying so, if it is ever called.

A refused config raises ``ValueError`` with the core's message, the one ``compute()`` throws in the browser. A
panic (a bug in the core) traps: its message becomes a ``RuntimeError`` and the next call gets a fresh instance.
"""

from __future__ import annotations

import atexit
import itertools
import base64
import json
import re
import struct
import threading
import zlib
from functools import lru_cache
from importlib import resources

import numpy as np

WASM = "static/attention_viz_bg.wasm"


class _Instance:
    """One instance of the module: its store, memory and exports."""

    def __init__(self, engine, module):
        import wasmtime

        self.store = wasmtime.Store(engine)
        imports = []
        for imp in module.imports:
            if not isinstance(imp.type, wasmtime.FuncType):
                raise RuntimeError(f"attention-viz: the core imports {imp.module}.{imp.name}, which is not a function; "
                                   "this wheel's .wasm does not fit its Python side")
            imports.append(wasmtime.Func(self.store, imp.type, _stub(imp.name)))
        inst = wasmtime.Instance(self.store, module, imports)
        self.exports = inst.exports(self.store)
        self.memory = self.exports["memory"]

    def fn(self, name):
        f = self.exports[name]
        return lambda *args: f(self.store, *args)

    def write(self, data: bytes) -> tuple[int, int]:
        ptr = self.fn("av_alloc")(len(data))
        if data:
            self.memory.write(self.store, data, ptr)
        return ptr, len(data)

    def read(self, ptr: int, length: int) -> bytes:
        return bytes(self.memory.read(self.store, ptr, ptr + length)) if length else b""


def _stub(name: str):
    def call(*_args):
        raise RuntimeError(f"attention-viz internal error: the core called the JavaScript import {name!r}, which "
                           "Python does not provide")
    return call


@lru_cache(maxsize=1)
def _module():
    import wasmtime

    config = wasmtime.Config()
    # The module's SIMD and bulk-memory instructions are on by default; compiled code is cached across runs.
    try:
        config.cache = True
    except Exception:  # noqa: BLE001 — no cache directory: compile each time
        pass
    engine = wasmtime.Engine(config)
    try:
        data = resources.files(__package__).joinpath(WASM).read_bytes()
    except (FileNotFoundError, OSError) as e:
        raise RuntimeError(f"attention_viz/{WASM} is missing: install the package from its wheel (`make wheel` "
                           "builds it), not from the source tree") from e
    return engine, wasmtime.Module(engine, data)


_SURROGATE = re.compile("[\ud800-\udfff]")
_lock = threading.Lock()
_current: list = []


@atexit.register
def _release():
    """The instance, module and engine freed at exit while wasmtime's own module is still whole: freed later, by the
    interpreter's teardown, each printed "Exception ignored … 'NoneType' object is not callable"."""
    _current.clear()
    _module.cache_clear()


def _instance() -> _Instance:
    if not _current:
        _current.append(_Instance(*_module()))
    return _current[0]


def call(name: str, request: dict | None = None, data: np.ndarray | None = None) -> tuple[str, np.ndarray | None]:
    """Calls export ``name`` with ``request`` (JSON) and ``data`` (f64s): (its text answer, its f64 answer).
    Raises ``ValueError`` with the core's message when it refuses the request."""
    import wasmtime

    with _lock:
        inst = _instance()
        text = json.dumps(request or {}, allow_nan=False, separators=(",", ":"), ensure_ascii=False)
        # A lone surrogate (Python strings may hold one) is no UTF-8: U+FFFD, as a browser's text gives the core.
        text = _SURROGATE.sub("\ufffd", text).encode("utf-8")
        values = np.ascontiguousarray(data if data is not None else np.zeros(0), dtype="<f8")
        t_ptr, t_len = inst.write(text)
        d_ptr, d_len = inst.write(values.tobytes())
        try:
            code = inst.fn(name)(t_ptr, t_len, d_ptr, d_len // 8) if request is not None else inst.fn(name)()
        except wasmtime.Trap as trap:
            _current.clear()  # a trap may leave the instance's state half-changed: the next call starts afresh
            raise RuntimeError(f"attention-viz internal error: {_panic(inst) or trap.message}") from None
        finally:
            if _current:
                inst.fn("av_free")(t_ptr, t_len)
                inst.fn("av_free")(d_ptr, d_len)
        out = inst.read(inst.fn("av_out_ptr")(), inst.fn("av_out_len")()).decode("utf-8")
        n = inst.fn("av_out_f64_len")()
        f64 = np.frombuffer(inst.read(inst.fn("av_out_f64_ptr")(), 8 * n), dtype="<f8").copy() if n else None
    if code:
        raise ValueError(out)
    return out, f64


def _panic(inst: _Instance) -> str:
    try:
        inst.fn("av_last_panic")()
        return inst.read(inst.fn("av_out_ptr")(), inst.fn("av_out_len")()).decode("utf-8")
    except Exception:  # noqa: BLE001 — the instance is gone; the trap's own message remains
        return ""


@lru_cache(maxsize=1)
def facts() -> dict:
    """The core's facts: ``fields`` (a config's), ``matrices`` (the ones sent as f64s), the limits
    (``max_values``…), ``presets`` (the seed documents' configs), ``version``."""
    return json.loads(call("av_facts")[0])


# ---------------------------------------------------------------------------
# Requests: a config whose clean matrices travel as f64s
# ---------------------------------------------------------------------------

def request(config: dict, options: dict | None = None) -> tuple[dict, np.ndarray]:
    """(the request, its f64s): each matrix that is a rectangular array of finite numbers goes flat (as compute()'s
    fast path sends it); anything else stays JSON (the core then names what is wrong where it is)."""
    from ._config import plain

    rest, flat, chunks = {}, [], []
    matrices, stack = set(facts()["matrices"]), facts()["weights"]["stack"]
    for key, value in config.items():
        arr = _clean(value, 4 if key == stack else 2) if key in matrices else None
        if arr is None:
            rest[key] = _js_numbers(plain(value))
            continue
        flat.append({"name": key, "shape": list(arr.shape)})
        chunks.append(arr.ravel())
    req = {"config": rest, "flat": flat}
    if options is not None:
        req["options"] = options
    data = np.concatenate(chunks) if chunks else np.zeros(0)
    return req, data


def _js_numbers(value):
    """A whole float as the int JavaScript's JSON.stringify writes for it (1.0 → 1): compute() sends numbers
    that way, so the core reads and judges the same text from Python as from the page."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, list):
        return [_js_numbers(v) for v in value]
    if isinstance(value, dict):
        return {k: _js_numbers(v) for k, v in value.items()}
    return value


def _clean(value, most: int) -> np.ndarray | None:
    """``value`` as a float64 array when it is 2 … ``most`` axes of finite real numbers (no bools), else None."""
    if isinstance(value, np.ndarray):
        arr = value
    elif isinstance(value, list) and value and isinstance(value[0], list):
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError, OverflowError):
            return None
        # NumPy reads [0, True] as [0.0, 1.0]; the page refuses a true among numbers, so it goes as JSON to be.
        if arr.dtype.kind in "fiu" and _has_bool(value, arr.ndim):
            return None
    else:
        return None
    if arr.dtype.kind not in "fiu" or not 2 <= arr.ndim <= most or 0 in arr.shape:
        return None
    arr = arr.astype(np.float64, copy=False)
    return arr if np.isfinite(arr).all() else None


def _has_bool(rows: list, depth: int) -> bool:
    """Whether rectangular nested lists ``depth`` deep (NumPy read them as numbers) hold a Python or NumPy bool: their
    items' types, flattened in C (a 1024 × 1024 head's walk item by item took 1.2 s)."""
    for _ in range(depth - 1):
        rows = itertools.chain.from_iterable(rows)
    kinds = set(map(type, rows))
    return bool in kinds or np.bool_ in kinds


def _declared_shape(name: str, value, stack: str) -> list | None:
    """The shape an array or a list declares, read as the page's compute() reads it (its length and its first
    elements' lengths; a list's other rows are not looked at), so both refuse the same config first for its size."""
    if isinstance(value, np.ndarray):
        return list(value.shape)
    if not isinstance(value, (list, tuple)):
        return None
    if name in facts()["declared"]["vectors"]:
        return [len(value)]
    shape, x = [], value
    while isinstance(x, (list, tuple)) and len(shape) < 5:
        shape.append(len(x))
        x = x[0] if x else None
    return shape if name == stack else [len(value), shape[1] if len(shape) > 1 else 0]


def check_declared(config: dict) -> None:
    """Refuses a config by the shapes of its arrays alone (compute()'s first check, ``ValueError``): a matrix or a
    stack over the core's limits, or a config over its cost bound, before any value is read or copied."""
    from ._config import plain

    declared = facts()["declared"]  # the fields the core reads besides the shapes, and the arrays whose shapes it reads
    # An int beyond float64 goes as what a JavaScript number holding it is ("Infinity"), as request() sends it.
    rest = {k: plain(v) for k, v in config.items() if k in declared["fields"] and isinstance(v, (str, int))}
    shapes = [{"name": k, "shape": shape} for k, v in config.items()
              if k in declared["shapes"] and (shape := _declared_shape(k, v, stack=facts()["weights"]["stack"]))]
    if shapes:
        call("av_check_declared", {"config": rest, "flat": shapes})


def check(config: dict) -> str:
    """Refuses a config as compute() would (``ValueError``, the core's message); else the mechanism it shows."""
    req, data = request(config)
    return call("av_check", req, data)[0]


def normalize(config: dict) -> dict:
    """The config with every default filled in (the core's normalizeConfig)."""
    req, data = request(config)
    return json.loads(call("av_normalize", req, data)[0])


def compute(config: dict, fields=None) -> dict:
    """The trace as compute() returns it, every vector and matrix a NumPy array; ``fields``: only those top-level
    fields (the core reads the list and refuses a name it does not know)."""
    req, data = request(config)
    if fields is not None:
        req["fields"] = list(fields) if isinstance(fields, (list, tuple)) else fields
    text, values = call("av_compute", req, data)
    raw = json.loads(text)
    values = values if values is not None else np.zeros(0)
    trace = dict(raw["trace"])  # what is no array (the mechanism, its scale or tokens…), in compute()'s order
    for name, shape, offset in raw["fields"]:
        size = int(np.prod(shape)) if shape else 1
        # A shape [] is a number (decode.step, decode.cache_size); the rest are arrays.
        value = float(values[offset]) if not shape else values[offset:offset + size].reshape(shape)
        # Dotted names nest as compute() nests them: a number part indexes a list (heads.1.scores).
        parts = name.split(".")
        at = trace
        for part, below in zip(parts, parts[1:]):
            key = int(part) if part.isdigit() else part
            if isinstance(at, list):
                while len(at) <= key:
                    at.append(None)
                if at[key] is None:
                    at[key] = [] if below.isdigit() else {}
                at = at[key]
            else:
                at = at.setdefault(key, [] if below.isdigit() else {})
        at[parts[-1]] = value
    if "flash_steps" in raw:
        trace["flash"]["steps"] = _flash_steps(raw["flash_steps"], values)
    return trace


def _flash_steps(layout: dict, values: np.ndarray) -> list:
    """The trace's ``flash.steps``, [{q_block, k_block, m, l, o}, …], from the core's table of them (its
    ``Flash::table``: ``width`` numbers a step, q_block, k_block, its rows, then where its m, l and o start)."""
    width, cols, at = layout["width"], layout["o_cols"], layout["table"]
    steps = []
    for q_block, k_block, *where in values[at:at + width * layout["count"]].reshape(-1, width).tolist():
        rows, m, l, o = (int(x) for x in where)
        steps.append({"q_block": q_block, "k_block": k_block, "m": values[m:m + rows], "l": values[l:l + rows],
                      "o": values[o:o + rows * cols].reshape(rows, cols)})
    return steps


def picture(config: dict, options: dict) -> tuple[str, str]:
    """(the static picture as an SVG document, its alt text), drawn by the core."""
    req, data = request(config, dict(options))  # the core reads the options it draws with
    answer = json.loads(call("av_picture", req, data)[0])
    return compress_images(answer["svg"]), answer["alt"]


_PNG = re.compile(r'data:image/png;base64,([A-Za-z0-9+/=]+)')


def compress_images(svg: str) -> str:
    """The core writes its PNGs uncompressed (it carries no compressor): the same pixels, deflated."""
    return _PNG.sub(lambda m: "data:image/png;base64," + base64.b64encode(_deflated(base64.b64decode(m.group(1))))
                    .decode("ascii"), svg)


def _deflated(png: bytes) -> bytes:
    out, at, idat = [png[:8]], 8, []
    while at < len(png):
        (length,) = struct.unpack(">I", png[at:at + 4])
        kind, body = png[at + 4:at + 8], png[at + 8:at + 8 + length]
        at += 12 + length
        if kind == b"IDAT":
            idat.append(body)
            continue
        if kind == b"IEND" and idat:
            out.append(_chunk(b"IDAT", zlib.compress(zlib.decompress(b"".join(idat)), 6)))
        out.append(_chunk(kind, body))
    return b"".join(out)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
