"""The package where its users show it: the Widget as two outputs (its view, and a picture that follows
its state), an nbconvert export of an executed notebook with the widget state stored (nbclient's default) showing
that picture offline, the widget's throttled sync, and a figure's HTML inserted with innerHTML (Gradio's gr.HTML)
or into a shadow root (Panel's HTML pane), where no script of the output runs: the element hides the picture itself.
Chromium through node's playwright-core, as tests/python/test_browser.py."""

import json
import re
import subprocess
import sys
from pathlib import Path

import anywidget  # noqa: F401 (the widget extra; tests/requirements-python.txt installs it: without it these fail)
import nbclient
import nbconvert
import nbformat
import numpy as np
import pytest

import attention_viz as av
from attention_viz import _figure
from test_browser import run_node

# node, Chromium and playwright-core, or the test fails (conftest's browser_tools).
browser = pytest.mark.usefixtures("browser_tools")


class Handle:
    def __init__(self, log):
        self.log = log

    def update(self, data, raw=False):
        self.log.append(("update", data))


@pytest.fixture
def displayed(monkeypatch):
    """IPython's display() recorded: each call's data, and display handles whose updates are recorded too."""
    import IPython.display

    log = []

    def display(data, metadata=None, raw=False, display_id=None):
        assert raw
        log.append(("display", data))
        return Handle(log) if display_id else None

    monkeypatch.setattr(IPython.display, "display", display)
    return log


def picture_tokens(html):
    """The tokens the picture's alt text names (the core's description of the figure)."""
    return re.search(r'alt="([^"]*)"', html).group(1)


def test_widget_is_its_view_and_a_picture_that_follows_it(displayed):
    w = av.Widget(embeddings=np.eye(3), tokens=["a", "b", "c"])
    w._ipython_display_()
    (_, view), (_, picture) = displayed
    assert view["application/vnd.jupyter.widget-view+json"]["model_id"] == w.model_id
    assert "text/html" not in view and len(view["text/plain"]) < 200
    assert f"attention-viz-widget-{w._uid}" in picture["text/html"] and picture["text/html"].count("<img") == 1
    assert "<script" not in picture["text/html"]
    assert "(a, b, c)" in picture_tokens(picture["text/html"])
    assert av.show(embeddings=np.eye(3), tokens=["a", "b", "c"]).picture() in picture["text/html"]
    # Set from Python: the picture is the new config's, as show() draws it.
    config = {"embeddings": np.eye(3) * 2, "tokens": ["x", "y", "z"]}
    w.config = config
    (kind, updated) = displayed[-1]
    assert kind == "update"
    assert "(x, y, z)" in picture_tokens(updated["text/html"])
    assert av.show(**config).picture() in updated["text/html"]
    # The learner's edit, as the kernel receives it: the picture follows it too.
    edited = {"embeddings": [[1, 0, 0], [0, 3, 0], [0, 0, 1]], "tokens": ["x", "y", "z"]}
    w.set_state({"config": edited})
    (kind, updated) = displayed[-1]
    assert kind == "update" and av.show(**edited).picture() in updated["text/html"]


def test_config_from_the_page_is_not_checked_again(monkeypatch):
    w = av.Widget(preset="seed-001")
    from attention_viz import _api

    def refuse(*_, **__):
        raise AssertionError("checked again")

    monkeypatch.setattr(_api, "config_of", refuse)
    edited = dict(w.config, embeddings=[[1, 0, 0], [0, 2, 0], [1, 1, 0], [0, 0, 1]])
    w.set_state({"config": edited})
    assert w.config["embeddings"][1] == [0, 2, 0]
    with pytest.raises(AssertionError, match="checked again"):
        w.config = dict(edited)  # from Python: checked


NOTEBOOK = {
    "cells": [
        {"cell_type": "code", "id": "show", "metadata": {}, "execution_count": None, "outputs": [], "source": (
            "import attention_viz as av\n"
            "w = av.Widget(embeddings=[[1, 0], [0, 1], [1, 1]], tokens=['one', 'two', 'three'])\n"
            "w"
        )},
        {"cell_type": "code", "id": "later", "metadata": {}, "execution_count": None, "outputs": [], "source": (
            "w.config = {'embeddings': [[1, 0], [0, 1], [1, 1], [2, 0]], 'tokens': ['later', 'set', 'from', 'python']}"
        )},
    ],
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    "nbformat": 4, "nbformat_minor": 5,
}

OFFLINE = """
const { browser, page, errors } = await openPage();
const asked = [];
await page.route(/^https?:/, (route) => { asked.push(route.request().url()); route.abort(); });
await page.goto(process.argv[2]);
await page.waitForFunction(() => document.querySelector('.attention-viz-widget-picture img')?.complete, null, { timeout: 600000 });
const out = await page.evaluate(() => [...document.querySelectorAll('.attention-viz-widget-picture img')].map((img) => {
  const r = img.getBoundingClientRect();
  return { width: r.width, height: r.height, natural: img.naturalWidth, alt: img.alt };
}));
await page.screenshot({ path: process.argv[3], fullPage: true });
console.log(JSON.stringify({ out, asked: asked.length }));
await browser.close();
"""


@browser
def test_nbconvert_export_with_widget_state_shows_the_current_picture_offline(tmp_path):
    nb = nbformat.from_dict(NOTEBOOK)
    # The default kernel is this interpreter's (the .venv the wheel is installed into); the widget state is stored,
    # as `jupyter nbconvert --execute` and myst-nb do by default.
    # Ten minutes to start the kernel (nbclient's default is one) and for each cell: a loaded machine is slow, not wrong.
    nbclient.NotebookClient(nb, timeout=600, startup_timeout=600, kernel_name="python3",
                            store_widget_state=True).execute()
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    outputs = nb.cells[0].outputs
    assert [o.output_type for o in outputs] == ["display_data", "display_data"]
    assert outputs[0].data["application/vnd.jupyter.widget-view+json"]["model_id"] in state
    html_out = outputs[1].data["text/html"]
    assert "later" in picture_tokens(html_out)  # the state at the end, not the one displayed first
    page, _ = nbconvert.HTMLExporter(template_name="lab").from_notebook_node(nb)
    assert 'type="application/vnd.jupyter.widget-view+json"' in page  # nbconvert chose the widget view there
    path = tmp_path / "export.html"
    path.write_text(page, encoding="utf-8")
    shot = tmp_path / "export.png"
    got = run_node(OFFLINE.replace("process.argv[2]", json.dumps(path.as_uri())).replace(
        "process.argv[3]", json.dumps(str(shot))), tmp_path)
    (img,) = got["out"]
    assert img["natural"] > 0 and img["width"] > 100 and img["height"] > 100 and "later" in img["alt"]
    assert got["asked"] > 0  # the widget manager's CDN, refused: offline, the picture is what shows


FAKE_MODEL = """<!doctype html><meta charset=utf-8><body>
<div class="attention-viz-widget-picture attention-viz-widget-%(uid)s" id="picture">picture</div>
<div id=host></div>
<script type=module>
const state = %(state)s, handlers = {};
window.saves = [];
window.sentKeys = [];  // per message to the kernel, the names the front end set since the last one
let keys = new Set();
const model = {
  get: (k) => state[k],
  set: (k, v) => { state[k] = v; keys.add(k); (handlers['change:' + k] || []).forEach((f) => f()); },
  on: (ev, f) => { (handlers[ev] ||= []).push(f); }, off: () => {},
  save_changes: () => { window.saves.push(JSON.stringify(state.config)); window.sentKeys.push([...keys].sort()); keys = new Set(); },
};
window.model = model; window.state = state;
const mod = await import('./widget.mjs');
window.dispose = mod.default.render({ model, el: document.getElementById('host') });
</script>"""

THROTTLE = """
const { server, url } = await serveDir(process.argv[2]);
const { browser, page, errors } = await openPage();
await page.goto(`${url}widget.html`);
await page.waitForFunction(() => document.querySelector('attention-viz')?.trace, null, { timeout: 600000 });
const pictureLive = await page.evaluate(() => getComputedStyle(document.getElementById('picture')).display);
// Timers stand still from here: however slow the machine, the keystrokes below come within one throttle interval.
await page.clock.install();
await page.clock.pauseAt(Date.now() + 1000);
const before = await page.evaluate(() => window.saves.length);
const cell = page.locator('attention-viz input.cell[data-matrix="embeddings"][data-row="1"][data-col="1"]');
await cell.click(); await page.keyboard.press('Control+A');
for (const key of ['1', '2', '3', '4', '5']) await page.keyboard.type(key);
const changes = await page.evaluate(() => document.querySelector('attention-viz').config.embeddings[1][1]);
const whileTyping = await page.evaluate(() => window.saves.length) - before;
await page.clock.runFor(1000);
const saves = (await page.evaluate(() => window.saves)).slice(before);
const focused = await page.evaluate(() => document.querySelector('attention-viz').shadowRoot.activeElement?.dataset?.col ?? null);
await page.evaluate(() => window.dispose());
const pictureAfter = await page.evaluate(() => getComputedStyle(document.getElementById('picture')).display);
const sentKeys = await page.evaluate(() => window.sentKeys);
console.log(JSON.stringify({ errors, pictureLive, pictureAfter, changes, whileTyping, saves: saves.map((s) => JSON.parse(s).embeddings[1]), focused, sentKeys }));
await browser.close(); server.close();
"""


@browser
def test_widget_sync_is_throttled_and_its_view_hides_the_picture(tmp_path):
    w = av.Widget(preset="seed-001", views="inputs,weights")
    (tmp_path / "widget.mjs").write_text(w._esm, encoding="utf-8")
    state = {"config": w.config, "options": w.options, "error": "", "_uid": w._uid}
    (tmp_path / "widget.html").write_text(FAKE_MODEL % {"uid": w._uid, "state": json.dumps(state)}, encoding="utf-8")
    got = run_node(THROTTLE.replace("process.argv[2]", json.dumps(str(tmp_path))), tmp_path)
    assert got["errors"] == []
    assert got["pictureLive"] == "none" and got["pictureAfter"] == "block"
    assert got["changes"] == 12345
    # Five keystrokes, five `change` events, within one interval: nothing sent while typing, then one message with
    # the last state.
    assert got["whileTyping"] == 0
    assert got["saves"] == [[0, 12345, 0]]  # row 1 of the embeddings in each message sent
    # Every message since the view opened: the config alone, no trace (Python computes it) and no first-draw report.
    assert got["sentKeys"] and all(keys == ["config"] for keys in got["sentKeys"])
    assert got["focused"] == "1"


SHADOW = """
const { server, url } = await serveDir(process.argv[2]);
const { browser, page, errors } = await openPage();
await page.goto(`${url}page.html`);
const fragments = JSON.parse(readFileSync(process.argv[2] + '/fragments.json', 'utf8'));
// Panel's HTML pane: the output's HTML as a shadow root's innerHTML; Gradio's gr.HTML: a div's innerHTML.
await page.evaluate((f) => {
  const panel = document.createElement('div');
  document.body.append(panel);
  panel.attachShadow({ mode: 'open' }).innerHTML = f.good;
  const refused = document.createElement('div');
  document.body.append(refused);
  refused.attachShadow({ mode: 'open' }).innerHTML = f.refused;
  const gradio = document.createElement('div');
  gradio.innerHTML = f.good;
  document.body.append(gradio);
  window.roots = [panel.shadowRoot, gradio, refused.shadowRoot];
}, fragments);
await page.waitForFunction(() => window.roots.slice(0, 2).every((r) => r.querySelector('attention-viz').trace)
  && window.roots[2].querySelector('attention-viz').shadowRoot?.querySelector('.status.error')?.textContent, null, { timeout: 600000 });
const pictures = await page.evaluate(() => window.roots.map((r) => getComputedStyle(r.querySelector('img.attention-viz-picture')).display));
console.log(JSON.stringify({ errors: errors.filter((e) => !e.includes('cost')), pictures }));
await browser.close(); server.close();
"""


@browser
def test_picture_gives_way_in_shadow_roots_and_innerhtml_where_no_script_runs(tmp_path):
    (tmp_path / "engine.js").write_text(_figure.build_js(), encoding="utf-8")
    (tmp_path / "page.html").write_text('<!doctype html><meta charset=utf-8><script src="engine.js"></script><body>',
                                        encoding="utf-8")
    good = av.show(preset="seed-002").to_html(script=False)
    refused = av.Figure({"embeddings": np.ones((2000, 64)).tolist()}).to_html(script=False)
    (tmp_path / "fragments.json").write_text(json.dumps({"good": good, "refused": refused}), encoding="utf-8")
    got = run_node(SHADOW.replace("process.argv[2]", json.dumps(str(tmp_path))), tmp_path)
    assert got["errors"] == []  # but the refused figure's own, about its cost
    assert got["pictures"] == ["none", "none", "block"]


def test_marimo_shows_the_page_in_its_frame(monkeypatch):
    """marimo calls ``_display_`` first: the figure's page (a standards-mode document, which marimo's frame fitting
    needs) in ``mo.iframe``. A stand-in for marimo: the package does not depend on it."""
    import types

    got = {}
    fake = types.SimpleNamespace(iframe=lambda html, **kw: got.setdefault("html", html))
    monkeypatch.setitem(sys.modules, "marimo", fake)
    fig = av.show(preset="seed-002")
    fig._display_()
    assert got["html"].startswith("<!doctype html>") and "<attention-viz " in got["html"]
    assert "frameElement" in got["html"] and "window.AttentionViz" in got["html"]


FRAME = """
const { browser, page, errors } = await openPage({ width: 800, height: 900 });
await page.goto(process.argv[2]);
const frame = page.frames()[1];
await frame.waitForFunction(() => document.querySelector('attention-viz')?.trace, null, { timeout: 600000 });
// The height settles once the figure has drawn (its canvases sized): wait for the frame to fit its page.
await page.waitForFunction(() => {
  const f = document.querySelector('iframe'), d = f.contentDocument.documentElement;
  return d.scrollHeight <= d.clientHeight && f.getBoundingClientRect().height > 500;
}, null, { timeout: 600000 }).catch(() => {});
const out = await page.evaluate(() => {
  const f = document.querySelector('iframe'), d = f.contentDocument.documentElement;
  return { frame: f.getBoundingClientRect().height, content: d.scrollHeight, client: d.clientHeight,
           figure: f.contentDocument.querySelector('attention-viz').getBoundingClientRect().height };
});
console.log(JSON.stringify({ errors, out }));
await browser.close();
"""


@browser
def test_page_fits_its_frame(tmp_path):
    """Streamlit's components.html and marimo's mo.iframe: a same-origin frame of a fixed height (400 px, marimo's
    default) around fig.page() becomes as tall as the figure, with no scrollbar inside."""
    import html as html_lib

    page = av.show(preset="seed-002").page()
    host = tmp_path / "host.html"
    host.write_text('<!doctype html><meta charset=utf-8><body><iframe style="width:100%%;border:0" height="400" '
                    'srcdoc="%s"></iframe>' % html_lib.escape(page, quote=True), encoding="utf-8")
    got = run_node(FRAME.replace("process.argv[2]", json.dumps(host.as_uri())), tmp_path)
    assert got["errors"] == []
    out = got["out"]
    assert out["figure"] > 400 and out["frame"] >= out["figure"]
    assert out["content"] <= out["client"]  # nothing hidden below the frame's edge


def test_streamlit_figure_mounts_a_v2_component_once(monkeypatch):
    """A stand-in for Streamlit (the package does not depend on it): ``attention_viz.streamlit.figure`` registers one
    components-v2 component whose code is the engine and the mount, and mounts each figure with its HTML."""
    import types

    from attention_viz import streamlit as avst

    registered, mounted = [], []

    def component(name, js=None, **kw):
        registered.append((name, js))
        return lambda data=None, key=None: mounted.append((data, key))

    fake = types.SimpleNamespace(components=types.SimpleNamespace(v2=types.SimpleNamespace(component=component)))
    monkeypatch.setitem(sys.modules, "streamlit", fake)
    monkeypatch.setattr(avst, "_component", [None])
    avst.figure(av.show(preset="seed-002"))
    avst.figure(av.show(preset="seed-003"), key="b")
    assert len(registered) == 1 and registered[0][1] == avst.component_js()
    assert [k for _, k in mounted] == [None, "b"] and all("<attention-viz " in d["html"] for d, _ in mounted)


MOUNT = """
const { server, url } = await serveDir(process.argv[2]);
const { browser, page, errors } = await openPage({ width: 700, height: 900 });
await page.goto(`${url}page.html`);
await page.waitForFunction(() => window.root?.querySelector('attention-viz')?.trace, null, { timeout: 600000 });
const out = await page.evaluate(async () => {
  const el = window.root.querySelector('attention-viz');
  const first = el;
  await window.mount();  // Streamlit's rerun: the same HTML keeps the figure
  return { picture: getComputedStyle(window.root.querySelector('img.attention-viz-picture')).display,
           kept: window.root.querySelector('attention-viz') === first,
           height: window.host.getBoundingClientRect().height, after: document.getElementById('after').getBoundingClientRect().top };
});
console.log(JSON.stringify({ errors, out }));
await browser.close(); server.close();
"""


@browser
def test_streamlit_component_draws_in_a_shadow_root(tmp_path):
    """The component's code as Streamlit runs it: its default export called with a shadow root and the data."""
    from attention_viz import streamlit as avst

    (tmp_path / "component.mjs").write_text(avst.component_js(), encoding="utf-8")
    html = av.show(preset="seed-002").to_html(script=False)
    (tmp_path / "page.html").write_text("""<!doctype html><meta charset=utf-8><body><div id=host></div><p id=after>after</p>
<script type=module>
const mod = await import('./component.mjs');
window.host = document.getElementById('host');
window.root = window.host.attachShadow({ mode: 'open' });
window.mount = () => mod.default({ parentElement: window.root, data: { html: %s } });
window.mount();
</script>""" % json.dumps(html).replace("</", "<\\/"), encoding="utf-8")
    got = run_node(MOUNT.replace("process.argv[2]", json.dumps(str(tmp_path))), tmp_path)
    assert got["errors"] == []
    out = got["out"]
    assert out["picture"] == "none" and out["kept"] is True
    assert out["height"] > 900 and out["after"] >= out["height"]  # as tall as the figure, in the page's flow
