#!/usr/bin/env python3
"""Generate tests/fixtures/seaborn-goldens.json from seaborn 0.13.2 itself.

The Rust module `attention_viz::heatmap::{palette, format}` reproduces how
`sns.heatmap(annot=True, cmap=sns.light_palette(color, as_cmap=True), linewidths=1)`
colours cells and writes annotations. This script records what seaborn and
matplotlib actually produce so the Rust tests can compare against it:

* the 256 entries of the light palettes used by the seed documents
  ("purple", "orange", "Blue"), as hex (`mpl.colors.to_hex(cmap(i))`) and as
  the exact float LUT values;
* the sequential ("rocket", seaborn's default heatmap map) and diverging
  ("vlag", light in the middle) tables;
* real `sns.heatmap` figures: per-cell facecolour (read back from
  `ax.collections[0].get_facecolors()`), annotation strings and text colours
  (`ax.texts`), for the seed-003 figures, the seed-001 weights, centred
  (`center=0`) diverging figures (one the signed context tests/python draws),
  constant matrices (seaborn's default map too) and one with a NaN;
* Python's `format(x, ".2g")` (and a few other precisions) for many numbers.

Every float is written as its Python `repr` string so that NaN/inf survive
JSON and values round-trip exactly.

Usage (needs `pip install seaborn==0.13.2`):

    python3 tests/goldens/gen_seaborn_goldens.py            # writes the fixture
    python3 tests/goldens/gen_seaborn_goldens.py --rust-tables > /tmp/tables.rs
        # prints the rocket/vlag float tables as Rust consts (as embedded in
        # src/heatmap/palette.rs)
"""

import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib as mpl  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import seaborn as sns  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "fixtures", "seaborn-goldens.json")
SEED_VALUES_CANDIDATES = [
    os.path.join(ROOT, "tests", "fixtures", "seed-values.json"),
    os.path.join(ROOT, "..", "shared", "reference", "seed-values.json"),
    "/work/shared/reference/seed-values.json",
]

SEQUENTIAL = "rocket"
# The other colormaps the core knows by name: seaborn's mako (a table, like rocket's) and matplotlib's Blues (nine
# colours interpolated: the core computes its entries as matplotlib does; the fixture has them unrounded).
NAMED = ("mako", "Blues")
DIVERGING = "vlag"
LIGHT_COLORS = ["purple", "orange", "Blue"]


def r(x):
    """A float as its exact Python repr string."""
    return repr(float(x))


def load_seed_values():
    for p in SEED_VALUES_CANDIDATES:
        if os.path.exists(p):
            with open(p) as f:
                return json.load(f)
    raise SystemExit("seed-values.json not found")


def cmap_table(cmap):
    rgba = cmap(np.arange(cmap.N))
    return {
        "n": int(cmap.N),
        "hex": [mpl.colors.to_hex(c) for c in rgba],
        "lut": [[r(c[0]), r(c[1]), r(c[2])] for c in rgba],
    }


def heatmap_figure(name, data, cmap, cmap_name, **kwargs):
    """Draw with sns.heatmap and read back what was drawn."""
    data = np.asarray(data, dtype=float)
    fig, ax = plt.subplots(figsize=(4, 3))
    sns.heatmap(data, annot=True, cmap=cmap, linewidths=1, ax=ax, **kwargs)
    fig.canvas.draw()
    mesh = ax.collections[0]
    arr = mesh.get_array()
    face = mesh.get_facecolors()
    rows, cols = data.shape
    facecolors = []
    k = 0
    for i in range(rows):
        row = []
        for j in range(cols):
            masked = np.ma.is_masked(arr) and bool(np.ma.getmaskarray(arr).flat[k])
            c = face[k]
            row.append(None if masked or c[3] == 0 else mpl.colors.to_hex(c))
            k += 1
        facecolors.append(row)
    # seaborn writes one text per unmasked cell, in row-major order.
    texts = [[None] * cols for _ in range(rows)]
    text_colors = [[None] * cols for _ in range(rows)]
    it = iter(ax.texts)
    for i in range(rows):
        for j in range(cols):
            if math.isnan(data[i, j]):
                continue
            t = next(it)
            texts[i][j] = t.get_text()
            text_colors[i][j] = mpl.colors.to_hex(t.get_color())
    assert next(it, None) is None, "unexpected extra texts"
    finite = data[np.isfinite(data)]
    plt.close(fig)
    return {
        "name": name,
        "cmap": cmap_name,
        "center": None if kwargs.get("center") is None else r(kwargs["center"]),
        "data": [[r(v) for v in row] for row in data],
        "vmin": r(finite.min()),
        "vmax": r(finite.max()),
        "facecolors": facecolors,
        "texts": texts,
        "text_colors": text_colors,
    }


FORMAT_NUMBERS = [
    927, 45.3, 0.23608986335744747, 0.007389875548932189, 4.688819389696492e-230,
    0.0, -0.0, 1.0, 100.0, 0.5, 3.8807970779778826, 3.8807970779778818,
    4.0728262981990575, 45.26423912339336, 39.90010763239807,
    float("nan"), float("inf"), float("-inf"),
    0.125, 0.375, 2.5, 9.95, 99.5, 1e-05, 0.0001, 123456, 0.995, 0.0995,
    0.00995, 999.5, 9.5, 0.95, 1.5, 0.25, 0.35, 0.45, 0.15, 12.5, 125.0,
    1234.5, 1e16, 0.00012345, 9.9999e-05, 99.49999, 1e100, -1e-300,
    5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -927.0, -45.3,
    -0.0074, -1.0, -99.5, -0.125, 7.947151507960154e-232, 0.8807970779778823,
    0.11920292202211755, 10.0, 9.99, 0.1, 0.01, 0.001, 1e-4 * 0.9999, 3.0,
    59.0, 43.0, 1e21, 12345678901234567890.0, 0.30000000000000004, 1 / 3,
    2 / 3, -2 / 3, 1e-5 * 1.05,
]

FORMAT_PRECISIONS = [0, 1, 3, 6, 17, 20]


def format_cases():
    cases = [{"x": r(x), "spec": ".2g", "s": format(float(x), ".2g")} for x in FORMAT_NUMBERS]
    for p in FORMAT_PRECISIONS:
        for x in FORMAT_NUMBERS[:30] + [1 / 3, 123456789.0, 0.000123456789, 5e-324]:
            spec = f".{p}g"
            cases.append({"x": r(x), "spec": spec, "s": format(float(x), spec)})
    return cases


def rust_tables():
    out = []
    for name in (SEQUENTIAL, DIVERGING, "mako"):  # Blues is computed in src/heatmap/palette.rs (`blues`)
        cmap = sns.color_palette(name, as_cmap=True)
        rgba = cmap(np.arange(cmap.N))
        out.append(f"/// seaborn 0.13.2 `{name}` (`seaborn/cm.py`), 256 RGB entries: the 8-decimal floats times 1e8.")
        out.append(f"const {name.upper()}_LUT: [[u32; 3]; 256] = [")
        for c in rgba:
            ints = [round(float(r(x)) * 10**8) for x in c[:3]]
            out.append(f"    [{ints[0]}, {ints[1]}, {ints[2]}],")
        out.append("];")
        out.append("")
    return "\n".join(out)


SIGNED_X = [[1.0, -2.0], [-1.5, 0.5], [0.3, 0.2]]


def self_attention_context(x):
    """softmax(X Xᵀ) X: the context of self-attention on embeddings alone (no projections, so
    no √d scaling, as seed 002 computes it)."""
    x = np.asarray(x, dtype=float)
    s = x @ x.T
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return (w / w.sum(axis=1, keepdims=True)) @ x


def main():
    if "--rust-tables" in sys.argv:
        print(rust_tables())
        return

    sv = load_seed_values()
    s3 = sv["seed_003"]
    light = {c: sns.light_palette(c, as_cmap=True) for c in LIGHT_COLORS}
    seq = sns.color_palette(SEQUENTIAL, as_cmap=True)
    div = sns.color_palette(DIVERGING, as_cmap=True)

    def column(v):
        return [[x] for x in v]

    figures = [
        heatmap_figure("seed003_decoder_state", column(s3["dec_hidden_state"]), light["purple"], "purple"),
        heatmap_figure("seed003_annotations",
                       s3["annotations_rows_are_dims_columns_are_encoder_states"], light["orange"], "orange"),
        heatmap_figure("seed003_applied_attention", s3["stable_softmax"]["applied_attention"],
                       light["orange"], "orange"),
        heatmap_figure("seed003_context_vector", column(s3["stable_softmax"]["context_vector"]),
                       light["Blue"], "Blue"),
        heatmap_figure("seed003_context_vector_float128",
                       column(s3["float128_as_in_document_cast_to_float64"]["context_vector"]),
                       light["Blue"], "Blue"),
        heatmap_figure("seed001_weights", sv["seed_000_001"]["weights"], seq, SEQUENTIAL),
        heatmap_figure("seed001_scaled_scores", sv["seed_000_001"]["scaled_scores"], seq, SEQUENTIAL),
        heatmap_figure("constant_matrix", [[2.0, 2.0], [2.0, 2.0]], light["purple"], "purple"),
        # The colour bar widens a singular range in place (matplotlib
        # colorbar -> transforms._nonsingular(vmin, vmax, expander=0.1)),
        # which is what the cells are then coloured with:
        heatmap_figure("all_zeros", [[0.0, 0.0, 0.0]], light["purple"], "purple"),
        heatmap_figure("negative_constant", [[-3.0], [-3.0]], light["orange"], "orange"),
        heatmap_figure("near_constant", [[1.0, 1.0000000000000002, 1.0000000000000004]],
                       light["Blue"], "Blue"),
        # sns.heatmap(np.zeros((4, 4)), annot=True) with seaborn's default map, and seed 003's naive weights in
        # float64 (inf / inf where exp overflows, a finite exp over inf elsewhere): every finite value equal, so the
        # widened range (-0.1, 0.1) puts them in the middle of rocket.
        heatmap_figure("zeros_default_cmap", np.zeros((4, 4)), seq, SEQUENTIAL),
        heatmap_figure("seed003_naive_weights", [[float("nan"), 0.0, 0.0, float("nan")]], seq, SEQUENTIAL),
        heatmap_figure("tiny_values", [[1e-300, 2e-300], [3e-300, 0.0]], light["orange"], "orange"),
        heatmap_figure("with_nan", [[1.0, float("nan")], [3.0, 4.0]], light["orange"], "orange"),
        heatmap_figure("diverging_mixed", [[-1.5, 0.25, 3.0], [0.7, -0.3, 2.1], [0.0, -3.2, 1.0]],
                       div, DIVERGING, center=0),
        heatmap_figure("diverging_shifted_scores", [s3["stable_softmax"]["shifted"]], div, DIVERGING, center=0),
        # tests/python/test_html.py: the signed context of embeddings SIGNED_X alone (Q = K = V = X).
        heatmap_figure("signed_context", self_attention_context(SIGNED_X), div, DIVERGING, center=0),
    ]

    golden = {
        "about": "Generated by tests/goldens/gen_seaborn_goldens.py from seaborn/matplotlib/numpy; "
                 "floats are Python repr strings. Do not edit by hand.",
        "versions": {"seaborn": sns.__version__, "matplotlib": mpl.__version__, "numpy": np.__version__},
        "light_palettes": {
            c: dict(color=mpl.colors.to_hex(c), **cmap_table(light[c])) for c in LIGHT_COLORS
        },
        "sequential": dict(name=SEQUENTIAL, **cmap_table(seq)),
        "diverging": dict(name=DIVERGING, **cmap_table(div)),
        # The other colormaps the core knows by name (palette="mako", "Blues").
        "named": {name: dict(name=name, **cmap_table(sns.color_palette(name, as_cmap=True))) for name in NAMED},
        "figures": figures,
        "format": format_cases(),
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(golden, f, indent=1, allow_nan=False)
        f.write("\n")
    print(f"wrote {OUT}: {len(figures)} figures, {len(golden['format'])} format cases")


if __name__ == "__main__":
    main()
