"""Executes a notebook with nbclient and converts it with nbconvert, as tests/e2e/notebook.test.mjs needs it.

    python execute.py NOTEBOOK OUT_DIR --site SITE_PACKAGES

The kernel is this interpreter's ipykernel (the test runs .venv/bin/python, which has ipykernel and anywidget)
with SITE_PACKAGES first on its path: the site-packages of the fresh virtual environment the wheel was
installed into, so `import attention_viz` is the installed wheel, not a source tree. The kernelspec is written
under OUT_DIR and found through JUPYTER_PATH, so nothing outside OUT_DIR changes.

Writes to OUT_DIR: executed.ipynb, live.html (nbconvert's lab template), sanitized.html (the same with
--HTMLExporter.sanitize_html=True, what nbviewer-like services do) and dark.html (--HTMLExporter.theme=dark). Widget state is not stored
(store_widget_state=False): with it, nbconvert's page would load the widget manager from a CDN.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

KERNEL = "attention-viz-test"


def write_kernelspec(out: Path, site: str) -> None:
    spec = out / "kernels" / KERNEL
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "attention-viz test (wheel)",
        "language": "python",
        "env": {"PYTHONPATH": site, "PYTHONNOUSERSITE": "1"},
    }))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("notebook")
    parser.add_argument("out")
    parser.add_argument("--site", required=True)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_kernelspec(out, args.site)
    os.environ["JUPYTER_PATH"] = str(out)

    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    nb = nbformat.read(args.notebook, as_version=4)
    started = time.monotonic()
    # startup_timeout: nbclient gives the kernel one minute to start by default, too short on a loaded machine.
    NotebookClient(nb, kernel_name=KERNEL, timeout=900, startup_timeout=900, store_widget_state=False,
                   resources={"metadata": {"path": str(out)}}).execute()
    executed = time.monotonic() - started
    nbformat.write(nb, out / "executed.ipynb")

    started = time.monotonic()
    resources = {"metadata": {"name": "attention-viz notebook"}}
    live, _ = HTMLExporter(template_name="lab").from_notebook_node(nb, resources=dict(resources))
    (out / "live.html").write_text(live, encoding="utf-8")
    sanitized, _ = HTMLExporter(template_name="lab", sanitize_html=True).from_notebook_node(nb, resources=dict(resources))
    (out / "sanitized.html").write_text(sanitized, encoding="utf-8")
    dark, _ = HTMLExporter(template_name="lab", theme="dark").from_notebook_node(nb, resources=dict(resources))
    (out / "dark.html").write_text(dark, encoding="utf-8")
    print(json.dumps({"execute_s": round(executed, 2), "convert_s": round(time.monotonic() - started, 2)}))


if __name__ == "__main__":
    main()
