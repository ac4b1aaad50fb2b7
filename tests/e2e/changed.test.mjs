// What each edit changed, on the guided page (index.html): after a real keystroke or click, every heatmap says under it
// what moved (the core's status: "3 of 16 changed", "unchanged"), its hidden table says it in its caption and per
// cell ("(changed)"), and its drawing marks the changed cells. Chapter 11: typing 0 into W_K's row 1, column 0 (K/V
// head 0's) changes heads 0 and 1 and leaves heads 2 and 3 as they were; chapter 10: + beside "shift positions" turns
// RoPE's q and k and moves not one score. The keyboard stays where the reader put it, nothing reaches the console, and
// screenshots at 1280 px light and 390 px dark are written for a look (CHANGED_SHOTS, default /tmp/changed-shots).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, done, typeInCell, pageHelpers, WAIT } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = process.env.CHANGED_SHOTS ?? '/tmp/changed-shots';

let site;
before(async () => {
  assert.ok(existsSync(join(ROOT, 'www/pkg')), 'www/pkg is missing: run `make build` first');
  mkdirSync(SHOTS, { recursive: true });
  site = await open({ root: ROOT });
});
after(async () => { await site?.close(); });

/** index.html opened at a chapter, its figures drawn. */
async function chapter(id, { width = 1280, scheme = 'light' } = {}) {
  const page = await site.page(null, { viewport: { width, height: 900 } });
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto(`${site.url}index.html#${id}`);
  await page.waitForFunction((id) => [...document.querySelectorAll(`#${id} attention-viz`)].every((e) => e.trace
    && [...e.shadowRoot.querySelectorAll('canvas[data-view]')].every((c) => c.width > 0)), id);
  return page;
}

/** Per heatmap of figure `id` whose view name ends with one of `ends`: its status line, its hidden table's caption and
 *  how many of its cells the table says changed. */
const said = (page, id, ends) => page.evaluate(({ id, ends }) => {
  const root = document.getElementById(id).shadowRoot;
  const out = {};
  for (const c of root.querySelectorAll('canvas[data-view]')) {
    const view = c.dataset.view;
    if (!ends.some((e) => view === e || view.endsWith(`.${e}`))) continue;
    const line = root.querySelector(`[data-status-of="${view}"]`);
    const table = root.querySelector(`[data-text-of="${view}"] table`);
    out[view] = {
      line: line?.textContent || null,
      caption: table?.querySelector('caption')?.textContent ?? null,
      label: c.getAttribute('aria-label'),
      cells: table ? [...table.querySelectorAll('td')].filter((td) => td.textContent.endsWith(' (changed)')).length : null,
    };
  }
  return out;
}, { id, ends });

/** Waits until every heatmap `ends` names of figure `id` shows a status line and has a caption saying the same. */
async function statusesOf(page, id, ends) {
  await page.waitForFunction(({ id, ends }) => {
    const root = document.getElementById(id).shadowRoot;
    const lines = [...root.querySelectorAll('[data-status-of]')].filter((l) => ends.some((e) => l.dataset.statusOf === e || l.dataset.statusOf.endsWith(`.${e}`)));
    return lines.length && lines.every((l) => l.textContent
      && root.querySelector(`[data-text-of="${l.dataset.statusOf}"] caption`)?.textContent.endsWith(`(${l.textContent})`));
  }, { id, ends }, { timeout: WAIT });
  return said(page, id, ends);
}

async function focusOf(page) {
  await page.evaluate(pageHelpers);
  return page.evaluate(() => T.focus());
}

/** axe-core's violations (its source evaluated from the test, as pages.test.mjs does: no inline script). */
async function axe(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'));
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' >>> ')).join(', ')}`);
  });
}

for (const [width, scheme] of [[1280, 'light'], [390, 'dark']]) {
  test(`chapter 11 at ${width} px ${scheme}: typing into W_K says heads 0 and 1 changed, heads 2 and 3 unchanged`, async () => {
    const page = await chapter('sharing-keys', { width, scheme });
    const id = 'chapter-11-gqa';
    await page.waitForFunction((id) => document.getElementById(id).shadowRoot?.querySelector('canvas[data-view="heads.3.weights"]')?.width > 0, id);
    const before = await said(page, id, ['weights', 'k']);
    assert.ok(Object.keys(before).length >= 5, `the heads' weights and k are shown: ${Object.keys(before)}`);
    for (const [view, s] of Object.entries(before)) {
      assert.equal(s.line, null, `${view}: nothing changed on a fresh figure`);
      assert.equal(s.cells, 0, `${view}: no cell changed on a fresh figure`);
    }
    // The status lines are there, blank, from the start: the first edit's words take no new room.
    const blank = await page.evaluate((id) => [...document.getElementById(id).shadowRoot.querySelectorAll('[data-status-of]')]
      .map((l) => [l.textContent, l.getBoundingClientRect().height]), id);
    assert.ok(blank.length >= 5 && blank.every(([text, h]) => text === '' && h >= 16), JSON.stringify(blank));
    await typeInCell(page, id, 'w_k', 1, 0, '0');
    const got = await statusesOf(page, id, ['weights', 'k', 'v']);
    assert.deepEqual(await focusOf(page), { doc: id, shadow: 'cell w_k:1:0' }, 'the keyboard stays in the cell');
    for (const h of [0, 1]) {
      const s = got[`heads.${h}.weights`];
      assert.match(s.line, /^(\d+ of \d+|all \d+) changed$/, `head ${h}: ${JSON.stringify(s)}`);
      assert.ok(s.cells > 0, `head ${h}'s table names its changed cells`);
      assert.ok(s.caption.endsWith(`(${s.line})`) && s.label === s.caption, `head ${h}'s caption and label: ${JSON.stringify(s)}`);
    }
    for (const h of [2, 3]) {
      const s = got[`heads.${h}.weights`];
      assert.equal(s.line, 'unchanged', `head ${h}: ${JSON.stringify(s)}`);
      assert.equal(s.cells, 0, `head ${h}: no cell changed`);
      assert.ok(s.caption.endsWith('(unchanged)'), `head ${h}'s caption: ${s.caption}`);
    }
    assert.equal(got.k.line, '2 of 16 changed', 'word_2\'s and word_3\'s keys, column 0');
    assert.equal(got.k.cells, 2);
    assert.equal(got.v.line, 'unchanged');
    assert.deepEqual(await axe(page), [], 'axe finds no violation');
    const heads = page.locator(`#${id}`).locator('[data-role="heads"]');
    await heads.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, `chapter-11-${width}-${scheme}.png`), fullPage: false });
    await done(page);
  }, { timeout: WAIT });
}

test('chapter 10: + beside "shift positions" turns q_rot and k_rot and leaves every score unchanged', async () => {
  const page = await chapter('word-order');
  const id = 'chapter-10-rope';
  const plus = page.locator(`#${id} >> [data-action="shift-up"]`);
  await plus.scrollIntoViewIfNeeded();
  await plus.click();
  const got = await statusesOf(page, id, ['q_rot', 'k_rot', 'scores', 'weights']);
  assert.deepEqual(await focusOf(page), { doc: id, shadow: 'action shift-up' }, 'the keyboard stays on +');
  const view = (end) => Object.keys(got).find((v) => v === end || v.endsWith(`.${end}`));
  for (const end of ['q_rot', 'k_rot']) {
    const s = got[view(end)];
    assert.match(s.line, /changed$/, `${end}: ${JSON.stringify(s)}`);
    assert.doesNotMatch(s.line, /unchanged/, `${end}: ${s.line}`);
    assert.ok(s.cells > 0, `${end}'s table names its changed cells`);
  }
  for (const end of ['scores', 'weights']) {
    const s = got[view(end)];
    assert.match(s.line, /^unchanged( to 12 digits)?$/, `${end}: ${JSON.stringify(s)}`);
    assert.equal(s.cells, 0, `${end}: no cell changed`);
  }
  // A second press: the status compares with the state just before it (still not one score moves).
  await page.keyboard.press('Enter');
  await page.waitForFunction((id) => document.getElementById(id).config.position.offset === 2, id);
  const again = await statusesOf(page, id, ['scores']);
  assert.match(Object.values(again)[0].line, /^unchanged( to 12 digits)?$/);
  assert.deepEqual(await focusOf(page), { doc: id, shadow: 'action shift-up' }, 'the keyboard stays on +');
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'chapter-10-1280-light.png') });
  await done(page);
}, { timeout: WAIT });
