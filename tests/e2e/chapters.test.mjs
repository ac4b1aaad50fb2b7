// The guided page's chapters 10–14 (index.html #word-order, #sharing-keys, #long-contexts, #flash-attention,
// #real-layers):
// - every number the prose prints (each marked `data-q="<key>"`, with `data-i` for an entry of a list) equals the
//   NumPy fixture tests/fixtures/chapters-goldens.json (tests/goldens/gen_chapters.py, the papers' formulas) at the
//   digits printed, every quote of the fixture is printed, and no decimal in the prose goes unchecked;
// - each figure's config is the fixture's, and its trace (what it shows) equals the fixture's to 1e-12;
// - each "Try:" line, done as the reader does it — the real mouse and keyboard on the panel control the line names
//   (the position menu, the base slider, "shift positions", ALiBi's slopes, W_K's cell, the decode and tile
//   steppers, the window's sinks and left side, the tile size, "rotated", the soft cap's c and its box) — gives the
//   fixture's numbers, with the keyboard focus checked after each action;
// - every figure draws with no console error and no status message (every name of `views` is a panel or view), and
//   axe-core finds no violation in these chapters at 1280 px light and 390 px dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, done, typeInCell, fixture, pageHelpers, WAIT } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GOLD = fixture('chapters-goldens.json');
const CHAPTERS = ['word-order', 'sharing-keys', 'long-contexts', 'flash-attention', 'real-layers'];
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

/**
 * Waits until figure `id`'s trace has `fields` (a Try's edit took effect), then returns what still differs: looked at
 * every 50 ms for up to the harness's WAIT (a loaded machine may take any time to apply an edit).
 */
async function settle(page, id, fields) {
  let left = [];
  for (const until = Date.now() + WAIT; Date.now() < until;) {
    left = differences(await traceOf(page, id), fields);
    if (!left.length) break;
    await page.waitForTimeout(50); // the interval between two looks, not a wait for anything
  }
  return left;
}

/** A control inside figure `id`'s shadow root (playwright's CSS pierces it). */
const control = (page, id, sel) => page.locator(`#${id} >> ${sel}`);
const configOf = (page, id) => page.evaluate((id) => document.getElementById(id).config, id);
/** Where the keyboard is (harness's T.focus: the figure's id and the control in its shadow root). */
async function focusOf(page) {
  await page.evaluate(pageHelpers);
  return page.evaluate(() => T.focus());
}
const at = (id, what) => ({ doc: id, shadow: what });

/** The mouse clicks `sel` in figure `id`, scrolled into view first. */
async function click(page, id, sel) {
  const c = control(page, id, sel);
  await c.scrollIntoViewIfNeeded();
  await c.click();
}

/** The mouse clicks a text field of figure `id`, the keyboard selects what it holds and types `text` (then `key`). */
async function typeInto(page, id, sel, text, key = null) {
  await click(page, id, sel);
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
  if (key) await page.keyboard.press(key);
}

/** The keyboard picks an option of figure `id`'s position menu by its first letter (the menu reached as by Tab). */
async function pickPosition(page, id, letter) {
  const menu = control(page, id, '[data-control="position-kind"]');
  await menu.scrollIntoViewIfNeeded();
  await menu.focus();
  await page.keyboard.press(letter);
}

/** The status line of figure `id` (a problem with its attributes, e.g. `views` naming no panel), '' when none shows. */
const status = (page, id) => page.evaluate((id) => {
  const s = document.getElementById(id).shadowRoot.querySelector('[data-role="attributes"]');
  return s && !s.hidden ? s.textContent : '';
}, id);

/** A Try's numbers: the figure's trace reaches the fixture's (the edit took effect), and no status shows. */
async function tried(page, name) {
  const t = GOLD.tries[name];
  assert.deepEqual(await settle(page, t.figure, t.trace), [], `${name} (${t.how})`);
  assert.equal(await status(page, t.figure), '', `${name}: no status message`);
  return t;
}

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
        assert.equal(await status(page, fig), '', `${fig}: no status message (views names only panels and views)`);
        const views = await page.evaluate((f) => document.getElementById(f).getAttribute('views').split(','), fig);
        const panels = await page.evaluate((f) => [...document.getElementById(f).shadowRoot.querySelectorAll('[data-panel]')]
          .filter((p) => p.offsetParent !== null).map((p) => p.dataset.panel), fig);
        const named = views.filter((v) => ['position', 'kv', 'window', 'softcap', 'decode', 'flash'].includes(v));
        assert.deepEqual(named.filter((v) => !panels.includes(v)), [], `${fig}: the panels views names show`);
      }
      const tries = await page.evaluate((id) => document.querySelectorAll(`#${id} .try`).length, id);
      assert.equal(tries, figures.length, `${id}: a "Try:" line beside each figure`);
    } finally {
      await done(page);
    }
  }
});

test('chapter 10, word order: the Try lines on the position panel (menu, base slider, shift positions, slopes) give NumPy\'s numbers', async () => {
  const page = await chapter('word-order');
  try {
    // Sinusoidal: "none" in the position menu, then "sinusoidal" again, then the base slider dragged to its right end.
    const sin = 'chapter-10-sinusoidal';
    await pickPosition(page, sin, 'n');
    assert.equal((await configOf(page, sin)).position, undefined, 'none: no position field');
    assert.deepEqual(await focusOf(page), at(sin, 'control position-kind'), 'the menu keeps the keyboard');
    await tried(page, 'sinusoidal-none');
    const none = await traceOf(page, sin);
    assert.deepEqual(none.weights[3], none.weights[0], 'without positions the two a\'s rows are one');
    assert.deepEqual(none.weights[4], none.weights[1], '… and so are the two roses\'');
    await page.keyboard.press('s');
    assert.equal((await configOf(page, sin)).position.kind, 'sinusoidal');
    assert.deepEqual(await focusOf(page), at(sin, 'control position-kind'));
    assert.deepEqual(await settle(page, sin, GOLD.figures[sin].trace), [], 'sinusoidal again: the figure as it came');
    const slider = control(page, sin, '[data-control="position-base-slider"]');
    await slider.scrollIntoViewIfNeeded();
    const box = await slider.boundingBox();
    await page.mouse.move(box.x + box.width * (4 / 7), box.y + box.height / 2); // 10^4 of 10^0 … 10^7
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2, { steps: 4 });
    await page.mouse.move(box.x + box.width + 40, box.y + box.height / 2, { steps: 4 });
    await page.mouse.up();
    assert.equal((await configOf(page, sin)).position.base, GOLD.tries['sinusoidal-base'].config.position.base, 'the right end: base 10^7');
    assert.deepEqual(await focusOf(page), at(sin, 'control position-base-slider'));
    await tried(page, 'sinusoidal-base');

    // RoPE: + beside "shift positions" three times, then "sinusoidal" in the menu (the shift stays).
    const rope = 'chapter-10-rope';
    for (let k = 1; k <= 3; k++) {
      await click(page, rope, '[data-action="shift-up"]');
      assert.equal((await configOf(page, rope)).position.offset, k, `+ pressed ${k} times`);
      assert.deepEqual(await focusOf(page), at(rope, 'action shift-up'), 'the keyboard stays on +');
    }
    assert.equal(await control(page, rope, '[data-role="shift-range"]').textContent(), 'positions 3 … 7', 'the prose\'s "positions 3 … 7"');
    await tried(page, 'rope-shift');
    const shifted = await traceOf(page, rope);
    assert.equal(diff(shifted.scores, numbers(GOLD.figures[rope].trace.scores)), null, 'RoPE: shifted, not one score moves');
    assert.ok(diff(shifted.heads[0].q_rot, numbers(GOLD.figures[rope].trace['heads.0.q_rot'])), 'RoPE: shifted, q_rot turns');
    await pickPosition(page, rope, 's');
    assert.deepEqual(await focusOf(page), at(rope, 'control position-kind'));
    const moved = await configOf(page, rope);
    assert.equal(moved.position.kind, 'sinusoidal');
    assert.equal(moved.position.offset, 3, 'the menu keeps the shift');
    await tried(page, 'rope-shift-sinusoidal');

    // ALiBi: 2 typed into "slopes" and Enter, then "none" in the menu.
    const alibi = 'chapter-10-alibi';
    await typeInto(page, alibi, '[data-control="position-slopes"]', '2', 'Enter');
    assert.deepEqual((await configOf(page, alibi)).position, GOLD.tries['alibi-steep'].config.position);
    assert.deepEqual(await focusOf(page), at(alibi, 'control position-slopes'));
    await tried(page, 'alibi-steep');
    await pickPosition(page, alibi, 'n');
    assert.equal((await configOf(page, alibi)).position, undefined);
    assert.deepEqual(await focusOf(page), at(alibi, 'control position-kind'));
    await tried(page, 'alibi-none');
  } finally {
    await done(page);
  }
});

test('chapter 11, sharing keys: typing into W_K moves the two heads that share it; → on the decode stepper', async () => {
  const page = await chapter('sharing-keys');
  try {
    const id = 'chapter-11-gqa';
    const t = GOLD.tries['gqa-w_k'];
    await typeInCell(page, id, 'w_k', 1, 0, '0');
    assert.deepEqual(await settle(page, id, t.trace), [], t.how);
    assert.deepEqual(await focusOf(page), at(id, 'cell w_k:1:0'), 'the keyboard stays in the cell');
    assert.deepEqual((await configOf(page, id)).w_k, t.config.w_k);
    const gold = GOLD.figures[id].trace;
    const now = await traceOf(page, id);
    for (const h of [2, 3]) assert.equal(diff(now.heads[h].weights, numbers(gold[`heads.${h}.weights`])), null, `head ${h} did not move`);
    for (const h of [0, 1]) assert.ok(diff(now.heads[h].weights, numbers(gold[`heads.${h}.weights`])), `head ${h} moved`);
    assert.equal(await status(page, id), '');

    // → beside "decode (KV cache)": step 3.
    const dec = 'chapter-11-decode';
    await click(page, dec, '[data-action="decode-next"]');
    assert.equal((await configOf(page, dec)).decode_step, GOLD.tries['decode-next'].config.decode_step);
    assert.deepEqual(await focusOf(page), at(dec, 'action decode-next'), 'the keyboard stays on →');
    assert.match(await control(page, dec, '[data-role="decode-step"]').textContent(), /^token 3 of 0 … 3: word_4/);
    await tried(page, 'decode-next');
    const tr = await traceOf(page, dec);
    assert.deepEqual(tr.decode.weights, tr.heads[3].weights[3], 'the decode step\'s weights are row 3 of head 3\'s causal weights');
    assert.match(await control(page, dec, '[data-role="decode-cost"]').textContent(),
      new RegExp(`holds ${GOLD.quotes['decode_next.cache_size']} numbers .* ${GOLD.quotes['decode_next.recompute_cost']} multiply-adds`),
      'the panel says the Try\'s 32 and 96');
  } finally {
    await done(page);
  }
});

/** The flash panel's table of m, l and o after the current tile, each number whole (its title). */
const flashTable = (page) => page.evaluate(() => [...document.getElementById('chapter-13').shadowRoot
  .querySelectorAll('[data-role="flash-mlo"] tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.title))));

test('chapters 12 and 13: the window panel\'s sinks and left side, the tile stepper and the tile size give NumPy\'s numbers', async () => {
  const page = await chapter('long-contexts');
  try {
    const win = 'chapter-12';
    await typeInto(page, win, '[data-control="sinks"]', '0');
    assert.equal((await configOf(page, win)).sinks ?? 0, 0);
    assert.deepEqual(await focusOf(page), at(win, 'control sinks'));
    await tried(page, 'window-no-sinks');
    await typeInto(page, win, '[data-control="window-left"]', '7');
    assert.deepEqual((await configOf(page, win)).window, GOLD.tries['window-wide'].config.window);
    assert.deepEqual(await focusOf(page), at(win, 'control window-left'));
    await tried(page, 'window-wide');

    await page.locator('#flash-attention').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.getElementById('chapter-13').trace);
    const f = 'chapter-13';
    const gold = GOLD.figures[f].trace;
    // → beside "FlashAttention tiles": the four tiles, m, l and o after each as NumPy's Algorithm 1 gives them.
    for (let s = 0; s < 4; s++) {
      if (s > 0) {
        await click(page, f, '[data-action="flash-next"]');
        assert.deepEqual(await focusOf(page), at(f, 'action flash-next'), 'the keyboard stays on →');
      }
      await page.waitForFunction((s) => document.getElementById('chapter-13').shadowRoot
        .querySelector('[data-role="flash-step"]')?.textContent.startsWith(`tile ${s + 1} of 4`), s);
      const rows = await flashTable(page);
      // After a query block's first tile (2 × 2 tiles of 4 tokens: tiles 2 and 4) the rescale factor too,
      // exp(m_old − m_new) from NumPy's running maxima (1 where the maximum did not grow).
      const before = s % 2 === 1 ? numbers(gold[`flash.steps.${s - 1}.m`]) : null;
      const want = numbers(gold[`flash.steps.${s}.m`]).map((m, r) => [m, numbers(gold[`flash.steps.${s}.l`])[r], ...numbers(gold[`flash.steps.${s}.o`])[r],
        ...(before ? [before[r] === m ? 1 : Math.exp(before[r] - m)] : [])]);
      assert.equal(diff(rows, want), null, `tile ${s + 1}: the panel's m, l, o${before ? ' and exp(m_old − m_new)' : ''}`);
    }
    // The tile size 1 × 1: typed into both fields (Tab leaves the first, Enter applies the second).
    await typeInto(page, f, '[data-control="tile-rows"]', '1', 'Tab');
    assert.deepEqual(await focusOf(page), at(f, 'control tile-cols'), 'Tab goes from rows to columns');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('1');
    await page.keyboard.press('Enter');
    assert.deepEqual((await configOf(page, f)).tiles, [1, 1]);
    assert.deepEqual(await focusOf(page), at(f, 'control tile-cols'));
    await tried(page, 'tiles-1x1');
    assert.match(await control(page, f, '[data-role="flash-step"]').textContent(), new RegExp(`^tile 1 of ${GOLD.quotes['flash.ones_steps']}:`));
    const tr = await traceOf(page, f);
    assert.equal(tr.flash.steps.length, GOLD.quotes['flash.ones_steps']);
    for (const s of tr.flash.steps.filter((s) => s.k_block === 3)) {
      const row = s.o[0].map((o) => o / s.l[0]);
      assert.equal(diff(row, numbers(gold.context)[s.q_block]), null, `o / l of row ${s.q_block}`);
    }
  } finally {
    await done(page);
  }
});

// axe-core over chapters 10–14, every figure drawn, light at 1280 px and dark at 390 px: pages.test.mjs runs it on the
// whole of index.html.

test('chapter 13: → to the second tile shows the rescale factor the prose walks through, exp(4.62 − 5.77) = 0.315', async () => {
  const page = await site.page('index.html#flash-attention', { viewport: { width: 1280, height: 800 } });
  await page.waitForFunction(() => document.getElementById('chapter-13')?.shadowRoot?.querySelector('[data-action="flash-next"]'), null, { timeout: WAIT });
  const next = page.locator('#chapter-13').locator('[data-action="flash-next"]');
  await next.scrollIntoViewIfNeeded();
  const box = await next.boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  const got = await page.evaluate(() => {
    const table = document.getElementById('chapter-13').shadowRoot.querySelector('[data-role="flash-mlo"]');
    const head = [...table.querySelectorAll('thead th')].map((t) => t.textContent);
    const at = head.indexOf('exp(m_old − m_new)');
    return { head, word1: at < 0 ? null : table.querySelectorAll('tbody tr')[0].children[at].textContent,
      focus: document.getElementById('chapter-13').shadowRoot.activeElement?.dataset.action };
  });
  // NumPy: exp((8 − 10) / √3) = 0.3151515…; the prose's 0.315.
  // The factor is new at this tile: marked changed (the words a screen reader hears after the number).
  assert.equal(got.word1, '0.315152 (changed)', JSON.stringify(got.head));
  assert.equal(await page.locator('#flash-attention [data-q="flash.rescale"]').textContent(), '0.315', 'the prose\'s number');
  assert.equal(got.focus, 'flash-next');
  await done(page);
});

test('chapter 14, real layers: 4 typed into "rotated" turns every value; c = 50 typed into the soft cap, then the cap unticked', async () => {
  const page = await chapter('real-layers');
  try {
    // Partial RoPE: the last two columns of q_rot are q's; "rotated" 4 (= d_k) turns them, chapter 10's RoPE.
    const rot = 'chapter-14-rotary';
    const gold = GOLD.figures[rot].trace;
    const q = numbers(gold.q);
    numbers(gold['heads.0.q_rot']).forEach((row, r) => assert.deepEqual(row.slice(2), q[r].slice(2), `q_rot row ${r}: past rotary_dim, q's`));
    assert.match(await control(page, rot, '[data-role="rotary-text"]').textContent(), /^values 0 … 1 of 4 turn/);
    await typeInto(page, rot, '[data-control="position-rotary"]', '4');
    const turned = (await configOf(page, rot)).position;
    assert.equal(turned.kind, 'rope');
    // rotary_dim = d_k is the default, which the config then leaves out.
    assert.equal(turned.rotary_dim ?? 4, GOLD.tries['rotary-all'].config.position.rotary_dim, 'rotated: 4 of d_k = 4');
    assert.deepEqual(await focusOf(page), at(rot, 'control position-rotary'), 'the field keeps the keyboard');
    await tried(page, 'rotary-all');
    assert.deepEqual(differences(await traceOf(page, rot), { scores: GOLD.figures['chapter-10-rope'].trace.scores }), [],
      'all four turned: chapter 10\'s RoPE scores');
    assert.match(await control(page, rot, '[data-role="rotary-text"]').textContent(), /^values 0 … 3 of 4 turn/);

    // The soft cap: 50 typed into c and Enter, then "cap the scores" unticked with the mouse.
    const cap = 'chapter-14-softcap';
    await typeInto(page, cap, '[data-control="softcap"]', '50', 'Enter');
    assert.equal((await configOf(page, cap)).softcap, GOLD.tries['softcap-50'].config.softcap);
    assert.deepEqual(await focusOf(page), at(cap, 'control softcap'), 'Enter leaves the keyboard in c');
    await tried(page, 'softcap-50');
    await click(page, cap, '[data-control="softcap-on"]');
    assert.equal((await configOf(page, cap)).softcap, undefined, 'unticked: no softcap field');
    assert.deepEqual(await focusOf(page), at(cap, 'control softcap-on'), 'the box keeps the keyboard');
    await tried(page, 'softcap-off');
    const views = await page.evaluate((f) => [...document.getElementById(f).shadowRoot.querySelectorAll('canvas[data-view]')]
      .map((c) => c.dataset.view), cap);
    assert.ok(!views.includes('capped'), `the capped heatmap goes (${views})`);
    assert.equal((await traceOf(page, cap)).capped, undefined, 'no capped stage in the trace');
  } finally {
    await done(page);
  }
});
