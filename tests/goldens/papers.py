"""The papers' position formulas (and the masked softmax) in float64 NumPy, shared by the golden generators (gen_modern_goldens.py,
gen_chapters.py, gen_variant_goldens.py): one transcription of each, so the fixtures cannot disagree on a formula."""

import math

import numpy as np

F64 = np.float64


def sinusoidal(n, d, base):
    """Vaswani et al. 2017 §3.5: PE[p, 2i] = sin(p / base^(2i/d)), PE[p, 2i+1] = cos(p / base^(2i/d))."""
    pe = np.zeros((n, d))
    for p in range(n):
        for j in range(d):
            angle = p / base ** (2 * (j // 2) / d)
            pe[p, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return pe


def sinusoidal_annotated(n, d, base):
    """The Annotated Transformer's form (exp of a log), for the cross-check."""
    pe = np.zeros((n, d))
    position = np.arange(n)[:, None].astype(F64)
    div_term = np.exp(np.arange(0, d, 2) * -(math.log(base) / d))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term[: d // 2])
    return pe


def alibi_bias(n, slope):
    """Press et al. 2022: −m·|i − j|."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return -slope * np.abs(i - j).astype(F64)


def softmax_rows(scaled, attended, masked_row="zero"):
    """The row softmax over the attended keys only (the stable form: the row's maximum subtracted). A row with no key
    attended is zeros, uniform (1 / m) or NaN, as `masked_row` ("zero", "uniform", "nan") says."""
    n, m = scaled.shape
    weights = np.zeros((n, m))
    for i in range(n):
        keys = attended[i]
        if keys.any():
            x = scaled[i, keys]
            e = np.exp(x - x.max())
            weights[i, keys] = e / e.sum()
        elif masked_row == "zero":
            weights[i, :] = 0.0
        elif masked_row == "uniform":
            weights[i, :] = 1.0 / m
        elif masked_row == "nan":
            weights[i, :] = np.nan
        else:
            raise ValueError(masked_row)
    return weights
