// `persist`: edits that survive a reload, on the guided page (index.html: four
// elements with `persist`, ids chapter-1 … chapter-4). Saves are debounced
// (250 ms) into localStorage under `attention-viz:<pathname>:<id>:<hash of the starting config>`
// (read here as `H.key(id)`: the key of that figure the page's storage was asked for, watched from outside; the pathname
// without `index.html`); Reset forgets them; storage that is turned off or full, and a corrupted saved value, give a
// message and never an uncaught error.
//
// Each test opens its own page (Playwright gives every `browser.newPage()` a fresh
// context, so storage never leaks between tests); reloads keep that page's storage.
//
// The tests at the end of this file use small pages of their own: a config set through the `.config`
// property, figures without ids (`~views~k/N` keys, unmatched saved edits offered), a model's weights (only the
// selection saved; shareURL() refusing a link too long to open), the core's MAX_LEN, and the too-long message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open, pageHelpers, typeInCell } from './harness.mjs';

const PAGE = 'index.html';
const IDS = ['chapter-1', 'chapter-2', 'chapter-3', 'chapter-4'];
const PRESETS = { 'chapter-1': 'seed-000', 'chapter-2': 'seed-001', 'chapter-3': 'seed-002', 'chapter-4': 'seed-003' };

let site;
before(async () => { site = await open(); });
after(() => site.close());

/** Before any page script: `error` events of the elements, and every storage read, write and removal. */
function instrument() {
  window.__avErrors = [];
  window.addEventListener('error', (e) => {
    if (e instanceof CustomEvent && e.target?.localName === 'attention-viz') window.__avErrors.push({ id: e.target.id, message: e.detail?.message });
  }, true);
  window.__storage = [];
  try {
    const { getItem, setItem, removeItem } = Storage.prototype;
    Storage.prototype.getItem = function (k) { window.__storage.push(['get', k]); return getItem.call(this, k); };
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
    /** What must come back after a reload, for chapters 1–4 (the page's later figures, chapter 9's made by
     *  learned.js once its models load, may still be loading: they are not what these tests restore). */
    snapshot: () => Object.fromEntries(['chapter-1', 'chapter-2', 'chapter-3', 'chapter-4'].map((id) => H.el(id)).map((e) => [e.id, {
      config: e.config,
      state: e.toJSON(),
      naive: e.shadowRoot.querySelector('[data-control="naive"]')?.checked ?? null, // weights figures (chapter 9) have no toolbar
      naiveView: Boolean(e.shadowRoot.querySelector('canvas[data-view="naive_weights"]')),
      trace: e.trace,
      status: e.shadowRoot.querySelector('.status').textContent,
    }])),
    presets: (ids) => Object.fromEntries(Object.entries(ids).map(([id, p]) => [id, av.normalizeConfig(av.presets[p])])),
    saved: (key) => localStorage.getItem(key),
    /** Figure `id`'s storage key: the first key of its name the page's storage was asked for since this page loaded
     *  (a persisted figure reads its saved edits when it loads). */
    key: (id) => window.__storage.map(([, k]) => k).find((k) => new RegExp(`^attention-viz:.*:${id}:[0-9a-z]+$`).test(k)),
    /** Figure `id`'s saved entry decoded (src/share.rs: base64url of `{"v": 1, "config", "naive", "random"}`), or null. */
    savedState(id) {
      const text = localStorage.getItem(H.key(id));
      if (text === null) return null;
      try {
        return JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (ch) => ch.charCodeAt(0))));
      } catch { return null; }
    },
    /** Whether figure `id`'s saved entry holds what it shows now: its config and its naive toggle. */
    savedNow(id) {
      const s = H.savedState(id);
      return s !== null && H.canon(s.config) === H.canon(H.el(id).config) && s.naive === H.control(id, 'naive').checked;
    },
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

/** Waits until the debounced save of each figure `ids` names has written what it shows now, however late it runs. */
const saves = (page, ids) => page.waitForFunction((list) => list.every((id) => H.savedNow(id)), ids).catch(async (e) => {
  const unsaved = await page.evaluate((list) => list.filter((id) => !H.savedNow(id)), ids);
  throw new Error(`not saved as shown: ${unsaved.join(', ')} (${e.message})`);
});

/**
 * Only a chance for something that must not happen (a write on opening, a save after Reset, a second tab's write)
 * to happen before the test looks: nothing is awaited by it. Every save that must happen is awaited by `saves`.
 */
const chance = (page) => page.waitForTimeout(600);

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
  await saves(page, ['chapter-1', 'chapter-2', 'chapter-4']);
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
  await saves(page, ['chapter-4']);
  await reload(page);
  assert.deepEqual(await page.evaluate(() => H.el('chapter-4').config.decoder_state), [6, 1, 7.25]);
  assert.deepEqual(await page.evaluate(() => window.__avErrors), []);
  await done(page);
});

test('persist: opening the page writes nothing; Reset (“Reset to the document”) in chapter 1 brings back the document\'s numbers and leaves nothing saved for it, also after a reload; the others stay edited', async () => {
  const page = await load();
  // Opening the page writes nothing to storage (a document update would otherwise be hidden by a stale copy).
  await chance(page);
  const opened = await page.evaluate(() => [...window.__storage]);
  assert.deepEqual(opened.filter(([op]) => op === 'set'), [], 'no write when nothing was edited');
  await editChapters(page);
  await saves(page, ['chapter-1', 'chapter-2', 'chapter-4']);
  await reload(page);
  const before = await page.evaluate(() => H.snapshot());
  const presets = await page.evaluate((p) => H.presets(p), PRESETS);
  const label = await page.evaluate(() => H.action('chapter-1', 'reset').textContent);
  assert.equal(label, 'Reset to the document', 'the Reset button says what it does when persist is on');
  await page.locator('#chapter-1 button[data-action="reset"]').click();
  const reset = await page.evaluate(() => ({ config: H.el('chapter-1').config, removed: window.__storage.some(([op, k]) => op === 'remove' && k === H.key('chapter-1')) }));
  assert.deepEqual(reset.config, presets['chapter-1'], 'chapter 1 is back to the document at once');
  assert.ok(reset.removed, 'Reset removes the saved edits');
  await chance(page);
  assert.equal(await page.evaluate(() => localStorage.getItem(H.key('chapter-1'))), null, 'after Reset nothing is saved for chapter 1');
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

/** Storage turned off: every access to window.localStorage throws (as in sandboxed frames / blocked cookies). */
function storageDenied() {
  Object.defineProperty(window, 'localStorage', { configurable: true, get() { throw new DOMException('denied', 'SecurityError'); } });
}
/** Storage full: every write throws QuotaExceededError. */
function storageFull() {
  Storage.prototype.setItem = function () { throw new DOMException('The quota has been exceeded.', 'QuotaExceededError'); };
}

for (const [what, init] of [['turned off (localStorage throws SecurityError)', storageDenied], ['full (setItem throws QuotaExceededError)', storageFull]]) {
  test(`persist with storage ${what}: the page works and says nothing until an edit, which says it cannot be saved; no uncaught error`, async () => {
    const page = await load(init);
    // No message until an edit cannot be saved.
    await chance(page);
    assert.deepEqual(await page.evaluate((ids) => ids.map((id) => H.status(id)), IDS), ['', '', '', ''], 'no storage warning on opening');
    const r = await page.evaluate(() => {
      // Chapters 1–4, which these tests edit: chapter 9's figures wait for the models' file (loaded when asked).
      const out = { loaded: ['chapter-1', 'chapter-2', 'chapter-3', 'chapter-4'].map((id) => Boolean(H.el(id)?.trace)) };
      H.type('chapter-1', 'embeddings', 0, 0, '4');
      out.value = H.el('chapter-1').config.embeddings[0][0];
      out.trace = H.diff(H.el('chapter-1').trace, av.compute(H.el('chapter-1').config));
      return out;
    });
    // The message comes with the (debounced) save: wait for it, however late.
    const said = (id) => page.waitForFunction((i) => H.status(i) !== '', id).then(() => page.evaluate((i) => ({
      status: H.status(i), error: H.el(i).shadowRoot.querySelector('.status').classList.contains('error'),
    }), id));
    Object.assign(r, await said('chapter-1'));
    // Other chapters keep working and their own edits get the same message.
    await page.evaluate(() => { H.naive('chapter-4', true); H.type('chapter-4', 'decoder_state', 0, 2, '1'); });
    r.status4 = (await said('chapter-4')).status;
    r.config4 = await page.evaluate(() => H.el('chapter-4').config.decoder_state);
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
  await saves(page, ['chapter-4']);
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
  await chance(page); // a chance for the garbage to be written back
  const left = await page.evaluate((g) => Object.keys(g).filter((id) => localStorage.getItem(H.key(id)) === g[id]), garbage);
  assert.deepEqual(left, [], 'no garbage is left in storage');
  await page.evaluate(() => H.type('chapter-1', 'embeddings', 1, 1, '8'));
  await saves(page, ['chapter-1']);
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
    await chance(b); // a chance for the tab only looked at to write
    await a.evaluate(() => H.type('chapter-1', 'embeddings', 0, 0, '6'));
    await saves(a, ['chapter-1']);
    await a.goto('about:blank'); // the reader closes tab A (its edit is saved) …
    await b.goto('about:blank'); // … then tab B, where nothing was edited
    const c = await open2(); // and comes back later
    assert.equal(await c.evaluate(() => H.el('chapter-1').config.embeddings[0][0]), 6, 'tab A\'s edit survives');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// ---- Figures identified by more than their position; a config set by the page; a model's stack --------------------
// Small pages of their own (served by a route under /pp/ on the test server's origin, so localStorage is the site's),
// one browser context each; the reader's actions are the real mouse and keyboard, reloads are real reloads.

const tiny = (body, script = '') => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>persist</title>
<script type="module" src="/www/attention-viz.js"></script>${script ? `<script type="module">${script}</script>` : ''}</head>
<body>${body}</body></html>`;

/** A browser profile serving `pages` (path → HTML, changeable between loads) under /pp/; console warnings kept. */
async function profile(pages) {
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route('**/pp/**', (route) => {
    const body = pages[new URL(route.request().url()).pathname];
    return body === undefined ? route.fulfill({ status: 404, body: 'no such page' })
      : route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body });
  });
  const page = await context.newPage();
  page.errors = [];
  page.warnings = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') page.errors.push(m.text());
    if (m.type() === 'warning') page.warnings.push(m.text());
  });
  return { context, page };
}

/** Every figure drawn (and `extra` true of each), then the page helpers. */
async function drawnAll(page, extra = '') {
  await page.waitForFunction((x) => {
    const els = [...document.querySelectorAll('attention-viz')];
    return els.length > 0 && els.every((e) => e.trace && e.shadowRoot.querySelector('canvas[data-view]')?.width > 0 && (!x || new Function('e', x)(e)));
  }, extra);
  await page.evaluate(pageHelpers);
}

/** Types into a cell of the nth figure with the real keyboard; the focus stays in that cell. */
async function typeNth(page, nth, m, r, c, text) {
  const cell = page.locator(`attention-viz >> nth=${nth}`).locator(`input.cell[data-matrix="${m}"][data-row="${r}"][data-col="${c}"]`);
  await cell.scrollIntoViewIfNeeded();
  await cell.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
  assert.equal((await page.evaluate(() => T.focus())).shadow, `cell ${m}:${r}:${c}`, 'the focus stays in the cell typed in');
}

/** The page's saved entries (key → length), once `n` are there. */
async function savedEntries(page, n) {
  await page.waitForFunction((k) => Object.keys(localStorage).filter((x) => x.startsWith('attention-viz:')).length === k, n);
  return page.evaluate(() => Object.fromEntries(Object.keys(localStorage).filter((k) => k.startsWith('attention-viz:')).map((k) => [k, localStorage.getItem(k).length])));
}

const figures = (page) => page.evaluate(() => [...document.querySelectorAll('attention-viz')].map((e) => ({
  id: e.id,
  v: e.config.embeddings?.[0]?.[0],
  status: e.shadowRoot.querySelector('.status').textContent,
  actions: [...e.shadowRoot.querySelectorAll('.status button')].map((b) => b.dataset.action),
})));

test('persist + a config the page sets through the `.config` property: the reader\'s edits come back on reload (set before and after the figure loaded); Reset forgets them', async () => {
  const script = `import { ready } from '/www/attention-viz.js';
    await ready;
    // #q has loaded by now (the first figure loads at once); #p is still queued: its config waits for its load.
    document.getElementById('q').config = { embeddings: [[1, 2], [3, 4], [5, 6]], tokens: ['a', 'b', 'c'] };
    document.getElementById('p').config = { embeddings: [[1, 0], [0, 1]], tokens: ['x', 'y'] };`;
  const { context, page } = await profile({ '/pp/prop.html': tiny('<attention-viz id="q" persist></attention-viz><attention-viz id="p" persist></attention-viz>', script) });
  try {
    const ok = "return e.config.tokens[0] === (e.id === 'q' ? 'a' : 'x')";
    await page.goto(`${site.url}pp/prop.html`);
    await drawnAll(page, ok);
    await typeNth(page, 0, 'embeddings', 0, 0, '81');
    await typeNth(page, 1, 'embeddings', 1, 0, '82');
    const saved = await savedEntries(page, 2);
    assert.ok(Object.keys(saved).every((k) => /^attention-viz:\/pp\/prop\.html:[qp]:[0-9a-z]+$/.test(k)), `keyed by id and config: ${Object.keys(saved)}`);

    await page.reload();
    await drawnAll(page, ok);
    const back = await page.evaluate(() => ['q', 'p'].map((id) => {
      const e = document.getElementById(id);
      return { config: e.config.embeddings, status: e.shadowRoot.querySelector('.status').textContent };
    }));
    assert.deepEqual(back[0].config, [[81, 2], [3, 4], [5, 6]], '#q (set after its load): the edit is back');
    assert.deepEqual(back[1].config, [[1, 0], [82, 1]], '#p (set before its load): the edit is back');
    for (const b of back) assert.match(b.status, /^Showing your saved edits/, 'said on the figure');
    assert.deepEqual(Object.keys(await savedEntries(page, 2)).sort(), Object.keys(saved).sort(), 'the saved entries are kept');
    // The figure's heatmaps show the restored numbers: embeddings[0][0] = 81 is in q's trace.
    assert.equal(await page.evaluate(() => document.getElementById('q').trace.q?.[0]?.[0] ?? document.getElementById('q').trace.embeddings?.[0]?.[0]), 81);

    // Reset beside the notice: the page's numbers, the saved edits forgotten, the keyboard on the toolbar's Reset.
    await page.locator('#q').locator('.status button[data-action="notice-reset"]').click();
    assert.deepEqual(await page.evaluate(() => document.getElementById('q').config.embeddings), [[1, 2], [3, 4], [5, 6]]);
    assert.equal((await page.evaluate(() => T.focus())).shadow, 'action reset');
    await savedEntries(page, 1);
    await page.reload();
    await drawnAll(page, ok);
    const after = await figures(page);
    assert.equal(after[0].v, 1, '#q after Reset and a reload: the page\'s numbers');
    assert.doesNotMatch(after[0].status, /saved edits/);
    assert.equal(after[1].status.startsWith('Showing your saved edits'), true, '#p keeps its edits');
    assert.deepEqual(page.errors, []);
  } finally { await context.close(); }
});

test('persist + the page setting the same config right after a typed edit (before its save is due): the edit shows, is saved, and comes back on reload', async () => {
  // The page sets its config again as soon as the figure reports a change (a page that re-sends its config on every
  // change, or whose own code runs right after an edit): in a microtask, long before the save's 250 ms are up.
  const script = `import { ready } from '/www/attention-viz.js';
    await ready;
    const el = document.getElementById('q');
    window.C = () => ({ embeddings: [[1, 2], [3, 4], [5, 6]], tokens: ['a', 'b', 'c'] });
    el.config = C();
    window.resent = [];
    el.addEventListener('change', () => {
      if (!window.armed) return;
      window.armed = false;
      queueMicrotask(() => {
        // The edit's save is still waiting: the storage holds the older value, not the one shown.
        const pending = savedFirst() !== el.config.embeddings[0][0];
        el.config = C();
        window.resent.push({ pending, shown: el.config.embeddings[0][0] });
      });
    });`;
  const { context, page } = await profile({ '/pp/resend.html': tiny('<attention-viz id="q" persist></attention-viz>', script) });
  // The page's one saved entry decoded (src/share.rs: base64url of its JSON): its embeddings[0][0], or null.
  await page.addInitScript(() => {
    window.savedFirst = () => {
      const keys = Object.keys(localStorage).filter((k) => k.startsWith('attention-viz:'));
      if (keys.length !== 1) return null;
      const text = localStorage.getItem(keys[0]);
      const s = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (ch) => ch.charCodeAt(0))));
      return s.config.embeddings[0][0];
    };
  });
  try {
    const ok = "return e.config.tokens[0] === 'a'";
    const savedFirst = () => page.evaluate(() => window.savedFirst());
    await page.goto(`${site.url}pp/resend.html`);
    await drawnAll(page, ok);
    // An edit saved the usual way: the older saved value the figure must not fall back to.
    await typeInCell(page, 'q', 'embeddings', 0, 0, '8');
    await page.waitForFunction(() => window.savedFirst() === 8);
    assert.equal(await savedFirst(), 8);

    await page.evaluate(() => { window.armed = true; });
    await typeInCell(page, 'q', 'embeddings', 0, 0, '9');
    await page.waitForFunction(() => window.resent.length === 1);
    const [resent] = await page.evaluate(() => window.resent);
    assert.equal(resent.pending, true, 'the page set its config while the edit\'s save was still waiting');
    assert.equal(resent.shown, 9, 'the figure shows the typed 9, not the older saved 8');
    assert.equal(await page.evaluate(() => document.getElementById('q').trace.q?.[0]?.[0] ?? document.getElementById('q').trace.embeddings?.[0]?.[0]), 9, 'the trace too');
    // Its save is written (at once or debounced, however late): then the storage holds the typed 9, never the 8.
    await page.waitForFunction(() => window.savedFirst() !== 8);
    assert.equal(await savedFirst(), 9, 'localStorage holds the typed 9');
    assert.match(await page.evaluate(() => document.getElementById('q').shadowRoot.querySelector('.status').textContent), /^Showing your saved edits/);

    await page.reload();
    await drawnAll(page, ok);
    assert.equal(await page.evaluate(() => document.getElementById('q').config.embeddings[0][0]), 9, 'the reload keeps the typed 9');
    assert.equal(await savedFirst(), 9);
    assert.deepEqual(page.errors, []);
  } finally { await context.close(); }
});

test('persist without ids: figures of one config are told apart by their views and their order among their twins; a twin added above sets their edits aside (offered, never shown on the wrong figure) and the author is warned once', async () => {
  const fig = (views = '') => `<attention-viz preset="seed-001" persist${views ? ` views="${views}"` : ''}></attention-viz>`;
  const pages = { '/pp/twins.html': tiny(fig('inputs,context') + fig() + fig()) };
  const { context, page } = await profile(pages);
  try {
    await page.goto(`${site.url}pp/twins.html`);
    await drawnAll(page);
    await typeNth(page, 0, 'embeddings', 0, 0, '72'); // the figure with views="inputs,context"
    await typeNth(page, 2, 'embeddings', 0, 0, '73'); // the second of two twins
    await savedEntries(page, 2);
    const warned = page.warnings.filter((w) => /persist/.test(w));
    assert.equal(warned.length, 1, `the author is warned once that two figures cannot be told apart: ${page.warnings}`);
    assert.match(warned[0], /Give each persisted figure an id/);

    // The author adds a twin at the top, and a figure of the same config with other views.
    pages['/pp/twins.html'] = tiny(fig() + fig('inputs,weights') + fig('inputs,context') + fig() + fig());
    page.warnings.length = 0;
    await page.reload();
    await drawnAll(page);
    const got = await figures(page);
    assert.deepEqual(got.map((f) => f.v), [1, 1, 72, 1, 1], 'the views="inputs,context" figure has its 72; 73 is on no figure');
    assert.match(got[2].status, /^Showing your saved edits/);
    for (const i of [0, 3, 4]) {
      assert.match(got[i].status, /could not be matched/, `twin ${i} says saved edits of a figure like it could not be matched`);
      assert.deepEqual(got[i].actions, ['show-orphan', 'discard-orphan']);
    }
    assert.equal(got[1].status, '', 'another views: nothing offered');
    assert.equal(page.warnings.filter((w) => /persist/.test(w)).length, 1, 'warned once on this load too');

    // The reader takes them back on the figure they edited (now the last): shown, said, saved as its own.
    await page.locator('attention-viz >> nth=4').locator('.status button[data-action="show-orphan"]').click();
    assert.equal((await figures(page))[4].v, 73);
    assert.deepEqual(await page.evaluate(() => T.focus()).then((f) => f.shadow), 'action notice-reset', 'the keyboard lands on the notice\'s Reset');
    await page.reload();
    await drawnAll(page);
    const final = await figures(page);
    assert.deepEqual(final.map((f) => f.v), [1, 1, 72, 1, 73]);
    assert.match(final[4].status, /^Showing your saved edits/);
    for (const i of [0, 1, 3]) assert.equal(final[i].status, '', `figure ${i}: nothing left to offer`);
    assert.equal(Object.keys(await savedEntries(page, 2)).length, 2, 'no orphan left in storage');
    assert.deepEqual(page.errors, []);
  } finally { await context.close(); }
});

test('persist on a model\'s weights whose state is far over what a share state may hold: a head pick saves only the selection and comes back on reload; shareURL() refuses with the menu\'s message', async () => {
  // 2 layers × 4 heads × 400 × 400 (1.28 M weights of 0.0025): a whole state is ~12 M characters.
  const script = `import { ready } from '/www/attention-viz.js';
    await ready;
    const n = 400;
    const row = new Array(n).fill(1 / n);
    document.getElementById('w').config = { mechanism: 'weights', attention: Array.from({ length: 2 }, () => Array.from({ length: 4 }, () => Array.from({ length: n }, () => row))) };`;
  const { context, page } = await profile({ '/pp/weights.html': tiny('<attention-viz id="w" persist></attention-viz>', script) });
  const loaded = "return e.trace?.mechanism === 'weights' && e.shadowRoot.querySelector('canvas.model-grid')?.width > 0";
  try {
    await page.goto(`${site.url}pp/weights.html`);
    await drawnAll(page, loaded);
    const selected = () => page.evaluate(() => { const c = document.getElementById('w').config; return [c.layer ?? 0, c.head ?? 0]; });
    assert.deepEqual(await selected(), [0, 0]);
    // Head (0, 0) under the mouse, then ↓ → Enter with the keyboard: head (1, 1).
    const at = await page.evaluate(async () => {
      const el = document.getElementById('w');
      el.shadowRoot.querySelector('canvas.model-grid').scrollIntoView({ block: 'center' });
      return (await T.grid(el)).center(0, 0);
    });
    await page.mouse.click(at.x, at.y);
    for (const key of ['ArrowDown', 'ArrowRight', 'Enter']) await page.keyboard.press(key);
    assert.deepEqual(await selected(), [1, 1]);
    const focus = await page.evaluate(() => document.getElementById('w').shadowRoot.activeElement?.matches('canvas.model-grid'));
    assert.ok(focus, 'the keyboard stays on the grid');
    const saved = Object.values(await savedEntries(page, 1));
    assert.ok(saved[0] < 200, `only the selection is saved (${saved[0]} characters)`);
    assert.doesNotMatch(await page.evaluate(() => document.getElementById('w').shadowRoot.querySelector('.status').textContent), /too large/);

    // shareURL(): a link this long would not open; said at once, with the Share menu's words.
    const refused = await page.evaluate(() => { try { return { url: document.getElementById('w').shareURL().length }; } catch (e) { return { error: e instanceof Error, message: e.message }; } });
    assert.equal(refused.error, true, `shareURL() throws an Error: ${JSON.stringify(refused).slice(0, 200)}`);
    assert.match(refused.message, /too large for a link \(at least [\d,]+ characters; browsers open at most about 2,000,000\)/);
    await page.locator('#w').locator('details.menu > summary').click();
    await page.locator('#w').locator('button[data-action="copy-link"]').click();
    assert.equal(await page.evaluate(() => document.getElementById('w').shadowRoot.querySelector('.status').firstChild.textContent.trim()), refused.message, 'the menu says the same');
    assert.equal(await page.evaluate(() => location.hash), '');

    await page.reload();
    await drawnAll(page, loaded);
    assert.deepEqual(await selected(), [1, 1], 'the picked head is back');
    assert.match(await page.evaluate(() => document.getElementById('w').shadowRoot.querySelector('.status').textContent), /^Showing your saved edits/);
    assert.deepEqual(page.errors, []);
  } finally { await context.close(); }
});

test('persist: the longest state saved is the core\'s share::MAX_LEN (read from the core; the docs say the same number)', async () => {
  const { context, page } = await profile({ '/pp/max.html': tiny('<attention-viz id="m" persist preset="seed-000"></attention-viz>') });
  try {
    await page.goto(`${site.url}pp/max.html`);
    await drawnAll(page);
    const max = await page.evaluate(async () => (await import('/www/pkg/attention_viz.js')).call({ kind: 'facts' }).share_max_len);
    const rust = readFileSync(new URL('../../src/share.rs', import.meta.url), 'utf8');
    assert.equal(max, Number(rust.match(/pub const MAX_LEN: usize = ([\d_]+);/)[1].replace(/_/g, '')));
    const docs = readFileSync(new URL('../../www/embed.html', import.meta.url), 'utf8');
    assert.match(docs, new RegExp(`longer than a share state may be \\(${max.toLocaleString('en')} characters\\)`));
    const js = readFileSync(new URL('../../www/element/persist.js', import.meta.url), 'utf8');
    assert.doesNotMatch(js, /4_?000_?000/, 'no copy of the number in the element');
    assert.deepEqual(page.errors, []);
  } finally { await context.close(); }
});

test('persist: a figure too large to save says so after every edit, not only the first (a toolbar change clears the status line)', async () => {
  // 512 tokens × 330 (random numbers): a whole state of ~4.5 M characters, over what the core restores.
  const script = `
    const el = document.getElementById('big');
    let s = 12345;
    const rnd = () => { s = (Math.imul(s, 1103515245) + 12345) >>> 0; return s / 4294967296 - 0.5; };
    el.config = { embeddings: Array.from({ length: 512 }, () => Array.from({ length: 330 }, rnd)) };`;
  const { context, page } = await profile({ '/pp/big.html': tiny('<attention-viz id="big" persist preset="seed-000"></attention-viz>', script) });
  // Each save of a state too large to keep removes the figure's older saved edits (a reload would bring back edits
  // older than the ones on screen): counted, to know when a debounced save has run.
  await page.addInitScript(() => {
    window.removals = 0;
    const { removeItem } = Storage.prototype;
    Storage.prototype.removeItem = function (k) { if (String(k).startsWith('attention-viz:')) window.removals++; return removeItem.call(this, k); };
  });
  const status = () => page.evaluate(() => document.getElementById('big').shadowRoot.querySelector('.status').textContent);
  try {
    await page.goto(`${site.url}pp/big.html`);
    await drawnAll(page, 'return e.config.embeddings.length === 512');
    await typeNth(page, 0, 'embeddings', 0, 0, '7');
    await page.waitForFunction(() => /too large to save/.test(document.getElementById('big').shadowRoot.querySelector('.status').textContent));
    assert.match(await status(), /^This figure is too large to save \(its state is [\d,]+ characters, more than the 4,000,000 that can be restored\)/);
    // Another query from the toolbar's menu: an edit that clears the status line, and cannot be saved either.
    const query = page.locator('#big').locator('[data-control="query"]');
    await query.scrollIntoViewIfNeeded();
    await query.focus();
    const removals = await page.evaluate(() => window.removals);
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
    assert.equal((await page.evaluate(() => T.focus())).shadow, 'control query', 'the keyboard stays on the menu');
    assert.equal(await page.evaluate(() => document.getElementById('big').toJSON().config.query), 3);
    // The second edit's save must run (debounced, however late): wait for it, then look.
    await page.waitForFunction((n) => window.removals > n, removals);
    assert.match(await status(), /too large to save/, 'still said after the second edit');
    assert.deepEqual(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('attention-viz:'))), [], 'nothing saved');
    assert.deepEqual(page.errors, []);
  } finally { await context.close(); }
});
