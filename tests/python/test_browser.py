"""The package's HTML in headless Chromium (playwright-core from the repo's node_modules, Debian's chromium):
a save_html page draws the live figure with no console errors and hides the picture; a figure the page refuses
keeps its picture; the Widget's front end (its _esm, with a stand-in for anywidget's model) sends the learner's
typed edit back (the config alone: Python computes the trace) and follows a config set from Python; an overview
widget (a stack over the core's limit) asks Python for the head clicked. Without node, Chromium or playwright-core they fail
(conftest's browser_tools)."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import attention_viz as av

from conftest import CHROMIUM, PLAYWRIGHT

pytestmark = pytest.mark.usefixtures("browser_tools")


# What every script below starts with: `openPage(viewport)` gives Chromium with one page whose console errors and
# uncaught errors collect in `errors`, and whose every wait (navigation, clicks, waitForFunction without its own
# timeout) lasts up to 10 minutes: a loaded machine is slow, not wrong; `serveDir(dir)` serves a folder over HTTP
# (scripts as JavaScript). `frames()` resolves after two animation frames: whatever the element painted in one is on
# the page.
PRELUDE = """
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
async function openPage(viewport = { width: 1280, height: 900 }) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'], timeout: 600000 });
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(600000);
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return { browser, page, errors };
}
async function serveDir(dir) {
  const server = createServer((req, res) => {
    if (req.url === '/favicon.ico') { res.statusCode = 204; res.end(); return; }
    try { res.setHeader('content-type', /\\.m?js$/.test(req.url) ? 'text/javascript' : 'text/html'); res.end(readFileSync(dir + req.url)); }
    catch { res.statusCode = 404; res.end(); }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { server, url: `http://127.0.0.1:${server.address().port}/` };
}
const frames = (page) => page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
"""


def run_node(script: str, tmp_path: Path) -> dict:
    path = tmp_path / "check.mjs"
    path.write_text(f"import {{ chromium }} from {json.dumps(PLAYWRIGHT.as_uri())};\n"
                    f"const CHROMIUM = {json.dumps(CHROMIUM)};\n" + PRELUDE + script, encoding="utf-8")
    out = subprocess.run(["node", str(path)], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


PAGE = """
const { browser, page, errors } = await openPage();
await page.goto(process.argv[2]);
await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')].every((e) => e.trace), null, { timeout: 600000 });
await frames(page);
const out = await page.evaluate(() => [...document.querySelectorAll('.attention-viz-output')].map((r) => ({
  picture: getComputedStyle(r.querySelector('img')).display,
  mechanism: r.querySelector('attention-viz').config?.mechanism ?? null,
  weights: r.querySelector('attention-viz').trace?.weights ?? null,
  status: r.querySelector('attention-viz').shadowRoot?.textContent?.includes('unknown config field') ?? false,
})));
console.log(JSON.stringify({ errors, out }));
await browser.close();
"""


def test_saved_page_draws_live_and_hides_the_picture(tmp_path, seed_values):
    path = av.show(preset="seed-001", tokens=["</script><b>", "a", "b", "c"]).save_html(tmp_path / "fig.html")
    script = PAGE.replace("process.argv[2]", json.dumps(Path(path).as_uri()))
    got = run_node(script, tmp_path)
    assert got["errors"] == []
    (fig,) = got["out"]
    assert fig["picture"] == "none" and fig["mechanism"] == "self"
    np.testing.assert_allclose(fig["weights"], seed_values["seed_000_001"]["weights"], rtol=1e-12)


MODEL_LEFT_OUT = """
const { browser, page, errors } = await openPage();
await page.goto(process.argv[2]);
await page.waitForFunction(() => document.querySelector('attention-viz')?.trace, null, { timeout: 600000 });
const said = await page.evaluate(() => new Promise((ok) => {
  const el = document.createElement('attention-viz');
  el.addEventListener('error', (e) => ok(e.detail.message));
  el.addEventListener('change', () => ok('shown'));
  el.setAttribute('config', JSON.stringify({ mechanism: 'model', model: 'reversal', input: [1, 2, 3, 4, 5, 6] }));
  document.body.append(el);
}));
console.log(JSON.stringify({ errors, said }));
await browser.close();
"""


def test_the_engine_leaves_the_trained_models_out_and_says_so(tmp_path):
    # Python refuses a trained model's config, so its engine carries no models' file (117 KB of every notebook): an
    # element a page adds by hand for one says why it cannot show it.
    path = av.show(preset="seed-001").save_html(tmp_path / "fig.html")
    got = run_node(MODEL_LEFT_OUT.replace("process.argv[2]", json.dumps(Path(path).as_uri())), tmp_path)
    assert got["errors"] == []
    assert got["said"] == ("model: the shipped model \"reversal\" could not be loaded: the notebooks' engine leaves them out "
                           "(Python's figures never show one): load attention-viz.inline.js, which has them, for a "
                           "figure of a trained model")


def test_refused_config_keeps_the_picture(tmp_path):
    # Valid for Python, refused by the page: a config the core's cost limit turns down.
    x = np.ones((2000, 64))
    fig = av.Figure({"embeddings": x.tolist()})
    path = fig.save_html(tmp_path / "big.html")
    script = PAGE.replace("process.argv[2]", json.dumps(Path(path).as_uri())).replace(
        "await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')].every((e) => e.trace), null, { timeout: 600000 });",
        # Refused, the figure draws nothing (no other figure's numbers either): wait for its message.
        "await page.waitForFunction(() => window.AttentionViz && document.querySelector('attention-viz')"
        ".shadowRoot?.querySelector('.status.error')?.textContent, null, { timeout: 600000 });")
    got = run_node(script, tmp_path)
    (out,) = got["out"]
    assert out["picture"] == "block"


WIDGET = """
const { server, url } = await serveDir(process.argv[2]);
const { browser, page, errors } = await openPage();
await page.goto(`${url}widget.html`);
await page.waitForFunction(() => document.querySelector('attention-viz')?.trace, null, { timeout: 600000 });
// A moment for anything the front end would send once the figure has drawn (it sends nothing until an edit).
await page.waitForTimeout(500);
const cell = page.locator('attention-viz input.cell[data-matrix="embeddings"][data-row="1"][data-col="1"]');
await cell.click(); await page.keyboard.press('Control+A'); await page.keyboard.type('5');
await page.waitForFunction(() => window.state.config.embeddings[1][1] === 5, null, { timeout: 600000 });
const edited = await page.evaluate(() => ({ config: window.state.config, weights: document.querySelector('attention-viz').trace.weights }));
await page.evaluate(() => window.fromKernel('config', { embeddings: [[1, 2], [3, 4]], tokens: ['x', 'y'] }));
await page.waitForFunction(() => document.querySelector('attention-viz').config.tokens[0] === 'x', null, { timeout: 600000 });
const fromPython = await page.evaluate(() => ({ shown: document.querySelector('attention-viz').config.embeddings }));
await page.evaluate(() => window.fromKernel('config', { embeddings: [[1, 2], [3]] }));
await page.waitForFunction(() => window.state.error, null, { timeout: 600000 });
const error = await page.evaluate(() => window.state.error);
const messages = await page.evaluate(() => window.messages);
console.log(JSON.stringify({ errors, edited, fromPython, error, messages }));
await browser.close(); server.close();
"""


def test_widget_front_end_round_trip(tmp_path, seed_values):
    w = av.Widget(preset="seed-001", views="inputs,weights,context")
    (tmp_path / "widget.mjs").write_text(w._esm, encoding="utf-8")
    state = {"config": w.config, "options": w.options, "error": ""}
    (tmp_path / "widget.html").write_text("""<!doctype html><meta charset=utf-8><body><div id=host></div>
<script type=module>
// anywidget's model, stood in for: what the front end sets is held until save_changes() sends it to the kernel as
// one message (window.messages); fromKernel is a change from Python.
const state = %s, handlers = {};
let pending = {};
window.messages = [];
const changed = (k) => (handlers['change:' + k] || []).forEach((f) => f());
const model = {
  get: (k) => state[k],
  set: (k, v) => { state[k] = v; pending[k] = v; changed(k); },
  on: (ev, f) => { (handlers[ev] ||= []).push(f); }, off: () => {},
  save_changes: () => { window.messages.push(JSON.parse(JSON.stringify(pending))); pending = {}; },
};
window.fromKernel = (k, v) => { state[k] = v; changed(k); };
window.model = model; window.state = state;
const mod = await import('./widget.mjs');
mod.default.render({ model, el: document.getElementById('host') });
</script>""" % json.dumps(state), encoding="utf-8")
    got = run_node(WIDGET.replace("process.argv[2]", json.dumps(str(tmp_path))), tmp_path)
    assert got["errors"] == []
    assert got["edited"]["config"]["embeddings"][1] == [0, 5, 0]
    # The messages to the kernel carry the config and the page's error message, never a trace.
    messages = got["messages"]
    assert any("config" in m for m in messages) and any("error" in m for m in messages)
    assert [sorted(set(m) - {"config", "error"}) for m in messages] == [[]] * len(messages)
    # The page's weights and Python's for the edited config are what NumPy gives for it: softmax(Q·Kᵀ / √d_k), the
    # seed document's inputs (tests/fixtures/seed-values.json) with the typed 5.
    s = seed_values["seed_000_001"]
    x = np.array(s["words"], dtype=np.float64)
    x[1, 1] = 5
    q, k = x @ np.array(s["W_Q"], dtype=np.float64), x @ np.array(s["W_K"], dtype=np.float64)
    scaled = q @ k.T / np.sqrt(q.shape[1])
    want = np.exp(scaled - scaled.max(1, keepdims=True))
    want /= want.sum(1, keepdims=True)
    np.testing.assert_allclose(got["edited"]["weights"], want, rtol=1e-12)
    assert got["fromPython"]["shown"] == [[1, 2], [3, 4]]
    assert "row 1 has 1 value" in got["error"]
    # What the front end sent before Python's configs, applied in Python as the kernel would.
    for message in messages:
        if "config" in message and message["config"]["embeddings"][1] == [0, 5, 0]:
            w.set_state(message)
    assert w.config["embeddings"][1] == [0, 5, 0]
    np.testing.assert_allclose(w.trace["weights"], want, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_show_attention_draws_live(tmp_path, dtype):
    # 864 values: the attribute carries them as float32 or float64 bytes, byte-grouped, deflated and text85 (a causal
    # stack's zeros deflate), which the element decodes: float32 into their shortest decimals, float64 as they are.
    a = np.tril(np.random.default_rng(5).random((2, 3, 12, 12))).astype(dtype)
    a /= a.sum(-1, keepdims=True)
    tokens = "the cat sat on the mat and the dog lay by it".split()
    path = av.show_attention(a, tokens=tokens, layer=1, head=2).save_html(tmp_path / "w.html")
    assert f'&quot;dtype&quot;:&quot;{dtype}&quot;' in Path(path).read_text(encoding="utf-8")
    assert '&quot;deflate&quot;:true' in Path(path).read_text(encoding="utf-8")
    assert '&quot;text85&quot;:&quot;' in Path(path).read_text(encoding="utf-8")
    script = PAGE.replace("process.argv[2]", json.dumps(Path(path).as_uri())).replace(
        "weights: r.querySelector('attention-viz').trace?.weights ?? null",
        "weights: r.querySelector('attention-viz').trace.attention")
    got = run_node(script, tmp_path)
    assert got["errors"] == []
    (fig,) = got["out"]
    assert fig["picture"] == "none" and fig["mechanism"] == "weights"
    np.testing.assert_array_equal(fig["weights"], a.astype(str).astype(np.float64) if dtype == "float32" else a)  # bit for bit


OVERVIEW = """
const { server, url } = await serveDir(process.argv[2]);
const { browser, page, errors } = await openPage();
await page.goto(`${url}widget.html`);
await page.waitForFunction(() => document.querySelector('attention-viz')?.trace, null, { timeout: 600000 });
const shown = await page.evaluate(() => document.querySelector('attention-viz').trace.attention.length);
await page.locator('.attention-viz-overview [data-layer="1"][data-head="2"]').click();
await page.waitForFunction(() => window.sent.length > 0, null, { timeout: 600000 });
// Python's answer: the head's config (its weights as packed bytes), then the overview.
const first = await page.evaluate(() => document.querySelector('attention-viz').trace.attention[0][0][0][0]);
await page.evaluate((config) => window.fromKernel('config', config), process.argv[4]);
await page.waitForFunction((x) => document.querySelector('attention-viz').trace?.attention[0][0][0][0] !== x, first, { timeout: 600000 });
await page.evaluate((svg) => window.fromKernel('overview', svg), process.argv[3]);
await page.waitForTimeout(1000); // what the front end would send back meanwhile (the head is Python's: nothing)
const outlined = await page.evaluate(() => document.querySelector('.attention-viz-overview svg title').textContent);
const drawn = await page.evaluate(() => document.querySelector('attention-viz').trace.attention[0][0]);
const sent = await page.evaluate(() => window.sent);
const set = await page.evaluate(() => window.set);
console.log(JSON.stringify({ errors, shown, sent, outlined, drawn, set }));
await browser.close(); server.close();
"""


def test_widget_overview_click_asks_python_for_that_head(tmp_path):
    # A stack over the core's limit with small heads (32 × 64 heads of 65 × 65: 8.65 M values), so the page stays light.
    a = np.random.default_rng(2).random((32, 64, 65, 65), dtype=np.float32)
    a /= a.sum(-1, keepdims=True)
    w = av.Widget(attention=a, layer=3, head=4)
    (tmp_path / "widget.mjs").write_text(w._esm, encoding="utf-8")
    state = {"config": w.config, "options": w.options, "error": "", "overview": w.overview}
    (tmp_path / "widget.html").write_text("""<!doctype html><meta charset=utf-8><body><div id=host></div>
<script type=module>
// anywidget's model, stood in for: send() is a custom message to the kernel (window.sent); set() a change for it
// (window.set, the names).
const state = %s, handlers = {};
window.sent = [];
window.set = [];
const changed = (k) => (handlers['change:' + k] || []).forEach((f) => f());
const model = {
  get: (k) => state[k], set: (k, v) => { window.set.push(k); state[k] = v; changed(k); }, save_changes: () => {},
  on: (ev, f) => { (handlers[ev] ||= []).push(f); }, off: () => {}, send: (m) => window.sent.push(m),
};
window.fromKernel = (k, v) => { state[k] = v; changed(k); };
const mod = await import('./widget.mjs');
mod.default.render({ model, el: document.getElementById('host') });
</script>""" % json.dumps(state), encoding="utf-8")
    picked = av.Widget(attention=a, layer=1, head=2)
    packed = picked.get_state()["config"]  # what ipywidgets sends the page after the pick: the head's float32 bytes
    assert packed["attention"]["dtype"] == "float32"
    script = OVERVIEW.replace("process.argv[2]", json.dumps(str(tmp_path))).replace(
        "process.argv[3]", json.dumps(picked.overview)).replace("process.argv[4]", json.dumps(packed))
    got = run_node(script, tmp_path)
    assert got["errors"] == []
    assert got["shown"] == 1  # the one head drawn in full: a one-layer stack
    assert got["sent"] == [{"pick": [1, 2]}]
    assert "layer 1, head 2 is drawn in full" in got["outlined"]  # the overview Python sent back replaced the old
    # The page drew the picked head from its bytes: the float32 weights' shortest decimals, NumPy's str of each.
    np.testing.assert_array_equal(got["drawn"], a[1, 2].astype(str).astype(np.float64))
    assert got["set"] == []  # and sent nothing back: the config is Python's
    w._on_message(w, got["sent"][0], [])
    np.testing.assert_array_equal(np.asarray(w.config["attention"], dtype=np.float32)[0, 0], a[1, 2])
