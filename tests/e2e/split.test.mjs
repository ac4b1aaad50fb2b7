// The module build's two cores (scripts/dist.mjs, www/core.js): a page of figures fetches the figure core's .wasm
// alone, and its figures work with it — typed into with the real keyboard, every stage recomputed and said changed.
// A part only the whole core answers (the Share & export menu, the decode stepper, the model grid) loads the whole
// core's .wasm and glue chunk once, and the figure moves to it with every edit the reader made, those typed while it
// loaded too (its response held until they are in). Requests counted with playwright's `page.on('request')` (counts,
// never times). Needs `make dist` first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../scripts/serve.mjs';
import { launch, watch, done, typeInCell, WAIT } from './harness.mjs';

const DIST = join(fileURLToPath(new URL('../../', import.meta.url)), 'dist');
const HEAD = '<!doctype html><meta charset="utf-8"><title>blog</title><link rel="icon" href="data:,"><script type="module" src="/attention-viz.js"></script>';
const FIGURE = '/pkg/attention_viz_figure.wasm';
const WHOLE = '/pkg/attention_viz_bg.wasm';

let browser;
let server;
let url;
before(async () => {
  if (!existsSync(join(DIST, 'attention-viz.js'))) throw new Error('no dist/attention-viz.js: run make dist first');
  if (!existsSync(join(DIST, FIGURE))) throw new Error(`no dist${FIGURE}: make dist builds the figure core`);
  ({ server, url } = await serve({ root: DIST, port: 0 }));
  browser = await launch();
});
after(async () => { await browser?.close(); server?.close(); });

/** A page of `body` under HEAD, every request's path noted in `page.requests`; `hold`: the whole core's .wasm is
 * answered only when `page.release()` is called. */
async function blogPage(body, { hold = false } = {}) {
  const page = watch(await browser.newPage({ viewport: { width: 1280, height: 900 } }));
  page.requests = [];
  page.on('request', (q) => { if (!/^(blob|data):/.test(q.url())) page.requests.push(new URL(q.url()).pathname); });
  await page.route(`${url}__page.html`, (route) => route.fulfill({ contentType: 'text/html', body: HEAD + body }));
  if (hold) {
    let release;
    const released = new Promise((ok) => { release = ok; });
    page.release = release;
    await page.route(`${url}${WHOLE.slice(1)}`, async (route) => { await released; await route.continue(); });
  }
  await page.addInitScript(() => {
    window.__drawn = 0;
    addEventListener('change', (e) => { if (e.target?.localName === 'attention-viz') window.__drawn++; }, true);
  });
  await page.goto(`${url}__page.html`);
  await page.waitForFunction(() => window.__drawn > 0);
  return page;
}

/** Waits until `page` has asked for `path` (polled from here: the request may come from a promise's callback). */
async function requested(page, path) {
  const end = Date.now() + WAIT;
  while (!page.requests.includes(path)) {
    if (Date.now() > end) throw new Error(`${path} was never asked for`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

const wholeChunks = (page) => page.requests.filter((p) => /^\/attention-viz-whole-[\w-]+\.js$/.test(p)).length;
const count = (page, path) => page.requests.filter((p) => p === path).length;
/** Whether the whole core has been fetched: its .wasm and its glue's chunk. */
const wholeFetched = (page) => [count(page, WHOLE), wholeChunks(page)];

/** Each heatmap's status line of figure `id` ("3 of 16 changed", "unchanged", or none before an edit), by view. */
const statuses = (page, id) => page.evaluate((id) => Object.fromEntries([...document.getElementById(id).shadowRoot
  .querySelectorAll('[data-status-of]')].map((l) => [l.dataset.statusOf, l.textContent])), id);

/** Waits until figure `id`'s status lines are there and none is empty (the edit's repaint is done). */
const statusesSaid = (page, id) => page.waitForFunction((id) => {
  const lines = [...document.getElementById(id).shadowRoot.querySelectorAll('[data-status-of]')];
  return lines.length > 0 && lines.every((l) => l.textContent);
}, id);

test('a one-figure page fetches the figure core alone, and a digit typed with the keyboard changes every stage', async () => {
  const page = await blogPage('<attention-viz id="a" preset="seed-003"></attention-viz>');
  const before = await page.evaluate(() => document.getElementById('a').trace);
  await typeInCell(page, 'a', 'annotations', 0, 0, '7');
  await statusesSaid(page, 'a');
  const after = await page.evaluate(() => ({ trace: document.getElementById('a').trace, focus: document.getElementById('a').shadowRoot.activeElement?.dataset.matrix }));
  assert.equal(after.focus, 'annotations', 'the keyboard stays in the cell typed into');
  // Every stage past the inputs moved: its numbers, and its status line says how many of its cells.
  // Every stage the figure shows past the inputs: its status line says how many of its cells moved, and they did.
  const said = await statuses(page, 'a');
  const shown = Object.entries(said).filter(([view]) => !['decoder_state', 'annotations'].includes(view));
  assert.ok(shown.length >= 3, JSON.stringify(said));
  for (const [view, line] of shown) {
    assert.match(line, /^(\d+ of \d+|all \d+) changed$/, `${view}: ${line}`);
    if (view in after.trace) assert.notDeepEqual(after.trace[view], before[view], `${view}'s numbers changed`);
  }
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 200))));
  // (A grid's first focus fetches the import's chunk ahead of a paste: lazy.test.mjs.)
  assert.deepEqual(page.requests.filter((p) => p.endsWith('.wasm')), [FIGURE], 'the figure core alone');
  assert.equal(wholeChunks(page), 0, 'no whole core glue');
  await done(page);
});

test('opening Share & export loads the whole core once; edits typed while it loads are kept, and the link restores them', async () => {
  const page = await blogPage('<attention-viz id="a" preset="seed-003"></attention-viz>', { hold: true });
  await typeInCell(page, 'a', 'annotations', 0, 0, '3');
  await statusesSaid(page, 'a');
  assert.deepEqual(wholeFetched(page), [0, 0], 'no whole core before a part needs it');
  // The menu, opened with the mouse, asks for the whole core; its .wasm is held while the reader goes on typing.
  await page.locator('#a').locator('details.menu > summary').click();
  await requested(page, WHOLE);
  await typeInCell(page, 'a', 'annotations', 1, 1, '5');
  await page.keyboard.press('Tab');
  await statusesSaid(page, 'a');
  const typed = await page.evaluate(() => document.getElementById('a').config.annotations);
  assert.equal(typed[0][0], 3);
  assert.equal(typed[1][1], 5);
  page.release();
  // The link needs the whole core (src/share.rs): clicking it waits for it, then puts the state in the URL.
  await page.locator('#a').locator('[data-action="copy-link"]').click();
  await page.waitForFunction(() => location.hash.includes('='));
  const state = await page.evaluate(() => {
    const el = document.getElementById('a');
    return { config: el.config.annotations, json: el.toJSON().config.annotations, numpy: el.toNumPy().includes('np.'), hash: location.hash };
  });
  assert.equal(state.config[0][0], 3, 'the edit before the load');
  assert.equal(state.config[1][1], 5, 'the edit typed while it loaded');
  assert.deepEqual(state.json, state.config);
  assert.ok(state.numpy, 'Copy as NumPy, which only the whole core writes, works on the moved figure');
  assert.deepEqual(wholeFetched(page), [1, 1], 'the whole core fetched once');
  // The link opened in a new page restores both edits.
  const other = watch(await browser.newPage());
  await other.route(`${url}__page.html`, (route) => route.fulfill({ contentType: 'text/html', body: `${HEAD}<attention-viz id="a" preset="seed-003"></attention-viz>` }));
  await other.goto(`${url}__page.html${state.hash}`);
  await other.waitForFunction(() => document.getElementById('a').config?.annotations?.[1]?.[1] === 5);
  assert.equal(await other.evaluate(() => document.getElementById('a').config.annotations[0][0]), 3);
  await done(other);
  await done(page);
});

test('a figure showing the decode stepper loads the whole core with the panel; a seed figure beside it moves too and keeps its edit', async () => {
  const page = await blogPage('<attention-viz id="s" preset="seed-003"></attention-viz><attention-viz id="d" preset="seed-001" views="decode,weights"></attention-viz>');
  await page.waitForFunction(() => window.__drawn >= 2);
  await typeInCell(page, 's', 'annotations', 0, 1, '2');
  await statusesSaid(page, 's');
  assert.deepEqual(wholeFetched(page), [1, 1]);
  // The stepper works: its first enabled button, clicked with the mouse, changes what the panel shows.
  const panel = () => page.evaluate(() => document.getElementById('d').shadowRoot.querySelector('div.steppers').textContent);
  const shown = await panel();
  await page.locator('#d').locator('div.steppers button[data-action^="decode-"]:not([disabled])').first().click();
  await page.waitForFunction((old) => document.getElementById('d').shadowRoot.querySelector('div.steppers').textContent !== old, shown);
  // The seed figure moved to the whole core with its edit: NumPy export (the whole core's) reads it.
  const r = await page.evaluate(() => ({ v: document.getElementById('s').config.annotations[0][1], numpy: document.getElementById('s').toNumPy() }));
  assert.equal(r.v, 2);
  assert.match(r.numpy, /2/);
  await done(page);
});

test('each part only the whole core answers, used first on a figure of the figure core: an import, SVG and PNG export, a model grid, persist', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'split-'));
  try {
    // An import of a file through the grid's Import… button and the file chooser.
    const page = await blogPage('<attention-viz id="a" preset="seed-001"></attention-viz>');
    const w = await page.evaluate(() => document.getElementById('a').config.w_v);
    const next = w.map((row) => row.map((x) => x + 1));
    writeFileSync(join(dir, 'w_v.csv'), next.map((row) => row.join(',')).join('\n'));
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'),
      page.locator('#a').locator('fieldset.matrix[data-name="w_v"] button[data-action="import"]').click()]);
    await chooser.setFiles(join(dir, 'w_v.csv'));
    await page.waitForFunction((v) => JSON.stringify(document.getElementById('a').config.w_v) === v, JSON.stringify(next));
    assert.deepEqual(wholeFetched(page), [1, 1], 'the import loaded the whole core');
    // SVG and PNG of one heatmap, from the menu with the mouse.
    await page.locator('#a').locator('details.menu > summary').click();
    await page.locator('#a').locator('select[data-control="export-view"]').selectOption('weights');
    const [svg] = await Promise.all([page.waitForEvent('download'), page.locator('#a').locator('button[data-action="svg"]').click()]);
    assert.match(readFileSync(await svg.path(), 'utf8'), /^<svg[\s\S]*<\/svg>\s*$/);
    const [png] = await Promise.all([page.waitForEvent('download'), page.locator('#a').locator('button[data-action="png"]').click()]);
    assert.deepEqual([...readFileSync(await png.path()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    await done(page);

    // A model's weights set on a seed figure: the model grid and the whole core arrive together.
    const model = await blogPage('<attention-viz id="m" preset="seed-003"></attention-viz>');
    await model.evaluate(() => {
      const row = (k) => [0, 1, 2].map((j) => (j === k ? 0.5 : 0.25));
      document.getElementById('m').config = { mechanism: 'weights', attention: [[[row(0), row(1), row(2)], [row(2), row(0), row(1)]]], tokens: ['a', 'b', 'c'] };
    });
    await model.locator('#m').locator('div.model canvas').first().waitFor();
    assert.deepEqual(wholeFetched(model), [1, 1]);
    await done(model);

    // persist: the whole core first (its saved state), then an edit saved and restored on reload.
    const saved = await blogPage('<attention-viz id="p" persist preset="seed-003"></attention-viz>');
    assert.deepEqual(wholeFetched(saved), [1, 1]);
    await typeInCell(saved, 'p', 'annotations', 0, 0, '4');
    await saved.waitForFunction(() => Object.keys(localStorage).some((k) => k.startsWith('attention-viz:')));
    await saved.reload();
    await saved.waitForFunction(() => document.getElementById('p').config?.annotations?.[0]?.[0] === 4);
    await done(saved);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('on the figure core, a palette attribute is read (a known one draws, an unknown one is said) and renderSVG says to await ready', async () => {
  const page = await blogPage('<attention-viz id="a" preset="seed-003" palette="mako"></attention-viz><attention-viz id="b" preset="seed-001" palette="makoo"></attention-viz>');
  const said = await page.evaluate(() => ['a', 'b'].map((id) => [...document.getElementById(id).shadowRoot.querySelectorAll('.status')]
    .map((e) => e.textContent).join(' ')));
  assert.doesNotMatch(said[0], /palette|internal error/, `a known palette: ${said[0]}`);
  assert.match(said[1], /palette "makoo" is not a palette.*the heatmaps keep their own palettes/, said[1]);
  const svg = await page.evaluate(async () => {
    const m = await import('/attention-viz.js');
    try { return m.renderSVG({ embeddings: [[1, 0], [0, 1]] }, 'weights'); } catch (e) { return `threw: ${e.message}`; }
  });
  assert.equal(svg, 'threw: attention-viz is still loading: await `ready` before calling it');
  const after = await page.evaluate(async () => {
    const m = await import('/attention-viz.js');
    await m.ready;
    return m.renderSVG(m.presets['seed-003'], 'weights').slice(0, 5);
  });
  assert.equal(after, '<svg ');
  assert.deepEqual(page.requests.filter((p) => p.endsWith('.wasm')), [FIGURE, WHOLE], 'the whole core once asked');
  await done(page);
});
