// Nothing a page does not need is fetched: the trained models' file (92 KB gzipped) only when
// loadModels() or a figure of a shipped model asks; the module's on-demand chunks (scripts/dist.mjs) only when a
// figure or a call needs them: a model's weights view (attention-viz-model-*.js), the decode and flash panels
// (-steppers-), the position, kv and window panels (-modern-), an import's work (-import-plan-), train()'s training
// side (-training-). The dist module bundle as README's blog page uses it; requests
// counted with playwright's `page.on('request')` (counts, never times). Needs `make dist` first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../scripts/serve.mjs';
import { launch, watch, done } from './harness.mjs';
import * as core from '../../www/pkg/attention_viz.js';

const DIST = join(fileURLToPath(new URL('../../', import.meta.url)), 'dist');
const HEAD = '<!doctype html><meta charset="utf-8"><title>blog</title><link rel="icon" href="data:,"><script type="module" src="/attention-viz.js"></script>';

let browser;
let server;
let url;
before(async () => {
  if (!existsSync(join(DIST, 'attention-viz.js'))) throw new Error('no dist/attention-viz.js: run make dist first');
  ({ server, url } = await serve({ root: DIST, port: 0 }));
  browser = await launch();
});
after(async () => { await browser?.close(); server?.close(); });

/** A page of `body` under HEAD, served at /__page.html, with every request's path noted in `page.requests`. */
async function blogPage(body, { hash = '', init = null } = {}) {
  const page = watch(await browser.newPage());
  page.requests = [];
  page.on('request', (q) => { if (!/^(blob|data):/.test(q.url())) page.requests.push(new URL(q.url()).pathname); });
  await page.route(`${url}__page.html`, (route) => route.fulfill({ contentType: 'text/html', body: HEAD + body }));
  // The element's first `change` (after its first draw), noted before the module runs.
  await page.addInitScript(() => {
    window.__drawn = 0;
    addEventListener('change', (e) => { if (e.target?.localName === 'attention-viz') window.__drawn++; }, true);
  });
  if (init) await page.addInitScript(init);
  await page.goto(`${url}__page.html${hash}`);
  return page;
}

/** The page's requests, sorted, the whole core's glue chunk (attention-viz-whole-<hash>.js) by its name alone. */
const requestList = (page) => page.requests.map((p) => p.replace(/^\/attention-viz-whole-[\w-]+\.js$/, '/attention-viz-whole.js')).sort();
/** What a page of figures fetches when the whole core is loaded too (`await ready`, a `persist` figure). */
const WHOLE_PAGE = ['/__page.html', '/attention-viz-whole.js', '/attention-viz.js', '/pkg/attention_viz_bg.wasm', '/pkg/attention_viz_figure.wasm'];

const modelRequests = (page) => page.requests.filter((p) => p.endsWith('_models.bin')).length;
/** How many times `page` fetched the chunk named `name` (attention-viz-<name>-<hash>.js). */
const chunkRequests = (page, name) => page.requests.filter((p) => new RegExp(`^/attention-viz-${name}-[\\w-]+\\.js$`).test(p)).length;

test('a page of one seed figure fetches the module and the figure core, never the models file; `ready` the whole core; loadModels() the models once', async () => {
  const page = await blogPage('<attention-viz preset="seed-003"></attention-viz>');
  await page.waitForFunction(() => window.__drawn > 0);
  assert.deepEqual(requestList(page), ['/__page.html', '/attention-viz.js', '/pkg/attention_viz_figure.wasm']);
  // Whatever the page would still start after its figure (the models were once fetched beside the .wasm).
  await page.evaluate(() => import('/attention-viz.js').then((m) => m.ready));
  // A frame and a moment: only a chance for a request that must not come; nothing is awaited by them.
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 200))));
  assert.deepEqual(requestList(page), WHOLE_PAGE);
  const before = await page.evaluate(async () => {
    const m = await import('/attention-viz.js');
    try { return { names: Object.keys(m.models), read: m.models.reversal }; } catch (e) { return { names: Object.keys(m.models), error: e.message }; }
  });
  assert.deepEqual(before.names, ['reversal', 'induction'], 'the names are there before the models');
  assert.equal(before.error, 'attention-viz: the shipped model "reversal" is not loaded yet: await `loadModels()` first');
  const after = await page.evaluate(async () => {
    const m = await import('/attention-viz.js');
    const [a, b] = await Promise.all([m.loadModels(), m.loadModels()]);
    const again = await m.loadModels();
    return {
      same: a === m.models && b === m.models && again === m.models,
      task: m.models.reversal.task,
      prediction: m.compute({ mechanism: 'model', model: 'reversal', input: [3, 1, 4, 1, 5, 9] }).prediction.join(''),
    };
  });
  assert.deepEqual(after, { same: true, task: 'reversal', prediction: '951413' });
  assert.equal(modelRequests(page), 1, 'the models file fetched once');
  await done(page);
});

test('a figure of a shipped model (config naming "reversal") fetches the models itself and draws them', async () => {
  const page = await blogPage(`<attention-viz id="m" config='{"mechanism": "model", "model": "reversal", "input": [3, 1, 4, 1, 5, 9]}'></attention-viz>
    <attention-viz id="s" preset="seed-001"></attention-viz>`);
  await page.waitForFunction(() => window.__drawn >= 2);
  const r = await page.evaluate(() => ({
    model: document.getElementById('m').getAttribute('data-model'),
    mechanism: document.getElementById('m').config.mechanism,
    text: document.getElementById('m').shadowRoot.textContent,
  }));
  assert.equal(r.model, 'reversal');
  assert.equal(r.mechanism, 'weights', 'the figure shows the model\'s weights');
  assert.ok(r.text.includes('reversal model · prediction: 9 5 1 4 1 3'), `the prediction is shown: ${r.text.slice(0, 200)}`);
  assert.equal(modelRequests(page), 1);
  // A model config set by the page before the models are there waits for them too (here they are: no second fetch).
  const set = await page.evaluate(async () => {
    const el = document.getElementById('s');
    const changed = new Promise((ok) => el.addEventListener('change', ok, { once: true }));
    el.config = { mechanism: 'model', model: 'reversal', input: [1, 2, 3, 4, 5, 6] };
    await changed;
    return el.getAttribute('data-model');
  });
  assert.equal(set, 'reversal');
  assert.equal(modelRequests(page), 1);
  await done(page);
});

test('a figure of arrays Python sent deflated waits for the inflater (run after the core, never before a first figure) and shows their numbers', async () => {
  // seed-001 with its embeddings as python/attention_viz/_figure.py packs them: float64 little-endian bytes grouped by
  // byte place, raw-deflated, base64 (as outputs saved before text85 hold it). In the page from the start: it loads when
  // the core is ready, before the inflater.
  core.initSync({ module: readFileSync(new URL('../../www/pkg/attention_viz_bg.wasm', import.meta.url)) });
  const config = core.call({ kind: 'facts' }).presets['seed-001'];
  const values = new Float64Array(config.embeddings.flat());
  const raw = new Uint8Array(values.buffer);
  const grouped = new Uint8Array(raw.length);
  for (let k = 0; k < 8; k++) for (let i = 0; i < values.length; i++) grouped[k * values.length + i] = raw[i * 8 + k];
  const packed = { ...config, embeddings: { dtype: 'float64', shape: [config.embeddings.length, config.embeddings[0].length],
    base64: deflateRawSync(grouped).toString('base64'), deflate: true } };
  // The keys the page's storage is asked for (a persisted figure reads its saved edits when it loads).
  const keys = () => {
    window.__keys = [];
    const { getItem } = Storage.prototype;
    Storage.prototype.getItem = function (k) { window.__keys.push(String(k)); return getItem.call(this, k); };
  };
  const page = await blogPage(`<attention-viz id="p" persist config='${JSON.stringify(packed)}'></attention-viz>`, { init: keys });
  await page.waitForFunction(() => window.__drawn > 0);
  const r = await page.evaluate(() => {
    const el = document.getElementById('p');
    // The storage key's hash (`attention-viz:<page>:p:<hash>`): of the config's JSON with the arrays as nested lists,
    // as it was when the element built them (the unpacked values stay one typed array until JSON writes them).
    const key = window.__keys.find((k) => /^attention-viz:.*:p:[0-9a-z]+$/.test(k));
    return { embeddings: el.config.embeddings, status: el.shadowRoot.querySelector('.status')?.textContent, hash: key?.slice(key.lastIndexOf(':') + 1) };
  });
  const fnv = (text) => { let h = 0x811c9dc5; for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 16777619); } return (h >>> 0).toString(36); };
  assert.deepEqual(r, { embeddings: config.embeddings, status: '', hash: fnv(JSON.stringify(config)) });
  // The inflater is in the bundle, run on first use: nothing more fetched (a `persist` figure loads the whole core).
  assert.deepEqual(requestList(page), WHOLE_PAGE);
  await done(page);
});

test('a figure of a model\'s weights fetches the model view\'s chunk (once, for two figures) and draws it; a seed figure beside it changes nothing', async () => {
  const stack = JSON.stringify({ mechanism: 'weights', attention: [[[[0.75, 0.25], [0.5, 0.5]], [[1, 0], [0.25, 0.75]]]], tokens: ['a', 'b'] });
  const page = await blogPage(`<attention-viz id="s" preset="seed-003"></attention-viz><attention-viz id="w" config='${stack}'></attention-viz>
    <attention-viz id="v" config='${stack}'></attention-viz>`);
  await page.waitForFunction(() => window.__drawn >= 3);
  const r = await page.evaluate(() => ['w', 'v'].map((id) => {
    const root = document.getElementById(id).shadowRoot;
    return { grid: !root.querySelector('div.model').hidden && root.querySelector('canvas.model-grid')?.width > 0, status: root.querySelector('.status')?.textContent };
  }));
  assert.deepEqual(r, [{ grid: true, status: '' }, { grid: true, status: '' }], 'both grids drawn before their first change');
  assert.equal(chunkRequests(page, 'model'), 1);
  assert.equal(chunkRequests(page, 'training'), 0);
  // A seed figure set to a model's weights by the page: the chunk is there, nothing more fetched.
  const set = await page.evaluate(async (config) => {
    const el = document.getElementById('s');
    const changed = new Promise((ok) => el.addEventListener('change', ok, { once: true }));
    el.config = JSON.parse(config);
    await changed;
    return !el.shadowRoot.querySelector('div.model').hidden;
  }, stack);
  assert.equal(set, true);
  assert.equal(chunkRequests(page, 'model'), 1);
  await done(page);
});

test('a seed figure set to a model\'s weights by the page waits for the chunk, keeps its figure meanwhile, and takes the newest config', async () => {
  const page = await blogPage('<attention-viz id="s" preset="seed-003"></attention-viz>');
  await page.waitForFunction(() => window.__drawn > 0);
  assert.equal(chunkRequests(page, 'model'), 0);
  const r = await page.evaluate(async () => {
    const el = document.getElementById('s');
    const changes = [];
    el.addEventListener('change', () => changes.push(el.config.mechanism));
    el.config = { mechanism: 'weights', attention: [[[[1, 0], [0.5, 0.5]]]] };
    const meanwhile = el.config.mechanism; // the chunk is on its way: the figure is still seed-003's
    el.config = { mechanism: 'weights', attention: [[[[0.5, 0.5], [0, 1]]]], tokens: ['x', 'y'] }; // the newest wins
    await new Promise((ok) => el.addEventListener('change', ok, { once: true }));
    return { meanwhile, changes, tokens: el.config.tokens, grid: !el.shadowRoot.querySelector('div.model').hidden };
  });
  assert.deepEqual(r, { meanwhile: 'cross', changes: ['weights'], tokens: ['x', 'y'], grid: true });
  assert.equal(chunkRequests(page, 'model'), 1);
  await done(page);
});

test('a model view\'s chunk that cannot be fetched: the figure says so on its status line and fires error, no uncaught rejection', async () => {
  const page = await blogPage('');
  await page.route(/\/attention-viz-model-[\w-]+\.js$/, (route) => route.fulfill({ status: 404, body: 'gone' }));
  const r = await page.evaluate(async () => {
    const el = document.createElement('attention-viz');
    el.setAttribute('config', JSON.stringify({ mechanism: 'weights', attention: [[[[1, 0], [0.5, 0.5]]]] }));
    const error = new Promise((ok) => el.addEventListener('error', (e) => ok(e.detail.message), { once: true }));
    document.body.append(el);
    return { message: await error, status: el.shadowRoot.querySelector('.status').textContent };
  });
  assert.match(r.message, /^This figure's model view could not be loaded \(.+\): reload the page to try again\.$/);
  assert.equal(r.status, r.message);
  assert.equal(chunkRequests(page, 'model'), 1);
  // page.errors (harness's watch) holds uncaught errors and rejections and console errors: only the 404's own line.
  const errors = page.errors.filter((e) => !/^Failed to load resource: .*404/.test(e));
  await page.close();
  assert.deepEqual(errors, []);
});

test('train() fetches the training chunk on its first call only; bad options still throw at once, before any fetch', async () => {
  const page = await blogPage('<attention-viz preset="seed-003"></attention-viz>');
  await page.waitForFunction(() => window.__drawn > 0);
  const r = await page.evaluate(async () => {
    const m = await import('/attention-viz.js');
    await m.ready;
    let thrown = null;
    try { m.train({ task: 'nope' }); } catch (e) { thrown = e.message; }
    const before = performance.getEntriesByType('resource').filter((e) => /attention-viz-training-/.test(e.name)).length;
    const run = m.train({ task: 'reversal', steps: 2, every: 1 });
    const paused = (run.pause(), run.paused);
    run.resume();
    const model = await run;
    const again = await m.train({ task: 'reversal', steps: 1 });
    return { thrown, before, paused, task: model.task, again: again.task };
  });
  assert.match(r.thrown, /^train: unknown task/);
  assert.deepEqual({ ...r, thrown: undefined }, { thrown: undefined, before: 0, paused: true, task: 'reversal', again: 'reversal' });
  assert.equal(chunkRequests(page, 'training'), 1);
  assert.equal(chunkRequests(page, 'model'), 0);
  await done(page);
});

test('a share link of a model\'s weights on a seed figure: the chunk is fetched, and the figure\'s first change follows the grid\'s first draw', async () => {
  const first = await blogPage(`<attention-viz id="s" config='${JSON.stringify({ mechanism: 'weights', attention: [[[[0.75, 0.25], [0.5, 0.5]]]], tokens: ['p', 'q'] })}'></attention-viz>`);
  await first.waitForFunction(() => window.__drawn > 0);
  const link = await first.evaluate(() => document.getElementById('s').shareURL());
  await done(first);
  const page = await blogPage('<attention-viz id="s" preset="seed-003"></attention-viz>', {
    hash: `#${link.split('#')[1]}`,
    init: () => {
      window.__firsts = [];
      addEventListener('change', (e) => { if (e.target.id === 's') window.__firsts.push(!e.target.shadowRoot.querySelector('div.model').hidden && e.target.config.mechanism); }, true);
    },
  });
  await page.waitForFunction(() => window.__drawn > 0);
  const r = await page.evaluate(() => ({ firsts: window.__firsts, tokens: document.getElementById('s').config.tokens }));
  assert.deepEqual(r, { firsts: ['weights'], tokens: ['p', 'q'] });
  assert.equal(chunkRequests(page, 'model'), 1);
  await done(page);
});

test('a figure showing the decode or the position panel fetches that panel\'s chunk, and its first change follows the panel\'s first draw', async () => {
  const page = await blogPage(`<attention-viz id="d" preset="seed-001" views="decode,weights"></attention-viz>
    <attention-viz id="p" preset="seed-001" views="position,weights"></attention-viz><attention-viz id="s" preset="seed-003"></attention-viz>`, {
    init: () => {
      window.__firsts = {};
      addEventListener('change', (e) => {
        const root = e.target.shadowRoot;
        window.__firsts[e.target.id] ??= { steppers: !root.querySelector('div.steppers').hidden, position: !!root.querySelector('[data-control="position-kind"]') };
      }, true);
    },
  });
  await page.waitForFunction(() => window.__drawn >= 3);
  const r = await page.evaluate(() => ({ firsts: window.__firsts, status: ['d', 'p'].map((id) => document.getElementById(id).shadowRoot.querySelector('.status').textContent) }));
  assert.deepEqual(r, { firsts: { d: { steppers: true, position: false }, p: { steppers: false, position: true }, s: { steppers: false, position: false } }, status: ['', ''] });
  assert.deepEqual(['steppers', 'modern', 'model', 'training'].map((n) => chunkRequests(page, n)), [1, 1, 0, 0]);
  await done(page);
});

test('an import fetches the import\'s chunk (once), and the grids\' first focus fetches it ahead of a paste', async () => {
  const page = await blogPage('<attention-viz id="s" preset="seed-001"></attention-viz>');
  await page.waitForFunction(() => window.__drawn > 0);
  assert.equal(chunkRequests(page, 'import-plan'), 0, 'no chunk before the reader imports or focuses a grid');
  const wq = await page.evaluate(() => document.getElementById('s').config.w_q);
  const csv = wq.map((row) => row.map((_, j) => (j + 1) / 4).join(',')).join('\n');
  const changed = page.evaluate(() => new Promise((ok) => document.getElementById('s').addEventListener('change', ok, { once: true })));
  await page.locator('#s input[data-role="import-file"]').setInputFiles({ name: 'w_q.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await changed;
  const got = await page.evaluate(() => document.getElementById('s').config.w_q);
  assert.deepEqual(got, wq.map((row) => row.map((_, j) => (j + 1) / 4)));
  assert.equal(chunkRequests(page, 'import-plan'), 1);
  await done(page);
  // A grid's first focus: fetched then, so that a paste of a whole array finds it there.
  const other = await blogPage('<attention-viz id="s" preset="seed-001"></attention-viz>');
  await other.waitForFunction(() => window.__drawn > 0);
  await other.locator('#s input.cell').first().focus();
  await other.waitForFunction(() => performance.getEntriesByType('resource').some((e) => /attention-viz-import-plan-/.test(e.name)));
  assert.equal(chunkRequests(other, 'import-plan'), 1);
  await done(other);
});
