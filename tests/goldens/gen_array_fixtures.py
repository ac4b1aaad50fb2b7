#!/usr/bin/env python3
"""Write tests/fixtures/arrays/: the arrays a user brings, in the files and texts NumPy itself writes, and
expected.json, the values NumPy holds for each (what parseArray / parseArrays in www/arrays.js must return).

- .npy files (np.lib.format.write_array) in every dtype parseArray reads, little- and big-endian, format versions
  1.0, 2.0 and 3.0, C and Fortran order, 0-d to 4-d and empty; the dtypes it refuses (complex, object, structured,
  str, datetime, long double); damaged files (truncated, bad magic, bad header) that np.load refuses too.
- .npz archives from np.savez and np.savez_compressed.
- text: repr(a), str(a) (what print shows), json.dumps(a.tolist()), np.savetxt as CSV, TSV and space-separated rows
  (with a header row and a '#' comment), the repr of a list of NumPy scalars, and PyTorch's tensor repr written by
  hand (torch is not installed here); malformed texts for the error messages.

The texts' values are chosen so that the printed digits are exact (checked below by evaluating each repr with
NumPy), so the values NumPy holds are the values the text says. Booleans are expected as 0/1, NaN and ±inf as the
strings "nan", "inf", "-inf" (JSON has no such numbers).

    python3 tests/goldens/gen_array_fixtures.py
"""

import io
import json
import math
import os
import re
import shutil
import warnings
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "fixtures", "arrays")

expected = {}


def encode(x):
    """a.tolist() with NaN/inf as strings, so that JSON can hold it."""
    if isinstance(x, list):
        return [encode(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def values(a):
    a = np.asarray(a)
    if a.dtype == np.bool_:
        a = a.astype(np.uint8)
    return encode(a.tolist())


def write(name, data):
    path = os.path.join(OUT, name)
    if isinstance(data, str):
        data = data.encode("utf-8")  # as written, "\n" stays "\n" on every platform
    with open(path, "wb") as f:
        f.write(data)


def npy_bytes(a, version=(1, 0)):
    f = io.BytesIO()
    np.lib.format.write_array(f, a, version=version, allow_pickle=a.dtype.hasobject)
    return f.getvalue()


def load(data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "created on Python 2": py2-long-shape.npy is meant to be
        return np.load(io.BytesIO(data), **kw)


def npy(name, a, version=(1, 0)):
    """A .npy file of `a`; the expected value is what np.load reads back from it."""
    data = npy_bytes(a, version)
    write(name, data)
    back = load(data)
    assert back.dtype == a.dtype and back.shape == a.shape and np.array_equal(back, a, equal_nan=a.dtype.kind in "fc")
    expected[name] = {"fn": "parseArray", "value": values(back)}


def crafted(name, data, value=None):
    """Bytes NumPy's writer does not produce; np.load must read them as `value`, or refuse them (value None)."""
    write(name, data)
    if value is None:
        try:
            load(data)
        except Exception as e:  # noqa: BLE001 - NumPy's refusal, whatever its class, is the point
            expected[name] = {"fn": "parseArray", "error": "malformed", "numpy_error": f"{type(e).__name__}: {e}"}
            return
        raise AssertionError(f"np.load reads {name}")
    back = load(data)
    assert np.array_equal(back, value)
    expected[name] = {"fn": "parseArray", "value": values(back)}


def refused(name, a, dtype_name):
    data = npy_bytes(a)
    write(name, data)
    assert load(data, allow_pickle=True).dtype == a.dtype
    expected[name] = {"fn": "parseArray", "error": "refused", "dtype": dtype_name}


def text(name, content, value, fn="parseArray"):
    write(name, content)
    expected[name] = {"fn": fn, "value": value}


def bad_text(name, content, numpy_refusal):
    """Malformed text; `numpy_refusal` shows that NumPy refuses it too (its message is kept)."""
    write(name, content)
    try:
        numpy_refusal(content)
    except Exception as e:  # noqa: BLE001
        expected[name] = {"fn": "parseArray", "error": "malformed", "numpy_error": f"{type(e).__name__}: {e}"}
        return
    raise AssertionError(f"NumPy reads {name}")


def evaluated(src, **names):
    """NumPy's own reading of a repr: eval with np.array (or a stand-in for torch.tensor) behind the names."""
    def array(data, dtype=None, shape=None):
        a = np.array(data, dtype=dtype)
        return a if shape is None else a.reshape(shape)

    scope = {"array": array, "nan": np.nan, "inf": np.inf, "np": np, "float32": np.float32, "int8": np.int8,
             "float64": np.float64, "int64": np.int64}
    scope.update(names)
    return np.asarray(eval(src, scope))  # noqa: S307 - our own fixture text


# ---- .npy: every dtype, both byte orders ------------------------------------------------------------------

FLOATS = {
    "f8": [[1 / 3, -0.1, np.nan, 5e-324], [np.inf, -np.inf, -0.0, 1.7976931348623157e308]],
    "f4": [[1 / 3, -0.1, np.nan, 1e-45], [np.inf, -np.inf, -0.0, 3.4028234663852886e38]],
    "f2": [[1 / 3, -0.1, np.nan, 2.0**-24], [np.inf, -np.inf, -0.0, 65504.0]],
}


def ints(t):
    info = np.iinfo(t)
    return [[info.min, info.max, 0, 1], [int(info.max) // 3, 7, int(info.min) // 5, 42]]


def write_npy_dtypes():
    for code, rows in FLOATS.items():
        for order, tag in (("<", "le"), (">", "be")):
            npy(f"{code}-{tag}.npy", np.array(rows, dtype=np.dtype(order + code)))
    for kind in ("i", "u"):
        for size in (1, 2, 4, 8):
            code = f"{kind}{size}"
            rows = ints(np.dtype(code))
            if size == 1:
                npy(f"{code}.npy", np.array(rows, dtype=code))
                continue
            for order, tag in (("<", "le"), (">", "be")):
                npy(f"{code}-{tag}.npy", np.array(rows, dtype=np.dtype(order + code)))
    npy("b1.npy", np.array([[True, False, True], [False, False, True]]))
    # Beyond 2^53 an int64 becomes the nearest double (as float(x) in Python): 2^53 + 1 → 2^53.
    npy("i8-beyond-2p53.npy", np.array([2**53 + 1, -(2**53) - 3, 2**62 + 1], dtype="<i8"))


# ---- .npy: versions, order, dimensions ----------------------------------------------------------------------


def write_npy_layouts():
    rng = np.random.default_rng(13)
    a = rng.standard_normal((2, 3))
    npy("v1.npy", a, (1, 0))
    npy("v2.npy", a, (2, 0))
    npy("v3.npy", a, (3, 0))
    npy("v3-be-i4.npy", np.arange(6, dtype=">i4").reshape(3, 2), (3, 0))
    npy("fortran-f8-3d.npy", np.asfortranarray(rng.standard_normal((2, 3, 4))))
    npy("fortran-i2-be.npy", np.asfortranarray(np.arange(-6, 6, dtype=">i2").reshape(3, 4)))
    npy("fortran-u1-2x0x3.npy", np.asfortranarray(np.zeros((2, 0, 3), dtype="u1")))
    npy("0d-f8.npy", np.array(2.5))
    npy("0d-i8.npy", np.array(-7, dtype="<i8"))
    npy("0d-b1.npy", np.array(True))
    npy("1d.npy", np.linspace(0, 1, 5))
    npy("3d.npy", (np.arange(24, dtype="<i2") - 12).reshape(2, 3, 4))
    npy("4d.npy", rng.standard_normal((2, 1, 3, 2)).astype("<f4"))
    npy("empty-0.npy", np.zeros(0))
    npy("empty-0x3.npy", np.zeros((0, 3)))
    npy("empty-3x0.npy", np.zeros((3, 0), dtype="<i4"))
    # '=' (native order) is what dtype.str never writes but np.load accepts; same length as '<', so the header stays.
    base = npy_bytes(np.array([1.5, -2.0]))
    crafted("native-order.npy", base.replace(b"'<f8'", b"'=f8'"), np.array([1.5, -2.0]))
    # Python 2's NumPy wrote longs in shapes: (2L,). np.load still reads them in versions 1.0 and 2.0.
    long_header = base.replace(b"'shape': (2,), } ", b"'shape': (2L,), }")
    crafted("py2-long-shape.npy", long_header, np.array([1.5, -2.0]))


# ---- .npy: refused dtypes and damaged files -----------------------------------------------------------------


def write_npy_refusals():
    refused("complex128.npy", np.array([1 + 2j, 3 - 1j]), "complex128")
    refused("complex64.npy", np.array([1 + 2j], dtype=np.complex64), "complex64")
    refused("object.npy", np.array([1, "a", None], dtype=object), "object")
    refused("structured.npy", np.zeros(2, dtype=[("x", "<f8"), ("y", "<i4")]), "structured")
    refused("str.npy", np.array(["ab", "c"]), "str")
    refused("bytes.npy", np.array([b"ab", b"c"]), "bytes")
    refused("datetime64.npy", np.array(["2024-01-01"], dtype="datetime64[D]"), "datetime64")
    refused("timedelta64.npy", np.array([3], dtype="timedelta64[s]"), "timedelta64")
    if np.dtype(np.longdouble).itemsize > 8:  # x86-64 Linux: 16 bytes
        refused("float128.npy", np.array([1.5], dtype=np.longdouble), np.dtype(np.longdouble).name)

    good = npy_bytes(np.arange(12.0).reshape(3, 4))
    crafted("truncated-data.npy", good[:-5])
    crafted("truncated-header.npy", good[:40])
    crafted("truncated-preamble.npy", good[:7])
    crafted("bad-magic.npy", good.replace(b"\x93NUMPY", b"\x93NUMPZ", 1))
    crafted("bad-version.npy", good[:6] + b"\x04\x00" + good[8:])
    crafted("bad-header-syntax.npy", good.replace(b"'descr': ", b"'descr'= ", 1))
    crafted("bad-header-keys.npy", good.replace(b"'shape'", b"'shapf'", 1))
    crafted("bad-header-shape.npy", good.replace(b"(3, 4)", b"(3,-4)", 1))


# ---- .npz ---------------------------------------------------------------------------------------------------


def npz(name, writer, *args, **kwargs):
    f = io.BytesIO()
    writer(f, *args, **kwargs)
    data = f.getvalue()
    write(name, data)
    with np.load(io.BytesIO(data)) as z:
        # expected.json's keys are sorted: "names" keeps the archive's order, which parseArrays keeps too
        expected[name] = {"fn": "parseArrays", "value": {k: values(z[k]) for k in z.files}, "names": z.files}
    return data


def write_npz():
    rng = np.random.default_rng(42)
    emb = rng.standard_normal((3, 4))
    w = rng.integers(0, 3, (4, 2)).astype(np.float64)
    npz("savez.npz", np.savez, np.arange(3, dtype="<i4"), embeddings=emb, w_q=w, mask=np.tri(3, dtype=bool))
    data = npz("savez_compressed.npz", np.savez_compressed, emb, w_k=w.T.copy(), attention=rng.random((2, 3, 3)).astype("<f4"))
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in z.infolist())
    whole = npz("savez-folder.npz", np.savez, **{"layer0/w_v": np.eye(2)})
    write("truncated.npz", whole[: len(whole) // 2])
    try:
        np.load(io.BytesIO(whole[: len(whole) // 2]))
        raise AssertionError("np.load reads truncated.npz")
    except (zipfile.BadZipFile, ValueError, EOFError, OSError) as e:
        expected["truncated.npz"] = {"fn": "parseArrays", "error": "malformed", "numpy_error": f"{type(e).__name__}: {e}"}
    npz("savez-complex.npz", np.savez, ok=np.ones(2), z=np.array([1j]))
    expected["savez-complex.npz"] = {"fn": "parseArrays", "error": "refused", "dtype": "complex128", "member": "z.npy"}


# ---- text ---------------------------------------------------------------------------------------------------

TEXT = {
    "t2d": np.array([[0.5, -1.25, 3.0], [4.0, 0.125, -6.5]]),
    "tsci": np.array([1e-10, 1.0, 1e10, -2.5e-5]),
    "tnan": np.array([np.nan, np.inf, -np.inf, 1.5]),
    "t3d": (np.arange(24) - 12).reshape(2, 3, 4),
    "t0d": np.array(2.5),
    "tbool": np.array([[True, False], [False, True]]),
    "tf32": np.array([[1.5, -2.25], [0.0, 0.375]], dtype=np.float32),
    "ti8": np.array([1, -2, 3], dtype=np.int8),
    "tempty": np.zeros((0, 3)),
    "tempty3x0": np.zeros((3, 0)),
    "twide": np.arange(36).reshape(3, 12) * 0.25 + 100,
}


def torch_repr(a, kwargs=""):
    """PyTorch's tensor repr: 4 decimals (scientific when the magnitudes differ a lot), rows indented under 'tensor('."""
    a = np.asarray(a, dtype=np.float64)
    finite = np.abs(a[np.isfinite(a)])
    sci = finite.size and (finite.max() / max(finite[finite > 0].min(), 1e-300) > 1e3 or finite.max() >= 1e8)
    fmt = (lambda x: f"{x:.4e}") if sci else (lambda x: f"{x:.4f}")
    cells = [fmt(x) for x in a.ravel()]
    width = max((len(c) for c in cells), default=0)

    def block(sub, depth):
        if sub.ndim == 0:
            return fmt(float(sub)).rjust(width)
        if sub.ndim == 1:
            return "[" + ", ".join(fmt(x).rjust(width) for x in sub) + "]"
        sep = "," + "\n" * (sub.ndim - 1) + " " * (len("tensor(") + depth + 1)
        return "[" + sep.join(block(s, depth + 1) for s in sub) + "]"

    body = fmt(float(a)) if a.ndim == 0 else block(a, 0)
    return f"tensor({body}{', ' + kwargs if kwargs else ''})"


def write_text():
    for name, a in TEXT.items():
        r = repr(a)
        back = evaluated(r)
        assert back.shape == a.shape and np.array_equal(back, a, equal_nan=True), (name, r)  # the digits are exact
        text(f"{name}.repr.txt", r, values(a))
        if name != "tempty3x0":  # print shows a 3 × 0 array as "[]": the shape is gone
            text(f"{name}.str.txt", str(a), values(a))
        text(f"{name}.json", json.dumps(a.tolist()), values(a))  # booleans as JSON's true/false
    text("tscalars.repr.txt", repr(list(np.array([1.5, -2.0, 0.25]))), [1.5, -2.0, 0.25])
    assert repr(list(np.array([1.5]))).startswith("[np.float64(")

    torch = {
        "t2d.torch.txt": (TEXT["t2d"], "dtype=torch.float64, requires_grad=True"),
        "tsci.torch.txt": (TEXT["tsci"], "device='cuda:0'"),
        "t3d.torch.txt": (TEXT["t3d"].astype(np.float64), ""),
        "t0d.torch.txt": (TEXT["t0d"], ""),
        "tgrad.torch.txt": (np.array([[0.5, 1.5]]), "grad_fn=<AddBackward0>"),
    }
    for name, (a, kw) in torch.items():
        t = torch_repr(a, kw)
        src = re.sub(r"<\w+>", "None", t.replace("torch.", "np."))  # grad_fn=<AddBackward0> is no Python
        back = evaluated(src, tensor=lambda x, **_: np.array(x))
        assert np.array_equal(back, a), (name, t)
        text(name, t, values(a))

    rng = np.random.default_rng(7)
    a = rng.standard_normal((4, 3))
    for name, kw in {
        "trand.csv": {"delimiter": ","},
        "trand.tsv": {"delimiter": "\t"},
        "trand.space.txt": {},
        "trand-header.csv": {"delimiter": ",", "header": "alpha,beta,gamma", "comments": ""},
        "trand-comment.txt": {"header": "written by np.savetxt"},
    }.items():
        f = io.StringIO()
        np.savetxt(f, a, **kw)
        content = f.getvalue()
        read = np.loadtxt(io.StringIO(content), delimiter=kw.get("delimiter"), ndmin=2,
                          skiprows=1 if kw.get("comments") == "" else 0)
        assert np.array_equal(read, a)
        text(name, content, values(read))
    f = io.StringIO()
    np.savetxt(f, np.arange(6).reshape(2, 3) - 2, fmt="%d", delimiter=",")
    text("tint.csv", f.getvalue(), values(np.loadtxt(io.StringIO(f.getvalue()), delimiter=",", ndmin=2)))
    text("trand.json", json.dumps(a.tolist()), values(a))
    text("arrays.json", json.dumps({"embeddings": a.tolist(), "w_q": np.eye(3).tolist(), "bias": [float("nan"), 1.0]}),
         {"embeddings": values(a), "w_q": values(np.eye(3)), "bias": ["nan", 1.0]}, fn="parseArrays")
    expected["arrays.json"]["names"] = ["embeddings", "w_q", "bias"]

    big = np.arange(2000.0)
    write("tlong.repr.txt", repr(big))
    assert "..." in repr(big)
    expected["tlong.repr.txt"] = {"fn": "parseArray", "error": "summarized"}
    bad_text("err-ragged.json", "[[1, 2, 3],\n [4, 5]]", lambda s: np.array(json.loads(s), dtype=float))
    bad_text("err-ragged.csv", "1,2,3\n4,5\n", lambda s: np.loadtxt(io.StringIO(s), delimiter=","))
    bad_text("err-unclosed.txt", "[[1, 2],\n [3, 4]", lambda s: np.array(json.loads(s)))
    bad_text("err-nonnumber.txt", "[[1, 2],\n [3, x]]", lambda s: np.array(json.loads(s), dtype=float))
    bad_text("err-nonnumber.csv", "1,2\n3,abc\n", lambda s: np.loadtxt(io.StringIO(s), delimiter=","))
    bad_text("err-empty-field.csv", "1,,2\n3,4,5\n", lambda s: np.loadtxt(io.StringIO(s), delimiter=","))


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    write_npy_dtypes()
    write_npy_layouts()
    write_npy_refusals()
    write_npz()
    write_text()
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump({"numpy": np.__version__, "files": expected}, f, indent=0, sort_keys=True)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"{len(expected)} fixtures, {total} bytes in {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
