// The Python package from a notebook, as an author uses it:
//   1. the wheel dist-python/attention_viz-<version>-py3-none-any.whl: pure Python, the single-file build inside,
//      the page's own .wasm inside and no native binary, NumPy and wasmtime its requirements, no CDN address in it;
//   2. a fresh virtual environment gets it with `pip install <wheel>` (NumPy and wasmtime come along, from pip's cache), and
//      shows a figure there with neither IPython nor anywidget;
//   3. tests/notebook/attention-viz.ipynb (the four seed documents' arrays, show_attention on a 4-d array and on
//      Hugging Face's tuple, bad calls, the Widget) is executed by nbclient in a kernel that imports that
//      installed wheel, and converted by nbconvert (tests/notebook/execute.py);
//   4. the HTML export in headless Chromium: every figure draws (canvas pixels) the numbers NumPy computed in
//      the notebook itself, the static picture gives way to it, nothing reaches the console;
//   5. the figures follow the export's light or dark theme; the export with --HTMLExporter.sanitize_html=True:
//      what it shows (see the test's comment);
//   6. each figure's text/html through JupyterLab's sanitizer for untrusted outputs (jupyterlab-sanitizer.mjs)
//      keeps an <img> whose data URI is an SVG of the figure with its numbers as text, drawn in Chromium.
// Golden values are NumPy's, printed by the notebook ("GOLDEN {...}" lines), never the package's.
//
// Needs the wheel (`make wheel`; or AV_WHEEL=<path> for another) and the .venv of `scripts/setup.sh python` (run here; it skips when done).
// Screenshots go to $AV_SHOTS (default /tmp/attention-viz-notebook): live, sanitized and JupyterLab-untrusted
// renderings at 1280 and 390 px.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../scripts/serve.mjs';
import { launch, WAIT } from './harness.mjs';
import { sanitizeUntrusted } from './jupyterlab-sanitizer.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VENV_PYTHON = join(ROOT, '.venv/bin/python');
const NOTEBOOK = join(ROOT, 'tests/notebook/attention-viz.ipynb');
const SHOTS = process.env.AV_SHOTS || join(tmpdir(), 'attention-viz-notebook');
// nbconvert's lab template loads these from cdnjs on every export; offline they are answered empty (neither is
// needed by the figures: the single-file build is a plain script, not an AMD module).
const NBCONVERT_CDN = [/^https:\/\/cdnjs\.cloudflare\.com\/ajax\/libs\/require\.js\//, /^https:\/\/cdnjs\.cloudflare\.com\/ajax\/libs\/mathjax\//];
// Each figure cell of the notebook, the golden it is checked against, and the element option `fmt` it uses.
const FIGURES = {
  'fig-words': { golden: 'words', fmt: '.2g' },
  'fig-seed002': { golden: 'seed-002', fmt: '.3g' },
  'fig-seed003': { golden: 'seed-003', fmt: '.2g' },
  'fig-seed003-arrays': { golden: 'seed-003', fmt: '.2g' },
  'fig-weights': { golden: 'weights', fmt: '.2g' },
  'fig-weights-hf': { golden: 'weights', fmt: '.2g' },
};

const say = (...a) => console.log('#', ...a);
let tmp, wheel, site, nb, goldens, served, base, browser;
const timings = {};

/** Runs a command, returning stdout; its stderr is shown only when it fails. */
function run(cmd, args, opts = {}) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26, ...opts });
  } catch (e) {
    throw new Error(`${cmd} ${args.join(' ')} failed:\n${e.stderr || e.message}`);
  }
}
const timed = (name, f) => { const t = Date.now(); const r = f(); timings[name] = (Date.now() - t) / 1000; return r; };

/** The newest wheel in dist-python/, checked to be no older than the package's sources ($AV_WHEEL: that wheel, unchecked). */
function findWheel() {
  if (process.env.AV_WHEEL) return process.env.AV_WHEEL;
  const dist = join(ROOT, 'dist-python');
  const wheels = existsSync(dist) ? readdirSync(dist).filter((f) => /^attention_viz-.+-py3-none-any\.whl$/.test(f)) : [];
  assert.ok(wheels.length, 'no dist-python/attention_viz-<version>-py3-none-any.whl: run `make wheel` first');
  const path = wheels.map((f) => join(dist, f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  const newest = (dir) => readdirSync(dir, { withFileTypes: true }).reduce((m, f) => {
    if (f.name === 'static' || f.name === '__pycache__') return m;
    const p = join(dir, f.name);
    return Math.max(m, f.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }, 0);
  const sources = Math.max(newest(join(ROOT, 'python/attention_viz')), statSync(join(ROOT, 'python/pyproject.toml')).mtimeMs);
  assert.ok(statSync(path).mtimeMs >= sources, `${path} is older than python/attention_viz/: run \`make wheel\``);
  return path;
}

before(async () => {
  // setup.sh takes a lock: `node --test` may run the files that need .venv side by side.
  execFileSync(join(ROOT, 'scripts/setup.sh'), ['python'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  wheel = findWheel();
  tmp = mkdtempSync(join(tmpdir(), 'attention-viz-notebook-'));
  // A fresh environment without pip of its own (.venv's pip installs into it: seconds instead of ensurepip's),
  // so what ends up in it is exactly the wheel and what the wheel requires.
  const venv = join(tmp, 'venv');
  timed('fresh venv + pip install wheel', () => {
    run('python3', ['-m', 'venv', '--without-pip', venv]);
    run(VENV_PYTHON, ['-m', 'pip', '--python', join(venv, 'bin/python'), 'install', '--quiet',
      '--disable-pip-version-check', wheel]);
  });
  site = run(join(venv, 'bin/python'), ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])']).trim();
  // The kernel: .venv's ipykernel and anywidget, with the fresh environment's site-packages first on its path.
  const out = join(tmp, 'run');
  say(timed('execute + convert', () => run(VENV_PYTHON, [join(ROOT, 'tests/notebook/execute.py'), NOTEBOOK, out, '--site', site])).trim());
  nb = JSON.parse(readFileSync(join(out, 'executed.ipynb'), 'utf8'));
  goldens = Object.fromEntries(streamLines('GOLDEN ').map((g) => [g.figure, g]));
  ({ server: served, url: base } = await serve({ root: out, port: 0 }));
  browser = await launch();
  mkdirSync(SHOTS, { recursive: true });
  say('timings (s):', JSON.stringify(timings));
});
after(async () => {
  await browser?.close();
  served?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

// (function declarations: node:test starts the before hook while this module is still being evaluated)
function cell(id) { return nb.cells.find((c) => c.id === id) ?? assert.fail(`no cell ${id} in the notebook`); }
function text(o) { return Array.isArray(o) ? o.join('') : o; }
/** The JSON after `prefix` on each printed line of the executed notebook. */
function streamLines(prefix) {
  return nb.cells.flatMap((c) => (c.outputs || []).filter((o) => o.output_type === 'stream')
    .flatMap((o) => text(o.text).split('\n')).filter((l) => l.startsWith(prefix)).map((l) => JSON.parse(l.slice(prefix.length))));
}
function figureHTML(id) {
  const o = cell(id).outputs.find((x) => x.data?.['text/html']);
  assert.ok(o, `${id}: no text/html output (outputs: ${JSON.stringify(cell(id).outputs.map((x) => x.output_type))})`);
  return text(o.data['text/html']);
}

/** A page with console errors, page errors, HTTP errors and requests off the machine in `problems`. */
async function visit(url, { width = 1280, colorScheme = 'light' } = {}) {
  const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme });
  page.problems = [];
  await page.route((u) => u.protocol.startsWith('http') && u.hostname !== '127.0.0.1', (route) => {
    const u = route.request().url();
    if (NBCONVERT_CDN.some((r) => r.test(u))) return route.fulfill({ status: 200, contentType: 'text/javascript', body: '' });
    page.problems.push(`request off the machine: ${u}`);
    return route.abort();
  });
  page.on('pageerror', (e) => page.problems.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400) page.problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  if (url) await page.goto(url);
  return page;
}

/** Largest difference between two nested arrays of numbers (shapes must agree). */
function maxDiff(got, want, path = '') {
  if (typeof want === 'number') {
    assert.equal(typeof got, 'number', `${path}: ${JSON.stringify(got)} is not a number`);
    return Math.abs(got - want);
  }
  assert.ok(Array.isArray(got) && got.length === want.length, `${path}: length ${got?.length} ≠ ${want.length}`);
  return Math.max(0, ...want.map((w, i) => maxDiff(got[i], w, `${path}[${i}]`)));
}

test('the wheel is pure Python with the single-file build and the page\'s .wasm inside, NumPy and wasmtime its requirements, no CDN', () => {
  const listing = run(VENV_PYTHON, ['-c', `
import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
wheel = next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))
texts = {n: z.read(n).decode("utf-8", "replace") for n in z.namelist() if n.endswith((".py", ".js", ".json"))}
print(json.dumps({"names": z.namelist(),
  "requires": [l for l in z.read(meta).decode().splitlines() if l.startswith("Requires-Dist:")],
  "wheel": z.read(wheel).decode(),
  "cdn": sorted({n for n, t in texts.items() for cdn in ("cdn.jsdelivr", "unpkg.com", "cdnjs.", "esm.sh", "googleapis") if cdn in t})}))
`, wheel]);
  const w = JSON.parse(listing);
  assert.match(w.wheel, /Root-Is-Purelib: true/);
  assert.match(w.wheel, /Tag: py3-none-any/);
  assert.ok(w.names.some((n) => /^attention_viz\/.*attention-viz\.inline\.js$/.test(n)), 'the single-file build is not in the wheel');
  assert.ok(!w.names.some((n) => /\.(so|pyd|dylib)$/.test(n)), 'a native binary in a pure-Python wheel');
  // The core Python runs (through wasmtime) is the .wasm the page loads, one file for every platform.
  assert.deepEqual(w.names.filter((n) => n.endsWith('.wasm')), ['attention_viz/static/attention_viz_bg.wasm']);
  const required = w.requires.filter((r) => !/extra\s*==/.test(r)).map((r) => r.replace('Requires-Dist:', '').trim());
  assert.deepEqual(required.map((r) => r.split(/[\s<>=!~;[]/)[0].toLowerCase()).sort(), ['numpy', 'wasmtime'], `requirements: ${required}`);
  assert.deepEqual(w.cdn, [], 'a CDN address in the wheel');
});

test('a fresh environment holds only attention-viz, NumPy and wasmtime, and shows a figure with neither IPython nor anywidget', () => {
  const got = JSON.parse(run(join(tmp, 'venv/bin/python'), ['-c', `
import importlib.metadata as md, importlib.util as u, json
import attention_viz as av
html = av.show(preset="seed-001")._repr_html_()
print(json.dumps({"dists": sorted(d.metadata["Name"].lower() for d in md.distributions()),
  "ipython": u.find_spec("IPython") is not None, "anywidget": u.find_spec("anywidget") is not None,
  "html": len(html), "has": ["<attention-viz" in html, "data:image/svg+xml;base64," in html, "<script" in html]}))
`]));
  assert.deepEqual(got.dists, ['attention-viz', 'numpy', 'wasmtime']);
  assert.equal(got.ipython, false);
  assert.equal(got.anywidget, false);
  assert.deepEqual(got.has, [true, true, true]);
});

test('the notebook ran in a kernel that imports the installed wheel; bad calls raised clear ValueErrors', () => {
  const imported = text(cell('imports').outputs.find((o) => o.output_type === 'stream').text);
  assert.ok(imported.includes(`from ${site}/attention_viz/`), imported);
  for (const name of new Set(Object.values(FIGURES).map((f) => f.golden))) assert.ok(goldens[name], `no GOLDEN line for ${name}`);
  // The cell tagged raises-exception: its ValueError is the output the reader sees.
  const err = cell('error-nan').outputs.find((o) => o.output_type === 'error');
  assert.equal(err?.ename, 'ValueError');
  assert.match(err.evalue, /embeddings.*nan/i);
  const [messages] = streamLines('ERRORS ');
  const expect = { nan: /embeddings.*nan/i, ragged: /embeddings row 1/i, 'w_q shape': /w_q/, 'attention negative': /attention/i, 'attention 5-d': /attention/i };
  for (const [name, re] of Object.entries(expect)) {
    assert.ok(messages[name], `${name}: no ValueError`);
    assert.match(messages[name], re, name);
  }
});

test('the Widget round trip in the kernel: .config set from Python and by a frontend update', () => {
  const [w] = streamLines('WIDGET ');
  assert.deepEqual(w.from_python, [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 2]]);
  assert.deepEqual(w.from_frontend, [[3, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 2]]);
  for (const t of ['config', 'options', 'error']) assert.ok(w.traits.includes(t), `trait ${t} is not synced`);
  assert.ok(!w.traits.includes('trace'), 'the trace is not synced: the kernel computes it from the config');
  assert.equal(w.trace_weights.length, w.numpy_weights.length);
  w.trace_weights.forEach((row, i) => row.forEach((x, j) => assert.ok(Math.abs(x - w.numpy_weights[i][j]) <= 1e-12,
    `the kernel's trace of the frontend's config: weights[${i}][${j}] ${x}, NumPy ${w.numpy_weights[i][j]}`)));
  const view = cell('widget').outputs.find((o) => o.data?.['application/vnd.jupyter.widget-view+json']);
  assert.ok(view, 'the Widget cell has no widget view output');
});

/** In the page: each figure cell's element, its trace, whether its canvases are painted, and its picture's state. */
async function figuresIn(page, ids) {
  await page.waitForFunction((ids) => ids.every((id) => {
    const el = document.getElementById(`cell-id=${id}`)?.querySelector('attention-viz');
    // Drawn: a figure off screen draws when it nears the screen or once it has been still a moment.
    return el?.trace && [...el.shadowRoot.querySelectorAll('canvas[data-view]')].every((c) => c.width > 0 && c.dataset.painted);
  }), ids, { timeout: WAIT }).catch((e) => { throw new Error(`figures did not draw: ${e.message}\n${page.problems.join('\n')}`); });
  return page.evaluate((ids) => Object.fromEntries(ids.map((id) => {
    const box = document.getElementById(`cell-id=${id}`);
    const el = box.querySelector('attention-viz');
    const canvases = [...el.shadowRoot.querySelectorAll('canvas[data-view]')];
    const painted = canvases.map((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const colours = new Set();
      for (let i = 0; i < d.length && colours.size < 3; i += 4 * 5) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      return colours.size > 2;
    });
    const pic = box.querySelector('img');
    const t = el.trace;
    return [id, {
      trace: { mechanism: t.mechanism, weights: t.weights, context: t.context, attention: t.attention, tokens: t.tokens },
      asked: JSON.parse(el.getAttribute('config')).mechanism,
      // What the figure says under its toolbar when it refused the config (the element's status line).
      said: [...el.shadowRoot.querySelectorAll('[role="alert"], [role="status"], .error, .status')].map((n) => n.textContent.trim()).filter(Boolean).join(' | '),
      canvases: canvases.length, painted: painted.every(Boolean),
      elementHeight: el.getBoundingClientRect().height,
      pictureShown: Boolean(pic && pic.getBoundingClientRect().height > 0),
    }];
  })), ids);
}

test('the HTML export in Chromium: every figure draws NumPy\'s numbers, its picture gives way, no console error', async () => {
  const page = await visit(`${base}live.html`);
  const figs = await figuresIn(page, Object.keys(FIGURES));
  // Screenshots first, so that a failure below can be looked at.
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
    await page.screenshot({ path: join(SHOTS, `notebook-live-${width}.png`), fullPage: true });
    for (const id of ['fig-words', 'fig-seed003', 'fig-weights']) {
      await page.locator(`[id="cell-id=${id}"]`).screenshot({ path: join(SHOTS, `notebook-live-${id}-${width}.png`) });
    }
  }
  for (const [id, f] of Object.entries(figs)) {
    const g = goldens[FIGURES[id].golden];
    assert.equal(f.trace.mechanism, f.asked ?? f.trace.mechanism, `${id}: asked for mechanism ${f.asked}, the figure shows ${f.trace.mechanism}: ${f.said}`);
    assert.ok(f.canvases > 0 && f.painted, `${id}: ${f.canvases} canvases, painted ${f.painted}`);
    assert.ok(f.elementHeight > 50, `${id}: the element is ${f.elementHeight} px tall`);
    assert.equal(f.pictureShown, false, `${id}: the static picture still shows beside the live figure`);
    if (g.attention) {
      // show_attention: the trace holds layers × heads × n × m; the values pass through JSON unchanged.
      assert.equal(maxDiff(f.trace.attention, g.attention), 0, `${id}: attention`);
      assert.deepEqual(f.trace.tokens, ['The', 'cat', 'sat', 'on', 'mats']);
    } else {
      const weights = Array.isArray(f.trace.weights[0]) && !Array.isArray(g.weights[0]) ? f.trace.weights.flat() : f.trace.weights;
      const context = Array.isArray(f.trace.context[0]) && !Array.isArray(g.context[0]) ? f.trace.context.flat() : f.trace.context;
      assert.ok(maxDiff(weights, g.weights) <= 1e-12, `${id}: weights ${JSON.stringify(weights)} vs NumPy ${JSON.stringify(g.weights)}`);
      assert.ok(maxDiff(context, g.context) <= 1e-12 * Math.max(1, ...[g.context].flat(2).map(Math.abs)), `${id}: context`);
    }
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});

// nbconvert's lab template marks its body with JupyterLab's data-jp-theme-light, which the figures (theme "auto")
// follow before the system's setting: light figures in the light export on a dark system, dark ones in the dark export.
test('the figures follow the export\'s theme, not the system\'s: light export on a dark system, dark export', async () => {
  for (const [file, systemScheme, want] of [['live.html', 'dark', 'light'], ['dark.html', 'light', 'dark']]) {
    const page = await visit(`${base}${file}`, { colorScheme: systemScheme });
    await figuresIn(page, ['fig-words', 'fig-seed003']);
    const themes = await page.evaluate(() => [...document.querySelectorAll('attention-viz')].map((e) => (e.matches(':state(dark)') ? 'dark' : 'light')));
    assert.deepEqual([...new Set(themes)], [want], `${file} on a ${systemScheme} system`);
    if (file === 'dark.html') {
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.locator('[id="cell-id=fig-words"]').screenshot({ path: join(SHOTS, `notebook-dark-fig-words-${width}.png`) });
      }
    }
    assert.deepEqual(page.problems, []);
    await page.close();
  }
});

// nbconvert's --HTMLExporter.sanitize_html=True runs every text/html output through bleach.clean with its
// clean_html filter's allow-list (a, abbr, acronym, b, blockquote, code, em, i, li, ol, strong, ul, div, pre,
// span, table, tr, td; attributes class and id only), and bleach *escapes* every other tag as text. So no
// picture can survive there (<img> is not allowed, nor are image outputs chosen over text/html), no script
// runs, and each figure output reads as its escaped source. What the test holds it to: no live element, no
// <img> and no script from an output, the picture's description (its alt text) readable in the page, and no
// console error.
test('the sanitized export (nbconvert sanitize_html=True): escaped text, no script runs, no picture, no error', async () => {
  const page = await visit(`${base}sanitized.html`);
  await page.waitForLoadState('load');
  const got = await page.evaluate((ids) => ids.map((id) => {
    const out = document.getElementById(`cell-id=${id}`).querySelector('[data-mime-type="text/html"]');
    return { id, elements: out.querySelectorAll('attention-viz, img, script, svg').length, text: out.textContent.length,
      alt: out.textContent.match(/alt="([^"]*)"/)?.[1] ?? null };
  }), Object.keys(FIGURES));
  for (const f of got) {
    assert.equal(f.elements, 0, `${f.id}: an element survived sanitize_html`);
    assert.ok(f.alt, `${f.id}: the picture's alt text is not readable in the sanitized export`);
  }
  assert.equal(await page.evaluate(() => typeof window.AttentionViz), 'undefined', 'a script ran in the sanitized export');
  say('sanitized export, per figure output: characters of escaped text', JSON.stringify(Object.fromEntries(got.map((f) => [f.id, f.text]))));
  // The page is megabytes of escaped text: the screenshots show the first figure's output, not all of it.
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.evaluate(() => document.getElementById('cell-id=fig-words').scrollIntoView());
    await page.screenshot({ path: join(SHOTS, `notebook-sanitized-${width}.png`) });
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});

/** Python's format(v, fmt) of each number: the texts the picture must show (Python, not our code, formats). */
function pythonFormat(values, fmt) {
  return JSON.parse(run(VENV_PYTHON, ['-c', 'import json, sys; print(json.dumps([format(v, sys.argv[1]) for v in json.load(sys.stdin)]))', fmt],
    { input: JSON.stringify(values), stdio: ['pipe', 'pipe', 'pipe'] }));
}

test('JupyterLab, untrusted: each figure output keeps an <img> whose SVG shows the figure and its numbers', async () => {
  const outputs = [];
  for (const [id, { golden, fmt }] of Object.entries(FIGURES)) {
    const clean = sanitizeUntrusted(figureHTML(id));
    assert.ok(!/<script|<attention-viz|<svg/i.test(clean), `${id}: the sanitizer kept a script, element or svg`);
    const imgs = [...clean.matchAll(/<img\b[^>]*>/g)].map((m) => m[0]);
    assert.equal(imgs.length, 1, `${id}: ${imgs.length} <img> after sanitizing`);
    const src = imgs[0].match(/src="data:image\/svg\+xml;base64,([^"]+)"/)?.[1];
    assert.ok(src, `${id}: the <img> has no SVG data URI: ${imgs[0].slice(0, 120)}`);
    const svg = Buffer.from(src, 'base64').toString('utf8');
    assert.match(svg, /^(<\?xml[^>]*>\s*)?<svg\b/);
    const texts = [...svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    const g = goldens[golden];
    // The weights the picture draws: the first head of the first layer for show_attention, else all of them.
    const weights = (g.attention ? g.attention[0][0] : [g.weights]).flat(2);
    const want = pythonFormat(weights, fmt);
    const missing = want.filter((w) => !texts.includes(w));
    assert.deepEqual(missing, [], `${id}: numbers missing from the picture (it has ${texts.slice(0, 30).join(' ')})`);
    outputs.push(`<section data-id="${id}"><h3>${id}</h3><div class="jp-RenderedHTMLCommon">${clean}</div></section>`);
  }
  // As JupyterLab puts them in the page (innerHTML), each picture decodes and shows at a readable size.
  for (const width of [1280, 390]) {
    const page = await visit(null, { width });
    await page.setContent(`<!doctype html><meta charset="utf-8"><body style="font-family:sans-serif">${outputs.join('\n')}</body>`);
    await page.waitForFunction(() => [...document.images].every((i) => i.complete));
    const shown = await page.evaluate(() => [...document.querySelectorAll('section')].map((s) => {
      const img = s.querySelector('img');
      const r = img.getBoundingClientRect();
      return { id: s.dataset.id, natural: img.naturalWidth, width: r.width, height: r.height, fits: r.right <= innerWidth + 0.5 };
    }));
    for (const s of shown) {
      assert.ok(s.natural > 0, `${s.id}: the picture does not decode`);
      assert.ok(s.width >= Math.min(300, width - 40) && s.height > 80, `${s.id}: shown at ${s.width} × ${s.height}`);
      assert.ok(s.fits, `${s.id}: wider than the ${width} px page`);
    }
    await page.screenshot({ path: join(SHOTS, `notebook-jupyterlab-untrusted-${width}.png`), fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.close();
  }
});

// A notebook with 10 `av.show` figures and one 12 × 12 × 64 × 64 `show_attention`, executed and exported
// as an author does. The engine (the single-file build, deflated: attention-viz.engine.js) is in one output only;
// every figure draws from it, offline. With that output cleared, each figure keeps its picture and says how to bring
// the live figure back; loading the engine (what av.init_notebook() displays) then draws them all.
// The stack is a causal language model's (GPT-2 small's shape: 12 layers × 12 heads, 64 tokens, float32, each row a
// softmax over the tokens up to it). A dense stack of random float32 weights (a bidirectional model's) cannot be
// ≤ 3 MB: its mantissas are noise, 1.85 MB of entropy, 2.3 MB as text85, before the 0.63 MB engine
// (tests/python/test_notebook.py measures both).
const ELEVEN = `
import nbformat, sys
cells = [nbformat.v4.new_code_cell("import numpy as np\\nimport attention_viz as av", id="imports")]
cells += [nbformat.v4.new_code_cell(f'av.show(preset="seed-00{i % 4}")', id=f"show-{i}") for i in range(10)]
cells.append(nbformat.v4.new_code_cell(
    "logits = 2 * np.random.default_rng(0).standard_normal((12, 12, 64, 64))\\n"
    "logits[..., np.triu_indices(64, 1)[0], np.triu_indices(64, 1)[1]] = -np.inf\\n"
    "a = np.exp(logits - logits.max(-1, keepdims=True)).astype(np.float32)\\n"
    "a /= a.sum(-1, keepdims=True)\\n"
    "np.save('big.npy', a)\\n"
    "av.show_attention(a)", id="big"))
nbformat.write(nbformat.v4.new_notebook(cells=cells), sys.argv[1])
`;
const CLEARED = `
import nbformat, sys
from nbconvert import HTMLExporter
nb = nbformat.read(sys.argv[1], as_version=4)
next(c for c in nb.cells if c.get("id") == "show-0").outputs = []
html, _ = HTMLExporter(template_name="lab").from_notebook_node(nb, resources={"metadata": {"name": "cleared"}})
open(sys.argv[2], "w", encoding="utf-8").write(html)
`;
let eleven;
async function elevenNotebook() {
  if (eleven) return eleven;
  const dir = join(tmp, 'eleven');
  mkdirSync(dir, { recursive: true });
  run(VENV_PYTHON, ['-c', ELEVEN, join(dir, 'eleven.ipynb')]);
  run(VENV_PYTHON, [join(ROOT, 'tests/notebook/execute.py'), join(dir, 'eleven.ipynb'), dir, '--site', site]);
  run(VENV_PYTHON, ['-c', CLEARED, join(dir, 'executed.ipynb'), join(dir, 'cleared.html')]);
  const saved = readFileSync(join(dir, 'executed.ipynb'), 'utf8');
  eleven = { dir, size: Buffer.byteLength(saved), engines: saved.split('if (!window.AttentionViz) {').length - 1,
    outputs: JSON.parse(saved).cells.slice(1).map((c) => Buffer.byteLength(JSON.stringify(c.outputs))) };
  say('11-figure notebook: saved', eleven.size.toLocaleString('en'), 'bytes; outputs', JSON.stringify(eleven.outputs));
  return eleven;
}

/** Waits for every <attention-viz> on the page to have drawn (trace and painted canvases); returns how many. */
async function allDrawn(page) {
  await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')].every((el) => el.trace
    && [...el.shadowRoot.querySelectorAll('canvas[data-view]')].every((c) => c.width > 0)), null, { timeout: WAIT })
    .catch((e) => { throw new Error(`figures did not draw: ${e.message}\n${page.problems.join('\n')}`); });
  return page.evaluate(() => ({
    figures: document.querySelectorAll('attention-viz').length,
    pictures: [...document.querySelectorAll('img.attention-viz-picture')].filter((i) => i.getBoundingClientRect().height > 0).length,
    notes: [...document.querySelectorAll('.attention-viz-engine-note')].filter((n) => n.getBoundingClientRect().height > 0).length,
  }));
}

test('the 11-figure notebook carries the engine once, and its HTML export draws all 11 figures offline', async () => {
  const { dir, engines } = await elevenNotebook();
  assert.equal(engines, 1, 'the single-file build is not in exactly one output');
  const { server, url } = await serve({ root: dir, port: 0 });
  try {
    const page = await visit(`${url}live.html`);
    assert.deepEqual(await allDrawn(page), { figures: 11, pictures: 0, notes: 0 });
    // The stack rode as deflated float32 bytes; the figure holds the very numbers the notebook's JSON would have
    // (NumPy's shortest decimals of the float32 values), every one of them.
    const got = await page.evaluate(() => document.getElementById('cell-id=big').querySelector('attention-viz').config.attention.flat(3));
    const want = JSON.parse(run(VENV_PYTHON, ['-c', 'import json, sys, numpy as np; '
      + 'print(json.dumps(np.load(sys.argv[1]).astype(str).astype(np.float64).ravel().tolist()))', join(dir, 'big.npy')]));
    assert.equal(got.length, want.length);
    assert.deepEqual(got.filter((x, i) => x !== want[i]).length, 0, 'values differ from NumPy\'s');
    await page.screenshot({ path: join(SHOTS, 'notebook-eleven-1280.png') });
    assert.deepEqual(page.problems, []);
    await page.close();
  } finally { server.close(); }
});

test('the 11-figure notebook saves at ≤ 3 MB', async () => {
  const { size } = await elevenNotebook();
  assert.ok(size <= 3e6, `${size.toLocaleString('en')} bytes`);
});

test('with the engine\'s output cleared, every figure shows its picture and says how to get it back; loading the engine draws them', async () => {
  const { dir } = await elevenNotebook();
  const { server, url } = await serve({ root: dir, port: 0 });
  try {
    const page = await visit(`${url}cleared.html`);
    await page.waitForFunction(() => [...document.querySelectorAll('.attention-viz-engine-note')]
      .filter((n) => n.getBoundingClientRect().height > 0).length === 10, null, { timeout: WAIT });
    const before = await page.evaluate(() => ({
      figures: document.querySelectorAll('attention-viz').length,
      pictures: [...document.querySelectorAll('img.attention-viz-picture')].filter((i) => i.complete && i.naturalWidth > 0
        && i.getBoundingClientRect().height > 0).length,
      note: document.querySelector('.attention-viz-engine-note').textContent,
    }));
    assert.equal(before.figures, 10);
    assert.equal(before.pictures, 10);
    assert.match(before.note, /av\.init_notebook\(\)/);
    await page.locator('.attention-viz-output').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'notebook-cleared-1280.png') });
    // What av.init_notebook() displays: the engine, once, anywhere on the page.
    await page.addScriptTag({ content: readFileSync(join(site, 'attention_viz/static/attention-viz.engine.js'), 'utf8') });
    assert.deepEqual(await allDrawn(page), { figures: 10, pictures: 0, notes: 0 });
    assert.deepEqual(page.problems, []);
    await page.close();
  } finally { server.close(); }
});
