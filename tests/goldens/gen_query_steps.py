#!/usr/bin/env python3
"""Write tests/fixtures/numpy-query-steps.json: the single-query breakdown of
the seed documents step by step, q_i·k_j → ÷√d_k → exp → ÷Σ → weights, as
NumPy computes the stable softmax (`scipy.special.softmax` subtracts the row
maximum: e = np.exp(x - x.max()); w = e / e.sum()).

The inputs are the documents' own numbers: seed-000/001's query 0 has the
scores 8, 2, 10, 2 (document 000's `scores` for word_1) scaled by √3 (d_k = 3);
document 002's query 1 (qIndex) has its printed scores and no scaling.
They are read from tests/fixtures/seed-values.json (the documents' values).

    python3 -m pip install numpy   # tests/requirements.txt
    python3 tests/goldens/gen_query_steps.py
"""

import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SEEDS = os.path.join(ROOT, "tests", "fixtures", "seed-values.json")
OUT = os.path.join(ROOT, "tests", "fixtures", "numpy-query-steps.json")


def steps(scores, scale):
    scores = np.asarray(scores, dtype=np.float64)
    scaled = scores / scale
    e = np.exp(scaled - scaled.max())
    s = e.sum()
    return {
        "scores": [repr(float(x)) for x in scores],
        "scale": repr(float(scale)),
        "scaled": [repr(float(x)) for x in scaled],
        "exp": [repr(float(x)) for x in e],
        "sum": repr(float(s)),
        "weights": [repr(float(x)) for x in e / s],
    }


def main():
    seeds = json.load(open(SEEDS))
    single = seeds["seed_000_single_word"]
    d_k = len(single["keys"][0])
    s002 = seeds["seed_002"]
    doc = {
        "about": "stable softmax of one query's scores, step by step, by NumPy "
        + np.__version__ + "; written by tests/goldens/gen_query_steps.py",
        # seed-000 (and seed-001): query 0, scores q0·kj, scaled by √d_k.
        "seed-000": dict(steps(single["scores"], np.sqrt(d_k)), query=0),
        # seed-002: query qIndex, no projections and no scaling (the document's softmax of the scores).
        "seed-002": dict(steps(s002["single_query"]["score"], 1.0), query=s002["qIndex"]),
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(OUT)


if __name__ == "__main__":
    main()
