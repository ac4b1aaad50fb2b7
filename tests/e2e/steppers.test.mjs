// The decode and flash panels of <attention-viz> (www/element/steppers.js), driven only with real input: page.mouse
// (through locator clicks), page.keyboard and page.touchscreen, never by calling handlers. After every action the test
// asserts where the keyboard focus is (the stepper's button it pressed, or the field it typed in). The numbers are
// checked three ways: what the page shows against compute() of the same config, and against the NumPy goldens
// (tests/fixtures/modern-goldens.json: decode_step_3, tiles_causal_3_2).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, done, fixture, openHTML } from './harness.mjs';

const AXE = join(fileURLToPath(new URL('../../', import.meta.url)), 'node_modules/axe-core/axe.min.js');
const PAGE = 'tests/e2e/steppers-page.html'; // no such file: served by page.route below
const GOLDEN = fixture('modern-goldens.json').cases;
const caseOf = (name) => GOLDEN.find((c) => c.name === name);
const DECODE = caseOf('decode_step_3'); // 6 tokens, causal, t = 3
const FLASH = caseOf('tiles_causal_3_2'); // 7 tokens, 2 heads (head 1 followed), causal, 3 × 2 tiles
const num = (x) => (x === 'NaN' ? NaN : x === '-Infinity' ? -Infinity : x === 'Infinity' ? Infinity : x);
const close = (got, want) => got === want || Math.abs(got - want) <= 1e-12 * Math.max(Math.abs(want), 1e-300);

const attr = (o) => JSON.stringify(o).replace(/'/g, '&#39;');
const { mask: _mask, decode_step: _t, ...NO_MASK } = DECODE.config;
const HTML = (body, dark) => `<!doctype html><html lang="en"><meta charset="utf-8"><title>steppers</title><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1">
<body style="margin:8px;font-family:sans-serif${dark ? ';background:#0d1117;color:#e6edf3;color-scheme:dark' : ''}"><main><h1>Steppers</h1>
<script type="module" src="/www/attention-viz.js"></script>
${body}</main></body></html>`;
const BODY = (theme = 'light') => `<attention-viz id="dec" theme="${theme}" config='${attr(DECODE.config)}'></attention-viz>
<attention-viz id="flash" theme="${theme}" config='${attr(FLASH.config)}'></attention-viz>
<attention-viz id="off" theme="${theme}" views="decode,weights" config='${attr(NO_MASK)}'></attention-viz>`;

let site;
before(async () => { site = await open(); });
after(() => site.close());

function installHelpers() {
  const describe = (e) => {
    if (!e) return null;
    const d = e.dataset ?? {};
    if (d.action) return `action ${d.action}`;
    if (d.control) return `control ${d.control}`;
    return e.localName;
  };
  window.H = {
    el: (id) => document.getElementById(id),
    focus() {
      const a = document.activeElement;
      return { doc: a?.localName === 'attention-viz' ? a.id : a?.localName ?? null, shadow: a?.shadowRoot ? describe(a.shadowRoot.activeElement) : null };
    },
    text: (id, sel) => H.el(id).shadowRoot.querySelector(sel)?.textContent ?? null,
    /** A table's cells (their whole values: each cell's title), by column header. */
    table(id, role) {
      const t = H.el(id).shadowRoot.querySelector(`table[data-role="${role}"]`);
      if (!t) return null;
      const heads = [...t.querySelectorAll('thead th')].map((th) => th.textContent).slice(1);
      return [...t.querySelectorAll('tbody tr')].map((tr) => Object.fromEntries([...tr.querySelectorAll('td')].map((td, k) => [heads[k], Number(td.title)])));
    },
    hash: (id, view) => T.hash(H.el(id).shadowRoot.querySelector(`.steppers canvas[data-view="${view}"]`)),
    async compute(config) {
      const m = await import('/www/attention-viz.js');
      await m.ready;
      return m.compute(config);
    },
  };
}

const load = ({ theme = 'light', viewport, hasTouch = false } = {}) => openHTML(site, PAGE, HTML(BODY(theme), theme === 'dark'), installHelpers, { viewport, hasTouch });

const inFig = (id, sel) => `#${id} >> ${sel}`;
/** A real mouse click in the middle of `sel` (also on a button past its end: aria-disabled, which playwright's click waits out). */
async function click(page, sel) {
  const loc = page.locator(sel);
  await loc.scrollIntoViewIfNeeded();
  const b = await loc.boundingBox();
  await page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
}
const focusOf = (page) => page.evaluate(() => H.focus());
const on = (id, what) => ({ doc: id, shadow: what });
const stepOf = (page) => page.evaluate(() => H.el('dec').config.decode_step);

/** The decode trace the page shows, compute()'s of its config, and the row t of the causal weights. */
async function decodeChecks(page) {
  return page.evaluate(async () => {
    const el = H.el('dec');
    const cfg = el.config;
    const t = cfg.decode_step;
    const shown = el.trace;
    const again = await H.compute(cfg);
    const head = cfg.head ?? 0;
    return { t, decode: shown.decode, computed: again.decode, row: shown.heads[head].weights[t].slice(0, t + 1), context: shown.heads[head].context[t] };
  });
}

test('decode: ← → by mouse, the arrow keys, Home and End step decode_step; the focus stays on the stepper; the weights are row t of the causal weights (NumPy)', async () => {
  const page = await load();
  const panel = '[data-panel="decode"]';
  assert.equal(await stepOf(page), 3);
  assert.match(await page.evaluate(() => H.text('dec', '[data-role="decode-step"]')), /token 3 of 0 … 5/);
  // The cache's size and the cost of recomputing it are the trace's (the core's), said in the panel.
  const cost = await page.evaluate(() => H.text('dec', '[data-role="decode-cost"]'));
  assert.ok(cost.includes(`holds ${DECODE.expect['decode.cache_size']} numbers`), cost);
  assert.ok(cost.includes(`${DECODE.expect['decode.recompute_cost']} multiply-adds`), cost);

  const next = inFig('dec', `${panel} [data-action="decode-next"]`);
  await click(page, next);
  assert.equal(await stepOf(page), 4);
  assert.deepEqual(await focusOf(page), on('dec', 'action decode-next'));
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await stepOf(page), 2);
  assert.deepEqual(await focusOf(page), on('dec', 'action decode-next'));
  await page.keyboard.press('End');
  assert.equal(await stepOf(page), 5);
  // At the end → is aria-disabled, not disabled: it keeps the focus, and another press changes nothing.
  await click(page, next);
  assert.equal(await stepOf(page), 5);
  assert.equal(await page.locator(next).getAttribute('aria-disabled'), 'true');
  assert.deepEqual(await focusOf(page), on('dec', 'action decode-next'));
  await page.keyboard.press('Home');
  assert.equal(await stepOf(page), 0);
  await click(page, inFig('dec', `${panel} [data-action="decode-prev"]`));
  assert.equal(await stepOf(page), 0);
  assert.deepEqual(await focusOf(page), on('dec', 'action decode-prev'));

  // Every step: the page's decode equals compute()'s, its weights row t of the causal weights, entries 0 … t, and
  // NumPy's causal weights of that row (the golden's heads.0.weights).
  const golden = DECODE.expect['heads.0.weights'];
  for (let t = 0; t < 6; t++) {
    if (t > 0) await page.keyboard.press('ArrowRight');
    const c = await decodeChecks(page);
    assert.equal(c.t, t);
    assert.deepEqual(c.decode, c.computed, `step ${t}: the page's decode is compute()'s`);
    assert.deepEqual(c.decode.weights, c.row, `step ${t}: weights = row t of the causal weights`);
    assert.deepEqual(c.decode.context, c.context, `step ${t}: context = row t of the context`);
    assert.equal(c.decode.weights.length, t + 1);
    c.decode.weights.forEach((w, j) => assert.ok(close(w, num(golden[t][j])), `step ${t} weight ${j}: ${w} vs NumPy ${golden[t][j]}`));
    if (t === 3) {
      for (const k of ['weights', 'scores', 'context', 'k_cache', 'v_cache', 'q']) {
        assert.deepEqual(JSON.stringify(c.decode[k]), JSON.stringify(c.computed[k]));
        const want = DECODE.expect[`decode.${k}`].flat(); const got = [c.decode[k]].flat(2);
        got.forEach((x, j) => assert.ok(close(x, num(want[j])), `decode.${k}[${j}]: ${x} vs NumPy ${want[j]}`));
      }
    }
  }
  assert.deepEqual(await focusOf(page), on('dec', 'action decode-prev'));
  // The step is a config field: toJSON and the share link carry it.
  const state = await page.evaluate(() => H.el('dec').toJSON());
  assert.equal(state.config.decode_step, 5);
  await done(page);
});

test('toPNG and toSVG of a decode view are the core\'s drawing; an unknown view is refused with the core\'s message', async () => {
  const page = await load();
  const out = await page.evaluate(async () => {
    const el = H.el('dec');
    const blob = await el.toPNG('decode.weights');
    const bitmap = await createImageBitmap(blob);
    const svg = el.toSVG('decode.weights');
    let refused = null;
    try { await el.toPNG('decode.nope'); } catch (e) { refused = e.message; }
    return { type: blob.type, w: bitmap.width, svg: svg.startsWith('<svg') && svg.includes('weights of token 3'), refused };
  });
  assert.equal(out.type, 'image/png');
  assert.ok(out.w > 0);
  assert.ok(out.svg, 'the SVG has the decode view\'s title');
  assert.match(out.refused ?? '', /^there is no view "decode.nope" here; views are /);
  await done(page);
});

test('the decode heatmaps have hidden tables of their numbers (the core\'s describe), rebuilt when a step changes them', async () => {
  const page = await load();
  const table = (view) => page.evaluate((view) => {
    const t = H.el('dec').shadowRoot.querySelector(`[data-text-of="${view}"] table`);
    return t && { caption: t.querySelector('caption').textContent, rows: [...t.querySelectorAll('tbody tr')].map((r) => [...r.cells].map((c) => c.textContent)) };
  }, view);
  let w = await table('decode.weights');
  assert.equal(w.caption, 'weights of token 3 = softmax(scaled)');
  assert.equal(w.rows.length, 1);
  assert.equal(w.rows[0].length, 1 + 4, 'the row label and keys 0 … 3');
  assert.equal((await table('decode.k_cache')).rows.length, 4, 'the cache holds tokens 0 … 3');
  await click(page, inFig('dec', '[data-panel="decode"] [data-action="decode-next"]'));
  w = await table('decode.weights');
  // The caption also says what the step changed (the core's status): every weight, over one key more.
  assert.equal(w.caption, 'weights of token 4 = softmax(scaled) (new shape)');
  assert.equal(w.rows[0].length, 1 + 5);
  const cache = await table('decode.k_cache');
  assert.equal(cache.rows.length, 5);
  assert.match(cache.caption, /\(1 new row\)$/, 'the KV cache says its new row');
  assert.ok(cache.rows[4].slice(1).every((c) => c.endsWith(' (changed)')) && cache.rows[3].slice(1).every((c) => !c.endsWith(' (changed)')),
    `token 4's row of the cache is the one marked: ${JSON.stringify(cache.rows)}`);
  await done(page);
});

test('decode: a tap on → steps; a swipe to the left steps on, to the right back', async () => {
  const page = await load({ hasTouch: true, viewport: { width: 390, height: 800 } });
  const next = page.locator(inFig('dec', '[data-panel="decode"] [data-action="decode-next"]'));
  await next.scrollIntoViewIfNeeded();
  const box = await next.boundingBox();
  await page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
  assert.equal(await stepOf(page), 4);
  assert.deepEqual(await focusOf(page), on('dec', 'action decode-next'));
  // A swipe over the panel's heatmaps (touch events through the DevTools protocol: playwright has no swipe).
  const fig = await page.locator(inFig('dec', '[data-panel="decode"] canvas[data-view="decode.k_cache"]')).boundingBox();
  const cdp = await page.context().newCDPSession(page);
  const swipe = async (from, to) => {
    const y = fig.y + fig.height / 2;
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: from, y }] });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: (from + to) / 2, y }] });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: to, y }] });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  };
  await swipe(fig.x + fig.width - 5, fig.x + 5);
  assert.equal(await stepOf(page), 5);
  await swipe(fig.x + 5, fig.x + fig.width - 5);
  await swipe(fig.x + 5, fig.x + fig.width - 5);
  assert.equal(await stepOf(page), 3);
  await done(page);
});

test('decode without a causal mask: the panel says the core\'s reason and offers it; the offer turns it on and the focus lands on the stepper', async () => {
  const page = await load();
  const why = await page.evaluate(() => H.text('off', '[data-role="decode-why"]'));
  assert.match(why, /decode_step needs mask "causal"/);
  await page.locator(inFig('off', '[data-action="decode-causal"]')).click();
  const cfg = await page.evaluate(() => H.el('off').config);
  assert.equal(cfg.mask, 'causal');
  assert.equal(cfg.decode_step, 0);
  assert.deepEqual(await focusOf(page), on('off', 'action decode-next'));
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => H.el('off').config.decode_step), 1);
  // Stop generating, then the mask can go again.
  await page.locator(inFig('off', '[data-action="decode-off"]')).click();
  assert.equal(await page.evaluate(() => H.el('off').config.decode_step), undefined);
  assert.deepEqual(await focusOf(page), on('off', 'action decode-next'));
  await done(page);
});

/** The flash stepper's tile as the page shows it, and compute()'s flash of the same config. */
async function flashChecks(page) {
  return page.evaluate(async () => {
    const el = H.el('flash');
    const again = await H.compute(el.config);
    return { text: H.text('flash', '[data-role="flash-step"]'), mlo: H.table('flash', 'flash-mlo'), check: H.table('flash', 'flash-check'),
      equal: H.text('flash', '[data-role="flash-equal"]'), flash: again.flash, shown: el.trace.flash, hash: H.hash('flash', 'scaled') };
  });
}

test('flash: ← → by mouse and keys walk the tiles, the core outlines each; m, l, o are compute()\'s; o / l after a block\'s last tile is NumPy\'s context', async () => {
  const page = await load();
  const next = inFig('flash', '[data-action="flash-next"]');
  const first = await flashChecks(page);
  assert.match(first.text, /^tile 1 of 12: queries 0 … 2 × keys 0 … 1$/);
  assert.deepEqual(first.shown, first.flash, 'the page\'s flash is compute()\'s');
  const head = FLASH.config.head;
  const context = FLASH.expect[`heads.${head}.context`].map((r) => r.map(num));
  const hashes = new Set([first.hash]);
  await click(page, next);
  assert.deepEqual(await focusOf(page), on('flash', 'action flash-next'));
  for (let s = 1; s < 12; s++) {
    if (s > 1) await page.keyboard.press('ArrowRight');
    const c = await flashChecks(page);
    const step = c.flash.steps[s];
    const [qb, kb] = [Math.floor(s / 4), s % 4];
    assert.equal(step.q_block, qb);
    assert.equal(step.k_block, kb);
    assert.ok(c.text.startsWith(`tile ${s + 1} of 12: queries ${qb * 3} … ${Math.min(qb * 3 + 3, 7) - 1} × keys ${kb * 2} … ${Math.min(kb * 2 + 2, 7) - 1}`), c.text);
    // The running m, l, o in the table are the trace's, bit for bit (each cell's title is its whole value).
    c.mlo.forEach((row, r) => {
      assert.equal(row.m, step.m[r]);
      assert.equal(row.l, step.l[r]);
      step.o[r].forEach((x, j) => assert.equal(row[`o[${j}]`], x));
    });
    hashes.add(c.hash);
    if (kb === 3) {
      // A query block's last tile: o / l is the block's context rows, NumPy's.
      assert.match(c.equal, new RegExp(`Block ${qb}'s last tile: o / l is its rows of the context`));
      c.check.forEach((row, r) => {
        const i = qb * 3 + r;
        context[i].forEach((want, j) => {
          assert.ok(close(row[`o / l[${j}]`], want), `o / l [${i}][${j}] = ${row[`o / l[${j}]`]}, NumPy ${want}`);
          assert.ok(close(step.o[r][j] / step.l[r], want), 'compute()\'s o / l too');
        });
      });
    } else assert.equal(c.check, null);
  }
  assert.equal(hashes.size, 12, 'each tile outlined in its own place');
  assert.deepEqual(await focusOf(page), on('flash', 'action flash-next'));
  await page.keyboard.press('Home');
  assert.match((await flashChecks(page)).text, /^tile 1 of 12/);
  await page.keyboard.press('End');
  assert.match((await flashChecks(page)).text, /^tile 12 of 12/);
  await click(page, inFig('flash', '[data-action="flash-prev"]'));
  assert.match((await flashChecks(page)).text, /^tile 11 of 12/);
  assert.deepEqual(await focusOf(page), on('flash', 'action flash-prev'));
  await done(page);
});

test('flash: the tile size is typed; the memory line follows; a tap steps the tiles', async () => {
  const page = await load({ hasTouch: true });
  const rows = page.locator(inFig('flash', '[data-control="tile-rows"]'));
  await rows.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('4');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('4');
  await page.keyboard.press('Tab');
  assert.deepEqual(await page.evaluate(() => H.el('flash').config.tiles), [4, 4]);
  assert.deepEqual(await focusOf(page), on('flash', 'action flash-prev'));
  const d_v = FLASH.expect[`heads.${FLASH.config.head}.v`][0].length;
  assert.equal(await page.evaluate(() => H.text('flash', '[data-role="flash-memory"]')),
    `Memory a query block needs: 4 × 4 scores + 4 × ${d_v} outputs = ${16 + 4 * d_v} numbers, against 7 × 7 = 49 for the whole score matrix.`);
  assert.match((await flashChecks(page)).text, /^tile 1 of 4: queries 0 … 3 × keys 0 … 3$/);
  const box = await page.locator(inFig('flash', '[data-action="flash-next"]')).boundingBox();
  await page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
  assert.match((await flashChecks(page)).text, /^tile 2 of 4: queries 0 … 3 × keys 4 … 6$/);
  assert.deepEqual(await focusOf(page), on('flash', 'action flash-next'));
  // A refused size is the core's message, naming the field; the figure keeps its tiles.
  await rows.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('0');
  await page.keyboard.press('Enter');
  assert.deepEqual(await page.evaluate(() => H.el('flash').config.tiles), [4, 4]);
  assert.match(await page.evaluate(() => H.text('flash', '.status')), /tiles/);
  assert.equal(await rows.getAttribute('aria-invalid'), 'true');
  assert.deepEqual(await focusOf(page), on('flash', 'control tile-rows'));
  await done(page);
});

test('decode: the row being generated is the followed query, so the stage heatmaps outline row t (mouse, keys, the causal offer)', async () => {
  const page = await load();
  const state = (id) => page.evaluate((id) => ({ t: H.el(id).config.decode_step, q: H.el(id).config.query }), id);
  assert.equal(DECODE.config.decode_step, 3);
  assert.deepEqual(await state('dec'), { t: 3, q: 0 }, 'the config\'s own query until the stepper moves');
  await click(page, inFig('dec', '[data-action="decode-prev"]'));
  assert.deepEqual(await state('dec'), { t: 2, q: 2 });
  await page.keyboard.press('End');
  assert.deepEqual(await state('dec'), { t: 5, q: 5 });
  await page.keyboard.press('Home');
  assert.deepEqual(await state('dec'), { t: 0, q: 0 });
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await state('dec'), { t: 1, q: 1 });
  assert.deepEqual(await focusOf(page), on('dec', 'action decode-prev'));
  await click(page, inFig('off', '[data-action="decode-causal"]'));
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await state('off'), { t: 1, q: 1 });
  await done(page);
});

test('controls come before what they change: the decode and flash panels above the stage heatmaps, the mask panel above them too', async () => {
  const page = await load({ viewport: { width: 390, height: 800 } });
  const tops = (id) => page.evaluate((id) => {
    const r = H.el(id).shadowRoot;
    const top = (sel) => { const e = r.querySelector(sel); return e && !e.hidden ? e.getBoundingClientRect().top : null; };
    return { steppers: top('.steppers'), variants: top('.variants'), stages: top('canvas[data-view="weights"]') };
  }, id);
  for (const id of ['dec', 'flash', 'off']) {
    const t = await tops(id);
    assert.ok(t.stages !== null && t.steppers !== null, `${id}: ${JSON.stringify(t)}`);
    assert.ok(t.steppers < t.stages, `${id}: the steppers above the heatmaps (${JSON.stringify(t)})`);
    if (t.variants !== null) assert.ok(t.variants < t.stages, `${id}: the mask panel above the heatmaps (${JSON.stringify(t)})`);
  }
  await done(page);
});

test('the steppers\' lines keep each range whole at 390 px (no break inside "queries 0 … 2", "keys 4 … 5", "0 … 5")', async () => {
  const page = await load({ viewport: { width: 390, height: 800 } });
  /** For each range in the line, how many line boxes its characters sit on (1: whole). */
  const ranges = (id, role) => page.evaluate(([id, role]) => {
    const out = H.el(id).shadowRoot.querySelector(`[data-role="${role}"]`);
    const texts = [];
    const walk = document.createTreeWalker(out, NodeFilter.SHOW_TEXT);
    while (walk.nextNode()) texts.push(walk.currentNode);
    const chars = texts.flatMap((node) => [...node.data].map((_, k) => [node, k]));
    const whole = texts.map((t) => t.data).join('');
    return [...whole.matchAll(/(?:[a-z]+ )?\d+ … \d+/g)].map((m) => {
      const tops = new Set();
      for (let k = m.index; k < m.index + m[0].length; k++) {
        const r = document.createRange();
        r.setStart(chars[k][0], chars[k][1]);
        r.setEnd(chars[k][0], chars[k][1] + 1);
        const rect = r.getBoundingClientRect();
        if (rect.width > 0) tops.add(Math.round(rect.top));
      }
      return [m[0], tops.size];
    });
  }, [id, role]);
  await click(page, inFig('flash', '[data-action="flash-next"]'));
  for (let s = 1; s < 12; s++) {
    if (s > 1) await page.keyboard.press('ArrowRight');
    const got = await ranges('flash', 'flash-step');
    assert.equal(got.length, 2, JSON.stringify(got));
    for (const [text, lines] of got) assert.equal(lines, 1, `tile ${s + 1}: "${text}" is on ${lines} lines`);
  }
  assert.deepEqual(await focusOf(page), on('flash', 'action flash-next'));
  const dec = await ranges('dec', 'decode-step');
  assert.ok(dec.length >= 1, JSON.stringify(dec));
  for (const [text, lines] of dec) assert.equal(lines, 1, `decode: "${text}" is on ${lines} lines`);
  await done(page);
});

test('views names the panels; without views the config\'s use shows them (the core\'s panels); no complaint about the names', async () => {
  const page = await load();
  const panels = (id) => page.evaluate((id) => [...H.el(id).shadowRoot.querySelectorAll('.steppers [data-panel]')].map((p) => p.dataset.panel), id);
  assert.deepEqual(await panels('dec'), ['decode']);
  assert.deepEqual(await panels('flash'), ['flash']);
  assert.deepEqual(await panels('off'), ['decode']);
  assert.equal(await page.evaluate(() => H.el('off').shadowRoot.querySelector('[data-role="attributes"]').hidden), true);
  await done(page);
});

for (const [width, theme] of [[1280, 'light'], [390, 'dark']]) {
  test(`axe finds no violation at ${width} px, ${theme}, with both steppers busy`, async () => {
    const page = await load({ theme, viewport: { width, height: 900 } });
    await page.locator(inFig('flash', '[data-action="flash-next"]')).click();
    await page.locator(inFig('flash', '[data-action="flash-next"]')).click();
    await page.locator(inFig('flash', '[data-action="flash-next"]')).click();
    await page.locator(inFig('dec', '[data-action="decode-next"]')).click();
    // Nothing sticks out of the element at this width.
    const over = await page.evaluate(() => ['dec', 'flash'].flatMap((id) => {
      const e = H.el(id);
      const right = e.getBoundingClientRect().right;
      return [...e.shadowRoot.querySelectorAll('.steppers canvas, .steppers .stepper, .steppers .wrap')].filter((n) => n.getBoundingClientRect().right > right + 0.5).map((n) => `${id}: ${n.localName}.${n.className}`);
    }));
    assert.deepEqual(over, []);
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
      .map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`));
    assert.deepEqual(violations, []);
    await done(page);
  });
}
