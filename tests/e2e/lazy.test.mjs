// Nothing a page does not need is fetched (issue 26, row 1): the trained models' file (92 KB gzipped) only when
// loadModels() or a figure of a shipped model asks. The dist module bundle as README's blog page uses it; requests
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
async function blogPage(body) {
  const page = watch(await browser.newPage());
  page.requests = [];
  page.on('request', (q) => { if (!/^(blob|data):/.test(q.url())) page.requests.push(new URL(q.url()).pathname); });
  await page.route(`${url}__page.html`, (route) => route.fulfill({ contentType: 'text/html', body: HEAD + body }));
  // The element's first `change` (after its first draw), noted before the module runs.
  await page.addInitScript(() => {
    window.__drawn = 0;
    addEventListener('change', (e) => { if (e.target?.localName === 'attention-viz') window.__drawn++; }, true);
  });
  await page.goto(`${url}__page.html`);
  return page;
}

const modelRequests = (page) => page.requests.filter((p) => p.endsWith('_models.bin')).length;

test('a page of one seed figure fetches the module and the .wasm, never the models file; loadModels() fetches it once', async () => {
  const page = await blogPage('<attention-viz preset="seed-003"></attention-viz>');
  await page.waitForFunction(() => window.__drawn > 0);
  // Whatever the page would still start after its figure (the models were once fetched beside the .wasm).
  await page.evaluate(() => import('/attention-viz.js').then((m) => m.ready));
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 200))));
  assert.deepEqual([...page.requests].sort(), ['/__page.html', '/attention-viz.js', '/pkg/attention_viz_bg.wasm']);
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
  // byte place, raw-deflated, base64. In the page from the start: it loads when the core is ready, before the inflater.
  core.initSync({ module: readFileSync(new URL('../../www/pkg/attention_viz_bg.wasm', import.meta.url)) });
  const config = JSON.parse(core.presetJson('seed-001'));
  const values = new Float64Array(config.embeddings.flat());
  const raw = new Uint8Array(values.buffer);
  const grouped = new Uint8Array(raw.length);
  for (let k = 0; k < 8; k++) for (let i = 0; i < values.length; i++) grouped[k * values.length + i] = raw[i * 8 + k];
  const packed = { ...config, embeddings: { dtype: 'float64', shape: [config.embeddings.length, config.embeddings[0].length],
    base64: deflateRawSync(grouped).toString('base64'), deflate: true } };
  const page = await blogPage(`<attention-viz id="p" persist config='${JSON.stringify(packed)}'></attention-viz>`);
  await page.waitForFunction(() => window.__drawn > 0);
  const r = await page.evaluate(() => {
    const el = document.getElementById('p');
    // The storage key's hash, taken when first asked: of the config's JSON with the arrays as nested lists, as it was
    // when the element built them (the unpacked values stay one typed array until JSON writes them).
    return { embeddings: el.config.embeddings, status: el.shadowRoot.querySelector('.status')?.textContent, hash: el._authorHash() };
  });
  const fnv = (text) => { let h = 0x811c9dc5; for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 16777619); } return (h >>> 0).toString(36); };
  assert.deepEqual(r, { embeddings: config.embeddings, status: '', hash: fnv(JSON.stringify(config)) });
  // The inflater is in the bundle, run on first use: nothing more fetched.
  assert.deepEqual([...page.requests].sort(), ['/__page.html', '/attention-viz.js', '/pkg/attention_viz_bg.wasm']);
  await done(page);
});
