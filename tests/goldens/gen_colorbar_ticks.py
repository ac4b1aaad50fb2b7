#!/usr/bin/env python3
"""Generate tests/fixtures/colorbar-ticks.json: the ticks seaborn 0.13.2's colour bar shows.

`sns.heatmap` puts a matplotlib colour bar beside the grid. Its ticks come from the colour
bar axis' default locator (AutoLocator: MaxNLocator(nbins="auto", steps=[1, 2, 2.5, 5, 10]))
and its labels from ScalarFormatter. With nbins="auto" the number of intervals is
`clip(axis.get_tick_space(), 1, 9)`, and the tick space is the bar's length in points over
twice the tick label size, so the figure size matters. This script draws real heatmaps

* for the seed documents' figures, at their figure sizes (seed 003's
  `plt.figure(figsize=(1.5, 4.5))` vectors and its matrices at matplotlib's default size;
  seeds 000–002 draw nothing themselves, so their matrices get the default size too), and
* for more value ranges at several figure sizes (so that every tick space 1…9 occurs),

and records, for each, the bar's range, tick space, the visible tick values and labels and
the offset/exponent text. The seed heatmap calls it copies are in SEED_FIGURES below; the
tests read only the fixture.

Usage (a venv with tests/requirements-goldens.txt's seaborn, matplotlib and numpy):

    python3 tests/goldens/gen_colorbar_ticks.py      # writes tests/fixtures/colorbar-ticks.json
    python3 tests/goldens/gen_colorbar_ticks.py --png DIR   # also saves each seed figure as DIR/NAME.png
"""

import json
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
OUT = os.path.join(ROOT, "tests", "fixtures", "colorbar-ticks.json")
SEEDS = json.load(open(os.path.join(ROOT, "tests", "fixtures", "seed-values.json")))

DEFAULT_FIGSIZE = tuple(mpl.rcParamsDefault["figure.figsize"])  # (6.4, 4.8)


def f(v):
    return np.asarray(v, dtype=float)


def column(v):
    # seed 003: np.transpose(np.matrix(vector)), a column.
    return f(v).reshape(-1, 1)


s01, s02, s03 = SEEDS["seed_000_001"], SEEDS["seed_002"], SEEDS["seed_003"]
# (name, data, figsize, cmap): the seed documents' heatmaps and the matrices the guided page draws from them.
SEED_FIGURES = [
    # seed 003, as its text calls sns.heatmap
    ("seed-003/dec_hidden_state", column(s03["dec_hidden_state"]), (1.5, 4.5), ("light", "purple")),
    ("seed-003/annotation", column([3, 12, 45]), (1.5, 4.5), ("light", "orange")),
    ("seed-003/annotations", f(s03["annotations_rows_are_dims_columns_are_encoder_states"]), DEFAULT_FIGSIZE,
     ("light", "orange")),
    ("seed-003/applied_attention", f(s03["stable_softmax"]["applied_attention"]), DEFAULT_FIGSIZE,
     ("light", "orange")),
    ("seed-003/attention_vector", column(s03["stable_softmax"]["context_vector"]), (1.5, 4.5), ("light", "Blue")),
    # seed 003's other steps, drawn as its figures are
    ("seed-003/scores", column(s03["scores"]), (1.5, 4.5), ("light", "orange")),
    ("seed-003/weights", column(s03["stable_softmax"]["weights"]), (1.5, 4.5), ("light", "orange")),
    ("seed-003/shifted", column(s03["stable_softmax"]["shifted"]), (1.5, 4.5), ("light", "orange")),
    # seeds 000/001 and 002 (no figures of their own: matplotlib's default size)
    ("seed-001/words", f(s01["words"]), DEFAULT_FIGSIZE, None),
    ("seed-001/Q", f(s01["Q"]), DEFAULT_FIGSIZE, None),
    ("seed-001/V", f(s01["V"]), DEFAULT_FIGSIZE, None),
    ("seed-001/scores", f(s01["scores"]), DEFAULT_FIGSIZE, None),
    ("seed-001/scaled_scores", f(s01["scaled_scores"]), DEFAULT_FIGSIZE, None),
    ("seed-001/weights", f(s01["weights"]), DEFAULT_FIGSIZE, None),
    ("seed-001/attention", f(s01["attention"]), DEFAULT_FIGSIZE, None),
    ("seed-000/single_word_weights", column(SEEDS["seed_000_single_word"]["weights"]), DEFAULT_FIGSIZE, None),
    ("seed-002/input", f(s02["input"]), DEFAULT_FIGSIZE, None),
    ("seed-002/scores", f(s02["scores"]), DEFAULT_FIGSIZE, None),
    ("seed-002/weights", f(s02["weights"]), DEFAULT_FIGSIZE, None),
    ("seed-002/contexts", f(s02["contexts"]), DEFAULT_FIGSIZE, None),
]

# More ranges: signed (the diverging map), tiny and huge (ScalarFormatter's exponent),
# far from zero (its offset), constant (matplotlib's nonsingular widening).
MORE_RANGES = [
    (0.0, 1.0), (0.0, 0.8807970779778823), (1.0, 20.0), (148.0, 929.0), (-2.0, 1.5), (-1.0, 1.0),
    (-0.3, 0.25), (-781.0, 0.0), (0.0, 14.0), (0.5, 1.9040730855894112), (0.07938619265367779, 0.4597128401399005),
    (2.0, 2.0), (0.0, 0.0), (-3.0, -3.0), (1e-6, 9e-6), (0.0, 3e-5), (0.0, 2.5e6), (1e6, 1.000004e6),
    (100.0, 100.5), (-0.001, 0.0012), (3.0, 1003.0), (0.1234, 0.1236), (-7.5, 42.0), (0.0, 1e-300),
]
MORE_FIGSIZES = [(6.4, 4.8), (4, 3), (2.5, 2.2), (2, 1.6), (2, 1.2), (2, 0.9), (2, 0.7)]


def cmap_for(spec):
    if spec is None:
        return None
    kind, colour = spec
    return sns.light_palette(colour, as_cmap=True)


def draw(name, data, figsize, cmap, png_dir=None):
    fig = plt.figure(figsize=figsize)
    ax = sns.heatmap(data, annot=True, cmap=cmap, linewidths=1)
    fig.canvas.draw()
    cbar = ax.collections[0].colorbar
    yaxis = cbar.ax.yaxis
    lo, hi = yaxis.get_view_interval()
    length_pt = cbar.ax.get_window_extent().height / fig.dpi * 72
    shown = yaxis._update_ticks()  # the ticks matplotlib draws: inside the bar's range
    out = {
        "name": name,
        "figsize": list(figsize),
        "vmin": repr(float(np.nanmin(data))),
        "vmax": repr(float(np.nanmax(data))),
        "bar": [repr(float(lo)), repr(float(hi))],
        "bar_length_pt": round(float(length_pt), 3),
        "label_size_pt": float(yaxis._get_tick_label_size("y")),
        "tick_space": int(yaxis.get_tick_space()),
        "ticks": [repr(float(t.get_loc())) for t in shown],
        "labels": [t.label1.get_text() for t in shown],
        "offset_text": yaxis.get_offset_text().get_text(),
    }
    if png_dir:
        fig.savefig(os.path.join(png_dir, name.replace("/", "_") + ".png"), bbox_inches="tight")
    plt.close(fig)
    return out


def main():
    png_dir = sys.argv[sys.argv.index("--png") + 1] if "--png" in sys.argv else None
    if png_dir:
        os.makedirs(png_dir, exist_ok=True)
    seeds = [draw(n, d, size, cmap_for(c), png_dir) for n, d, size, c in SEED_FIGURES]
    more = []
    for lo, hi in MORE_RANGES:
        data = np.array([[lo, hi], [hi, lo]])
        for size in MORE_FIGSIZES:
            more.append(draw(f"range {lo!r}..{hi!r} at {size[0]}x{size[1]}", data, size, None))
    fixture = {
        "about": "The ticks and labels of seaborn's heatmap colour bar (tests/goldens/gen_colorbar_ticks.py): "
                 "for the seed documents' heatmaps at their figure sizes, and more ranges at more sizes. "
                 "tick_space = floor(bar_length_pt / (2 * label_size_pt)); matplotlib's MaxNLocator uses "
                 "clip(tick_space, 1, 9) intervals. Floats are Python reprs; labels use U+2212 for minus.",
        "versions": {"seaborn": sns.__version__, "matplotlib": mpl.__version__, "numpy": np.__version__},
        "seed_figures": seeds,
        "more": more,
    }
    with open(OUT, "w", encoding="utf-8") as fh:
        json.dump(fixture, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    print(f"wrote {OUT}: {len(seeds)} seed figures, {len(more)} more")


if __name__ == "__main__":
    main()
