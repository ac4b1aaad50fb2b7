// Embedding attention-viz in other people's pages: the dist/ bundle
// copied into a bare folder, the single-file build from file://, share links
// (round trip and hostile fragments), "Copy as NumPy" run by real NumPy,
// hostile token names, a strict Content-Security-Policy, the exports and the
// embedding attributes, and the bundle size report.
//
// Needs `make dist` first (dist/ is what is tested, except the share-link test,
// which uses tests/fixtures/two-elements.html and so www/). Python with NumPy
// and SciPy comes from `scripts/setup.sh test`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { open, launch, WAIT } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'dist');
const SEED_002_WEIGHTS_ROW_1 = [0.2983894767152018, 0.201157324162317, 0.247106611820161, 0.2533465873023202];
const XSS_TOKENS = ['<img src=x onerror=alert(1)>', '<script>alert(2)</script>', 'ok'];

const temps = [];
/** A fresh temporary folder, removed after the run. */
function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'attention-viz-embed-'));
  temps.push(dir);
  return dir;
}

let site; // the repo root, served without a CSP header
before(async () => {
  assert.ok(existsSync(join(DIST, 'attention-viz.js')) && existsSync(join(DIST, 'attention-viz.inline.js')),
    'dist/ is missing: run `make dist` first');
  site = await open();
});
after(async () => {
  await site?.close();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

// ---- helpers ----------------------------------------------------------------------

/** Records dialogs (alert/confirm/prompt) and dismisses them; `page.dialogs` must stay empty. */
function watchDialogs(page) {
  page.dialogs = [];
  page.on('dialog', (d) => { page.dialogs.push(`${d.type()}: ${d.message()}`); d.dismiss().catch(() => {}); });
  return page;
}

/** Console errors and uncaught exceptions of a page from a bare browser (`launch()`). */
function watchErrors(page) {
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  return page;
}

/** Every request URL the page makes. */
function watchRequests(page) {
  page.requests = [];
  page.failed = [];
  page.on('request', (r) => page.requests.push(r.url()));
  page.on('requestfailed', (r) => page.failed.push(`${r.url()}: ${r.failure()?.errorText}`));
  return page;
}

/** Installed before any page script: `error` events of every element (captured at window, they do not bubble). */
function captureElementErrors() {
  window.__avErrors = [];
  window.addEventListener('error', (e) => {
    if (e instanceof CustomEvent && e.target && e.target.localName === 'attention-viz') {
      window.__avErrors.push({ index: [...document.querySelectorAll('attention-viz')].indexOf(e.target), message: e.detail?.message });
    }
  }, true);
}

/** Waits until every <attention-viz> has a trace and a drawn canvas. */
async function rendered(page, timeout = WAIT) {
  await page.waitForFunction(() => {
    const els = [...document.querySelectorAll('attention-viz')];
    return els.length > 0 && els.every((e) => e.trace && e.shadowRoot && [...e.shadowRoot.querySelectorAll('canvas[data-view]')].some((c) => c.width > 0));
  }, null, { timeout });
}

/** Per element: its id, the views of its canvases, and per canvas how many pixels are visibly not white. */
function drawnSummary() {
  return [...document.querySelectorAll('attention-viz')].map((e) => ({
    id: e.id,
    hasTrace: e.trace !== null,
    canvases: [...e.shadowRoot.querySelectorAll('canvas[data-view]')].map((c) => {
      const { width, height } = c;
      let inked = 0;
      if (width && height) {
        const d = c.getContext('2d').getImageData(0, 0, width, height).data;
        for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235)) inked++;
      }
      return { view: c.dataset.view, width, height, inked, pixels: width * height };
    }),
  }));
}

/** Every element rendered, every canvas with ink on it (at least 1% of its pixels coloured). */
function assertDrawn(summary, count) {
  assert.equal(summary.length, count, 'number of <attention-viz> elements');
  for (const e of summary) {
    assert.ok(e.hasTrace, `element ${e.id || '?'} has a trace`);
    assert.ok(e.canvases.length > 0, `element ${e.id || '?'} has canvases`);
    for (const c of e.canvases) {
      assert.ok(c.width > 0 && c.height > 0, `${e.id} ${c.view}: canvas has a size`);
      assert.ok(c.inked > c.pixels * 0.01, `${e.id} ${c.view}: canvas is drawn (${c.inked} of ${c.pixels} pixels not white)`);
    }
  }
}

/** |got - want| ≤ rel·max(|got|, |want|) element-wise (exact zeros must match exactly). */
function assertClose(got, want, rel, where = '') {
  if (Array.isArray(want)) {
    assert.ok(Array.isArray(got), `${where}: expected an array, got ${JSON.stringify(got)}`);
    assert.equal(got.length, want.length, `${where}: length`);
    want.forEach((w, i) => assertClose(got[i], w, rel, `${where}[${i}]`));
    return;
  }
  assert.equal(typeof got, 'number', `${where}: expected a number`);
  assert.ok(Number.isFinite(got) && Number.isFinite(want), `${where}: non-finite ${got} vs ${want}`);
  assert.ok(Math.abs(got - want) <= rel * Math.max(Math.abs(got), Math.abs(want)), `${where}: got ${got}, want ${want}`);
}

/** Runs a NumPy snippet, then prints scores/weights/context (and `extra` expressions) as JSON. */
function runNumPy(snippet, extra = {}) {
  const fields = { scores: 'scores.tolist()', weights: 'weights.tolist()', context: 'context.tolist()', ...extra };
  const dict = Object.entries(fields).map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(', ');
  const code = `${snippet}\nimport json; print(json.dumps({${dict}}))\n`;
  const out = execFileSync('python3', ['-'], { input: code, encoding: 'utf8', cwd: tempDir() });
  const lines = out.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

const PNG_SIZE = async (blob) => {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  const view = new DataView(bytes.buffer);
  return {
    type: blob.type,
    signature: Array.from(bytes.subarray(0, 8)),
    chunk: String.fromCharCode(...bytes.subarray(12, 16)),
    width: view.getUint32(16),
    height: view.getUint32(20),
  };
};
const PNG_SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

// ---- 1. dist/ from a bare directory -----------------------------------------------------

test('dist/ copied into a bare folder: examples/plain.html renders both figures, no errors, no request leaves the server', async () => {
  const dir = tempDir();
  cpSync(DIST, join(dir, 'dist'), { recursive: true });
  mkdirSync(join(dir, 'examples'));
  cpSync(join(ROOT, 'examples/plain.html'), join(dir, 'examples/plain.html'));
  const bare = await open({ root: dir });
  try {
    const page = watchRequests(watchDialogs(await bare.page(null)));
    const responses = [];
    page.on('response', (r) => responses.push({ url: r.url(), status: r.status() }));
    await page.goto(`${bare.url}examples/plain.html`);
    await rendered(page);
    const summary = await page.evaluate(drawnSummary);
    assertDrawn(summary, 2);
    assert.deepEqual(summary[1].canvases.map((c) => c.view), ['weights', 'context'], 'views="weights,context"');
    const visibleCells = await page.evaluate(() => [...document.querySelectorAll('attention-viz')]
      .map((e) => [...e.shadowRoot.querySelectorAll('input.cell')].filter((c) => c.checkVisibility()).length));
    assert.ok(visibleCells[0] > 0, 'the editable figure shows its input cells');
    assert.equal(visibleCells[1], 0, 'editable="false" shows no input cells');

    const foreign = page.requests.filter((u) => !u.startsWith(bare.url) && !u.startsWith('data:') && !u.startsWith('blob:'));
    assert.deepEqual(foreign, [], 'requests that left the local server');
    assert.ok(page.requests.some((u) => u.endsWith('/dist/pkg/attention_viz_figure.wasm')), 'the figure core\'s .wasm was fetched beside the module');
    assert.deepEqual(page.failed, [], 'failed requests');
    assert.deepEqual(responses.filter((r) => r.status >= 400), [], 'HTTP errors (a file missing from dist/?)');
    assert.deepEqual(page.dialogs, []);
    assert.deepEqual(page.errors, [], 'console errors');
    await page.close();
  } finally {
    await bare.close();
  }
});

// ---- 2. the single-file build from file:// -------------------------------------------------

test('single-file build from file://: examples/notebook.html renders, window.AttentionViz.compute reproduces seed-002', async () => {
  const browser = await launch();
  try {
    const page = watchRequests(watchErrors(watchDialogs(await browser.newPage({ viewport: { width: 1280, height: 900 } }))));
    await page.goto(pathToFileURL(join(ROOT, 'examples/notebook.html')).href);
    await rendered(page);
    assertDrawn(await page.evaluate(drawnSummary), 1);
    const r = await page.evaluate(async () => {
      await window.AttentionViz.ready;
      const { compute, presets } = window.AttentionViz;
      const el = document.getElementById('nb');
      return {
        keys: Object.keys(window.AttentionViz).sort(),
        presets: Object.keys(presets).sort(),
        weights: compute(presets['seed-002']).weights,
        elementWeights: el.trace.weights,
        defined: customElements.get('attention-viz') !== undefined,
      };
    });
    assert.ok(r.defined, '<attention-viz> is defined');
    for (const k of ['ready', 'compute', 'presets', 'RandomState', 'normalizeConfig', 'renderSVG']) assert.ok(r.keys.includes(k), `window.AttentionViz.${k}`);
    assert.deepEqual(r.presets, ['seed-000', 'seed-001', 'seed-002', 'seed-003']);
    assertClose(r.weights[1], SEED_002_WEIGHTS_ROW_1, 1e-12, 'compute(seed-002).weights[1]');
    assertClose(r.elementWeights[1], SEED_002_WEIGHTS_ROW_1, 1e-12, 'element trace weights[1]');
    const foreign = page.requests.filter((u) => !u.startsWith('file://') && !u.startsWith('data:') && !u.startsWith('blob:'));
    assert.deepEqual(foreign, [], 'requests other than file:// and data:');
    assert.deepEqual(page.failed, []);
    assert.deepEqual(page.dialogs, []);
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await browser.close();
  }
});

test('single-file build from file://: a page of only <script src> + <attention-viz preset="seed-003"> works', async () => {
  const dir = tempDir();
  cpSync(join(DIST, 'attention-viz.inline.js'), join(dir, 'attention-viz.inline.js'));
  writeFileSync(join(dir, 'minimal.html'), '<script src="attention-viz.inline.js"></script><attention-viz preset="seed-003"></attention-viz>');
  const browser = await launch();
  try {
    const page = watchRequests(watchErrors(watchDialogs(await browser.newPage({ viewport: { width: 1000, height: 800 } }))));
    await page.goto(pathToFileURL(join(dir, 'minimal.html')).href);
    await rendered(page);
    assertDrawn(await page.evaluate(drawnSummary), 1);
    const r = await page.evaluate(() => {
      const el = document.querySelector('attention-viz');
      const t = el.trace;
      return { mechanism: t.mechanism, weights: t.weights, sum: t.weights.reduce((a, b) => a + b, 0),
        computed: window.AttentionViz.compute(window.AttentionViz.presets['seed-003']).weights };
    });
    assert.equal(r.mechanism, 'cross');
    assert.equal(r.weights.length, 4);
    assert.ok(Math.abs(r.sum - 1) < 1e-12, `weights sum to 1 (${r.sum})`);
    // Document 003: [0.1192…, 7.95e-232, 0, 0.8808…] in float64 with the stable softmax.
    assert.ok(Math.abs(r.weights[0] - 0.11920292202211755) < 1e-12, `weights[0] = ${r.weights[0]}`);
    assert.ok(r.weights[1] > 0 && r.weights[1] < 1e-231, `weights[1] = ${r.weights[1]}`);
    assert.equal(r.weights[2], 0);
    assert.deepEqual(r.computed, r.weights);
    assert.deepEqual(page.requests.filter((u) => !u.startsWith('file://') && !u.startsWith('data:')), []);
    assert.deepEqual(page.dialogs, []);
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await browser.close();
  }
});

// ---- 3. share links ------------------------------------------------------------------------

/** Loads tests/fixtures/two-elements.html (optionally with a fragment), errors captured from the start. */
async function twoElements(fragment = '') {
  const page = watchDialogs(await site.page(null));
  await page.addInitScript(captureElementErrors);
  await page.goto(`${site.url}tests/fixtures/two-elements.html${fragment}`);
  await rendered(page);
  await page.evaluate(async () => { window.av = await import('/www/attention-viz.js'); await window.av.ready; });
  return page;
}

/** Everything a share link must restore, as exact JSON text. */
function snapshot() {
  const exact = (value) => JSON.stringify(value, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? `#${v}` : Object.is(v, -0) ? '#-0' : v));
  return [...document.querySelectorAll('attention-viz')].map((e) => ({
    config: e.config,
    configText: exact(e.config),
    traceText: exact(e.trace),
    naiveChecked: e.shadowRoot.querySelector('[data-control="naive"]').checked,
    state: e.toJSON(),
    views: [...e.shadowRoot.querySelectorAll('canvas[data-view]')].map((c) => c.dataset.view),
    numpy: e.toNumPy(),
    status: e.shadowRoot.querySelector('.status').textContent,
  }));
}

test('share link: edits, the naive toggle and Randomize of two elements survive shareURL() → a new page, bit for bit', async () => {
  const page = await twoElements();
  const before = await page.evaluate(() => {
    const [a, b] = document.querySelectorAll('attention-viz');
    const type = (el, m, r, c, text) => {
      const cell = el.shadowRoot.querySelector(`input.cell[data-matrix="${m}"][data-row="${r}"][data-col="${c}"]`);
      cell.value = text;
      cell.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: text }));
    };
    const naive = (el) => {
      const box = el.shadowRoot.querySelector('[data-control="naive"]');
      box.checked = true;
      box.dispatchEvent(new Event('change', { bubbles: true }));
    };
    // Element 0 (seed-000): embeddings edits that only float round-tripping keeps, naive on, then randn(seed 5) for W_Q/W_K/W_V.
    type(a, 'embeddings', 0, 1, '0.30000000000000004');
    type(a, 'embeddings', 2, 2, '-1.2345678901234567e-7');
    type(a, 'embeddings', 3, 0, '1e300'); // refused (Q·Kᵀ overflows): must not reach the link
    type(a, 'embeddings', 3, 0, '12345.678901234567');
    naive(a);
    const seed = a.shadowRoot.querySelector('[data-control="seed"]');
    seed.value = '5';
    const dist = a.shadowRoot.querySelector('[data-control="dist"]');
    dist.value = 'randn';
    dist.dispatchEvent(new Event('change', { bubbles: true }));
    a.shadowRoot.querySelector('button[data-action="randomize"]').click();
    // Element 1 (seed-003): two edits and naive on (its Randomize would overwrite every input).
    type(b, 'decoder_state', 0, 0, '0.1');
    type(b, 'annotations', 1, 2, '3.141592653589793');
    naive(b);
    // "Copy link" on both, as a reader would: the second link carries both fragments.
    history.replaceState(null, '', a.shareURL());
    const url = b.shareURL();
    return { url, errors: window.__avErrors };
  });
  assert.equal(before.errors.length, 1, `only the refused edit fires \`error\`: ${JSON.stringify(before.errors)}`);
  assert.match(before.errors[0].message, /^embeddings\[3\]\[0\]: .*overflow/);
  const want = await page.evaluate(snapshot);
  assert.match(before.url, /#attention-viz-0=[A-Za-z0-9_-]+&attention-viz-1=[A-Za-z0-9_-]+$/, 'link format');
  assert.ok(before.url.startsWith(`${site.url}tests/fixtures/two-elements.html#`), before.url);
  assert.equal(want[0].config.embeddings[0][1], 0.30000000000000004);
  assert.equal(want[0].config.embeddings[3][0], 12345.678901234567);
  assert.equal(want[1].config.annotations[1][2], Math.PI);
  assert.ok(want[0].views.includes('naive_weights') && want[1].views.includes('naive_weights'), 'naive panels shown before sharing');
  assert.match(want[0].numpy, /np\.random\.seed\(5\)/);
  assert.match(want[0].numpy, /np\.random\.randn\(/);
  assert.deepEqual(page.dialogs, []);
  assert.deepEqual(page.errors, []);
  await page.close();

  const restored = watchDialogs(await site.page(null));
  await restored.addInitScript(captureElementErrors);
  await restored.goto(before.url);
  await rendered(restored);
  const got = await restored.evaluate(snapshot);
  for (const i of [0, 1]) {
    assert.deepEqual(got[i].config, want[i].config, `element ${i}: config`);
    assert.equal(got[i].configText, want[i].configText, `element ${i}: config, bit for bit`);
    assert.equal(got[i].naiveChecked, true, `element ${i}: naive toggle`);
    assert.deepEqual(got[i].views, want[i].views, `element ${i}: panels`);
    assert.equal(got[i].traceText, want[i].traceText, `element ${i}: trace, bit for bit`);
    assert.deepEqual(got[i].state, want[i].state, `element ${i}: toJSON()`);
    assert.match(got[i].status, /^Restored from a link/, `element ${i}: says it was restored from a link`);
  }
  assert.match(got[0].numpy, /np\.random\.seed\(5\)/, 'restored toNumPy() still writes the seeded calls');
  assert.match(got[0].numpy, /np\.random\.randn\(/);
  assert.equal(got[0].numpy, want[0].numpy);
  assert.equal(got[1].numpy, want[1].numpy);
  assert.deepEqual(await restored.evaluate(() => window.__avErrors), []);
  assert.deepEqual(restored.dialogs, []);
  assert.deepEqual(restored.errors, []);
  await restored.close();
});

const b64url = (text) => Buffer.from(text, 'utf8').toString('base64url');
/** Deterministic garbage (a linear congruential generator), `n` characters of `alphabet`. */
function garbage(n, alphabet) {
  let x = 12345;
  let s = '';
  for (let i = 0; i < n; i++) { x = (Math.imul(x, 1103515245) + 12345) >>> 0; s += alphabet[(x >>> 16) % alphabet.length]; }
  return s;
}
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const MALFORMED = {
  'not base64url (!!!)': '!!!',
  'a newer version ({"v":99})': b64url('{"v":99}'),
  '200 KB of garbage that is not base64url': garbage(200_001, B64URL),
  '200 KB of base64url that is not JSON': garbage(200_000, B64URL),
  'ragged rows with an <img onerror> token': b64url(JSON.stringify({
    v: 1, config: { embeddings: [[1, 2], [3]], tokens: ['<img src=x onerror=alert(1)>', 'b'] }, naive: true, random: null,
  })),
};

for (const [name, fragment] of Object.entries(MALFORMED)) {
  test(`share link, malformed fragment (${name}): a "share link" message, \`error\`, the preset instead, no dialog`, async () => {
    const page = await twoElements(`#attention-viz-0=${fragment}`);
    const r = await page.evaluate(() => {
      const [a, b] = document.querySelectorAll('attention-viz');
      const status = (el) => el.shadowRoot.querySelector('.status');
      return {
        status: status(a).textContent,
        statusIsError: status(a).classList.contains('error'),
        statusVisible: status(a).checkVisibility(),
        otherStatus: status(b).textContent,
        errors: window.__avErrors,
        config: a.config,
        preset: av.normalizeConfig(av.presets['seed-000']),
        otherConfig: b.config,
        otherPreset: av.normalizeConfig(av.presets['seed-003']),
        naive: a.shadowRoot.querySelector('[data-control="naive"]').checked,
        images: document.querySelectorAll('img').length + a.shadowRoot.querySelectorAll('img').length + b.shadowRoot.querySelectorAll('img').length,
      };
    });
    assert.match(r.status, /share link/, 'the message names the share link');
    assert.ok(r.status.length < 600, `the message is short (${r.status.length} characters)`);
    assert.ok(r.statusIsError && r.statusVisible, 'the message is shown as an error');
    assert.ok(r.errors.some((e) => e.index === 0 && /share link/.test(e.message)), `\`error\` fired on element 0: ${JSON.stringify(r.errors).slice(0, 300)}`);
    assert.ok(r.errors.every((e) => e.index === 0), 'element 1 fired no `error`');
    assert.deepEqual(r.config, r.preset, 'element 0 falls back to its preset');
    assert.equal(r.naive, false, 'the naive toggle of a refused link is not applied');
    assert.deepEqual(r.otherConfig, r.otherPreset, 'element 1 is untouched');
    assert.equal(r.otherStatus, '');
    assert.equal(r.images, 0, 'no <img> anywhere');
    assertDrawn(await page.evaluate(drawnSummary), 2);
    assert.deepEqual(page.dialogs, [], 'no dialog');
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('share link: once restored, changing the preset attribute (or the config attribute) shows the new figure', async () => {
  const page = await twoElements();
  const url = await page.evaluate(() => {
    const a = document.querySelector('attention-viz');
    const cell = a.shadowRoot.querySelector('input.cell[data-matrix="embeddings"][data-row="0"][data-col="0"]');
    cell.value = '9';
    cell.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
    return a.shareURL();
  });
  await page.close();
  const restored = await twoElements(url.slice(url.indexOf('#')));
  const r = await restored.evaluate(() => {
    const a = document.querySelector('attention-viz');
    const shared = a.config.embeddings[0][0];
    a.setAttribute('preset', 'seed-002');
    const afterPreset = a.config;
    a.setAttribute('config', JSON.stringify({ embeddings: [[1, 2], [3, 4]] }));
    return { shared, afterPreset, want: av.normalizeConfig(av.presets['seed-002']), afterConfig: a.config.embeddings };
  });
  await restored.close();
  assert.equal(r.shared, 9, 'the link was restored');
  assert.deepEqual(r.afterPreset, r.want, 'preset="seed-002" after the restore');
  assert.deepEqual(r.afterConfig, [[1, 2], [3, 4]], 'config attribute after the restore');
});

// ---- 4. "Copy as NumPy" -----------------------------------------------------------------------

/** Loads tests/fixtures/embed-dist.html (dist/ module; seed-001, seed-002, seed-003 as #s1, #s2, #s3), and awaits
 * `ready`: toNumPy() is the whole core's (README), which the figures move to once it is loaded. */
async function distPage(path = 'tests/fixtures/embed-dist.html', opts) {
  const page = watchDialogs(await site.page(null, opts));
  await page.addInitScript(captureElementErrors);
  await page.goto(site.url + path);
  await rendered(page);
  await page.waitForFunction(() => window.av && Object.keys(window.av.presets).length === 4);
  await page.evaluate(() => window.av.ready);
  return page;
}

test('toNumPy() of seed-001, seed-003 and a randomized (seed 7, randn) seed-002 runs in NumPy/SciPy and prints the trace to 1e-12', async (t) => {
  const page = await distPage();
  const cases = await page.evaluate(() => {
    const s2 = document.getElementById('s2');
    s2.shadowRoot.querySelector('[data-control="seed"]').value = '7';
    const dist = s2.shadowRoot.querySelector('[data-control="dist"]');
    dist.value = 'randn';
    dist.dispatchEvent(new Event('change', { bubbles: true }));
    s2.shadowRoot.querySelector('button[data-action="randomize"]').click();
    return ['s1', 's3', 's2'].map((id) => {
      const el = document.getElementById(id);
      return { id, numpy: el.toNumPy(), trace: el.trace, tokens: el.config.tokens };
    });
  });
  assert.deepEqual(await page.evaluate(() => window.__avErrors), []);
  const s2 = cases.find((c) => c.id === 's2');
  assert.match(s2.numpy, /np\.random\.seed\(7\)/, 'the randomized figure is written as seeded calls');
  assert.match(s2.numpy, /np\.random\.randn\(4, 3\)/);
  assert.match(cases[0].numpy, /np\.random\.seed\(42\)/, 'seed-001 is written as the document\'s own np.random.seed(42)');
  for (const c of cases) {
    const py = runNumPy(c.numpy, { tokens: 'tokens' });
    t.diagnostic(`${c.id}: ${c.trace.mechanism}, weights ${JSON.stringify(py.weights).slice(0, 80)}…`);
    assert.deepEqual(py.tokens, c.tokens, `${c.id}: tokens`);
    for (const k of ['scores', 'weights', 'context']) assertClose(py[k], c.trace[k], 1e-12, `${c.id} ${k}`);
  }
  assert.deepEqual(page.dialogs, []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// ---- 5. hostile token names -------------------------------------------------------------------

test('token names that are HTML show as text (config attribute and .config): no dialog, no <img>, escaped SVG', async () => {
  const page = await distPage('tests/fixtures/embed-xss.html');
  await page.evaluate((tokens) => {
    const attr = document.getElementById('attr');
    const prop = document.getElementById('prop');
    prop.config = { embeddings: [[1, 0], [0, 1], [1, 1]], tokens };
    // And the attribute set from script, on a third element.
    const third = document.createElement('attention-viz');
    third.id = 'set-attr';
    third.setAttribute('config', JSON.stringify({ embeddings: [[2, 0], [0, 2], [1, 1]], tokens }));
    document.body.append(third);
  }, XSS_TOKENS);
  await rendered(page);
  // Renaming a token through its input, to markup, is shown as text too.
  const results = await page.evaluate((tokens) => {
    const rename = document.getElementById('prop').shadowRoot.querySelector('input.token[data-token="2"]');
    rename.value = '<svg onload=alert(3)>';
    rename.dispatchEvent(new Event('change', { bubbles: true }));
    const want = { attr: tokens, prop: [tokens[0], tokens[1], '<svg onload=alert(3)>'], 'set-attr': tokens };
    const out = {};
    for (const [id, names] of Object.entries(want)) {
      const el = document.getElementById(id);
      const root = el.shadowRoot;
      const svgs = Object.fromEntries(['q', 'scores', 'scaled', 'weights', 'context', 'embeddings', 'query.terms'].map((v) => [v, el.toSVG(v)]));
      out[id] = {
        want: names,
        configTokens: el.config.tokens,
        inputs: [...root.querySelectorAll('input.token')].map((i) => i.value),
        options: [...root.querySelectorAll('[data-control="query"] option')].map((o) => o.textContent),
        optionTitles: [...root.querySelectorAll('[data-control="query"] option')].map((o) => o.title),
        breakdown: root.querySelector('details.breakdown').textContent,
        svgs,
        injected: root.querySelectorAll('img, script, svg, iframe, object, embed').length,
        status: root.querySelector('.status').textContent,
      };
    }
    return { out, images: document.querySelectorAll('img').length, scripts: document.querySelectorAll('script').length,
      svgInDoc: document.querySelectorAll('svg').length, errors: window.__avErrors };
  }, XSS_TOKENS);
  await page.waitForTimeout(300); // only a chance for an injected onerror/onload (a dialog, an error) to run: nothing is awaited
  assert.deepEqual(results.errors, [], 'no `error` events');
  assert.equal(results.images, 0, 'no <img> in the document');
  assert.equal(results.scripts, 1, 'only the page\'s own loader <script>');
  assert.equal(results.svgInDoc, 0, 'no <svg> in the document');
  for (const [id, e] of Object.entries(results.out)) {
    assert.deepEqual(e.configTokens, e.want, `${id}: config.tokens`);
    assert.deepEqual(e.inputs, e.want, `${id}: token inputs hold the literal text`);
    // Labels show names clipped to 24 characters, as text; the full name is the option's title.
    const clip = (t) => (t.length > 24 ? `${t.slice(0, 23)}…` : t);
    assert.deepEqual(e.options, e.want.map((t, i) => `${i}: ${clip(t)}`), `${id}: query menu`);
    assert.deepEqual(e.optionTitles, e.want, `${id}: query menu titles hold the full names`);
    for (const t of e.want) assert.ok(e.breakdown.includes(clip(t)), `${id}: breakdown shows ${t} literally`);
    assert.equal(e.injected, 0, `${id}: no markup from a token inside the shadow root`);
    assert.equal(e.status, '');
    for (const [view, svg] of Object.entries(e.svgs)) {
      assert.match(svg, /^<svg[\s>]/, `${id} ${view}: an SVG`);
      assert.ok(!svg.includes('<img') && !svg.includes('<script') && !/<svg[^>]*onload/.test(svg), `${id} ${view}: no markup from a token`);
    }
    assert.ok(e.svgs.weights.includes('&lt;img'), `${id}: weights SVG escapes <img`);
    assert.ok(e.svgs.weights.includes('&lt;script&gt;'), `${id}: weights SVG escapes <script>`);
  }
  // The NumPy snippet quotes them safely too.
  const snippet = await page.evaluate(() => document.getElementById('prop').toNumPy());
  assert.deepEqual(runNumPy(snippet, { tokens: 'tokens' }).tokens, results.out.prop.want);
  assert.deepEqual(page.dialogs, [], 'no dialog');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// ---- 6. strict Content-Security-Policy ----------------------------------------------------------

/** Installed before any page script: every CSP violation. */
function recordViolations() {
  window.__csp = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
}

for (const example of ['examples/csp.html', 'examples/plain.html']) {
  test(`strict CSP header: ${example} renders, compute() works, no violation`, async () => {
    const strict = await open({ csp: true });
    try {
      const page = watchDialogs(await strict.page(null));
      await page.addInitScript(recordViolations);
      const response = await page.goto(strict.url + example);
      assert.match(response.headers()['content-security-policy'] ?? '', /script-src 'self' 'wasm-unsafe-eval'/, 'the header is sent');
      await rendered(page);
      const summary = await page.evaluate(drawnSummary);
      assertDrawn(summary, example.endsWith('plain.html') ? 2 : 1);
      const weights = await page.evaluate(async () => {
        const av = await import('/dist/attention-viz.js');
        await av.ready;
        return av.compute(av.presets['seed-002']).weights[1];
      });
      assertClose(weights, SEED_002_WEIGHTS_ROW_1, 1e-12, 'compute under CSP');
      const violations = await page.evaluate(() => window.__csp);
      assert.deepEqual(violations, [], 'securitypolicyviolation events');
      assert.deepEqual(page.errors.filter((e) => /Content Security Policy/i.test(e)), [], 'CSP console errors');
      assert.deepEqual(page.errors, []);
      // The listener does see violations: an inline script is blocked and reported.
      await page.evaluate(() => { const s = document.createElement('script'); s.textContent = 'window.inlineRan = true'; document.body.append(s); });
      await page.waitForFunction(() => window.__csp.length > 0);
      assert.equal(await page.evaluate(() => window.inlineRan), undefined, 'the policy is in force');
      assert.deepEqual(page.dialogs, []);
      await page.close();
    } finally {
      await strict.close();
    }
  });
}

// ---- 7. exports and attributes -------------------------------------------------------------------

for (const dpr of [1, 2]) {
  test(`toPNG() and toPNG('weights') at dpr ${dpr}: image/png Blobs of the canvas device size`, async () => {
    const page = watchDialogs(await site.browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: dpr }));
    watchErrors(page);
    await page.goto(`${site.url}tests/fixtures/embed-dist.html`);
    await rendered(page);
    const r = await page.evaluate(async (src) => {
      const size = new Function(`return ${src}`)();
      const out = {};
      for (const id of ['s1', 's3']) {
        const el = document.getElementById(id);
        const canvas = el.shadowRoot.querySelector('canvas[data-view="weights"]');
        const canvases = [...el.shadowRoot.querySelectorAll('canvas[data-view]')];
        const whole = await el.toPNG();
        const one = await el.toPNG('weights');
        const bitmap = await createImageBitmap(whole);
        out[id] = {
          dpr: window.devicePixelRatio,
          weightsCanvas: [canvas.width, canvas.height],
          cssSize: [parseFloat(canvas.style.width), parseFloat(canvas.style.height)],
          widest: Math.max(...canvases.map((c) => c.width)),
          tallest: Math.max(...canvases.map((c) => c.height)),
          whole: await size(whole),
          one: await size(one),
          decoded: [bitmap.width, bitmap.height],
        };
      }
      return out;
    }, PNG_SIZE.toString());
    for (const [id, e] of Object.entries(r)) {
      assert.equal(e.dpr, dpr);
      for (const png of [e.whole, e.one]) {
        assert.equal(png.type, 'image/png', `${id}: Blob type`);
        assert.deepEqual(png.signature, PNG_SIGNATURE, `${id}: PNG signature`);
        assert.equal(png.chunk, 'IHDR');
      }
      assert.deepEqual([e.one.width, e.one.height], e.weightsCanvas, `${id}: toPNG('weights') is the canvas's device size`);
      assert.deepEqual(e.weightsCanvas, e.cssSize.map((x) => Math.round(x * dpr)), `${id}: the canvas is at device resolution`);
      assert.ok(e.whole.width >= e.widest && e.whole.height > e.tallest, `${id}: the whole figure (${e.whole.width}×${e.whole.height}) holds every canvas`);
      assert.deepEqual(e.decoded, [e.whole.width, e.whole.height], `${id}: the PNG decodes`);
    }
    assert.deepEqual(page.dialogs, []);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('toPNG(unknown view) rejects its promise (it does not throw synchronously)', async () => {
  const page = await distPage();
  const r = await page.evaluate(() => {
    const el = document.getElementById('s1');
    let threw = null;
    let promise;
    try { promise = el.toPNG('nope'); } catch (e) { threw = e.message; }
    return (promise ? promise.then(() => ({ resolved: true }), (e) => ({ rejected: e.message })) : Promise.resolve({ threw }));
  });
  assert.ok(r.rejected, `toPNG('nope') should reject, got ${JSON.stringify(r)}`);
  assert.match(r.rejected, /no view "nope"/);
  await page.close();
});

test('toSVG() works for every array view of el.trace (and the inputs) of each preset', async () => {
  const page = await distPage();
  const r = await page.evaluate(() => ['s1', 's2', 's3'].map((id) => {
    const el = document.getElementById(id);
    const t = el.trace;
    // `heads` is a list of objects (each head's stages): its views are heads.{i}.weights & co.
    const views = Object.keys(t).filter((k) => Array.isArray(t[k]) && k !== 'heads');
    if (t.query?.terms) views.push('query.terms');
    views.push(...Object.keys(el.config).filter((k) => Array.isArray(el.config[k]) && typeof el.config[k][0] !== 'string'));
    return { id, results: views.map((v) => { try { const s = el.toSVG(v); return { v, ok: s.startsWith('<svg') && s.trimEnd().endsWith('</svg>'), rects: (s.match(/<rect/g) || []).length }; } catch (e) { return { v, error: e.message }; } }) };
  }));
  for (const { id, results } of r) {
    assert.ok(results.length >= 7, `${id}: ${results.map((x) => x.v)}`);
    for (const x of results) {
      assert.equal(x.error, undefined, `${id} toSVG(${x.v}) threw`);
      assert.ok(x.ok && x.rects > 0, `${id} toSVG(${x.v}) is an SVG with cells`);
    }
  }
  const bad = await page.evaluate(() => { try { document.getElementById('s1').toSVG('nope'); return null; } catch (e) { return e.message; } });
  assert.match(bad ?? '', /no view "nope"/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('toJSON() round-trips through .config = state (config, naive toggle, Randomize record)', async () => {
  const page = await distPage();
  const r = await page.evaluate(() => {
    const [a, b] = [document.getElementById('s1'), document.getElementById('s2')];
    const root = a.shadowRoot;
    const cell = root.querySelector('input.cell[data-matrix="embeddings"][data-row="1"][data-col="2"]');
    cell.value = '0.7000000000000001';
    cell.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
    root.querySelector('[data-control="seed"]').value = '11';
    const dist = root.querySelector('[data-control="dist"]');
    dist.value = 'rand';
    root.querySelector('button[data-action="randomize"]').click();
    const box = root.querySelector('[data-control="naive"]');
    box.checked = true;
    box.dispatchEvent(new Event('change', { bubbles: true }));
    const state = a.toJSON();
    const viaText = JSON.parse(JSON.stringify(state));
    let changes = 0;
    b.addEventListener('change', () => changes++);
    b.config = viaText;
    return {
      state, keys: Object.keys(state).sort(),
      got: b.toJSON(), config: b.config, want: a.config,
      naive: b.shadowRoot.querySelector('[data-control="naive"]').checked,
      views: [...b.shadowRoot.querySelectorAll('canvas[data-view]')].map((c) => c.dataset.view),
      numpy: b.toNumPy(), changes,
      trace: JSON.stringify(b.trace), wantTrace: JSON.stringify(a.trace),
      errors: window.__avErrors,
    };
  });
  assert.deepEqual(r.keys, ['config', 'naive', 'random', 'v']);
  assert.equal(r.state.v, 1);
  assert.equal(r.state.naive, true);
  assert.deepEqual({ seed: r.state.random.seed, dist: r.state.random.dist }, { seed: 11, dist: 'rand' });
  assert.deepEqual(r.config, r.want, 'config');
  assert.equal(r.config.embeddings[1][2], 0.7000000000000001);
  assert.deepEqual(r.got, r.state, 'toJSON() of the restored element');
  assert.equal(r.naive, true, 'naive toggle restored');
  assert.ok(r.views.includes('naive_weights'));
  assert.equal(r.trace, r.wantTrace);
  assert.match(r.numpy, /np\.random\.seed\(11\)/);
  assert.equal(r.changes, 1, '`change` fired once');
  assert.deepEqual(r.errors, []);
  // A bad state is refused with `error` and the figure kept.
  const bad = await page.evaluate(() => {
    const el = document.getElementById('s3');
    const before = JSON.stringify(el.config);
    el.config = { v: 99, config: el.config, naive: false, random: null };
    return { same: JSON.stringify(el.config) === before, errors: window.__avErrors, status: el.shadowRoot.querySelector('.status').textContent };
  });
  assert.ok(bad.same, 'the figure is kept');
  assert.ok(bad.errors.length === 1 && /version/.test(bad.errors[0].message), JSON.stringify(bad.errors));
  assert.match(bad.status, /version/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('attributes: views="weights", editable="false", height="120", palette="purple" change what is shown', async () => {
  const page = await distPage('tests/fixtures/embed-attrs.html');
  const hash = (id) => page.evaluate((id) => {
    const c = document.getElementById(id).shadowRoot.querySelector('canvas[data-view="weights"]');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let h = 0x811c9dc5;
    for (let i = 0; i < d.length; i++) { h ^= d[i]; h = Math.imul(h, 16777619); }
    return `${c.width}x${c.height}:${(h >>> 0).toString(16)}`;
  }, id);
  const r = await page.evaluate(() => {
    const get = (id) => document.getElementById(id);
    const canvases = (id) => [...get(id).shadowRoot.querySelectorAll('canvas[data-view]')];
    const visible = (id, sel) => [...get(id).shadowRoot.querySelectorAll(sel)].filter((x) => x.checkVisibility()).length;
    return {
      plain: { views: canvases('plain').map((c) => c.dataset.view), cells: visible('plain', 'input.cell'), toolbar: visible('plain', '.toolbar'), heights: canvases('plain').map((c) => c.style.height) },
      one: { views: canvases('one').map((c) => c.dataset.view), cells: visible('one', 'input.cell'), breakdown: visible('one', 'details.breakdown') },
      ro: { views: canvases('ro').map((c) => c.dataset.view), cells: visible('ro', 'input.cell'), controls: visible('ro', '.toolbar button, .toolbar select'), editable: get('ro').editable },
      short: { heights: canvases('short').map((c) => [c.style.height, c.height, Math.round(c.getBoundingClientRect().height)]), height: get('short').height },
      purple: { palette: get('purple').palette, svg: get('purple').toSVG('weights'), plainSvg: get('plain').toSVG('weights') },
      dpr: window.devicePixelRatio,
    };
  });
  assert.deepEqual(r.one.views, ['weights'], 'views="weights": exactly one canvas');
  assert.equal(r.one.cells, 0, 'views="weights": no input cells');
  assert.equal(r.one.breakdown, 0, 'views="weights": no breakdown');
  assert.ok(r.plain.cells > 0 && r.plain.toolbar > 0, 'the default figure is editable');
  assert.ok(r.plain.views.length >= 7, `default views: ${r.plain.views}`);
  assert.equal(r.ro.cells, 0, 'editable="false": no input cell visible');
  assert.equal(r.ro.controls, 0, 'editable="false": no toolbar controls');
  assert.equal(r.ro.editable, false);
  for (const v of ['embeddings', 'w_q', 'w_k', 'w_v']) assert.ok(r.ro.views.includes(v), `editable="false" draws the input ${v} as a heatmap`);
  assert.equal(r.short.height, 120);
  for (const [css, device, shown] of r.short.heights) {
    assert.equal(css, '120px');
    assert.equal(device, 120 * r.dpr);
    assert.equal(shown, 120);
  }
  assert.ok(r.plain.heights.some((h) => h !== '120px'), 'without height, canvases keep their natural height');
  assert.equal(r.purple.palette, 'purple');
  const fills = (svg) => [...new Set(svg.match(/fill="#[0-9a-fA-F]{6}"/g) ?? [])].sort();
  assert.notDeepEqual(fills(r.purple.svg), fills(r.purple.plainSvg), 'palette="purple" changes the weights cell colours (SVG)');
  const [plainPx, purplePx] = [await hash('plain'), await hash('purple')];
  assert.notEqual(purplePx, plainPx, 'palette="purple" changes the weights cell colours (canvas)');
  // The attributes are live: removing the palette gives the default colours back; setting views re-lays the figure.
  await page.evaluate(() => { document.getElementById('purple').removeAttribute('palette'); document.getElementById('plain').setAttribute('views', 'scores,context'); });
  assert.equal(await hash('purple'), plainPx, 'palette removed → default colours');
  assert.deepEqual(await page.evaluate(() => [...document.getElementById('plain').shadowRoot.querySelectorAll('canvas[data-view]')].map((c) => c.dataset.view)), ['scores', 'context']);
  assert.deepEqual(await page.evaluate(() => window.__avErrors), []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('moving an element to another parent keeps its edits (frameworks and notebooks re-parent nodes)', async () => {
  const page = await distPage();
  const r = await page.evaluate(async () => {
    const el = document.getElementById('s1');
    const cell = el.shadowRoot.querySelector('input.cell[data-matrix="embeddings"][data-row="0"][data-col="0"]');
    cell.value = '9';
    cell.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
    const before = JSON.stringify(el.config);
    const box = document.createElement('section');
    document.body.prepend(box);
    box.append(el);
    // Moving is synchronous; this only gives a late rebuild (which would drop the edit) the chance to show.
    await new Promise((ok) => setTimeout(ok, 100));
    return { before, after: JSON.stringify(el.config), canvases: el.shadowRoot.querySelectorAll('canvas[data-view]').length };
  });
  assert.ok(r.canvases > 0, 'still drawn after the move');
  assert.equal(r.after, r.before, 'config after the move');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// ---- 8. sizes --------------------------------------------------------------------------------------

test('dist/sizes.json reports the gzipped sizes (logged, not asserted)', (t) => {
  const sizes = JSON.parse(readFileSync(join(DIST, 'sizes.json'), 'utf8'));
  assert.equal(typeof sizes.module_total_gzip_bytes, 'number');
  t.diagnostic(`module bundle (JS + WASM): ${sizes.module_total_gzip_bytes} bytes gzipped (${(sizes.module_total_gzip_bytes / 1024).toFixed(1)} KiB); `
    + `single file: ${sizes.inline_gzip_bytes} bytes gzipped`);
  console.log(`# dist/sizes.json: module total ${sizes.module_total_gzip_bytes} B gzipped, inline ${sizes.inline_gzip_bytes} B gzipped`);
});
