"""Assembles the Python package's build inputs, then builds the wheel (`make wheel`).

Copies the single-file build dist/attention-viz.inline.js into python/attention_viz/static/, and its .wasm (the core
with every export: Python runs it through wasmtime, python/attention_viz/_core.py; the module build's
dist/pkg/attention_viz_bg.wasm leaves out the `av_*` exports only Python calls) as static/attention_viz_bg.wasm,
writes the engine the HTML outputs carry (static/attention-viz.engine.js: that build deflated, scripts/python-assets.mjs),
then runs
`python -m build --wheel --no-isolation python --outdir dist-python` (not dist/: that folder is the npm package, and
everything in it would be published). Run with the .venv's Python from the repo root.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
static = root / "python" / "attention_viz" / "static"
build = root / "dist" / "attention-viz.inline.js"

for need in (build,):
    if not need.is_file():
        sys.exit(f"wheel: {need.relative_to(root)} is missing: run `make dist` first")
static.mkdir(parents=True, exist_ok=True)
shutil.copyfile(build, static / "attention-viz.inline.js")
# The notebooks' engine: the same build, its .wasm and text deflated; its .wasm, the core Python runs
# (scripts/python-assets.mjs).
engine = subprocess.run(["node", str(root / "scripts" / "python-assets.mjs"), str(build), str(static / "attention-viz.engine.js"),
                         str(static / "attention_viz_bg.wasm")],
                        cwd=root, capture_output=True, text=True)
if engine.returncode:
    sys.exit(f"wheel: scripts/python-assets.mjs failed:\n{engine.stdout}{engine.stderr}")
print(engine.stdout.strip())
(static / "assets.json").unlink(missing_ok=True)  # what older builds wrote: the core now answers at run time
shutil.copyfile(root / "LICENSE", root / "python" / "LICENSE")  # the wheel's licence file (git-ignored copy)


version = re.search(r'(?m)^version = "([^"]+)"', (root / "Cargo.toml").read_text()).group(1)
wheel = root / "dist-python" / f"attention_viz-{version}-py3-none-any.whl"
wheel.unlink(missing_ok=True)
done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "python", "--outdir", "dist-python"],
                      cwd=root, capture_output=True, text=True)
if done.returncode:
    sys.exit(f"wheel: python -m build failed:\n{done.stdout}{done.stderr}")
# build leaves its scratch in python/build/; the wheel is all we want.
shutil.rmtree(root / "python" / "build", ignore_errors=True)
if not wheel.is_file():
    sys.exit(f"wheel: expected {wheel.relative_to(root)}, not built")
print(f"wheel: {wheel.relative_to(root)} ({wheel.stat().st_size // 1024} KB)")
