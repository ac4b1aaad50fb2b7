"""Shared fixtures for the Python package's tests. They run against the installed wheel
(`make test-python` installs dist-python/attention_viz-*.whl into .venv and runs pytest here, outside
python/, so `import attention_viz` is the wheel's package, not the source tree)."""

import json
from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def load(name):
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def golden(value):
    """A fixture's value as a float array: "NaN" / "-Infinity" strings become the floats."""
    specials = {"NaN": np.nan, "nan": np.nan, "-Infinity": -np.inf, "Infinity": np.inf, "inf": np.inf}

    def conv(x):
        if isinstance(x, str):
            return specials[x] if x in specials else float(x)
        if isinstance(x, list):
            return [conv(i) for i in x]
        return x

    return np.asarray(conv(value), dtype=np.float64)


@pytest.fixture(scope="session")
def variant_goldens():
    return load("variant-goldens.json")["cases"]


@pytest.fixture(scope="session")
def seed_values():
    return load("seed-values.json")
