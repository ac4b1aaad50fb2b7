// `persist`: edits that survive a reload, on the guided page (index.html: four
// elements with `persist`, ids chapter-1 … chapter-4). Saves are debounced
// (250 ms) into localStorage under `attention-viz:<pathname>:<id>:<hash of the starting config>`
// (persist.js `key()`, read here as `H.key(id)`; the pathname without `index.html`); Reset forgets them; storage that is turned off or full, and a
// corrupted saved value, give a message and never an uncaught error.
//
// Each test opens its own page (Playwright gives every `browser.newPage()` a fresh
// context, so storage never leaks between tests); reloads keep that page's storage.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, pageHelpers } from './harness.mjs';

const PAGE = 'index.html';
const IDS = ['chapter-1', 'chapter-2', 'chapter-3', 'chapter-4'];
const PRESETS = { 'chapter-1': 'seed-000', 'chapter-2': 'seed-001', 'chapter-3': 'seed-002', 'chapter-4': 'seed-003' };
const SAVE_WAIT = 400; // > the 250 ms debounce

let site;
before(async () => { site = await open(); });
after(() => site.close());

/** Before any page script: `error` events of the elements, and every storage write/removal. */
function instrument() {
  window.__avErrors = [];
  window.addEventListener('error', (e) => {
    if (e instanceof CustomEvent && e.target?.localName === 'attention-viz') window.__avErrors.push({ id: e.target.id, message: e.detail?.message });
  }, true);
  window.__storage = [];
  try {
    const { setItem, removeItem } = Storage.prototype;
    Storage.prototype.setItem = function (k, v) { window.__storage.push(['set', k, String(v).length]); return setItem.call(this, k, v); };
    Storage.prototype.removeItem = function (k) { window.__storage.push(['remove', k]); return removeItem.call(this, k); };
  } catch { /* no Storage */ }
}

/** Page-side helpers as `window.H` (and the module as `window.av`). */
function installHelpers() {
  const H = {
    el: (id) => document.getElementById(id),
    cell: (id, m, r, c) => H.el(id).shadowRoot.querySelector(`input.cell[data-matrix="${m}"][data-row="${r}"][data-col="${c}"]`),
    control: (id, name) => H.el(id).shadowRoot.querySelector(`[data-control="${name}"]`),
    action: (id, name) => H.el(id).shadowRoot.querySelector(`button[data-action="${name}"]`),
    status: (id) => H.el(id).shadowRoot.querySelector('.status').textContent,
    type(id, m, r, c, text) {
      const cell = H.cell(id, m, r, c);
      cell.value = text;
      cell.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: text }));
    },
    naive(id, on) {
      const box = H.control(id, 'naive');
      box.checked = on;
      box.dispatchEvent(new Event('change', { bubbles: true }));
    },
    /** What must come back after a reload, per element. */
    snapshot: () => Object.fromEntries([...document.querySelectorAll('attention-viz')].map((e) => [e.id, {
      config: e.config,
      state: e.toJSON(),
      naive: e.shadowRoot.querySelector('[data-control="naive"]')?.checked ?? null, // weights figures (chapter 9) have no toolbar
      naiveView: Boolean(e.shadowRoot.querySelector('canvas[data-view="naive_weights"]')),
      trace: e.trace,
      status: e.shadowRoot.querySelector('.status').textContent,
    }])),
    presets: (ids) => Object.fromEntries(Object.entries(ids).map(([id, p]) => [id, av.normalizeConfig(av.presets[p])])),
    saved: (key) => localStorage.getItem(key),
    key: (id) => H.el(id)._persist.key(),
    diff: (...a) => T.diff(...a),
    canon: (v) => JSON.stringify(v, (_k, x) => (x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x)),
  };
  window.H = H;
}

async function ready(page) {
  // Every figure of the page (chapters 5–8 too: their loads are queued behind chapters 1–4's).
  await page.waitForFunction((n) => {
    const els = [...document.querySelectorAll('attention-viz')];
    return els.length >= n && els.every((e) => e.trace && e.shadowRoot.querySelector('canvas[data-view]'));
  }, IDS.length);
  await page.evaluate(async () => { window.av = await import('/www/attention-viz.js'); await window.av.ready; });
  await page.evaluate(pageHelpers);
  await page.evaluate(installHelpers);
}

/** index.html in a fresh context, with `init` scripts run before the page's own. */
async function load(...init) {
  const page = await site.page(null);
  page.dialogs = [];
  page.on('dialog', (d) => { page.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  await page.addInitScript(instrument);
  for (const script of init) await page.addInitScript(script);
  await page.goto(site.url + PAGE);
  await ready(page);
  return page;
}

async function reload(page) {
  await page.reload();
  await ready(page);
}

const wait = (page, ms = SAVE_WAIT) => page.waitForTimeout(ms);

async function done(page) {
  const errors = [...page.errors];
  const dialogs = [...page.dialogs];
  await page.close();
  assert.deepEqual(errors, [], 'console errors / uncaught page errors');
  assert.deepEqual(dialogs, [], 'no dialog');
}

/** Edits chapters 1, 2 and 4 (3 stays untouched) the way a reader does. */
async function editChapters(page) {
  await page.evaluate(() => {
    H.type('chapter-1', 'embeddings', 0, 0, '2.5');
    H.type('chapter-1', 'w_q', 1, 2, '-3');
    H.type('chapter-1', 'embeddings', 3, 1, '0.30000000000000004'); // only an exact float round trip keeps this
    H.type('chapter-4', 'decoder_state', 0, 2, '7.25');
    H.type('chapter-4', 'annotations', 1, 0, '0.5');
    H.naive('chapter-4', true);
    // Randomize chapter 2 with seed 7 and randn.
    H.control('chapter-2', 'seed').value = '7';
    const dist = H.control('chapter-2', 'dist');
    dist.value = 'randn';
    dist.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await page.locator('#chapter-2 button[data-action="randomize"]').click();
}

test('persist: edits in chapters 1 and 4, the naive toggle and Randomize in chapter 2 survive a reload; chapter 3 stays at its preset', async () => {
  const page = await load();
  await editChapters(page);
  const before = await page.evaluate(() => H.snapshot());
  const presets = await page.evaluate((p) => H.presets(p), PRESETS);
  // The edits took effect before the reload.
  assert.equal(before['chapter-1'].config.embeddings[0][0], 2.5);
  assert.equal(before['chapter-1'].config.w_q[1][2], -3);
  assert.equal(before['chapter-4'].config.decoder_state[2], 7.25);
  assert.equal(before['chapter-4'].naive, true);
  assert.deepEqual(before['chapter-2'].state.random, { seed: 7, dist: 'randn', high: 0 }, 'the Randomize record (high is 0 for randn)');
  assert.notDeepEqual(before['chapter-2'].config, presets['chapter-2'], 'Randomize changed chapter 2');
  await wait(page);
  const saved = await page.evaluate((ids) => ids.map((id) => localStorage.getItem(H.key(id)) !== null), IDS);
  assert.deepEqual(saved.filter((_, i) => i !== 2), [true, true, true], 'chapters 1, 2 and 4 are saved');
  const keys = await page.evaluate((ids) => ids.map((id) => H.key(id)), IDS);
  for (const [i, k] of keys.entries()) assert.match(k, new RegExp(`^attention-viz:/:${IDS[i]}:[0-9a-z]+$`), 'keyed by page (without index.html), id and config');

  await reload(page);
  const after = await page.evaluate(() => H.snapshot());
  for (const id of ['chapter-1', 'chapter-2', 'chapter-4']) {
    assert.deepEqual(after[id].config, before[id].config, `${id}: config back after the reload`);
    assert.deepEqual(after[id].state, before[id].state, `${id}: toJSON() (naive, random record) back`);
    // Within 1e-12: edits are applied incrementally before the reload, the restore computes from scratch.
    assert.equal(await page.evaluate(([a, b]) => H.diff(a, b), [after[id].trace, before[id].trace]), null, `${id}: the same trace`);
    assert.match(after[id].status, /^Showing your saved edits/, `${id}: says it shows saved edits`);
  }
  assert.equal(after['chapter-1'].config.embeddings[3][1], 0.30000000000000004, 'floats round-trip exactly');
  assert.equal(after['chapter-4'].naive, true, 'chapter 4: naive softmax is on again');
  assert.equal(after['chapter-4'].naiveView, true, 'chapter 4: with its naive_weights heatmap');
  assert.deepEqual(after['chapter-3'].config, presets['chapter-3'], 'chapter 3 (untouched) is at its preset');
  assert.equal(after['chapter-3'].naive, false);
  // Still editable after the restore, and the next edit is saved too.
  const again = await page.evaluate(() => { H.type('chapter-4', 'decoder_state', 0, 0, '6'); return H.el('chapter-4').config.decoder_state; });
  assert.deepEqual(again, [6, 1, 7.25]);
  await wait(page);
  await reload(page);
  assert.deepEqual(await page.evaluate(() => H.el('chapter-4').config.decoder_state), [6, 1, 7.25]);
  assert.deepEqual(await page.evaluate(() => window.__avErrors), []);
  await done(page);
});

test('persist: Reset (“Reset to the document”) in chapter 1 brings back the document\'s numbers, also after a reload; the others stay edited', async () => {
  const page = await load();
  await editChapters(page);
  await wait(page);
  await reload(page);
  const before = await page.evaluate(() => H.snapshot());
  const presets = await page.evaluate((p) => H.presets(p), PRESETS);
  const label = await page.evaluate(() => H.action('chapter-1', 'reset').textContent);
  assert.equal(label, 'Reset to the document', 'the Reset button says what it does when persist is on');
  await page.locator('#chapter-1 button[data-action="reset"]').click();
  const reset = await page.evaluate(() => ({ config: H.el('chapter-1').config, removed: window.__storage.some(([op, k]) => op === 'remove' && k === H.key('chapter-1')) }));
  assert.deepEqual(reset.config, presets['chapter-1'], 'chapter 1 is back to the document at once');
  assert.ok(reset.removed, 'Reset removes the saved edits');
  await wait(page);
  await reload(page);
  const after = await page.evaluate(() => H.snapshot());
  assert.deepEqual(after['chapter-1'].config, presets['chapter-1'], 'chapter 1 is at the document after the reload');
  assert.equal(after['chapter-1'].naive, false);
  for (const id of ['chapter-2', 'chapter-4']) {
    assert.deepEqual(after[id].config, before[id].config, `${id}: still edited`);
    assert.deepEqual(after[id].state, before[id].state, `${id}: still edited (toJSON)`);
  }
  assert.equal(after['chapter-4'].naive, true);
  assert.deepEqual(after['chapter-3'].config, presets['chapter-3']);
  await done(page);
});

test('persist: opening the page and Reset write nothing to storage (a document update would otherwise be hidden by a stale copy)', async () => {
  const page = await load();
  await wait(page, 600);
  const opened = await page.evaluate(() => [...window.__storage]);
  assert.deepEqual(opened.filter(([op]) => op === 'set'), [], 'no write when nothing was edited');
  await page.evaluate(() => H.type('chapter-1', 'embeddings', 0, 0, '3'));
  await wait(page);
  await page.evaluate(() => { window.__storage.length = 0; });
  await page.locator('#chapter-1 button[data-action="reset"]').click();
  await wait(page);
  const afterReset = await page.evaluate(() => ({ ops: [...window.__storage], value: localStorage.getItem(H.key('chapter-1')) }));
  assert.equal(afterReset.value, null, 'after Reset nothing is saved for chapter 1');
  await done(page);
});

/** Storage turned off: every access to window.localStorage throws (as in sandboxed frames / blocked cookies). */
function storageDenied() {
  Object.defineProperty(window, 'localStorage', { configurable: true, get() { throw new DOMException('denied', 'SecurityError'); } });
}
/** Storage full: every write throws QuotaExceededError. */
function storageFull() {
  Storage.prototype.setItem = function () { throw new DOMException('The quota has been exceeded.', 'QuotaExceededError'); };
}

for (const [what, init] of [['turned off (localStorage throws SecurityError)', storageDenied], ['full (setItem throws QuotaExceededError)', storageFull]]) {
  test(`persist with storage ${what}: the page works, an edit says it cannot be saved, no uncaught error`, async () => {
    const page = await load(init);
    const r = await page.evaluate(async () => {
      const out = { loaded: [...document.querySelectorAll('attention-viz')].map((e) => Boolean(e.trace)) };
      H.type('chapter-1', 'embeddings', 0, 0, '4');
      out.value = H.el('chapter-1').config.embeddings[0][0];
      out.trace = H.diff(H.el('chapter-1').trace, av.compute(H.el('chapter-1').config));
      await new Promise((ok) => setTimeout(ok, 400));
      out.status = H.status('chapter-1');
      out.error = H.el('chapter-1').shadowRoot.querySelector('.status').classList.contains('error');
      // Other chapters keep working and their own edits get the same message.
      H.naive('chapter-4', true);
      H.type('chapter-4', 'decoder_state', 0, 2, '1');
      await new Promise((ok) => setTimeout(ok, 400));
      out.status4 = H.status('chapter-4');
      out.config4 = H.el('chapter-4').config.decoder_state;
      return out;
    });
    assert.ok(r.loaded.length >= 4 && r.loaded.every(Boolean), 'every chapter renders');
    assert.equal(r.value, 4, 'the edit is applied');
    assert.equal(r.trace, null, 'and recomputed (trace = compute(config))');
    assert.match(r.status, /cannot be saved/, 'the message says edits cannot be saved');
    assert.ok(r.error, 'shown as a warning');
    assert.match(r.status4, /cannot be saved/);
    assert.deepEqual(r.config4, [5, 1, 1]);
    // A reload shows the documents again, still without errors.
    await reload(page);
    const presets = await page.evaluate((p) => H.presets(p), PRESETS);
    const configs = await page.evaluate((ids) => Object.fromEntries(ids.map((id) => [id, H.el(id).config])), IDS);
    assert.deepEqual(configs, presets, 'nothing could be saved: the documents after a reload');
    await done(page);
  });
}

test('persist with storage turned off: opening the page without editing shows no storage warning', async () => {
  const page = await load(storageDenied);
  await wait(page, 600);
  const statuses = await page.evaluate((ids) => ids.map((id) => H.status(id)), IDS);
  assert.deepEqual(statuses, ['', '', '', ''], 'no message until an edit cannot be saved');
  await done(page);
});

/** Writes `window.__corrupt` (id → text) into storage before the page's scripts, once (flagged in sessionStorage). */
function corruptOnce() {
  const plan = sessionStorage.getItem('corrupt-plan');
  if (!plan) return;
  sessionStorage.removeItem('corrupt-plan');
  for (const [key, text] of Object.entries(JSON.parse(plan))) localStorage.setItem(key, text);
  window.__storage = [];
}

test('persist: a corrupted saved value gives a "could not be restored" message, the document\'s figure, and the bad value is removed', async () => {
  const page = await load(corruptOnce);
  const garbage = {
    'chapter-1': '%%% not a saved state <img src=x onerror=alert(1)> %%%',
    'chapter-2': Buffer.from('{"v":1,"config":{"embeddings":[[1,2],[3]]},"naive":true}').toString('base64url'),
    'chapter-3': Buffer.from('{"v":2,"config":{}}').toString('base64url'),
  };
  // Chapter 4 gets a valid saved edit: it must still be restored next to the broken ones.
  await page.evaluate(() => H.type('chapter-4', 'decoder_state', 0, 1, '9'));
  await wait(page);
  // The garbage is written by an init script of the next document, after the old one's pagehide saves.
  await page.evaluate((g) => sessionStorage.setItem('corrupt-plan', JSON.stringify(Object.fromEntries(Object.entries(g).map(([id, t]) => [H.key(id), t])))), garbage);
  await reload(page);
  const r = await page.evaluate((ids) => ({
    status: Object.fromEntries(ids.map((id) => [id, H.status(id)])),
    errors: window.__avErrors,
    configs: Object.fromEntries(ids.map((id) => [id, H.el(id).config])),
    naive: H.control('chapter-2', 'naive').checked,
    removed: window.__storage.filter(([op]) => op === 'remove').map(([, k]) => k),
    keys: Object.fromEntries(ids.map((id) => [id, H.key(id)])),
    images: document.querySelectorAll('img').length + ids.reduce((n, id) => n + H.el(id).shadowRoot.querySelectorAll('img').length, 0),
  }), IDS);
  const presets = await page.evaluate((p) => H.presets(p), PRESETS);
  for (const id of ['chapter-1', 'chapter-2', 'chapter-3']) {
    assert.match(r.status[id], /saved edits could not be restored/, `${id}: message`);
    assert.ok(r.status[id].length < 600, `${id}: a short message`);
    assert.ok(r.errors.some((e) => e.id === id && /could not be restored/.test(e.message)), `${id}: \`error\` fired`);
    assert.deepEqual(r.configs[id], presets[id], `${id}: the document's figure`);
    assert.ok(r.removed.includes(r.keys[id]), `${id}: the bad value is removed`);
  }
  assert.equal(r.naive, false, 'a refused saved state does not turn naive on');
  assert.match(r.status['chapter-4'], /^Showing your saved edits/, 'chapter 4 restored, saying so (and not as an error)');
  assert.equal(r.configs['chapter-4'].decoder_state[1], 9, 'chapter 4 restored its edit');
  assert.ok(!r.errors.some((e) => e.id === 'chapter-4'));
  assert.equal(r.images, 0, 'no <img> from the saved text');
  // The garbage is gone for good, and the chapters work: an edit is saved and restored.
  await wait(page);
  const left = await page.evaluate((g) => Object.keys(g).filter((id) => localStorage.getItem(H.key(id)) === g[id]), garbage);
  assert.deepEqual(left, [], 'no garbage is left in storage');
  await page.evaluate(() => H.type('chapter-1', 'embeddings', 1, 1, '8'));
  await wait(page);
  await reload(page);
  const final = await page.evaluate(() => ({ v: H.el('chapter-1').config.embeddings[1][1], status: H.status('chapter-1') }));
  assert.equal(final.v, 8);
  assert.match(final.status, /^Showing your saved edits/);
  await done(page);
});

test('persist: a second tab that is only looked at and then left does not overwrite the first tab\'s saved edits', async () => {
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  const open2 = async () => {
    const p = await context.newPage();
    p.on('pageerror', (e) => errors.push(String(e)));
    p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await p.addInitScript(instrument);
    await p.goto(site.url + PAGE);
    await ready(p);
    return p;
  };
  try {
    const a = await open2();
    const b = await open2();
    await wait(b, 600);
    await a.evaluate(() => H.type('chapter-1', 'embeddings', 0, 0, '6'));
    await wait(a);
    await a.goto('about:blank'); // the reader closes tab A (its edit is saved) …
    await b.goto('about:blank'); // … then tab B, where nothing was edited
    const c = await open2(); // and comes back later
    assert.equal(await c.evaluate(() => H.el('chapter-1').config.embeddings[0][0]), 6, 'tab A\'s edit survives');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
