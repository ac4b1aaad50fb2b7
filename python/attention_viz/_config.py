"""Turns Python values into the core's JSON config, and refuses the bad ones early.

Arrays arrive as NumPy arrays, torch/jax tensors, pandas frames, nested lists or NumPy
scalars; they leave as plain lists of Python numbers. The checks here are the ones a
notebook author trips over (NaN, ragged rows, mismatched shapes, negative weights, a
misspelt field, a bad element option) and raise ``ValueError`` with the core's kind of
message. Everything else is left to the page, which validates the whole config again and
shows its message in the figure.
"""

from __future__ import annotations

import json
import math
import numbers
import reprlib

import numpy as np

# The core's field list, in its order (src/config.rs FIELDS): "did you mean" picks the
# first closest name, as the core does.
FIELDS = (
    "mechanism", "embeddings", "w_q", "w_k", "w_v", "tokens", "scale", "query",
    "decoder_state", "annotations", "heads", "head", "w_o", "scoring", "w_a", "u_a", "v_a",
    "temperature", "mask", "valid_lens", "masked_row", "attention", "key_tokens", "layer",
)
WEIGHTS_FIELDS = ("mechanism", "attention", "tokens", "key_tokens", "layer", "head", "query")
SELF_ONLY = ("embeddings", "w_q", "w_k", "w_v", "heads", "head", "w_o")
CROSS_ONLY = ("decoder_state", "annotations")

# Element attributes a keyword argument may set, and the values each accepts.
OPTIONS = ("views", "palette", "fmt", "height", "editable", "theme", "contrast")
THEMES = ("auto", "light", "dark")
CONTRASTS = ("seaborn", "more")

WEIGHTS_SHAPES = "n × m, heads × n × m or layers × heads × n × m"

# How much of the user's text a message quotes, in characters: the core's text::QUOTE_MAX
# (tests/python/test_errors.py reads it from src/text.rs), so a message stays short however long the input.
QUOTE_MAX = 40


def cut(text: str) -> str:
    """Text the user wrote that is not quoted (a number), cut as the core's ``text::cut`` cuts it."""
    return text if len(text) <= QUOTE_MAX else text[: QUOTE_MAX - 1] + "…"


def _cut_quoted(quoted: str, whole: bool) -> str:
    """A quoted text (its quotes at both ends) whose inside is cut to ``QUOTE_MAX`` characters with "…";
    ``whole``: the quoted text is all of the user's, not its head."""
    inner = quoted[1:-1]
    if len(inner) <= QUOTE_MAX and whole:
        return quoted
    return quoted[0] + inner[: QUOTE_MAX - 1] + "…" + quoted[-1]


def whole_number_text(x: int) -> str:
    """``str(x)`` for a whole number of any size, or enough of its first digits to be cut (more than
    ``QUOTE_MAX``): ``str`` refuses past 4,300 digits and its time grows with the square of their count."""
    if x.bit_length() <= 14_000:  # about 4,200 digits: str is quick and allowed
        return str(x)
    if x.bit_length() > 330_000:  # past about 100,000 digits even the first ones take seconds to find
        return f"a whole number of about {int((x.bit_length() - 1) * 0.30102999566398) + 1:,} digits"
    # Dropping digits surely past the first QUOTE_MAX + 1 (log10 |x| ≥ (bit_length − 1) · log10 2): one short division.
    drop = int((x.bit_length() - 1) * 0.30102999566398) - QUOTE_MAX - 1
    return ("-" if x < 0 else "") + str(abs(x) // 10**drop)


class _Short(reprlib.Repr):
    """``repr`` of lists, dicts and objects, stopped early: a message never builds a huge text to cut."""

    def __init__(self):
        super().__init__()
        self.maxlevel, self.maxlist, self.maxtuple, self.maxdict = 2, 4, 4, 3
        # Long enough that reprlib's own "..." (in the middle of a text) falls in the part that is cut off.
        self.maxstring = self.maxother = 2 * QUOTE_MAX + 4

    def repr_int(self, x, level):
        return whole_number_text(x)


def quote(x) -> str:
    """A value for a message as Python quotes it (``repr``), cut to ``QUOTE_MAX`` characters."""
    if isinstance(x, str):
        head = x[: QUOTE_MAX + 1]  # only this much can be shown: escaping the rest is wasted
        return _cut_quoted(repr(head), len(head) == len(x))
    if isinstance(x, int) and not isinstance(x, bool):
        text = whole_number_text(x)
        return text if text.startswith("a ") else cut(text)
    try:
        return cut(_Short().repr(x))
    except Exception:  # noqa: BLE001 — the value's own __repr__ failed; the message must still be raised
        return f"a {type(x).__name__}"


def dquote(text: str) -> str:
    """A name the user wrote, in double quotes (as the core's ``text::quote`` writes it), cut the same way."""
    head = text[: QUOTE_MAX + 1]
    return _cut_quoted(json.dumps(head, ensure_ascii=False), len(head) == len(text))


def edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a[:64]):
        cur = [i + 1]
        for j, cb in enumerate(b[:64]):
            cur.append(min(prev[j] + (ca != cb), prev[j + 1] + 1, cur[j] + 1))
        prev = cur
    return prev[len(b[:64])]


def closest(name: str, known) -> str | None:
    best = min(known, key=lambda f: edit_distance(f, name))
    return best if edit_distance(best, name) <= 2 else None


def unknown_field(name: str, known=FIELDS, what: str = "config field") -> ValueError:
    near = closest(name, known)
    if near is not None:
        return ValueError(f'unknown {what} {dquote(name)} (did you mean "{near}"?)')
    return ValueError(f'unknown {what} {dquote(name)}; known ones are {", ".join(known)}')


# ---------------------------------------------------------------------------
# Arrays
# ---------------------------------------------------------------------------

def _is_number(x) -> bool:
    return isinstance(x, (numbers.Number, np.number, np.bool_)) and not isinstance(x, (complex, np.complexfloating))


def _too_large(x) -> bool:
    """Whether a number is beyond float64 (a Python int or Fraction can be: float() of it overflows)."""
    try:
        float(x)
    except OverflowError:
        return True
    return False


def _describe(x) -> str:
    if isinstance(x, str):
        return f"the text {quote(x)}"
    if x is None:
        return "None"
    return f"a {type(x).__name__}"


def _at(name: str, index) -> str:
    return f"{name}[{', '.join(str(int(i)) for i in index)}]" if len(index) else name


def to_numpy(value):
    """A NumPy array (or the value itself if it is not array-like): torch's
    ``.detach().cpu().numpy()`` by duck typing, then anything with ``__array__``."""
    if all(hasattr(value, a) for a in ("detach", "cpu", "numpy")):
        t = value.detach().cpu()
        # bfloat16 has no NumPy dtype: widen it first (torch's float() keeps the values exactly).
        if str(getattr(t, "dtype", "")) == "torch.bfloat16":
            t = t.float()
        return np.asarray(t.numpy())
    if hasattr(value, "__array__") and not isinstance(value, np.ndarray):
        return np.asarray(value)
    return value


def as_array(value, name: str, ndim=None, what: str | None = None) -> np.ndarray:
    """``value`` as a float64 (or int64/bool) array with every value finite, or a ``ValueError``
    naming the field and the position. ``ndim``: the allowed numbers of dimensions."""
    arr = _nested(value, name, ())
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} has complex values ({arr.dtype}); attention needs real numbers")
    if arr.dtype.kind in "OUSV":
        flat = arr.reshape(-1)
        for i, x in enumerate(flat):
            if not _is_number(x):
                idx = np.unravel_index(i, arr.shape) if arr.ndim else ()
                raise ValueError(f"{_at(name, idx)} is {_describe(x)}, not a number")
            if _too_large(x):
                idx = np.unravel_index(i, arr.shape) if arr.ndim else ()
                raise ValueError(f"{_at(name, idx)} is {quote(x)}, which is too large for float64")
        arr = arr.astype(np.float64)
    if arr.dtype.kind not in "fiub":
        raise ValueError(f"{name} has values of type {arr.dtype}, not numbers")
    if ndim is not None and arr.ndim not in ndim:
        shapes = what or " or ".join(f"{d}-D" for d in ndim)
        raise ValueError(f"{name} must be {shapes}, got an array of shape {tuple(arr.shape)}")
    if arr.dtype.kind == "f":
        if arr.dtype.itemsize < 8:
            # A float32/float16 value means its shortest decimal (what NumPy and torch print): 0.1, not
            # 0.10000000149011612. The page gets the same number at half the JSON.
            arr = arr.astype(str).astype(np.float64)
        arr = arr.astype(np.float64)
        bad = ~np.isfinite(arr)
        if bad.any():
            idx = tuple(np.argwhere(bad)[0]) if arr.ndim else ()
            x = arr[idx]
            text = "nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")
            raise ValueError(f"{_at(name, idx)} is {text}; every value must be a finite number")
    for axis, size in enumerate(arr.shape):
        if size == 0:
            raise ValueError(f"{name} is empty (shape {tuple(arr.shape)}): it needs at least one value along axis {axis}")
    return arr


def _nested(value, name: str, index: tuple) -> np.ndarray:
    """A list of lists (of arrays, tensors, numbers) as one array; ragged rows are named."""
    value = to_numpy(value)
    if isinstance(value, np.ndarray):
        return value
    if _is_number(value):
        return np.asarray(value)
    if isinstance(value, (list, tuple)):
        if not value:
            return np.zeros((0,))
        try:  # the common case, a rectangular list of numbers, in one step
            fast = np.asarray(value)
            if fast.dtype.kind in "fiub":
                return fast
        except Exception:  # ragged, or tensors NumPy cannot read (grad, GPU): entry by entry below
            pass
        items = [_nested(v, name, index + (i,)) for i, v in enumerate(value)]
        first = items[0].shape
        for i, item in enumerate(items):
            if item.shape != first:
                if not index and len(first) == 1 and item.ndim == 1:
                    raise ValueError(f"{name} row {i} has {item.shape[0]} values, expected {first[0]} (ragged rows)")
                raise ValueError(f"{_at(name, index + (i,))} has shape {item.shape}, expected {first} "
                                 f"(ragged: every entry must have the same shape)")
        if any(it.dtype.kind in "OUSV" for it in items):
            # Keep each entry as it came, so a message can point at the one that is not a number.
            out = np.empty((len(items),) + first, dtype=object)
            for i, it in enumerate(items):
                out[i] = it.item() if it.ndim == 0 else it
            return out
        return np.stack(items)
    return np.array(value, dtype=object)


def plain(arr: np.ndarray):
    """Nested Python lists: ints for integer and boolean arrays, floats otherwise."""
    if arr.dtype.kind in "iub":
        return arr.astype(np.int64).tolist()
    return arr.astype(np.float64).tolist()


def matrix(value, name: str) -> np.ndarray:
    return as_array(value, name, (2,), "a matrix (a list of rows)")


def vector(value, name: str) -> np.ndarray:
    return as_array(value, name, (1,), "a list of numbers")


# ---------------------------------------------------------------------------
# Scalars
# ---------------------------------------------------------------------------

def scalar(value, name: str):
    """A Python int/float/str/bool from a NumPy scalar or a 0-d array or tensor."""
    value = to_numpy(value)
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise ValueError(f"{name} must be a single value, got an array of shape {value.shape}")
        value = value.item()
    if isinstance(value, np.generic):
        value = value.item()
    return value


def whole(value, name: str, low: int, high: int | None, what: str) -> int:
    x = scalar(value, name)
    if isinstance(x, bool) or not isinstance(x, (int, float)) or (isinstance(x, float) and not x.is_integer()):
        raise ValueError(f"{name} must be a whole number ({what}), got {quote(x)}")
    x = int(x)
    if x < low or (high is not None and x > high):
        top = f" to {high}" if high is not None else " or more"
        raise ValueError(f"{name} must be a whole number from {low}{top} ({what}), got {quote(x)}")
    return x


def positive(value, name: str, why: str = "") -> float:
    x = scalar(value, name)
    if isinstance(x, (int, float)) and not isinstance(x, bool) and _too_large(x):
        raise ValueError(f"{name} is {quote(x)}, which is too large for float64")
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x <= 0:
        raise ValueError(f"{name} must be a positive number{why}, got {quote(x)}")
    return float(x)


def choice(value, name: str, allowed) -> str:
    x = scalar(value, name)
    if x not in allowed:
        near = closest(x, allowed) if isinstance(x, str) else None
        hint = f' (did you mean "{near}"?)' if near else ""
        raise ValueError(f"{name} must be {', '.join(repr(a) for a in allowed)}, got {quote(x)}{hint}")
    return x


def tokens(value, n: int, rows_of: str, name: str = "tokens") -> list:
    value = to_numpy(value)
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, str) or not hasattr(value, "__len__"):
        raise ValueError(f"{name} must be a list of names, got {_describe(value)}")
    out = []
    for i, t in enumerate(value):
        t = scalar(t, name)
        if isinstance(t, bool) or not isinstance(t, (str, int, float)):
            raise ValueError(f"{name} entry {i} must be a name (a string), got {_describe(t)}")
        out.append(t if isinstance(t, str) else str(t))
    if len(out) != n:
        raise ValueError(f"{name} has {len(out)} names but {rows_of} has {n} rows")
    return out


# ---------------------------------------------------------------------------
# Configs
# ---------------------------------------------------------------------------

def normalize(fields: dict) -> dict:
    """The config for the page: plain JSON values, checked. Raises ValueError."""
    for key in fields:
        if key not in FIELDS:
            raise unknown_field(key)
    fields = {k: v for k, v in fields.items() if v is not None}
    mech = fields.get("mechanism")
    if mech is None:
        mech = "weights" if "attention" in fields else "cross" if ("decoder_state" in fields or "annotations" in fields) else "self"
    mech = choice(mech, "mechanism", ("self", "cross", "weights"))
    out = {"mechanism": mech} if "mechanism" in fields else {}
    if mech == "weights":
        return _weights(fields, out)
    if mech == "self":
        return _self(fields, out)
    return _cross(fields, out)


def _weights(f: dict, out: dict) -> dict:
    for key in f:
        if key not in WEIGHTS_FIELDS:
            raise ValueError(f'{key} belongs to computed attention (self or cross), but mechanism is "weights": '
                             "a model's weights are shown as they are")
    if "attention" not in f:
        raise ValueError(f'attention is missing: mechanism "weights" needs the weights, {WEIGHTS_SHAPES}')
    a = as_array(f["attention"], "attention", (2, 3, 4), WEIGHTS_SHAPES)
    if a.dtype.kind == "f" or a.dtype.kind in "iu":
        neg = a < 0
        if neg.any():
            idx = tuple(np.argwhere(neg)[0])
            raise ValueError(f"{_at('attention', idx)} is {a[idx].item()!r}: attention weights must be ≥ 0")
    out["attention"] = plain(a)
    shape4 = (1,) * (4 - a.ndim) + a.shape
    layers, heads, n, m = shape4
    if "tokens" in f:
        out["tokens"] = tokens(f["tokens"], n, "attention")
    if "key_tokens" in f:
        out["key_tokens"] = tokens(f["key_tokens"], m, "attention's keys (its last axis)", "key_tokens")
    if "layer" in f:
        out["layer"] = whole(f["layer"], "layer", 0, layers - 1, f"there are {layers} layers")
    if "head" in f:
        out["head"] = whole(f["head"], "head", 0, heads - 1, f"there are {heads} heads")
    if "query" in f:
        out["query"] = whole(f["query"], "query", 0, n - 1, f"there are {n} queries")
    return out


def _common(f: dict, out: dict, n_queries: int, m: int, d_q: int, d_k: int, heads: int, cross: bool):
    scoring = choice(f.get("scoring", "dot"), "scoring", ("dot", "general", "additive", "cosine"))
    if "scoring" in f:
        out["scoring"] = scoring
    needs = {"general": ("w_a",), "additive": ("w_a", "u_a", "v_a")}.get(scoring, ())
    for key in ("w_a", "u_a", "v_a"):
        if key in f and key not in needs:
            raise ValueError(f"{key} belongs to {'general or additive' if key == 'w_a' else 'additive'} scoring, "
                             f"but scoring is {scoring}")
        if key not in f and key in needs:
            raise ValueError(f"{key} is missing: {scoring} scoring needs {key}")
    if scoring in ("general", "additive") and heads > 1:
        raise ValueError(f"{scoring} scoring has one head; heads is {heads}")
    if scoring == "general":
        w_a = matrix(f["w_a"], "w_a")
        if w_a.shape != (d_q, d_k):
            raise ValueError(f"w_a has shape {w_a.shape}, expected ({d_q}, {d_k}): rows the query width, "
                             "columns the key width")
        out["w_a"] = plain(w_a)
    if scoring == "additive":
        w_a, u_a, v_a = matrix(f["w_a"], "w_a"), matrix(f["u_a"], "u_a"), vector(f["v_a"], "v_a")
        d_a = w_a.shape[1]
        if w_a.shape[0] != d_q:
            raise ValueError(f"w_a has {w_a.shape[0]} rows, expected {d_q} (the query width)")
        if u_a.shape != (d_k, d_a):
            raise ValueError(f"u_a has shape {u_a.shape}, expected ({d_k}, {d_a}): rows the key width, "
                             "columns d_a (the columns of w_a)")
        if v_a.shape[0] != d_a:
            raise ValueError(f"v_a has {v_a.shape[0]} values, expected {d_a} (d_a, the columns of w_a)")
        out.update(w_a=plain(w_a), u_a=plain(u_a), v_a=plain(v_a))
    if "temperature" in f:
        out["temperature"] = positive(f["temperature"], "temperature", " (1 leaves the scores as they are)")
    if "scale" in f:
        s = scalar(f["scale"], "scale")
        out["scale"] = s if s in ("sqrt_dk", "none") else positive(s, "scale", ' (or "sqrt_dk" or "none")')
    if "masked_row" in f:
        out["masked_row"] = choice(f["masked_row"], "masked_row", ("zero", "uniform", "nan"))
    if "mask" in f:
        mask = to_numpy(f["mask"])
        if isinstance(mask, str):
            out["mask"] = choice(mask, "mask", ("none", "causal"))
        else:
            want = (m,) if cross else (n_queries, m)
            arr = as_array(mask, "mask", (len(want),), "a list of 0/1 values" if cross else f"a {n_queries} × {m} matrix of 0/1")
            if arr.shape != want:
                raise ValueError(f"mask has shape {arr.shape}, expected {want}: "
                                 + ("one 0/1 per encoder state" if cross else "one row per query, one column per key"))
            bad = ~np.isin(arr, (0, 1))
            if bad.any():
                idx = tuple(np.argwhere(bad)[0])
                raise ValueError(f"{_at('mask', idx)} is {arr[idx].item()!r}; mask values must be 0/1 (or booleans)")
            out["mask"] = arr.astype(np.int64).tolist()
    if "valid_lens" in f:
        vl = to_numpy(f["valid_lens"])
        if _is_number(vl) or (isinstance(vl, np.ndarray) and vl.ndim == 0):
            vl = [vl]
        arr = as_array(vl, "valid_lens", (1,), "a list of whole numbers, one per query")
        if arr.shape[0] != n_queries:
            raise ValueError(f"valid_lens has {arr.shape[0]} values, expected {n_queries}: one per query")
        for i, x in enumerate(arr.tolist()):
            if isinstance(x, bool) or float(x) != int(x) or x < 0:
                raise ValueError(f"valid_lens[{i}] is {x!r}; valid lengths must be whole numbers ≥ 0")
        out["valid_lens"] = [int(x) for x in arr.tolist()]
    if "query" in f:
        out["query"] = whole(f["query"], "query", 0, n_queries - 1, f"there are {n_queries} queries")


def _self(f: dict, out: dict) -> dict:
    for key in CROSS_ONLY:
        if key in f:
            raise ValueError(f'{key} belongs to cross-attention, but mechanism is "self"')
    if "embeddings" not in f:
        raise ValueError("embeddings is missing: self-attention needs one row of numbers per token")
    x = matrix(f["embeddings"], "embeddings")
    n, d_model = x.shape
    out["embeddings"] = plain(x)
    given = [w for w in ("w_q", "w_k", "w_v") if w in f]
    if given and len(given) < 3:
        missing = [w for w in ("w_q", "w_k", "w_v") if w not in f]
        raise ValueError(f"w_q, w_k and w_v go together: {' and '.join(missing)} missing")
    if given:
        w = {}
        for name in ("w_q", "w_k", "w_v"):
            w[name] = matrix(f[name], name)
            if w[name].shape[0] != d_model:
                raise ValueError(f"{name} has {w[name].shape[0]} rows, expected {d_model}: one row per embedding "
                                 f"dimension (embeddings has {d_model} columns)")
            out[name] = plain(w[name])
        if w["w_k"].shape[1] != w["w_q"].shape[1]:
            raise ValueError(f"w_k has {w['w_k'].shape[1]} columns but w_q has {w['w_q'].shape[1]}: queries and keys "
                             "must have the same length d_k")
        width_k, width_v = w["w_q"].shape[1], w["w_v"].shape[1]
    else:
        width_k = width_v = d_model
    heads = whole(f.get("heads", 1), "heads", 1, None, "1, 2, 4, …")
    if "heads" in f:
        out["heads"] = heads
    if heads > 1:
        if not given:
            raise ValueError("heads > 1 needs w_q, w_k and w_v: the heads split their columns")
        for name, width in (("w_q", width_k), ("w_v", width_v)):
            if width % heads:
                raise ValueError(f"{name} has {width} columns, which {quote(heads)} heads do not divide: each head takes "
                                 f"an equal share")
    d_k, d_v = width_k // heads, width_v // heads
    if "head" in f:
        out["head"] = whole(f["head"], "head", 0, heads - 1, f"there are {heads} heads")
    if "w_o" in f:
        w_o = matrix(f["w_o"], "w_o")
        if w_o.shape[0] != heads * d_v:
            raise ValueError(f"w_o has {w_o.shape[0]} rows, expected {heads * d_v}: one per column of the heads' "
                             f"contexts side by side (heads × d_v = {heads} × {d_v})")
        out["w_o"] = plain(w_o)
    if "tokens" in f:
        out["tokens"] = tokens(f["tokens"], n, "embeddings")
    _common(f, out, n, n, d_k, d_k, heads, cross=False)
    return out


def _cross(f: dict, out: dict) -> dict:
    for key in SELF_ONLY:
        if key in f:
            raise ValueError(f'{key} belongs to self-attention, but mechanism is "cross"')
    if "decoder_state" not in f:
        raise ValueError("decoder_state is missing: cross-attention needs the decoder's hidden state, a list of numbers")
    if "annotations" not in f:
        raise ValueError("annotations is missing: cross-attention needs the encoder states, one list of numbers each")
    h = vector(f["decoder_state"], "decoder_state")
    a = matrix(f["annotations"], "annotations")
    d = h.shape[0]
    scoring = scalar(f.get("scoring", "dot"), "scoring")
    if a.shape[1] != d and scoring in ("dot", "cosine"):
        raise ValueError(f"annotations row 0 has {a.shape[1]} values, expected {d} (the length of decoder_state)")
    out["decoder_state"] = plain(h)
    out["annotations"] = plain(a)
    m = a.shape[0]
    if "tokens" in f:
        out["tokens"] = tokens(f["tokens"], m, "annotations")
    _common(f, out, 1, m, d, a.shape[1], 1, cross=True)
    return out


# ---------------------------------------------------------------------------
# Element options
# ---------------------------------------------------------------------------

def options(opts: dict) -> dict:
    """Element attributes as strings (None: leave the attribute off)."""
    out = {}
    for key, value in opts.items():
        if value is None:
            continue
        if key not in OPTIONS:
            raise unknown_field(key, FIELDS + OPTIONS, "config field or element option")
        value = scalar(value, key) if not isinstance(value, (list, tuple)) else value
        if key == "views":
            if not isinstance(value, (str, list, tuple)):
                raise ValueError(f"views must name heatmaps or panels (a list of names, or one text of them "
                                 f"separated by commas), got {quote(value)}")
            items = value.split(",") if isinstance(value, str) else list(value)
            names = [scalar(v, "views") for v in items]
            if not all(isinstance(v, str) and v.strip() for v in names):
                raise ValueError(f"views must name heatmaps or panels, got {quote(value)}")
            names = [v.strip() for v in names]
            out[key] = ",".join(names)
        elif key == "editable":
            if value in ("true", "false"):  # already an attribute value (a Widget's options)
                value = value == "true"
            if not isinstance(value, bool):
                raise ValueError(f"editable must be True or False, got {quote(value)}")
            out[key] = "true" if value else "false"
        elif key == "height":
            given = value
            if isinstance(value, str):
                try:
                    value = float(value)
                except ValueError:
                    pass
            if isinstance(value, bool) or not isinstance(value, (int, float)) or _too_large(value) \
                    or not math.isfinite(value) or value <= 0:
                raise ValueError(f"height must be a positive number of CSS pixels, got {quote(given)}")
            if not 40 <= value <= 4000:
                raise ValueError(f"height must be from 40 to 4000 CSS pixels, got {quote(given)}")
            out[key] = str(int(value)) if float(value).is_integer() else str(value)
        elif key == "theme":
            out[key] = choice(value, "theme", THEMES)
        elif key == "contrast":
            out[key] = choice(value, "contrast", CONTRASTS)
        elif key == "fmt":
            if not isinstance(value, str) or not _fmt_ok(value):
                raise ValueError(f'fmt must be a format spec like ".2g", ".3f", ".1e", ".0%" or "d", got {quote(value)}')
            out[key] = value
        elif key == "palette":
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f'palette must be a name like "rocket", "vlag", "purple" or "#1f77b4", got {quote(value)}')
            out[key] = value
    return out


def _fmt_ok(spec: str) -> bool:
    import re
    return re.fullmatch(r"(\.\d{1,3})?[gfe%]|d", spec) is not None
