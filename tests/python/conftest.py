"""Shared fixtures for the Python package's tests. They run against the installed wheel
(`make test-python` installs dist-python/attention_viz-*.whl into .venv and runs pytest here, outside
python/, so `import attention_viz` is the wheel's package, not the source tree)."""

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
# What the browser tests drive: Debian's chromium through node and the repo's playwright-core.
PLAYWRIGHT = ROOT / "node_modules" / "playwright-core" / "index.mjs"
CHROMIUM = shutil.which("chromium")


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
def browser_tools():
    """node, Chromium and playwright-core, or the test fails: `make test-python` installs them (its `make dist` runs
    `scripts/setup.sh test`), so one missing is a broken setup, not a reason to skip. A skip must be asked for by
    name, as the native tests' NumPy comparisons are: ATTENTION_VIZ_SKIP=browser (a comma-separated list)."""
    missing = [name for name, there in (("node", shutil.which("node")), ("chromium", CHROMIUM),
                                        ("node_modules/playwright-core", PLAYWRIGHT.exists())) if not there]
    if not missing:
        return
    if "browser" in [s.strip() for s in os.environ.get("ATTENTION_VIZ_SKIP", "").split(",")]:
        pytest.skip(f"skipped by ATTENTION_VIZ_SKIP=browser: this test needs {', '.join(missing)}")
    pytest.fail(f"the browser tests need {', '.join(missing)}: run scripts/setup.sh test, or set "
                "ATTENTION_VIZ_SKIP=browser to skip them on purpose", pytrace=False)


@pytest.fixture(scope="session")
def variant_goldens():
    return load("variant-goldens.json")["cases"]


@pytest.fixture(scope="session")
def seed_values():
    return load("seed-values.json")
