"""Golden values for `mechanism: "weights"` (a model's attention): per-head summaries
computed with NumPy straight from their definitions, loop by loop, for stacks drawn with
np.random (softmax of random scores, some rows masked to zero, some rows not normalised).

    python3 tests/goldens/gen_weights_goldens.py > tests/fixtures/weights-goldens.json

Definitions (README "mechanism: weights"): for each head, over its queries i whose weights
sum to more than 0, with p = w_i / sum(w_i):
  entropy  = mean_i  -sum_j p_ij log2 p_ij          (0 log 0 = 0)
  distance = mean_i   sum_j p_ij |i - j|
  first    = mean_i   p_i0
  previous = mean over queries i >= 1 (with i - 1 < m) of p_i,i-1
  row_sum_error = max_i |sum_j w_ij - 1|            (over every query)
"""
import json
import sys

import numpy as np


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def summaries(stack):
    layers, heads, n, m = stack.shape
    out = {k: np.zeros((layers, heads)) for k in ["entropy", "distance", "previous", "first", "row_sum_error"]}
    for l in range(layers):
        for h in range(heads):
            w = stack[l, h]
            ent, dist, first, prev = [], [], [], []
            out["row_sum_error"][l, h] = max(abs(w[i].sum() - 1.0) for i in range(n))
            for i in range(n):
                s = w[i].sum()
                if s <= 0:
                    continue
                p = w[i] / s
                ent.append(-sum(x * np.log2(x) for x in p if x > 0))
                dist.append(sum(p[j] * abs(i - j) for j in range(m)))
                first.append(p[0])
                if i >= 1 and i - 1 < m:
                    prev.append(p[i - 1])
            for key, vals in [("entropy", ent), ("distance", dist), ("first", first), ("previous", prev)]:
                out[key][l, h] = np.mean(vals) if vals else 0.0
    return {k: v.tolist() for k, v in out.items()}


def case(name, given, stack):
    return {"name": name, "attention": given.tolist(), "shape": list(stack.shape), "summary": summaries(stack)}


def main():
    rng = np.random.RandomState(7)
    cases = []
    a = softmax(rng.randn(5, 5) * 2)
    cases.append(case("2-D 5 × 5", a, a[None, None]))
    b = softmax(rng.randn(3, 4, 4) * 3)
    cases.append(case("3-D 3 heads × 4 × 4", b, b[None]))
    c = softmax(rng.randn(2, 3, 6, 6))
    causal = np.tril(np.ones((6, 6)))
    c = c * causal
    c = c / c.sum(-1, keepdims=True)
    cases.append(case("4-D 2 layers × 3 heads, causal", c, c))
    d = softmax(rng.randn(1, 2, 3, 7))
    cases.append(case("4-D cross 3 queries × 7 keys", d, d))
    e = softmax(rng.randn(2, 4, 4))
    e[0, 2, :] = 0.0  # a fully masked query: zeros
    e[1] *= 0.5  # rows that do not sum to 1
    cases.append(case("3-D zero row and unnormalised head", e, e[None]))
    f = np.eye(4)[::-1].copy()  # one-hot: entropy 0 exactly
    cases.append(case("2-D anti-diagonal one-hot", f, f[None, None]))
    json.dump({"generator": "tests/goldens/gen_weights_goldens.py", "numpy": np.__version__, "cases": cases}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
