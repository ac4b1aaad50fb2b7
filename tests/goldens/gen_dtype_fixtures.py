#!/usr/bin/env python3
"""Write tests/fixtures/array-dtypes.json: NumPy and PyTorch reprs that name a narrower float dtype, and the values
their own eval stores (what parseArray in www/arrays.js must return for each text).

- NumPy (float32, float16, '<f4', np.float32 scalars): the text evaluated by NumPy itself, np.array(..., dtype=...).
- PyTorch (torch is not installed here): torch.tensor(x, dtype=torch.float16 / torch.bfloat16) converts a Python
  float to float32 first (c10::Half and c10::BFloat16 are constructed from a float), then rounds to nearest even. The
  values below follow that: np.float32 of the digits, then NumPy's float32 → float16 cast, or for bfloat16 the
  round-to-nearest-even of the float32's top 16 bits as c10::round_to_nearest_even writes it, computed with NumPy.

The values are written with repr(float), which round-trips exactly through JSON; ±inf (past float16's largest) as
the strings "inf" and "-inf", as tests/fixtures/arrays/expected.json does.

    python3 tests/goldens/gen_dtype_fixtures.py
"""

import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "fixtures", "array-dtypes.json")

# Digits chosen to round: a decimal fraction float32 cannot hold, many digits, a half-precision tie (1 + 2^-11),
# a double just above that tie (NumPy rounds it up, PyTorch's float32 step makes it a tie again), a half subnormal,
# values past float16's largest, bfloat16 ties (1 + 2^-8 rounds down to even, 1 + 3·2^-8 up).
DIGITS = [0.1, -2.7182818284590452, 3.14159265358979, 1e-7, 0.3333333333333333, 123456.789]
HALF = [0.1, 1.00048828125, 1.00048828125001, 6e-8, 65519.0, 65520.0, -70000.0, 0.333251953125]
BF16 = [0.1, 1.00390625, 1.01171875, 3.14159265358979, -1e-3, 3.4e38]


def torch_bfloat16(xs):
    bits = np.asarray(xs, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return np.asarray(rounded.astype(np.uint32)).view(np.float32)


def listed(xs):
    return "[" + ", ".join(repr(float(x)) for x in xs) + "]"


def main():
    cases = []

    def add(text, values, how):
        values = np.asarray(values, dtype=np.float64)
        flat = [float(v) if np.isfinite(v) else ("inf" if v > 0 else "-inf") for v in values.ravel()]
        cases.append({"text": text, "how": how, "values": flat, "shape": list(values.shape)})

    # NumPy's eval: the text run with np.array behind the names it uses.
    env = {"array": np.array, "float32": np.float32, "float16": np.float16, "float64": np.float64, "np": np}
    numpy_texts = [
        f"array({listed(DIGITS)}, dtype=float32)",
        f"array([{listed(DIGITS[:3])},\n       {listed(DIGITS[3:])}], dtype=float32)",
        f"np.array({listed(DIGITS)}, dtype=np.float32)",
        f"array({listed(DIGITS)}, dtype='<f4')",
        f"array({listed(HALF)}, dtype=float16)",
        f"array({listed(DIGITS)}, dtype=float64)",
        "[" + ", ".join(f"np.float32({x!r})" for x in DIGITS) + "]",
        repr(np.array(DIGITS, dtype=np.float32)),  # NumPy's own print of a float32 array: shortest float32 digits
    ]
    for text in numpy_texts:
        add(text, np.asarray(eval(text, env), dtype=np.float64), "numpy eval")

    # PyTorch's conversion (see above), the digits as PyTorch prints them or as a user typed them.
    add(f"tensor({listed(DIGITS)}, dtype=torch.float32)", np.float32(DIGITS), "float32")
    add(f"tensor([{listed(HALF[:4])},\n        {listed(HALF[4:])}], dtype=torch.float16)",
        np.asarray(HALF, dtype=np.float32).astype(np.float16).reshape(2, 4), "float32 then float16")
    add(f"tensor({listed(HALF)}, dtype=torch.half)", np.asarray(HALF, dtype=np.float32).astype(np.float16), "float32 then float16")
    add(f"tensor({listed(BF16)}, dtype=torch.bfloat16)", torch_bfloat16(BF16), "float32 then bfloat16")

    # The double-rounding case must differ between the two, or the fixture would not tell them apart.
    assert np.float16(1.00048828125001) != np.float16(np.float32(1.00048828125001))

    with open(OUT, "w") as f:
        json.dump({"numpy": np.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    with np.errstate(over="ignore"):  # 65520 and 70000 overflow float16 on purpose
        main()
