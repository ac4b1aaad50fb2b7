#!/usr/bin/env python3
"""The NumPy/SciPy side of the "numpy" benchmark suite (bench/numpy.mjs).

For each n it draws the inputs with the legacy seeded generator

    np.random.seed(0); X = randn(n, d); W_Q = randn(d, d); W_K = randn(d, d); W_V = randn(d, d)

and times, in float64 on this machine,

    Q = X @ W_Q; K = X @ W_K; V = X @ W_V
    S = Q @ K.T / sqrt(d_k)          # / 8 for d_k = 64
    W = scipy.special.softmax(S, axis=1)
    C = W @ V

with time.perf_counter, one call per sample, after a few untimed calls. The
number of samples is chosen so each n takes about --budget seconds (at least
--min-repeats, at most --max-repeats). Prints one JSON document on stdout:
the timings, the inputs (so the page computes on exactly the same numbers; a
float's repr round-trips exactly through JSON), and a few values of C for the
page to check its own result against.

Usage: python3 bench/numpy_compute.py [--sizes 4,64,256,512,1024] [--d 64] [--budget 1.0] [--no-inputs]
(bench/numpy.mjs runs it twice: as is, and with OPENBLAS_NUM_THREADS=1 --no-inputs.)
"""
import argparse
import json
import math
import os
import platform
import sys
import time

import numpy as np
import scipy
import scipy.special


def inputs(n, d, seed=0):
    np.random.seed(seed)
    X = np.random.randn(n, d)
    W_Q = np.random.randn(d, d)
    W_K = np.random.randn(d, d)
    W_V = np.random.randn(d, d)
    return X, W_Q, W_K, W_V


def attention(X, W_Q, W_K, W_V):
    Q = X @ W_Q
    K = X @ W_K
    V = X @ W_V
    S = Q @ K.T / math.sqrt(K.shape[1])
    W = scipy.special.softmax(S, axis=1)
    return W @ V


def percentile(xs, p):
    """Nearest rank, as bench/heatmap.mjs computes it."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, math.ceil(p / 100 * len(s)) - 1))]


def bench(n, d, budget, min_repeats, max_repeats, warmup, with_inputs=True):
    X, W_Q, W_K, W_V = inputs(n, d)
    warm = []
    for _ in range(max(1, warmup)):
        t0 = time.perf_counter()
        C = attention(X, W_Q, W_K, W_V)
        warm.append(time.perf_counter() - t0)
    once = min(warm)  # the first calls can be slow (BLAS threads starting): calibrate on the fastest
    repeats = int(min(max_repeats, max(min_repeats, budget / max(once, 1e-9))))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        attention(X, W_Q, W_K, W_V)
        times.append((time.perf_counter() - t0) * 1e3)
    case = {
        'n': n,
        'd': d,
        'repeats': repeats,
        'median_ms': float(np.median(times)),
        'p90_ms': percentile(times, 90),
        'min_ms': min(times),
        'samples_ms': times,
    }
    if with_inputs:
        case['inputs'] = {'embeddings': X.tolist(), 'w_q': W_Q.tolist(), 'w_k': W_K.tolist(), 'w_v': W_V.tolist()}
        case['check'] = {'context_first_row': C[0].tolist(), 'context_last_row': C[-1].tolist(),
                         'context_abs_sum': float(np.abs(C).sum())}
    return case


def blas_name():
    try:
        cfg = np.show_config(mode='dicts')
        blas = cfg['Build Dependencies']['blas']
        return f"{blas.get('name')} {blas.get('version')}"
    except Exception:  # the config layout is not a stable API
        return 'unknown'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--sizes', default='4,64,256,512,1024')
    ap.add_argument('--d', type=int, default=64)
    ap.add_argument('--budget', type=float, default=1.0, help='seconds of timed calls per n (about)')
    ap.add_argument('--min-repeats', type=int, default=30)
    ap.add_argument('--max-repeats', type=int, default=5000)
    ap.add_argument('--warmup', type=int, default=5)
    ap.add_argument('--no-inputs', action='store_true', help='leave the inputs and the check values out of the output')
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(',') if s]
    cases = [bench(n, args.d, args.budget, args.min_repeats, args.max_repeats, args.warmup, not args.no_inputs)
             for n in sizes]
    threads = {k: os.environ[k] for k in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS') if k in os.environ}
    env = {'python': platform.python_version(), 'numpy': np.__version__, 'scipy': scipy.__version__,
           'blas': blas_name(), 'cpus': os.cpu_count(), 'thread_env': threads,
           'loadavg': list(os.getloadavg()) if hasattr(os, 'getloadavg') else None}
    json.dump({'env': env, 'cases': cases}, sys.stdout)


if __name__ == '__main__':
    main()
