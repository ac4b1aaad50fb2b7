#!/usr/bin/env python3
"""Write tests/fixtures/python-format.json: Python's own `format(x, spec)` for
every format spec seaborn's `heatmap(fmt=...)` is given in practice, so the
Rust `heatmap::format::Fmt` can be checked against Python character for
character (tests/heatmap_format.rs).

Each case is `{"x": repr(x), "spec": spec, "s": format(x, spec)}`. Floats are
written as their exact Python repr string so that NaN/inf and every bit
survive JSON.

`d` is special: `format(x, 'd')` raises for every float (seaborn's
`heatmap(fmt='d')` on a float array fails the same way). attention-viz accepts
`d` when every value of a view is a whole number and writes it as Python
writes that integer, `format(int(x), 'd')`; that is what the case holds for a
whole finite x. For any other x the case holds `"error"` (Python's message for
`int(x)` or the non-whole value) instead of `"s"`.

Only the standard library is used (no NumPy/seaborn needed):

    python3 tests/goldens/gen_python_format.py
"""

import json
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "fixtures", "python-format.json")

SPECS = [
    ".2g", ".3g", ".4g", ".1g", ".0g", ".5g", ".6g", ".10g", ".17g",
    ".2f", ".0f", ".1f", ".3f", ".6f",
    ".2e", ".0e", ".1e", ".3e",
    ".1%", ".0%", ".2%",
    "d",
    "g", "f", "e", "%",
]


def values():
    xs = [
        # The brief's cases and the seed documents' numbers.
        927.0, 929.0, 397.0, 148.0, 0.5, 1.5, 2.5, 3.5, 0.125, 0.375, 0.625, 9.5, 10.5, 99.5, 999.5,
        1e-05, 0.0001, 0.001, 123456789.0, 123456.0, 12345.0, 1234.5, -0.0, 0.0, 1.0, -1.0, 100.0, 1000.0,
        0.23407153, -0.00089, 1e308, -1e308, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
        float("nan"), float("inf"), float("-inf"),
        0.23608986335744747, 0.007389875548932189, 0.7491303899612998, 45.3, 8.0, 2.0, 10.0, 14.0, 3.0,
        4.618802153517006, 1.1547005383792517, 5.773502691896258, 1400.0, 808.2903786212411,
        0.11920292202211755, 7.94715150795889e-232, 0.8807970779778823, 4.688819389696492e-230,
        0.98522025, 1.74174051, 0.75652026, 0.53041613, 0.13610384, 0.29838948,
        1.0 / 3.0, 2.0 / 3.0, -2.0 / 3.0, math.pi, -math.pi, math.e, 0.1, 0.2, 0.3, 0.7, 0.05, 0.015, 0.025,
        0.045, 0.0005, 0.00015, 1.005, 2.675, 1.115, -1.5, -2.5, -0.5, -0.25, -0.125, 9.95, 9.995, 0.995,
        0.9995, 99.95, 999999.5, 999999.0, 1e6, 1e7, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23, 123.456, -123.456,
        6.02214076e23, 1.602176634e-19, 2.0**53, 2.0**53 + 2, -(2.0**63), 2.0**64, 12.0, 15.0, 150.0,
        250.0, 350.0, 0.00999, 0.0999, 0.999, 0.99, 0.094, 0.95, 0.0095, 1e-4 * 0.5, 5e-5, 4.5e-5, 0.00045,
        -0.00089, -0.0089, -1e-7, -1e-300, 1e-300, 3e-310, 42.0, -42.0, 7.0, -7.0, 1e100, -1e100,
        0.45, 0.55, 0.65, 0.85, 0.135, 0.145, 0.155, 0.165, 0.175, 0.185, 0.195, 0.005, 0.015625,
        0.046875, 0.0234375, 1.25, 1.75, 2.25, 5.5, 6.5, 7.5, 8.5,
    ]
    # A reproducible sweep of magnitudes and signs.
    rng = random.Random(20240613)
    for _ in range(40):
        m = rng.uniform(-1, 1) * 10 ** rng.randint(-12, 12)
        xs.append(float(m))
    seen, out = set(), []
    for x in xs:
        key = repr(x)
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out


def case(x, spec):
    c = {"x": repr(x), "spec": spec}
    if spec == "d":
        try:
            if not math.isfinite(x) or x != int(x):
                raise ValueError(f"{x!r} is not a whole number")
            c["s"] = format(int(x), "d")
        except (ValueError, OverflowError) as e:
            c["error"] = str(e)
    else:
        c["s"] = format(x, spec)
    return c


def main():
    xs = values()
    cases = [case(x, spec) for spec in SPECS for x in xs]
    doc = {
        "about": "Python's format(x, spec) for seaborn's heatmap fmt specs; written by tests/goldens/gen_python_format.py",
        "python": sys.version.split()[0],
        "specs": SPECS,
        "values": len(xs),
        "cases": cases,
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=0, ensure_ascii=False)
        f.write("\n")
    print(f"{OUT}: {len(xs)} values x {len(SPECS)} specs = {len(cases)} cases")


if __name__ == "__main__":
    main()
