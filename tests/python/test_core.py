"""Python runs the Rust core (the page's own .wasm, through wasmtime): what Python says and draws is what the page
says and draws. The page's side is asked in headless Chromium, through the public API of the single-file build the
wheel carries (``AttentionViz.compute``, ``checkPalette``) and the live element's canvas pixels; the refused configs'
messages are also written out here, so that both sides saying the same wrong thing fails too. The page's side needs
node, Chromium and playwright-core, and fails without them (conftest's browser_tools)."""

import base64
import json
import re
import subprocess
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import attention_viz as av
from attention_viz import _figure

from conftest import CHROMIUM, PLAYWRIGHT

SVG = "{http://www.w3.org/2000/svg}"

X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
I2 = [[1.0, 0.0], [0.0, 1.0]]
NAN, INF = float("nan"), float("inf")

# Configs the core refuses, each given to compute() in the page and to show() and av.compute() in Python (some of
# them as NumPy arrays in Python: sent flat, they must get the message the page's JSON gives), with the message each
# must get, word for word.
MALFORMED = {
    "ragged rows": (dict(embeddings=[[1.0, 2.0], [3.0]]),
                    "embeddings row 1 has 1 value, expected 2 (like row 0)"),
    "NaN": (dict(embeddings=[[1.0, 0.0], [NAN, 1.0]]),
            "embeddings row 1, column 0 is NaN; every value must be a finite number"),
    "Infinity": (dict(embeddings=np.array([[1.0, -INF], [0.0, 1.0]])),
                 "embeddings row 0, column 1 is -Infinity; every value must be a finite number (at most about 1.8e308)"),
    "misspelt field": (dict(embeddings=X, temperatur=2),
                       'unknown config field "temperatur" (did you mean "temperature"?)'),
    "w_k's columns": (dict(embeddings=np.array(X), w_q=I2, w_k=[[1.0], [0.0]], w_v=I2),
                      "w_k has 1 columns but w_q has 2: queries and keys must have the same length d_k"),
    "heads do not divide": (dict(embeddings=X, w_q=[[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]], w_k=[[1.0, 0.0, 1.0]] * 2,
                                 w_v=[[1.0, 0.0, 1.0]] * 2, heads=2),
                            "w_q has 3 columns, which 2 heads cannot split evenly: it needs heads × d (a multiple of 2) "
                            "columns"),
    "mask's shape": (dict(embeddings=X, mask=[[1, 0], [0, 1]]),
                     "mask has 2 rows, expected 3: it must be a 3 × 3 matrix (one row per query)"),
    "query out of range": (dict(embeddings=X, query=7),
                           "query 7 is out of range: there are 3 tokens, numbered 0 to 2"),
    "negative weight": (dict(mechanism="weights", attention=np.array([[0.5, -0.1], [0.2, 0.8]])),
                        "attention[0, 1] is -0.1: attention weights must be ≥ 0"),
    "scoring": (dict(embeddings=X, scoring="luong"),
                'scoring must be "dot", "general", "additive" or "cosine", got the text "luong"'),
    "temperature": (dict(embeddings=X, temperature=0),
                    "temperature must be a positive number (1 leaves the scores as they are), got 0"),
    "tokens": (dict(embeddings=X, tokens=["a", "b"]), "tokens has 2 names but embeddings has 3 rows"),
    # A field given as None is null to the core, from Python as from the page.
    "tokens None": (dict(embeddings=X, tokens=None), "tokens must be a list of names, got null"),
    "embeddings None": (dict(embeddings=None), "embeddings must be a list of rows, got null"),
}

# Every kind of palette name the core accepts (its by_name: rocket/vlag and their aliases, mako, Blues, _r,
# light:<colour>, a colour name, #rrggbb and #rgb), and two it refuses.
ACCEPTED = ["rocket", "rocket_r", "vlag", "diverging_r", "sequential", "mako", "Blues", "Blues_r", "light:green",
            "light:green_r", "green", "Blue", "purple", "orange", "#1f77b4", "#f80"]
REFUSED = ["viridis", "purpel"]

# layers × heads × n × m over the core's limit of values (2²³): 9,437,184.
HUGE = (12, 12, 256, 256)
HUGE_MESSAGE = ("attention has 9437184 values (12 × 12 × 256 × 256); at most 8388608 are supported: pass fewer layers "
                "or heads, or a shorter sentence")


def js(value) -> str:
    """A Python value as JavaScript source (NaN and Infinity as JavaScript writes them)."""
    lists = lambda v: v.tolist() if isinstance(v, np.ndarray) else {k: lists(x) for k, x in v.items()} \
        if isinstance(v, dict) else v
    return json.dumps(lists(value), allow_nan=True)


SCRIPT = """
import { chromium } from %(playwright)s;
import { writeFileSync } from 'node:fs';
const page_file = %(dir)s + '/page.html';
writeFileSync(page_file, `<!doctype html><meta charset=utf-8><body>${%(elements)s}<script src=%(build)s></script>`);
const browser = await chromium.launch({ executablePath: %(chromium)s, args: ['--no-sandbox', '--disable-gpu'], timeout: 600000 });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
page.setDefaultTimeout(600000);  // every wait: a loaded machine is slow, not wrong
const errors = [];
page.on('pageerror', (e) => errors.push(e.message));
await page.goto('file://' + page_file);
// Every figure computed, its weights heatmap painted (its canvas's data-painted set), and the refused palettes said.
await page.waitForFunction((refused) => window.AttentionViz && [...document.querySelectorAll('attention-viz')].every((e) =>
  e.trace && e.shadowRoot.querySelector('canvas[data-view="weights"]')?.dataset.painted
  && (!refused.includes(e.getAttribute('palette')) || e.shadowRoot.textContent.includes('is not a palette'))),
  %(refused)s, { timeout: 600000 });
const out = await page.evaluate(async () => {
  await AttentionViz.ready;
  const thrown = (f) => { try { f(); return null; } catch (e) { return e.message; } };
  const messages = {};
  for (const [name, config] of Object.entries(%(cases)s)) messages[name] = thrown(() => AttentionViz.compute(config));
  // The over-limit stack, its rows shared (compute() refuses it from its shape, before reading its values).
  const row = new Array(%(m)d).fill(0.1), head = new Array(%(n)d).fill(row);
  const stack = new Array(%(layers)d).fill(new Array(%(heads)d).fill(head));
  messages.huge = thrown(() => AttentionViz.compute({ mechanism: 'weights', attention: stack }));
  // What the element says of a palette the core refuses (it draws the views' own palettes, and says why).
  const palettes = {};
  for (const el of document.querySelectorAll('attention-viz')) palettes[el.getAttribute('palette')] = el.shadowRoot.textContent;
  // Each live weights heatmap's cells, as its canvas shows them: a pixel inside each cell, clear of its number.
  const live = {};
  for (const el of document.querySelectorAll('attention-viz')) {
    const canvas = el.shadowRoot.querySelector('canvas[data-view="weights"]');
    const dpr = el._figures.frameOf(canvas).dpr, ctx = canvas.getContext('2d'), colours = [];
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) {
      const [x0, y0] = el._viz.ask({ kind: 'cellRect', view: 'weights', width: canvas.width, height: canvas.height, dpr, i, j, fmt: el._fmtSpec() });
      const [r, g, b] = ctx.getImageData(x0 + 2, y0 + 2, 1, 1).data;
      colours.push('#' + [r, g, b].map((c) => c.toString(16).padStart(2, '0')).join(''));
    }
    live[el.getAttribute('palette')] = colours;
  }
  return { messages, palettes, live };
});
console.log(JSON.stringify({ errors, ...out }));
await browser.close();
"""


@pytest.fixture(scope="module")
def page(tmp_path_factory, browser_tools):
    """What the page says and draws: compute()'s messages, checkPalette's, and each palette's live weights colours."""
    tmp = tmp_path_factory.mktemp("core")
    build = Path(str(resources.files("attention_viz").joinpath("static/attention-viz.inline.js")))
    elements = "".join(f'<attention-viz preset="seed-001" views="weights" palette="{p}"></attention-viz>'
                       for p in ACCEPTED + REFUSED)
    cases = "{" + ",".join(f"{json.dumps(k)}: {js(v)}" for k, (v, _) in MALFORMED.items()) + "}"
    script = SCRIPT % dict(playwright=json.dumps(PLAYWRIGHT.as_uri()), dir=json.dumps(str(tmp)),
                           elements=json.dumps(elements), build=json.dumps(build.as_uri()),
                           chromium=json.dumps(CHROMIUM), cases=cases, refused=json.dumps(REFUSED),
                           layers=HUGE[0], heads=HUGE[1], n=HUGE[2], m=HUGE[3])
    (tmp / "page.mjs").write_text(script, encoding="utf-8")
    done = subprocess.run(["node", str(tmp / "page.mjs")], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["errors"] == []
    return got


@pytest.mark.parametrize("name", list(MALFORMED))
def test_the_page_refuses_each_malformed_config_with_its_message(page, name):
    assert page["messages"][name] == MALFORMED[name][1], f"compute() in the page, for {name}"


@pytest.mark.parametrize("name", list(MALFORMED))
def test_python_refuses_each_malformed_config_with_the_same_message(name):
    config, message = MALFORMED[name]
    with pytest.raises(ValueError) as e:
        av.show(**config)
    assert str(e.value) == message
    with pytest.raises(ValueError) as e:
        av.compute(config)
    assert str(e.value) == message


def picture_fills(figure, title):
    """The cell colours of the picture's heatmap titled `title` (an <svg> inside the picture)."""
    root = ET.fromstring(figure.picture_svg())
    (panel,) = [s for s in root.findall(SVG + "svg")
                if any("".join(t.itertext()).strip() == title for t in s.iter(SVG + "text"))]
    return {r.get("fill") for r in panel.iter(SVG + "rect")}


@pytest.mark.parametrize("palette", ACCEPTED)
def test_every_live_cell_colour_is_in_the_picture(page, palette):
    live = page["live"][palette]
    assert len(live) == 16
    fills = picture_fills(av.show(preset="seed-001", palette=palette), "weights = softmax(scaled)")
    missing = sorted(set(live) - fills)
    assert not missing, (palette, missing)


@pytest.mark.parametrize("palette", REFUSED)
def test_a_palette_the_core_refuses_is_refused_with_its_message(page, palette):
    with pytest.raises(ValueError) as e:
        av.show(preset="seed-001", palette=palette)
    assert "is not a palette" in str(e.value)
    assert str(e.value) in page["palettes"][palette]  # word for word what the element says of it


class Unread(np.ndarray):
    """An array whose values must not be read: any conversion or arithmetic fails the test."""

    def astype(self, *args, **kwargs):
        raise AssertionError("the stack's values were read")

    def tolist(self):
        raise AssertionError("the stack's values were read")

    def ravel(self, *args, **kwargs):
        raise AssertionError("the stack's values were read")

    def __array_ufunc__(self, *args, **kwargs):
        raise AssertionError("the stack's values were read")


def test_a_stack_over_the_limit_is_refused_before_any_html(page, monkeypatch):
    def no_html(*args, **kwargs):
        raise AssertionError("HTML was written for a refused stack")

    monkeypatch.setattr(_figure.Figure, "to_html", no_html)
    monkeypatch.setattr(_figure.Figure, "picture", no_html)
    huge = np.lib.stride_tricks.as_strided(np.zeros(1), shape=HUGE, strides=(0, 0, 0, 0)).view(Unread)
    assert page["messages"]["huge"] == HUGE_MESSAGE
    with pytest.raises(ValueError) as e:
        av.show(attention=huge)
    assert str(e.value) == HUGE_MESSAGE
    # show_attention shows such a stack as one head beside every head's thumbnail (test_overview.py); a stack the core
    # refuses whatever its size (more heads than it holds) it refuses as show() does, before any value is read.
    many = (1, av._core.facts()["max_heads"] + 1, 64, 64)
    many = np.lib.stride_tricks.as_strided(np.zeros(1), shape=many, strides=(0, 0, 0, 0)).view(Unread)
    with pytest.raises(ValueError) as e:
        av.show_attention(many)
    with pytest.raises(ValueError) as again:
        av.show(attention=many)
    assert str(e.value) == str(again.value) and "heads" in str(e.value)


def test_the_limit_is_the_cores():
    limit = av._core.facts()["max_values"]
    assert limit == 2**23
    ok = np.full((2, 2, 1024, 1024), 1 / 1024)  # 4 M values: within the limit
    assert av.compute(mechanism="weights", attention=ok)["attention"].shape == ok.shape


def test_compute_returns_numpy_arrays_in_computes_structure(seed_values):
    s = seed_values["seed_000_001"]
    t = av.compute(preset="seed-001")
    assert t["mechanism"] == "self" and t["query"]["index"] == 0
    assert isinstance(t["weights"], np.ndarray) and t["weights"].shape == (4, 4)
    np.testing.assert_allclose(t["weights"], s["weights"], rtol=1e-12)
    assert isinstance(t["heads"], list) and np.array_equal(t["heads"][0]["weights"], t["weights"])
    assert t["query"]["exp"].shape == (4,)
    # Python's arguments as show() takes them: a preset and fields over it. Temperature 2 halves the seed's scaled
    # scores before the softmax (NumPy's, here).
    hot = av.compute(preset="seed-001", temperature=2)
    z = np.asarray(s["scaled_scores"]) / 2
    want = np.exp(z - z.max(1, keepdims=True))
    np.testing.assert_allclose(hot["weights"], want / want.sum(1, keepdims=True), rtol=1e-12)


def test_compute_gives_the_fields_asked_for():
    full = av.compute(preset="seed-001")
    t = av.compute(preset="seed-001", fields=["weights", "context"])
    assert sorted(t) == ["context", "mechanism", "scale", "weights"]
    assert np.array_equal(t["weights"], full["weights"]) and np.array_equal(t["context"], full["context"])
    assert av.compute(preset="seed-001", fields=("query",))["query"]["index"] == 0
    with pytest.raises(ValueError, match=r'a trace has no field "wieghts" \(did you mean "weights"\?\)'):
        av.compute(preset="seed-001", fields=["wieghts"])


def test_a_panic_is_an_internal_error_and_the_next_call_works():
    from attention_viz import _core
    with pytest.raises(RuntimeError, match=r"(?s)internal error: .*forced internal error"):
        _core.call("av_call", {"kind": "panic"})  # the module's own test hook: a panic
    assert av.compute(preset="seed-003")["weights"].shape == (4,)


def test_the_picture_is_an_img_of_the_cores_svg():
    f = av.show(preset="seed-001")
    (src,) = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', f.picture())
    assert base64.b64decode(src).decode("utf-8") == f.picture_svg()
