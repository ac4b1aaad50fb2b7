"""Turns Python values into the config the core reads; the element options' own checks.

Arrays arrive as NumPy arrays, torch/jax tensors, pandas frames, nested lists or NumPy scalars; they reach the core
as float64 arrays (sent flat) or as plain JSON values, a non-finite number as the text "NaN", "Infinity" or
"-Infinity" (as the browser's compute() sends it). Nothing here judges a config or an element option: the core does
(``_core.check``; ``av_options`` for the options), and its message is the one raised. What is left here is Python's:
reading tensors, float32's shortest decimals, and how Python writes a value in a message (``quote``).
"""

from __future__ import annotations

import functools
import math
import numbers
import reprlib

import numpy as np

@functools.cache
def quote_max() -> int:
    """How much of the user's text a message quotes, in characters, so that a message stays short however long the
    input: the core's own limit (its facts), asked when a message is first written."""
    from ._core import facts

    return facts()["quote_max"]


def __getattr__(name):
    if name == "QUOTE_MAX":  # the module's constant, read from the core on first use
        return quote_max()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _text(kind: str, text: str) -> str:
    """The user's text as the core's messages write it (``av_text``: its ``text::quote`` or ``text::cut``). Only the
    first ``QUOTE_MAX`` + 1 characters can show, so only they are sent: a 1 MB name costs nothing."""
    from ._core import call

    return call("av_text", {kind: text[: quote_max() + 1]})[0]


def cut(text: str) -> str:
    """Text the user wrote that is not quoted (a number), cut to ``QUOTE_MAX`` characters with "…" by the core."""
    return _text("cut", text)


def whole_number_text(x: int) -> str:
    """``str(x)`` for a whole number of any size, or enough of its first digits to be cut (more than
    ``QUOTE_MAX``): ``str`` refuses past 4,300 digits and its time grows with the square of their count."""
    if x.bit_length() <= 14_000:  # about 4,200 digits: str is quick and allowed
        return str(x)
    if x.bit_length() > 330_000:  # past about 100,000 digits even the first ones take seconds to find
        return f"a whole number of about {int((x.bit_length() - 1) * 0.30102999566398) + 1:,} digits"
    # Dropping digits surely past the first QUOTE_MAX + 1 (log10 |x| ≥ (bit_length − 1) · log10 2): one short division.
    drop = int((x.bit_length() - 1) * 0.30102999566398) - quote_max() - 1
    return ("-" if x < 0 else "") + str(abs(x) // 10**drop)


class _Short(reprlib.Repr):
    """``repr`` of lists, dicts and objects, stopped early: a message never builds a huge text to cut."""

    def __init__(self):
        super().__init__()
        self.maxlevel, self.maxlist, self.maxtuple, self.maxdict = 2, 4, 4, 3
        # Long enough that reprlib's own "..." (in the middle of a text) falls in the part that is cut off.
        self.maxstring = self.maxother = 2 * quote_max() + 4

    def repr_int(self, x, level):
        return whole_number_text(x)


def quote(x) -> str:
    """A value for a message as Python quotes it (``repr``), cut to ``QUOTE_MAX`` characters."""
    if isinstance(x, str):
        # Only the first QUOTE_MAX + 1 characters can show (escaping the rest is wasted); the core cuts the inside.
        quoted = repr(x[: quote_max() + 1])
        return quoted[0] + cut(quoted[1:-1]) + quoted[-1]
    if isinstance(x, int) and not isinstance(x, bool):
        text = whole_number_text(x)
        return text if text.startswith("a ") else cut(text)
    try:
        return cut(_Short().repr(x))
    except Exception:  # noqa: BLE001 — the value's own __repr__ failed; the message must still be raised
        return f"a {type(x).__name__}"


def dquote(text: str) -> str:
    """A name the user wrote, in double quotes and cut, as the core's messages quote it."""
    return _text("quote", text)


def closest(name: str, known) -> str | None:
    """The name of ``known`` a "did you mean" offers for ``name`` (the core's ``text::closest``), or None."""
    from ._core import call

    # The core compares the first 64 characters of each: a longer name is sent only that far.
    return call("av_text", {"closest": str(name)[:64], "among": [str(k) for k in known]})[0] or None


def unknown(name: str, among: str) -> ValueError:
    """The core's refusal of ``name``, neither a config field nor an element option (``among="fields"``: ``show``,
    ``Widget``) or none of ``show_attention``'s arguments (``among="arguments"``)."""
    from ._core import call

    try:
        call("av_options", {"unknown": str(name), "among": among})
    except ValueError as e:
        return e
    raise RuntimeError("attention-viz internal error: the core took an unknown name")


# ---------------------------------------------------------------------------
# Values: conversion only
# ---------------------------------------------------------------------------

def fields() -> tuple:
    """The config's fields, in the core's order (src/config.rs FIELDS, read from the core)."""
    from . import _core
    return tuple(_core.facts()["fields"])


def option_names() -> tuple:
    """The element options' names, in the core's order (src/options.rs OPTIONS, read from the core)."""
    from . import _core
    return tuple(_core.facts()["options"])


def weights_stack() -> str:
    """The field that holds a model's weights (n × m up to layers × heads × n × m), the core's."""
    from . import _core
    return _core.facts()["weights"]["stack"]


def _is_number(x) -> bool:
    return isinstance(x, (numbers.Number, np.number, np.bool_)) and not isinstance(x, (complex, np.complexfloating))


def to_numpy(value, name: str = "config"):
    """A NumPy array (or the value itself if it is not array-like): torch's
    ``.detach().cpu().numpy()`` by duck typing, then anything with ``__array__``. A NumPy masked array is its data
    when nothing is masked, and refused (``ValueError`` naming ``name``) when something is: its mask would be lost."""
    if isinstance(value, np.ma.MaskedArray):
        return unmasked(value, name)
    if all(hasattr(value, a) for a in ("detach", "cpu", "numpy")):
        t = value.detach().cpu()
        # bfloat16 has no NumPy dtype: widen it first (torch's float() keeps the values exactly).
        if str(getattr(t, "dtype", "")) == "torch.bfloat16":
            t = t.float()
        return np.asarray(t.numpy())
    if hasattr(value, "__array__") and not isinstance(value, np.ndarray):
        return np.asarray(value)
    return value


def unmasked(value: np.ma.MaskedArray, name: str) -> np.ndarray:
    """A masked array's data when none of its entries is masked. With masked entries: ``ValueError``. The config has
    no place for NumPy's mask and the data under it is arbitrary, so drawing it would show numbers the caller hid."""
    count = int(np.ma.count_masked(value))
    if count == 0:
        return np.ma.getdata(value)
    name = cut(name)  # a field's name as the caller wrote it (an unknown one may be long), cut as the core cuts
    what = f"{count} masked {'entry' if count == 1 else 'entries'}"
    if name == weights_stack():
        how = f"fill them with the weights to show, e.g. np.ma.filled({name}, 0)"
    else:
        how = (f"fill them with numbers, e.g. np.ma.filled({name}, 0), and give the keys a query must not see as "
               "the mask or valid_lens field")
    raise ValueError(f"{name} is a NumPy masked array with {what}, and attention-viz does not read a NumPy mask: {how}")


def shortest_decimals(x: np.ndarray) -> np.ndarray:
    """A float32 or float16 array's values as their shortest decimals (NumPy's ``str`` of each, read as float64):
    ``x.astype(str).astype(np.float64)`` without the strings, which took seconds for a 12 × 12 × 128 stack.
    The core's rule (``math::decimal``, ``ffi::av_shortest``), which the element also applies to the float32 bytes
    Python sends it: one rule for both."""
    from ._core import call

    x = np.asarray(x)
    dtype = "float16" if x.dtype.itemsize <= 2 else "float32"
    with np.errstate(all="ignore"):
        wide = x.astype(np.float64).ravel()
    out = call("av_shortest", {"dtype": dtype}, wide)[1]
    return (out if out is not None else np.zeros(0)).reshape(x.shape)


def long_lists(value, name: str = "config"):
    """``value``, a config field other than a matrix, with every list, tuple or array in it longer than any a config
    holds there replaced by the core's stand-in ``{key: length}`` (its facts' ``long_list``), before any of its items
    is read or converted: no field can take such a list whatever its items, and the core refuses the stand-in in the
    words it gives the list itself (converting and sending a million ``sinks`` takes seconds).
    Anything else is left as it is, for ``prepare``."""
    from ._core import facts

    long = facts()["long_list"]
    key, longest = long["key"], long["longest"]

    def walk(v):
        v = to_numpy(v, name)
        if isinstance(v, np.ndarray):
            if v.ndim == 0 or max(v.shape) <= longest:
                return v
            return {key: len(v)} if len(v) > longest else [walk(row) for row in v]
        if isinstance(v, (list, tuple)):
            return {key: len(v)} if len(v) > longest else [walk(x) for x in v]
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        return v

    return walk(value)


def prepare(value, name: str = "config"):
    """``value`` as the core reads it: a numeric array stays an array (float32/float16 as their shortest
    decimals, what NumPy and torch print: 0.1, not 0.10000000149011612); lists, tuples and dicts are walked
    (tensors inside become arrays); NumPy scalars become Python's. Complex numbers, which no JSON holds, are refused."""
    value = to_numpy(value, name)
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "c":
            raise ValueError(f"{name} has complex values ({value.dtype}); attention needs real numbers")
        if value.dtype.kind == "f" and value.dtype.itemsize < 8:
            return shortest_decimals(value)
        if value.dtype.kind in "fiu":
            return value
        if value.ndim == 0:
            return prepare(value.item(), name)
        return [prepare(v, name) for v in value.tolist()]
    if isinstance(value, np.generic):
        return prepare(value.item(), name)
    if isinstance(value, (list, tuple)):
        return [prepare(v, name) for v in value]
    if isinstance(value, dict):
        return {k: prepare(v, name) for k, v in value.items()}
    if isinstance(value, (complex, np.complexfloating)):
        raise ValueError(f"{name} has complex values; attention needs real numbers")
    return value


def plain(value):
    """A prepared value as JSON values: arrays as nested lists (ints for integer and boolean arrays, floats
    otherwise), a non-finite number as the text compute() sends for it, an int beyond float64 as "Infinity"
    (what a JavaScript number holding it is)."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "iub":
            return value.astype(np.int64).tolist() if value.dtype.kind != "b" else value.tolist()
        value = value.astype(np.float64)
        if np.isfinite(value).all():
            return value.tolist()
        return _texts(value.tolist())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            float(value)
        except OverflowError:
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if value is None or isinstance(value, (str, bool, float)):
        return value
    if isinstance(value, numbers.Real):  # Fraction, Decimal…: the number they stand for
        return plain(float(value))
    raise ValueError(f"{quote(value)} cannot be written as JSON: give numbers, texts, lists or arrays")


def _texts(rows):
    if isinstance(rows, list):
        return [_texts(r) for r in rows]
    return plain(rows)


def scalar(value, name: str):
    """A Python int/float/str/bool from a NumPy scalar or a 0-d array or tensor."""
    value = to_numpy(value, name)
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise ValueError(f"{name} must be a single value, got an array of shape {value.shape}")
        value = value.item()
    if isinstance(value, np.generic):
        value = value.item()
    return value


# ---------------------------------------------------------------------------
# Element options
# ---------------------------------------------------------------------------

def options(opts: dict) -> dict:
    """Element attributes as strings (an option given as None is left off), each judged by the core
    (``av_options``): ``ValueError`` with its message for the first option it refuses, in the order given."""
    from ._core import call

    out = {}
    for key, value in opts.items():
        if value is None:
            continue
        if key not in option_names():
            raise unknown(key, "fields")
        value = scalar(value, key) if not isinstance(value, (list, tuple)) else value
        out[key] = call("av_options", {"option": key, "value": _option_value(value), "shown": quote(value)})[0]
    if out:
        call("av_options", {"options": out})  # the palette, fmt and contrast the heatmaps know
    return out


def _option_value(value):
    """An option's value as JSON for the core: a text, a bool, a finite number, a list of these; null for anything
    else (a number beyond float64, NaN, a dict, an object: no option takes one)."""
    if isinstance(value, (list, tuple)):
        return [_option_value(_item(v)) for v in value]
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (int, float)):
        try:
            x = float(value)
        except OverflowError:
            return None
        if not math.isfinite(x):
            return None
        return int(value) if isinstance(value, int) and abs(value) < 2**53 else x
    return None


def _item(value):
    """A list item as a Python value (a NumPy scalar, a 0-d array or tensor as its number or text); an array that is
    not one value stays as it is (no option takes one)."""
    try:
        return scalar(value, "item")
    except ValueError:
        return value
