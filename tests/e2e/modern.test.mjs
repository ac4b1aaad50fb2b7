// The position, kv and window panels of <attention-viz> (www/element/modern.js): `position` (kind, base slider and
// typed base, RoPE's pairs, ALiBi's slopes, "Shift positions"), `kv` (key/value heads) and `window` (sides and sinks,
// drawn by the core on the mask heatmap), driven only with real input: page.mouse, page.keyboard and page.touchscreen
// (a touch context), never by calling handlers. After each action the test asserts where the keyboard focus is, and
// that the figure's trace is what compute() gives for the edited config (compute() is checked against the JAX/NumPy
// goldens by tests/modern.rs). The page is served from memory (page.route).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, done, openHTML, typeInCell, until } from './harness.mjs';

const AXE = join(fileURLToPath(new URL('../../', import.meta.url)), 'node_modules/axe-core/axe.min.js');
const PAGE = 'tests/e2e/modern-page.html'; // no such file: served by page.route below
const HTML = (body, dark) => `<!doctype html><html lang="en"><meta charset="utf-8"><title>modern panels</title><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1">${dark ? '<meta name="color-scheme" content="dark">' : ''}
<body style="margin:8px;font-family:sans-serif${dark ? ';background:#0d1117;color:#e6edf3' : ''}"><main><h1>Modern panels</h1>
<script type="module" src="/www/attention-viz.js"></script>
${body}</main></body></html>`;

const X = [[1, 0, 0.5, 1], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0.5, 1, 1], [1, 0, 1, 0]];
const W = [[1, 0, 2, 1], [0, 1, 0, 1], [1, 1, 0, 0.5], [0, 2, 1, 1]];
const W2 = [[1, 0], [0, 1], [1, 1], [0.5, 2]];
const fig = (id, cfg, views) => `<attention-viz id="${id}"${views ? ` views="${views}"` : ''} config='${JSON.stringify(cfg)}'></attention-viz>`;
const ROPE = { embeddings: X, w_q: W, w_k: W, w_v: W, heads: 2, position: { kind: 'rope' } };
const W3 = W.slice(0, 3).map((r) => r.slice(0, 3));
const ODD = { embeddings: X.map((r) => r.slice(0, 3)), w_q: W3, w_k: W3, w_v: W3 };
const GQA = { embeddings: X, w_q: W, w_k: W2, w_v: W2, heads: 4, kv_heads: 2 };
const WIN = { embeddings: X, w_q: W, w_k: W, w_v: W, mask: 'causal', window: [1, 0], sinks: 1 };
const ALL = { embeddings: X, w_q: W, w_k: W2, w_v: W2, heads: 2, kv_heads: 1, mask: 'causal', window: [2, 0], sinks: 1, position: { kind: 'rope', offset: 2 } };
const DEFAULT_BODY = [fig('rope', ROPE), fig('odd', ODD, 'controls,position,scores,weights'), fig('gqa', GQA), fig('win', WIN)].join('\n');

let site;
before(async () => { site = await open(); });
after(() => site.close());

/** `window.H`: lookups, and compute() of a config; every action in these tests is a real mouse, key or touch event. */
function installHelpers() {
  window.H = {
    el: (id) => document.getElementById(id),
    focus: () => T.focus(),
    record: (id) => T.record(H.el(id)),
    log: (id) => T.log(H.el(id)),
    /** First difference (1e-12) between the figure's trace and compute() of its config, or null. */
    async traceDiff(id) {
      const av = await import('/www/attention-viz.js');
      const el = H.el(id);
      return T.diff(el.trace, av.compute(el.config));
    },
    scores: (id) => H.el(id).trace.heads.map((h) => h.scores),
    qRot: (id) => H.el(id).trace.heads.map((h) => h.q_rot),
    maskCell: (id, i, j, view = 'mask') => T.cellPoint(H.el(id), view, i, j),
    maskHash: (id) => T.hash(H.el(id).shadowRoot.querySelector('canvas[data-control="mask-grid"]')),
    panels(id) {
      const v = H.el(id).shadowRoot.querySelector('.variants');
      return v.hidden ? [] : [...v.querySelectorAll('[data-panel]')].map((p) => p.dataset.panel);
    },
    text: (id, sel) => H.el(id).shadowRoot.querySelector(sel)?.textContent ?? null,
  };
}

const load = (body = DEFAULT_BODY, { dark = false, ...opts } = {}) => openHTML(site, PAGE, HTML(body, dark), installHelpers, opts);

const inFig = (id, sel) => `#${id} >> ${sel}`;
const focusOf = (page) => page.evaluate(() => H.focus());
const config = (page, id) => page.evaluate((id) => H.el(id).config, id);
const on = (id, what) => ({ doc: id, shadow: what });
const traceIsComputes = async (page, id, what) => assert.equal(await page.evaluate((id) => H.traceDiff(id), id), null, `${what}: the trace is compute()'s`);

async function clickAt(page, sel) {
  const loc = page.locator(sel);
  await loc.scrollIntoViewIfNeeded();
  await loc.click();
}

/** Clicks a text field, selects all, types `text` (and Enter when asked). */
async function typeIn(page, sel, text, enter = false) {
  await clickAt(page, sel);
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
  if (enter) await page.keyboard.press('Enter');
}

function close(a, b, what) {
  const flat = (m) => m.flat(2);
  const [x, y] = [flat(a), flat(b)];
  assert.equal(x.length, y.length, what);
  x.forEach((v, k) => assert.ok(Math.abs(v - y[k]) <= 1e-12 * Math.max(1, Math.abs(y[k])), `${what}[${k}]: ${v} vs ${y[k]}`));
}

// ---- which panels show ----------------------------------------------------------------------------------

test('the panels show as the core says the config uses them (snapshot.used), or as views names them', async () => {
  const page = await load();
  // (+ the heads panel: these figures have several heads.)
  assert.deepEqual(await page.evaluate(() => H.panels('rope')), ['heads', 'position']);
  assert.deepEqual(await page.evaluate(() => H.panels('odd')), ['position']);
  assert.deepEqual(await page.evaluate(() => H.panels('gqa')), ['heads', 'kv']);
  // The window lives on the mask heatmap: the mask panel shows with it.
  assert.deepEqual(await page.evaluate(() => H.panels('win')), ['window', 'mask']);
  for (const id of ['rope', 'odd', 'gqa', 'win']) {
    assert.equal(await page.evaluate((id) => H.el(id).shadowRoot.querySelector('[data-role="attributes"]').hidden, id), true, `${id}: no "no panel" message`);
  }
  await done(page);
});

test('the panels asked of an encoder–decoder figure are said where the author looks (the core\'s message), not silently left out', async () => {
  const page = await load(fig('cross', { decoder_state: [1, 0], annotations: [[1, 0], [0, 1], [1, 1]] }, 'controls,weights,decode,kv'));
  const line = await page.evaluate(() => {
    const a = H.el('cross').shadowRoot.querySelector('[data-role="attributes"]');
    return a.hidden ? null : a.textContent;
  });
  assert.match(line ?? '', /views: the kv, decode panels are for self-attention; this figure is encoder–decoder attention/);
  await done(page);
});

// ---- position -------------------------------------------------------------------------------------------

test('position: the kind menu (keyboard), RoPE pairs, the base slider (mouse, keys) and the typed base; the trace is compute()\'s', async () => {
  const page = await load();
  const kind = inFig('rope', '[data-control="position-kind"]');
  await page.locator(kind).focus();
  await page.keyboard.press('ArrowUp'); // RoPE → sinusoidal
  assert.deepEqual((await config(page, 'rope')).position, { kind: 'sinusoidal', base: 10000 });
  assert.deepEqual(await focusOf(page), on('rope', 'control position-kind'), 'the menu keeps the focus after the rebuild');
  await traceIsComputes(page, 'rope', 'sinusoidal');
  assert.ok((await page.evaluate(() => H.el('rope').trace.pe)).length === 5, 'trace.pe');
  await page.keyboard.press('ArrowDown');
  assert.equal((await config(page, 'rope')).position.kind, 'rope');
  assert.deepEqual(await focusOf(page), on('rope', 'control position-kind'));

  // Pairs: halves by keyboard.
  await page.locator(inFig('rope', '[data-control="position-pairs"]')).focus();
  await page.keyboard.press('ArrowDown');
  assert.equal((await config(page, 'rope')).position.pairs, 'halves');
  assert.deepEqual(await focusOf(page), on('rope', 'control position-pairs'));
  await traceIsComputes(page, 'rope', 'halves');

  // The base slider: a click near its left end (a small base), then the arrow keys (one step: ×10^0.01).
  const slider = page.locator(inFig('rope', '[data-control="position-base-slider"]'));
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  await page.mouse.click(box.x + box.width * 0.3, box.y + box.height / 2);
  const clicked = (await config(page, 'rope')).position.base;
  assert.ok(clicked > 1 && clicked < 10000, `a click left of the middle gives a smaller base (${clicked})`);
  assert.deepEqual(await focusOf(page), on('rope', 'control position-base-slider'));
  assert.equal(await page.locator(inFig('rope', '[data-control="position-base"]')).inputValue(), String(clicked), 'the typed field shows the value');
  await page.keyboard.press('ArrowRight');
  const stepped = (await config(page, 'rope')).position.base;
  assert.ok(stepped > clicked, `ArrowRight raises the base (${clicked} → ${stepped})`);
  assert.match(await slider.getAttribute('aria-valuetext'), new RegExp(`base ${stepped}`));
  await traceIsComputes(page, 'rope', 'slider');

  // Typed: 500000 and Enter; the slider follows.
  await typeIn(page, inFig('rope', '[data-control="position-base"]'), '500000', true);
  assert.equal((await config(page, 'rope')).position.base, 500000);
  assert.deepEqual(await focusOf(page), on('rope', 'control position-base'));
  assert.equal(await slider.inputValue(), String(Math.round(100 * Math.log10(500000))));
  await traceIsComputes(page, 'rope', 'typed base');
  // A base below 1: the core's message in the panel, the config kept.
  await typeIn(page, inFig('rope', '[data-control="position-base"]'), '0.5', true);
  assert.equal((await config(page, 'rope')).position.base, 500000);
  assert.match(await page.evaluate(() => H.text('rope', '[data-role="position-error"]')), /position\.base must be a number ≥ 1/);
  assert.equal(await page.locator(inFig('rope', '[data-control="position-base"]')).getAttribute('aria-invalid'), 'true');
  assert.deepEqual(await focusOf(page), on('rope', 'control position-base'));
  await typeIn(page, inFig('rope', '[data-control="position-base"]'), '100', true);
  assert.equal(await page.evaluate(() => H.text('rope', '[data-role="position-error"]')), '', 'a valid base clears the message');

  // ALiBi: the slopes read from the trace, then typed.
  await page.locator(kind).focus();
  await page.keyboard.press('ArrowDown');
  assert.deepEqual((await config(page, 'rope')).position, { kind: 'alibi' });
  assert.match(await page.evaluate(() => H.text('rope', '[data-role="slopes"]')), /^m = 0\.0625, 0\.003906 \(the defaults/, 'H = 2: 2^−4, 2^−8');
  await typeIn(page, inFig('rope', '[data-control="position-slopes"]'), '0.5, 0.25', true);
  assert.deepEqual((await config(page, 'rope')).position, { kind: 'alibi', slopes: [0.5, 0.25] });
  assert.match(await page.evaluate(() => H.text('rope', '[data-role="slopes"]')), /^m = 0\.5, 0\.25: head h adds/);
  assert.deepEqual(await focusOf(page), on('rope', 'control position-slopes'));
  await traceIsComputes(page, 'rope', 'alibi slopes');
  await done(page);
});

test('RoPE on an odd d_k: the core\'s message in the position panel; the menu and the figure stay as they were', async () => {
  const page = await load();
  await page.evaluate(() => H.record('odd'));
  const before = await page.evaluate(() => H.el('odd').trace);
  const kind = inFig('odd', '[data-control="position-kind"]');
  await page.locator(kind).focus();
  await page.keyboard.press('ArrowDown'); // none → sinusoidal
  await page.keyboard.press('ArrowDown'); // → RoPE: refused
  assert.equal((await config(page, 'odd')).position.kind, 'sinusoidal');
  assert.equal(await page.locator(kind).inputValue(), 'sinusoidal', 'the menu says what the figure has');
  assert.match(await page.evaluate(() => H.text('odd', '[data-role="position-error"]')), /position "rope" needs an even d_k .* d_k is 3/);
  assert.deepEqual(await focusOf(page), on('odd', 'control position-kind'));
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  assert.equal((await config(page, 'odd')).position, undefined);
  assert.deepEqual(await page.evaluate(() => H.el('odd').trace), before, 'back to the figure it was');
  assert.equal(await page.evaluate(() => H.text('odd', '[data-role="position-error"]')), '');
  await done(page);
});

test('shift positions (mouse, keyboard, touch): RoPE\'s scores stay the same, sinusoidal\'s change; the note says so', async () => {
  const page = await load(DEFAULT_BODY, { hasTouch: true });
  const scores0 = await page.evaluate(() => H.scores('rope'));
  const q0 = await page.evaluate(() => H.qRot('rope'));
  assert.match(await page.evaluate(() => H.text('rope', '[data-role="shift-note"]')), /RoPE: .* every score stays the same/);

  await clickAt(page, inFig('rope', '[data-action="shift-up"]'));
  assert.equal((await config(page, 'rope')).position.offset, 1);
  assert.deepEqual(await focusOf(page), on('rope', 'action shift-up'));
  await page.keyboard.press('Enter');
  assert.equal((await config(page, 'rope')).position.offset, 2, 'Enter on the focused + shifts again');
  const offset = inFig('rope', '[data-control="position-offset"]');
  await clickAt(page, offset);
  await page.keyboard.press('ArrowUp');
  assert.equal((await config(page, 'rope')).position.offset, 3);
  assert.deepEqual(await focusOf(page), on('rope', 'control position-offset'));
  await typeIn(page, offset, '40');
  assert.equal((await config(page, 'rope')).position.offset, 40);
  const plus = await page.locator(inFig('rope', '[data-action="shift-up"]')).boundingBox();
  await page.touchscreen.tap(plus.x + plus.width / 2, plus.y + plus.height / 2);
  assert.equal((await config(page, 'rope')).position.offset, 41, 'a tap on + shifts');
  assert.equal(await page.evaluate(() => H.text('rope', '[data-role="shift-range"]')), 'positions 41 … 45');
  await traceIsComputes(page, 'rope', 'RoPE shifted');
  close(await page.evaluate(() => H.scores('rope')), scores0, 'RoPE scores after shifting by 41');
  assert.notDeepEqual(await page.evaluate(() => H.qRot('rope')), q0, 'q_rot turned');

  // Sinusoidal keeps the shift; its scores are not the unshifted ones.
  await page.locator(inFig('rope', '[data-control="position-kind"]')).focus();
  await page.keyboard.press('ArrowUp');
  assert.deepEqual((await config(page, 'rope')).position, { kind: 'sinusoidal', base: 10000, offset: 41 });
  assert.match(await page.evaluate(() => H.text('rope', '[data-role="shift-note"]')), /Sinusoidal: .* changes the scores/);
  const shifted = await page.evaluate(() => H.scores('rope'));
  const down = await page.locator(inFig('rope', '[data-action="shift-down"]')).boundingBox();
  await page.touchscreen.tap(down.x + down.width / 2, down.y + down.height / 2);
  assert.equal((await config(page, 'rope')).position.offset, 40);
  await traceIsComputes(page, 'rope', 'sinusoidal shifted');
  const moved = (await page.evaluate(() => H.scores('rope'))).flat(2).some((x, k) => Math.abs(x - shifted.flat(2)[k]) > 1e-9);
  assert.ok(moved, 'sinusoidal scores change with the shift');
  // Not a number: marked and said, nothing changes.
  await typeIn(page, offset, 'x');
  assert.equal((await config(page, 'rope')).position.offset, 40);
  assert.equal(await page.locator(offset).getAttribute('aria-invalid'), 'true');
  assert.deepEqual(await focusOf(page), on('rope', 'control position-offset'));
  await done(page);
});

// ---- kv -------------------------------------------------------------------------------------------------

test('kv: only divisors of heads offered; the menu (keyboard) regroups K/V heads; who shares what is said; the trace is compute()\'s', async () => {
  const page = await load();
  const select = inFig('gqa', '[data-control="kv-heads"]');
  const values = await page.locator(`${select} option`).evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(values, ['1', '2', '4']);
  assert.deepEqual(await page.evaluate(() => [...H.el('gqa').shadowRoot.querySelectorAll('.kv-share li')].map((l) => l.textContent)),
    ['K/V head 0 ← query heads 0, 1', 'K/V head 1 ← query heads 2, 3']);
  // What the list says is what the core computed: the heads of a group read the same K (and V), the groups differ.
  const ks = await page.evaluate(() => H.el('gqa').trace.heads.map((h) => JSON.stringify([h.k, h.v])));
  assert.ok(ks[0] === ks[1] && ks[2] === ks[3] && ks[0] !== ks[2], 'query heads 0, 1 share K/V head 0; 2, 3 share 1');
  await page.locator(select).focus();
  await page.keyboard.press('ArrowUp');
  let cfg = await config(page, 'gqa');
  assert.equal(cfg.kv_heads, 1, 'multi-query');
  assert.deepEqual(cfg.w_k.map((r) => r.length), [1, 1, 1, 1], 'W_K is one head wide (d_k = 1)');
  assert.deepEqual(cfg.w_k[3], [1.25], 'the mean of the two K/V heads (Ainslie et al.\'s mean-pooling)');
  assert.deepEqual(await focusOf(page), on('gqa', 'control kv-heads'));
  assert.deepEqual(await page.evaluate(() => [...H.el('gqa').shadowRoot.querySelectorAll('.kv-share li')].map((l) => l.textContent)),
    ['K/V head 0 ← query heads 0, 1, 2, 3']);
  await traceIsComputes(page, 'gqa', 'MQA');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  cfg = await config(page, 'gqa');
  assert.equal(cfg.kv_heads, undefined, 'one K/V head per query head');
  assert.equal(cfg.w_k[0].length, 4);
  assert.deepEqual(await focusOf(page), on('gqa', 'control kv-heads'));
  await traceIsComputes(page, 'gqa', 'MHA');
  await done(page);
});

// ---- window ---------------------------------------------------------------------------------------------

test('window: sides and sinks (keyboard, mouse, touch) redraw the mask heatmap; the tooltip says the rule; the trace is compute()\'s', async () => {
  const page = await load(DEFAULT_BODY, { hasTouch: true });
  await page.locator(inFig('win', 'canvas[data-control="mask-grid"]')).scrollIntoViewIfNeeded();
  const hash0 = await page.evaluate(() => H.maskHash('win'));
  // Hovering a cell the window forbids (query 3, key 1: 3 − 1 > left 1, not a sink): the tooltip says so.
  let p = await page.evaluate(() => H.maskCell('win', 3, 1));
  await page.mouse.move(p.x, p.y);
  assert.match(await page.locator(inFig('win', 'canvas[data-control="mask-grid"]')).getAttribute('title'), /masked: outside the window \[1, 0\]/);
  p = await page.evaluate(() => H.maskCell('win', 3, 0));
  await page.mouse.move(p.x, p.y);
  assert.match(await page.locator(inFig('win', 'canvas[data-control="mask-grid"]')).getAttribute('title'), /attended as a sink/);
  p = await page.evaluate(() => H.maskCell('win', 1, 3));
  await page.mouse.move(p.x, p.y);
  assert.match(await page.locator(inFig('win', 'canvas[data-control="mask-grid"]')).getAttribute('title'), /masked: causal mask and outside the window/);

  // The weights heatmap's tooltip says it too.
  await page.locator(inFig('win', 'canvas[data-view="weights"]')).scrollIntoViewIfNeeded();
  p = await page.evaluate(() => H.maskCell('win', 3, 0, 'weights'));
  await page.mouse.move(p.x, p.y);
  await page.waitForFunction(() => !H.el('win').shadowRoot.querySelector('.tip').hidden);
  assert.match(await page.evaluate(() => H.el('win').shadowRoot.querySelector('.tip').textContent), /weights\[3\]\[0\][^]*attended as a sink/);

  const left = inFig('win', '[data-control="window-left"]');
  await clickAt(page, left);
  await page.keyboard.press('ArrowUp');
  assert.deepEqual((await config(page, 'win')).window, [2, 0]);
  assert.deepEqual(await focusOf(page), on('win', 'control window-left'));
  await traceIsComputes(page, 'win', 'left 2');
  const hash1 = await page.evaluate(() => H.maskHash('win'));
  assert.notEqual(hash1, hash0, 'the mask heatmap is redrawn with the wider window');
  await typeIn(page, inFig('win', '[data-control="sinks"]'), '0');
  assert.equal((await config(page, 'win')).sinks, undefined);
  assert.deepEqual(await focusOf(page), on('win', 'control sinks'));
  assert.notEqual(await page.evaluate(() => H.maskHash('win')), hash1, 'no sinks: the dashed columns go');
  await traceIsComputes(page, 'win', 'no sinks');
  // A side that is not a number: marked and said in the panel.
  await typeIn(page, inFig('win', '[data-control="window-right"]'), '-1');
  assert.equal(await page.locator(inFig('win', '[data-control="window-right"]')).getAttribute('aria-invalid'), 'true');
  assert.match(await page.evaluate(() => H.text('win', '[data-role="window-error"]')), /not a whole number/);
  await typeIn(page, inFig('win', '[data-control="window-right"]'), '1');
  assert.deepEqual((await config(page, 'win')).window, [2, 1]);
  assert.equal(await page.evaluate(() => H.text('win', '[data-role="window-error"]')), '');

  // A tap on the window box turns it off (the sides are kept in their fields), another on.
  const box = await page.locator(inFig('win', '[data-control="window-on"]')).boundingBox();
  await page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
  assert.equal((await config(page, 'win')).window, undefined);
  assert.deepEqual(await focusOf(page), on('win', 'control window-on'));
  await traceIsComputes(page, 'win', 'no window');
  const again = await page.locator(inFig('win', '[data-control="window-on"]')).boundingBox();
  await page.touchscreen.tap(again.x + again.width / 2, again.y + again.height / 2);
  assert.deepEqual((await config(page, 'win')).window, [2, 0], 'on again: the default sides');
  await done(page);
});

// ---- what carries the fields ----------------------------------------------------------------------------

test('toJSON, the share link and "Copy as NumPy" carry position.offset, kv_heads, window and sinks', async () => {
  const page = await load(fig('all', ALL));
  assert.deepEqual(await page.evaluate(() => H.panels('all')), ['heads', 'position', 'kv', 'window', 'mask']);
  await clickAt(page, inFig('all', '[data-action="shift-up"]'));
  await typeIn(page, inFig('all', '[data-control="sinks"]'), '2');
  const state = await page.evaluate(() => H.el('all').toJSON());
  for (const [k, v] of Object.entries({ kv_heads: 1, window: [2, 0], sinks: 2 })) assert.deepEqual(state.config[k], v, k);
  assert.deepEqual(state.config.position, { kind: 'rope', base: 10000, pairs: 'interleaved', offset: 3 });
  const numpy = await page.evaluate(() => H.el('all').toNumPy());
  assert.match(numpy, /offset=3/);
  assert.match(numpy, /kv_heads = 1/);
  assert.match(numpy, /j < 2/);
  const url = await page.evaluate(() => H.el('all').shareURL());
  await done(page);
  // The link opens the edited figure.
  const other = await load(fig('all', ALL), { url });
  assert.deepEqual(await config(other, 'all'), state.config);
  await done(other);
});

// ---- real models' layers: biases, the soft cap, partial rotary -------------------------------------------

const BQ = [0.5, -1, 0.25, 2];
const LAYER = { embeddings: X, w_q: W, w_k: W, w_v: W, b_q: BQ, b_k: [1, 0, -0.5, 0.75], mask: 'causal', softcap: 0.5,
  position: { kind: 'rope', pairs: 'halves', rotary_dim: 2 } };

test('compute(): the trace carries capped, the softmax\'s input, and a q shifted by b_q (nested and typed)', async () => {
  const page = await load(fig('layer', LAYER));
  const got = await page.evaluate(async (cfg) => {
    const av = await import('/www/attention-viz.js');
    const { b_q: _, ...plain } = cfg;
    const t = av.compute(cfg);
    const typed = av.compute(cfg, { arrays: 'typed' });
    return { q: t.q, plainQ: av.compute(plain).q, capped: t.capped, headCapped: t.heads[0].capped, scaled: t.scaled,
      weights: t.weights, queryCapped: t.query.capped, typed: { shape: typed.capped.shape, data: Array.from(typed.capped.data) } };
  }, LAYER);
  got.q.forEach((row, i) => row.forEach((x, j) => assert.ok(Math.abs(x - (got.plainQ[i][j] + BQ[j])) <= 1e-12, `q[${i}][${j}] = X·W_Q + b_q`)));
  assert.equal(got.capped.length, 5);
  assert.deepEqual(got.headCapped, got.capped, 'heads[0].capped is the one head\'s');
  assert.equal(got.capped[0][1], -Infinity, 'capped: −∞ where the causal mask masks');
  assert.ok(got.scaled.flat().every(Number.isFinite), 'scaled: scores / scale alone, no −∞');
  got.capped.forEach((row, i) => row.forEach((x, j) => {
    if (j <= i) assert.ok(Math.abs(x - 0.5 * Math.tanh(got.scaled[i][j] / 0.5)) <= 1e-12, `capped[${i}][${j}] = 0.5·tanh(scaled / 0.5)`);
  }));
  // The softmax reads capped: each row's weights are its exponentials over their sum.
  const row = got.capped[4];
  const e = row.map((x) => Math.exp(x - Math.max(...row)));
  close(got.weights[4], e.map((x) => x / e.reduce((a, b) => a + b, 0)), 'weights = softmax(capped)');
  assert.deepEqual(got.queryCapped, got.capped[0]);
  assert.deepEqual(got.typed.shape, [5, 5]);
  assert.deepEqual(got.typed.data, got.capped.flat(), 'typed capped');
  await done(page);
});

test('the soft cap panel (mouse, keyboard) and the rotated values (keys); a bias typed in its grid; the trace is compute()\'s', async () => {
  const { b_q: _, softcap: __, ...start } = LAYER;
  const page = await load(fig('cap', start));
  assert.ok((await page.evaluate(() => H.panels('cap'))).includes('position'));
  const views = () => page.evaluate(() => [...H.el('cap').shadowRoot.querySelectorAll('canvas[data-view]')].map((c) => c.dataset.view));
  assert.ok(!(await views()).includes('capped'));
  // Named by views: the soft cap panel shows while the cap is off.
  await page.evaluate(() => H.el('cap').setAttribute('views', 'controls,inputs,position,softcap,scaled,capped,weights'));
  await until(page, () => H.panels('cap').includes('softcap'));
  await clickAt(page, inFig('cap', '[data-control="softcap-on"]'));
  assert.equal((await config(page, 'cap')).softcap, 1, 'on: the panel\'s starting cap');
  assert.ok((await views()).includes('capped'), 'the capped heatmap shows');
  assert.match(await page.evaluate(() => H.text('cap', '[data-role="softcap-hint"]')), /1·tanh\(s \/ 1\)/);
  await traceIsComputes(page, 'cap', 'cap on');
  await typeIn(page, inFig('cap', '[data-control="softcap"]'), '0.25', true);
  assert.equal((await config(page, 'cap')).softcap, 0.25);
  assert.deepEqual(await focusOf(page), on('cap', 'control softcap'));
  await traceIsComputes(page, 'cap', 'cap 0.25');
  await typeIn(page, inFig('cap', '[data-control="softcap"]'), '-2', true);
  assert.equal((await config(page, 'cap')).softcap, 0.25, 'refused: the config kept');
  assert.match(await page.evaluate(() => H.text('cap', '[data-role="softcap-error"]')), /softcap must be a number > 0/);
  // The rotated values: 2 of d_k = 4; ↑ steps by 2 to all 4 (the default, so the field leaves the config).
  assert.equal((await config(page, 'cap')).position.rotary_dim, 2);
  await page.locator(inFig('cap', '[data-control="position-rotary"]')).focus();
  await page.keyboard.press('ArrowUp');
  assert.equal((await config(page, 'cap')).position.rotary_dim, undefined);
  assert.equal(await page.evaluate(() => H.text('cap', '[data-role="rotary-text"]')), 'values 0 … 3 of 4 turn');
  await page.keyboard.press('ArrowUp');
  assert.match(await page.evaluate(() => H.text('cap', '[data-role="position-error"]')), /position\.rotary_dim must be an even whole number from 2 to d_k \(4\)/);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.equal((await config(page, 'cap')).position.rotary_dim, 2);
  await traceIsComputes(page, 'cap', 'rotary_dim 2');
  // b_k is an input: typed in its grid, a new K.
  await typeInCell(page, 'cap', 'b_k', 0, 2, '3');
  await page.keyboard.press('Enter');
  assert.deepEqual((await config(page, 'cap')).b_k, [1, 0, 3, 0.75]);
  await traceIsComputes(page, 'cap', 'b_k typed');
  await done(page);
});

// ---- accessibility --------------------------------------------------------------------------------------

for (const [width, dark] of [[1280, false], [390, true]]) {
  test(`axe: no violation with all three panels at ${width} px ${dark ? 'dark' : 'light'}; nothing sticks out`, async () => {
    const page = await load(fig('all', ALL), { dark, viewport: { width, height: 900 } });
    assert.equal(await page.evaluate(() => (H.el('all').matches(':state(dark)') ? 'dark' : 'light')), dark ? 'dark' : 'light');
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
      .map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`));
    assert.deepEqual(violations, []);
    const out = await page.evaluate(() => {
      const host = H.el('all').getBoundingClientRect();
      return [...H.el('all').shadowRoot.querySelectorAll('.variants .modern *')]
        .filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && (r.right > host.right + 0.5 || r.left < host.left - 0.5); })
        .map((e) => `${e.localName}.${e.className} ${e.dataset.control ?? ''}`);
    });
    assert.deepEqual(out, []);
    await done(page);
  });
}

test('touch on the other controls: a tap on the base slider sets the base; a tap focuses a menu or a field, then the keys work', async () => {
  const page = await load(fig('all', ALL), { hasTouch: true });
  const tap = async (sel, fx = 0.5) => {
    const loc = page.locator(inFig('all', sel));
    await loc.scrollIntoViewIfNeeded();
    const b = await loc.boundingBox();
    await page.touchscreen.tap(b.x + b.width * fx, b.y + b.height / 2);
  };
  await tap('[data-control="position-base-slider"]', 0.9);
  const base = (await config(page, 'all')).position.base;
  assert.ok(base > 10000, `a tap right of the middle raises the base (${base})`);
  await traceIsComputes(page, 'all', 'tapped base');
  await tap('[data-control="sinks"]');
  assert.deepEqual(await focusOf(page), on('all', 'control sinks'));
  await page.keyboard.press('ArrowUp');
  assert.equal((await config(page, 'all')).sinks, 2);
  await tap('[data-control="window-left"]');
  await page.keyboard.press('ArrowDown');
  assert.deepEqual((await config(page, 'all')).window, [1, 0]);
  assert.deepEqual(await focusOf(page), on('all', 'control window-left'));
  await traceIsComputes(page, 'all', 'tapped window');
  await done(page);
});
