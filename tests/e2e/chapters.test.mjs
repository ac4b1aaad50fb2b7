// The guided page's chapters 10–13 (index.html #word-order, #sharing-keys, #long-contexts, #flash-attention; issue 25):
// - every number the prose prints (each marked `data-q="<key>"`, with `data-i` for an entry of a list) equals the
//   NumPy fixture tests/fixtures/chapters-goldens.json (tests/goldens/gen_chapters.py, the papers' formulas) at the
//   digits printed, every quote of the fixture is printed, and no decimal in the prose goes unchecked;
// - each figure's config is the fixture's, and its trace (what it shows) equals the fixture's to 1e-12;
// - each "Try:" line, done as the reader does it, gives the fixture's numbers: through the real keyboard where the
//   element has the control today (W_K's cells), else through `el.config = …` (marked: such a test becomes a
//   real-input test on the panel once the `position`, `kv`, `window`, `decode` and `flash` panels land);
// - every figure draws with no console error, and axe-core finds no violation in these chapters at 1280 px light
//   and 390 px dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, done, typeInCell, fixture, pageHelpers } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const AXE_SOURCE = readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
const GOLD = fixture('chapters-goldens.json');
const CHAPTERS = ['word-order', 'sharing-keys', 'long-contexts', 'flash-attention'];
/** The panels of issue 25 that other branches add to the element: until they land, `views` may name them. */
const COMING_PANELS = ['position', 'kv', 'window', 'decode', 'flash'];
/** Decimals the prose writes that are inputs, not results: a section number (§3.5) and ALiBi's slope (m = 0.5). */
const INPUT_DECIMALS = ['3.5', '0.5'];

let site;
before(async () => {
  assert.ok(existsSync(join(ROOT, 'www/pkg')), 'www/pkg is missing: run `make build` first');
  site = await open({ root: ROOT });
});
after(async () => { await site?.close(); });

/** JSON's "NaN"/"±Infinity" strings back to numbers, through nested lists and objects. */
function numbers(x) {
  if (x === 'NaN') return NaN;
  if (x === 'Infinity') return Infinity;
  if (x === '-Infinity') return -Infinity;
  if (Array.isArray(x)) return x.map(numbers);
  if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, numbers(v)]));
  return x;
}

/** A trace field by its flat name (heads.0.weights, decode.k_cache, flash.steps.3.m), as compute() nests it. */
function field(trace, name) {
  return name.split('.').reduce((at, part) => (at == null ? at : at[/^\d+$/.test(part) ? Number(part) : part]), trace);
}

/** The first place where `got` differs from `want` by more than 1e-12 (relative above 1), or null. */
function diff(got, want, path = '') {
  if (typeof want === 'number') {
    if (typeof got !== 'number') return `${path}: ${JSON.stringify(got)} is not a number`;
    if (Object.is(got, want) || got === want) return null;
    return Math.abs(got - want) <= 1e-12 * Math.max(1, Math.abs(want)) ? null : `${path}: ${got} ≠ ${want}`;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got) && !ArrayBuffer.isView(got)) return `${path}: not a list`;
    if (got.length !== want.length) return `${path}: length ${got.length} ≠ ${want.length}`;
    for (let i = 0; i < want.length; i++) { const d = diff(got[i], want[i], `${path}[${i}]`); if (d) return d; }
    return null;
  }
  return `${path}: unexpected ${JSON.stringify(want)}`;
}

/** Each name's difference between a trace and the fixture's fields; [] when all agree. */
function differences(trace, fields) {
  return Object.entries(fields).map(([name, want]) => diff(field(trace, name), numbers(want), name)).filter(Boolean);
}

/** index.html opened at a chapter, its figures drawn. */
async function chapter(id, { width = 1280, scheme = 'light' } = {}) {
  const page = await site.page(null, { viewport: { width, height: 900 } });
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto(`${site.url}index.html#${id}`);
  await page.waitForFunction((id) => [...document.querySelectorAll(`#${id} attention-viz`)].every((e) => e.trace
    && [...e.shadowRoot.querySelectorAll('canvas[data-view]')].every((c) => c.width > 0)), id);
  return page;
}

const traceOf = (page, id) => page.evaluate((id) => document.getElementById(id).trace, id);

/** Waits until figure `id`'s trace has `fields` (a Try's edit took effect), then returns what still differs. */
async function settle(page, id, fields) {
  let left = [];
  for (let k = 0; k < 200; k++) {
    left = differences(await traceOf(page, id), fields);
    if (!left.length) break;
    await page.waitForTimeout(50);
  }
  return left;
}

/** A Try's edit made with `el.config = …` (no control for it in the element yet). */
const setConfig = (page, id, config) => page.evaluate(([id, c]) => { document.getElementById(id).config = c; }, [id, config]);

test('the prose: every printed number equals the NumPy fixture at its digits; every quote is printed; no decimal unchecked', async () => {
  const html = readFileSync(join(ROOT, 'index.html'), 'utf8');
  const doc = await site.page(null);
  try {
    await doc.setContent(html.replace(/<script[\s\S]*?<\/script>/g, '').replace(/<link[^>]*>/g, ''));
    const { spans, prose } = await doc.evaluate((ids) => {
      const sections = ids.map((id) => document.getElementById(id));
      const spans = sections.flatMap((s) => [...s.querySelectorAll('[data-q]')])
        .map((e) => ({ q: e.dataset.q, i: e.dataset.i ?? null, text: e.textContent }));
      const prose = sections.flatMap((s) => [...s.querySelectorAll('p')]).map((p) => {
        const c = p.cloneNode(true);
        for (const e of c.querySelectorAll('[data-q], code, sup, sub')) e.remove();
        return c.textContent;
      });
      return { spans, prose };
    }, CHAPTERS);
    assert.ok(spans.length > 40, `the chapters quote their numbers (${spans.length} found)`);
    for (const { q, i, text } of spans) {
      assert.ok(q in GOLD.quotes, `data-q="${q}" is a quote of the fixture`);
      const want = i === null ? GOLD.quotes[q] : i.split('.').reduce((at, k) => at[Number(k)], GOLD.quotes[q]);
      assert.equal(typeof want, 'number', `${q}[${i}] is a number`);
      const printed = text.trim().replace('−', '-').replace(/,/g, '');
      assert.match(printed, /^-?\d+(\.\d+)?$/, `${q}: "${text}" is a number`);
      const decimals = printed.includes('.') ? printed.split('.')[1].length : 0;
      // The printed digits are the value rounded: within half a unit of the last digit printed.
      assert.ok(Math.abs(Number(printed) - want) <= 0.5 * 10 ** -decimals + 1e-12,
        `${q}${i === null ? '' : `[${i}]`}: the page prints ${text}, NumPy gives ${want}`);
    }
    const printedKeys = new Set(spans.map((s) => s.q));
    assert.deepEqual(Object.keys(GOLD.quotes).filter((k) => !printedKeys.has(k)), [], 'every quote of the fixture is printed');
    const loose = prose.flatMap((t) => t.match(/\d+\.\d+/g) ?? []).filter((d) => !INPUT_DECIMALS.includes(d));
    assert.deepEqual(loose, [], 'a decimal in the prose outside a data-q span is not checked against NumPy');
  } finally {
    await doc.close();
  }
});

test('each figure: its config is the fixture\'s and its trace equals NumPy\'s (1e-12); drawn, no console error', async () => {
  for (const id of CHAPTERS) {
    const page = await chapter(id);
    try {
      const figures = await page.evaluate((id) => [...document.querySelectorAll(`#${id} attention-viz`)].map((e) => e.id), id);
      assert.ok(figures.length > 0);
      for (const fig of figures) {
        const gold = GOLD.figures[fig];
        assert.ok(gold, `${fig} is in the fixture`);
        const authored = await page.evaluate((f) => JSON.parse(document.getElementById(f).getAttribute('config')), fig);
        assert.deepEqual(authored, gold.config, `${fig}: index.html's config is the fixture's`);
        assert.deepEqual(differences(await traceOf(page, fig), gold.trace), [], `${fig}: the trace`);
        // Until the panels of issue 25 land on main, `views` may name them; any other unknown name is a mistake.
        const problem = await page.evaluate((f) => document.getElementById(f).shadowRoot.querySelector('[data-role="attributes"]')?.textContent ?? '', fig);
        const unknown = [...(problem.match(/no panel ([^;]*);/)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]);
        assert.deepEqual(unknown.filter((u) => !COMING_PANELS.includes(u)), [], `${fig}: views names only panels`);
      }
      const tries = await page.evaluate((id) => document.querySelectorAll(`#${id} .try`).length, id);
      assert.equal(tries, figures.length, `${id}: a "Try:" line beside each figure`);
    } finally {
      await done(page);
    }
  }
});

test('chapter 10, word order: the Try lines (none, shift positions, ALiBi\'s slope) give NumPy\'s numbers', async () => {
  const page = await chapter('word-order');
  try {
    // TODO(panels): the position menu's "none", with the real mouse and keyboard, once the `position` panel lands.
    for (const name of ['sinusoidal-none', 'alibi-none', 'alibi-steep']) {
      const t = GOLD.tries[name];
      await setConfig(page, t.figure, t.config);
      assert.deepEqual(await settle(page, t.figure, t.trace), [], `${name} (${t.how})`);
    }
    const none = await traceOf(page, 'chapter-10-sinusoidal');
    assert.deepEqual(none.weights[3], none.weights[0], 'without positions the two a\'s rows are one');
    assert.deepEqual(none.weights[4], none.weights[1], '… and so are the two roses\'');

    // Shift positions by 3. TODO(panels): press the "shift positions" control (a config field such as
    // position.offset) once it lands; until then the same shift is three tokens put before the sentence, which moves
    // every one of its words 3 places on: the sentence's block of scores is RoPE's unshifted scores, its q_rot the
    // fixture's shifted one; with sinusoidal positions the block changes to the fixture's shifted scores.
    const { by, scores, q_rot: qRot, sinusoidal_scores: sinScores } = GOLD.shift;
    const before3 = (config) => ({ ...config, embeddings: [...Array(by)].map(() => [0, 0, 0, 0]).concat(config.embeddings),
      tokens: [...Array(by)].map((_, k) => `x${k}`).concat(config.tokens) });
    const block = (m) => m.slice(by).map((row) => row.slice(by));
    const rope = GOLD.figures['chapter-10-rope'].config;
    await setConfig(page, 'chapter-10-rope', before3(rope));
    await page.waitForFunction(() => document.getElementById('chapter-10-rope').trace.scores.length === 8);
    let t = await traceOf(page, 'chapter-10-rope');
    assert.equal(diff(block(t.scores), numbers(scores), 'scores'), null, 'RoPE: shifted, the scores stay');
    assert.equal(diff(t.heads[0].q_rot.slice(by), numbers(qRot), 'q_rot'), null, 'RoPE: shifted, q_rot turns');
    assert.ok(diff(t.heads[0].q_rot.slice(by), numbers(GOLD.figures['chapter-10-rope'].trace['heads.0.q_rot'])), 'q_rot changed');
    await setConfig(page, 'chapter-10-rope', before3({ ...rope, position: { kind: 'sinusoidal' } }));
    await page.waitForFunction(() => document.getElementById('chapter-10-rope').trace.pe);
    t = await traceOf(page, 'chapter-10-rope');
    assert.equal(diff(block(t.scores), numbers(sinScores), 'scores'), null, 'sinusoidal: shifted, the scores change');
  } finally {
    await done(page);
  }
});

test('chapter 11, sharing keys: typing into W_K moves the two heads that share it; the decode step\'s Try', async () => {
  const page = await chapter('sharing-keys');
  try {
    const id = 'chapter-11-gqa';
    const t = GOLD.tries['gqa-w_k'];
    // The reader's own keyboard: the cell is there today.
    await typeInCell(page, id, 'w_k', 1, 0, '0');
    assert.deepEqual(await settle(page, id, t.trace), [], t.how);
    await page.evaluate(pageHelpers);
    assert.deepEqual(await page.evaluate(() => T.focus()), { doc: id, shadow: 'cell w_k:1:0' }, 'the keyboard stays in the cell');
    assert.deepEqual((await page.evaluate((i) => document.getElementById(i).config, id)).w_k, t.config.w_k);
    const gold = GOLD.figures[id].trace;
    const now = await traceOf(page, id);
    for (const h of [2, 3]) assert.equal(diff(now.heads[h].weights, numbers(gold[`heads.${h}.weights`])), null, `head ${h} did not move`);
    for (const h of [0, 1]) assert.ok(diff(now.heads[h].weights, numbers(gold[`heads.${h}.weights`])), `head ${h} moved`);

    // TODO(steppers): press → on the `decode` panel's stepper once it lands.
    const d = GOLD.tries['decode-next'];
    await setConfig(page, d.figure, d.config);
    assert.deepEqual(await settle(page, d.figure, d.trace), [], d.how);
    const tr = await traceOf(page, d.figure);
    assert.deepEqual(tr.decode.weights, tr.heads[3].weights[3], 'the decode step\'s weights are row 3 of head 3\'s causal weights');
  } finally {
    await done(page);
  }
});

test('chapters 12 and 13: the window, sinks and tiles Try lines give NumPy\'s numbers; the last tile\'s o / l is the context', async () => {
  const page = await chapter('long-contexts');
  try {
    // TODO(panels): the `window` panel's sinks and left side, with the real mouse and keyboard, once it lands.
    for (const name of ['window-no-sinks', 'window-wide']) {
      const t = GOLD.tries[name];
      await setConfig(page, t.figure, t.config);
      assert.deepEqual(await settle(page, t.figure, t.trace), [], `${name} (${t.how})`);
    }
    await page.locator('#flash-attention').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.getElementById('chapter-13').trace);
    // TODO(steppers): the `flash` panel's tile size, with the real mouse and keyboard, once it lands.
    const t = GOLD.tries['tiles-1x1'];
    await setConfig(page, t.figure, t.config);
    assert.deepEqual(await settle(page, t.figure, t.trace), [], t.how);
    const tr = await traceOf(page, 'chapter-13');
    assert.equal(tr.flash.steps.length, GOLD.quotes['flash.ones_steps']);
    for (const s of tr.flash.steps.filter((s) => s.k_block === 3)) {
      const row = s.o[0].map((o) => o / s.l[0]);
      assert.equal(diff(row, numbers(GOLD.figures['chapter-13'].trace.context)[s.q_block]), null, `o / l of row ${s.q_block}`);
    }
  } finally {
    await done(page);
  }
});

for (const [scheme, width] of [['light', 1280], ['dark', 390]]) {
  test(`axe-core: no violation in chapters 10–13 (${scheme}, ${width} px), every figure drawn, no console error`, async () => {
    const page = await chapter(CHAPTERS[0], { width, scheme });
    try {
      for (const id of CHAPTERS) {
        await page.locator(`#${id}`).scrollIntoViewIfNeeded();
        await page.waitForFunction((id) => [...document.querySelectorAll(`#${id} attention-viz`)].every((e) => e.trace
          && [...e.shadowRoot.querySelectorAll('canvas[data-view]')].every((c) => c.width > 0)), id);
      }
      await page.evaluate(AXE_SOURCE);
      const violations = await page.evaluate(async (ids) => {
        const r = await window.axe.run({ include: ids.map((id) => [`#${id}`]) }, { resultTypes: ['violations'] });
        return r.violations.map((v) => `${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' >>> ')).join(', ')}`);
      }, CHAPTERS);
      assert.deepEqual(violations, []);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= width, `the page fits ${width} px (${wide})`);
    } finally {
      await done(page);
    }
  });
}
