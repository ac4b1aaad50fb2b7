// The guided page's chapter 9 ("Attention that learned", index.html #learned; www/pages/learned.js, www/pages/learned-train.js)
// as a reader meets it, with the real mouse, keyboard and file chooser:
// - "Train from scratch" keeps the training panel and the heatmap above it where they were on the screen, and the
//   keyboard on Pause, at 1280 × 800 and 390 × 844;
// - nothing sticky covers the reversal heatmap at any scroll position where the Train button is in view;
// - the heatmap and the prediction come first, the weight grids behind an "Edit weights" disclosure that opens with
//   the keyboard, after which the grids take typed numbers; the chapter is far shorter than the 8,700 px it was;
// - layer 1's X (computed by layer 0, not rounded by the page) shows two decimals like every other grid of the
//   chapter, its whole value in each cell's title;
// - an Import… that resizes the reversal head's grids leaves no green "the input reversed" behind.
// No duration is asserted: the training's progress is sampled, not timed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, done, typeInCell, pageHelpers } from './harness.mjs';

let site;
let dir;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'attention-viz-ch9-'));
  // An 8 × 4 W_Q, as NumPy writes it: the reversal head's W_Q is 8 × 8, so the import asks to resize W_K.
  execFileSync('python3', ['-c', 'import sys, numpy as np; np.save(sys.argv[1], np.linspace(-1, 1, 32).reshape(8, 4))', join(dir, 'w_q.npy')]);
  site = await open();
});
after(async () => {
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The chapter, loaded: both sections started and their figures drawn. */
async function chapter(viewport = { width: 1280, height: 800 }) {
  const page = await site.page('index.html#learned', { viewport });
  await page.waitForFunction(() => window.learnedChapter?.reversal && window.learnedChapter?.induction
    && ['learned-reversal', 'learned-induction'].every((id) => {
      const e = document.getElementById(id);
      return e?.trace && [...e.shadowRoot.querySelectorAll('canvas[data-view]')].every((c) => c.width > 0);
    }));
  await page.evaluate(pageHelpers);
  return page;
}

/** The figure that holds the reversal head's grids (its own figure, behind the disclosure). */
const gridsId = (page) => page.evaluate(() => (document.getElementById('learned-reversal-edit') ? 'learned-reversal-edit' : 'learned-reversal'));

/** Opens a section's "Edit weights" disclosure, if the page has one, with the keyboard. */
async function openEdit(page, id) {
  const summary = page.locator(`#${id} > summary`);
  if (!(await summary.count())) return;
  await summary.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction((i) => document.getElementById(i).open, id);
}

/** The focused element, through shadow roots: its data-action, id or tag. */
const focused = (page) => page.evaluate(() => {
  let a = document.activeElement;
  while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
  return a?.dataset?.action ?? (a?.localName === 'summary' ? `summary of ${a.parentElement.id}` : a?.id || a?.localName);
});

/** Each block from the verdict to the panel, "id top+height", to say what moved when something did. */
const blocks = (page) => page.evaluate(() => ['reversal-output', 'learned-reversal', 'reversal-edited', 'reversal-train']
  .map((id) => { const r = document.getElementById(id).getBoundingClientRect(); return `${id} ${Math.round(r.top)}+${Math.round(r.height)}`; })
  .concat(`note "${document.getElementById('reversal-edited').textContent}"`, `scrollY ${scrollY}`).join(', '));

const panelTop = (page, id) => page.evaluate((i) => document.getElementById(i).getBoundingClientRect().top, id);

for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
  test(`Train from scratch (${viewport.width} × ${viewport.height}): the panel and the heatmap stay where they were, the keyboard on Pause`, async () => {
    const page = await chapter(viewport);
    // With the grids open, as a reader who edited and then trains.
    await openEdit(page, 'reversal-edit');
    const train = page.locator('#reversal-train [data-action=train]');
    await train.scrollIntoViewIfNeeded();
    const top0 = await panelTop(page, 'reversal-train');
    const heat0 = await page.evaluate(() => document.getElementById('learned-reversal').getBoundingClientRect().top);
    const before = await blocks(page);
    await train.click(); // the real mouse
    const tops = [];
    for (;;) {
      // One look at the page (atomic): the panel's top, where the keyboard is, whether training has ended.
      const s = await page.evaluate(() => {
        let a = document.activeElement;
        while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
        return {
          top: document.getElementById('reversal-train').getBoundingClientRect().top,
          focus: a?.dataset?.action ?? a?.localName,
          ended: !document.querySelector('#reversal-train [data-action=train]').disabled,
        };
      });
      if (s.ended) break;
      tops.push(s.top);
      assert.equal(s.focus, 'pause', 'the keyboard is on Pause while it trains');
      await page.waitForTimeout(60); // the interval between two looks, not a wait for anything: the loop ends when training does
    }
    const moved = Math.max(...tops.map((t) => Math.abs(t - top0)));
    assert.ok(tops.length > 0, 'the panel was looked at while it trained');
    assert.ok(moved <= 3, `the panel moved by up to ${Math.round(moved)} px while training (tops ${tops.map(Math.round).join(', ')})`);
    const heat1 = await page.evaluate(() => document.getElementById('learned-reversal').getBoundingClientRect().top);
    assert.ok(Math.abs(heat1 - heat0) <= 3, `the heatmap moved from ${heat0} to ${heat1}: before ${before}; after ${await blocks(page)}`);
    assert.match(await page.textContent('#reversal-train .train-status'), /^Trained 1000 steps/);
    await done(page);
  });
}

test('nothing sticky covers the reversal heatmap while the Train button is in view', async () => {
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const page = await chapter(viewport);
    const overlaps = await page.evaluate(async () => {
      const heat = document.getElementById('learned-reversal').shadowRoot.querySelector('canvas[data-view="weights"]');
      const button = document.querySelector('#reversal-train [data-action=train]');
      const pinned = [...document.querySelectorAll('#learned *')].filter((e) => ['sticky', 'fixed'].includes(getComputedStyle(e).position));
      const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
      const hits = [];
      // Every scroll position from the button at the bottom of the screen to the button at its top.
      const at = button.getBoundingClientRect().top + scrollY;
      for (let y = at - innerHeight + 60; y <= at - 10; y += 30) {
        window.scrollTo(0, y);
        await frame();
        const h = heat.getBoundingClientRect();
        for (const e of pinned) {
          const r = e.getBoundingClientRect();
          if (r.width && r.height && r.left < h.right && h.left < r.right && r.top < h.bottom && h.top < r.bottom) {
            hits.push(`${e.id || e.className} [${Math.round(r.top)}, ${Math.round(r.bottom)}] over the heatmap [${Math.round(h.top)}, ${Math.round(h.bottom)}] at scrollY ${Math.round(y)}`);
          }
        }
      }
      return hits;
    });
    assert.deepEqual(overlaps.slice(0, 3), [], `${viewport.width} px`);
    await done(page);
  }
});

test('the heatmap and the prediction come first; Edit weights opens with the keyboard and its grids take typed numbers', async () => {
  const page = await chapter({ width: 1280, height: 800 });
  const height = await page.evaluate(() => document.getElementById('learned').getBoundingClientRect().height);
  assert.ok(height < 5000, `chapter 9 is ${Math.round(height)} px tall at 1280 px (it was ~8,700)`);
  const summary = page.locator('#reversal-edit > summary');
  assert.equal(await summary.count(), 1, 'an Edit weights disclosure');
  assert.equal(await page.evaluate(() => document.getElementById('reversal-edit').open), false, 'closed at first');
  // The keyboard: from Train from scratch, Tab reaches the disclosure (Pause and Cancel are disabled), Enter opens it.
  await page.focus('#reversal-train [data-action=train]');
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'summary of reversal-edit');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.getElementById('reversal-edit').open), true);
  assert.equal(await focused(page), 'summary of reversal-edit', 'the keyboard stays on the disclosure');
  // The heatmap and the output are above every grid.
  const order = await page.evaluate(() => {
    const top = (e) => e.getBoundingClientRect().top;
    const heat = document.getElementById('learned-reversal').shadowRoot.querySelector('canvas[data-view="weights"]');
    const cells = [...document.getElementById('learned-reversal-edit').shadowRoot.querySelectorAll('input.cell')];
    return { heat: top(heat), output: top(document.getElementById('reversal-output')), firstCell: Math.min(...cells.map(top)), cells: cells.length };
  });
  assert.ok(order.cells > 0, 'the grids show once opened');
  assert.ok(order.output < order.heat && order.heat < order.firstCell, JSON.stringify(order));
  // Typing into W_Q (the chapter's Try line: 5 in row 2, column 2) turns four outputs red; the heatmap above follows.
  await typeInCell(page, 'learned-reversal-edit', 'w_q', 2, 2, '5');
  await page.waitForFunction(() => document.querySelectorAll('#reversal-output td.wrong').length === 4);
  const agree = await page.evaluate(async () => {
    const { compute } = await import('./www/attention-viz.js');
    const { reversal } = window.learnedChapter;
    const trace = compute({ mechanism: 'model', model: reversal.model, input: reversal.ids });
    return [reversal.model.params.layers[0].w_q[2][2], T.diff(document.getElementById('learned-reversal').trace.weights, trace.layers[0].heads[0].weights)];
  });
  assert.deepEqual(agree, [5, null]);
  // The induction section: its disclosure too, closed, below the heads' grid.
  assert.equal(await page.evaluate(() => document.getElementById('induction-edit').localName), 'details');
  assert.equal(await page.evaluate(() => document.getElementById('induction-edit').open), false);
  await done(page);
});

test('the Try line in its own order: 987654 keeps the anti-diagonal; 314159 back, then 5 in W_Q (2, 2) turns four outputs red', async () => {
  const page = await chapter({ width: 1280, height: 800 });
  const digits = page.locator('#reversal-digits');
  const weights = () => page.evaluate(() => document.getElementById('learned-reversal').trace.weights);
  /** Whether each output row's largest weight is on the anti-diagonal (output i reads input n − 1 − i). */
  const mirrored = (w) => w.every((row, i) => row.indexOf(Math.max(...row)) === row.length - 1 - i);
  for (const text of ['987654', '314159']) {
    await digits.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(text);
    await page.waitForFunction((t) => document.getElementById('reversal-output').textContent.includes([...t].reverse().join(' ')), text);
    assert.ok(mirrored(await weights()), `${text}: the anti-diagonal stays`);
    assert.equal(await page.evaluate(() => document.querySelectorAll('#reversal-output td.wrong').length), 0, `${text}: reversed right`);
  }
  await openEdit(page, 'reversal-edit');
  await typeInCell(page, await gridsId(page), 'w_q', 2, 2, '5');
  await page.waitForFunction(() => document.querySelectorAll('#reversal-output td.wrong').length === 4);
  await done(page);
});

test('layer 1\'s X shows two decimals like the other grids, the whole value in each cell\'s title', async () => {
  const page = await chapter({ width: 1280, height: 800 });
  await openEdit(page, 'induction-edit');
  await page.waitForFunction(() => document.getElementById('learned-induction-edit')?.shadowRoot.querySelector('input.cell'));
  assert.equal(await page.evaluate(() => window.learnedChapter.induction.editor.layer), 1);
  const got = await page.evaluate(() => {
    const el = document.getElementById('learned-induction-edit');
    const cells = [...el.shadowRoot.querySelectorAll('input.cell[data-matrix="embeddings"]')];
    const x = el.config.embeddings;
    return {
      bad: cells.filter((c) => !/^-?\d+(\.\d{1,2})?$/.test(c.value)).map((c) => c.value).slice(0, 3),
      titles: cells.filter((c) => Number(c.title) !== x[c.dataset.row][c.dataset.col]).length,
      rounded: cells.filter((c) => Math.abs(Number(c.value) - x[c.dataset.row][c.dataset.col]) > 0.005 + 1e-12).length,
      noisy: cells.filter((c) => c.title.length > 12).length,
      width: el.shadowRoot.querySelector('fieldset[data-name="embeddings"]').getBoundingClientRect().width,
      cells: cells.length,
    };
  });
  assert.equal(got.cells, 256, 'a 16 × 16 window of X');
  assert.deepEqual(got.bad, [], 'every cell shows at most two decimals');
  assert.equal(got.titles, 0, 'each title is the whole value');
  assert.equal(got.rounded, 0, 'each shown value is the whole one rounded');
  assert.ok(got.noisy > 0, 'layer 1\'s X is not two-decimal data: the rounding is the display\'s');
  assert.ok(got.width < 1300, `X's grid is ${Math.round(got.width)} px wide (it was ~3,300)`);
  await done(page);
});

test('Import… with a resize on the reversal grids: the output no longer says "the input reversed"', async () => {
  const page = await chapter({ width: 1280, height: 800 });
  await openEdit(page, 'reversal-edit');
  const id = await gridsId(page);
  assert.match(await page.textContent('#reversal-output'), /the input reversed/);
  const button = page.locator(`#${id} fieldset[data-name="w_q"] button[data-action="import"]`);
  await button.scrollIntoViewIfNeeded();
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), button.click()]);
  await chooser.setFiles(join(dir, 'w_q.npy'));
  const resize = page.locator(`#${id} button[data-action="import-resize"]`);
  await resize.waitFor();
  await resize.click();
  await page.waitForFunction((i) => document.getElementById(i).config.w_q[0].length === 4, id);
  const shown = await page.evaluate(() => ({
    verdict: document.querySelector('#reversal-output .learned-verdict').textContent,
    wrongVerdict: document.querySelector('#reversal-output .learned-verdict').classList.contains('wrong'),
    green: document.querySelectorAll('#reversal-output td.right').length,
    heatW_q: document.getElementById('learned-reversal').config.w_q[0].length,
    note: document.getElementById('reversal-edited').textContent,
  }));
  assert.doesNotMatch(shown.verdict, /the input reversed/);
  assert.match(shown.verdict, /^No output: The grids no longer fit the model: W_Q is 8 × 4 \(the model's: 8 × 8\), W_K is 8 × 4/);
  assert.equal(shown.wrongVerdict, true, 'said in red');
  assert.equal(shown.green, 0, 'no output digit shown as right');
  assert.equal(shown.heatW_q, 4, 'the heatmap above shows the head of the grids\' numbers, as the text says');
  // Reset brings the trained model, its output and its grids back.
  await page.click('#reversal-reset');
  assert.match(await page.textContent('#reversal-output'), /Output 9 5 1 4 1 3: the input reversed/);
  assert.equal(await page.evaluate((i) => document.getElementById(i).config.w_q[0].length, id), 8);
  await done(page);
});

test('with fmt, a cell shows the rounded value; Escape brings that back after a bad entry, the whole value kept', async () => {
  const page = await chapter({ width: 1280, height: 800 });
  await page.evaluate(() => {
    const el = document.createElement('attention-viz');
    el.id = 'fmt-cells';
    el.setAttribute('fmt', '.2f');
    el.setAttribute('views', 'inputs,weights');
    el.setAttribute('config', JSON.stringify({ embeddings: [[0.123456, 2], [1.7829859999999997, -0.5]] }));
    document.querySelector('main').prepend(el);
  });
  await page.waitForFunction(() => document.getElementById('fmt-cells')?.shadowRoot?.querySelector('input.cell'));
  const cell = page.locator('#fmt-cells input.cell[data-matrix="embeddings"][data-row="0"][data-col="0"]');
  const state = () => page.evaluate(() => {
    const el = document.getElementById('fmt-cells');
    const cells = [...el.shadowRoot.querySelectorAll('input.cell')];
    return { shown: cells.map((c) => c.value), titles: cells.map((c) => c.title), x: el.config.embeddings };
  });
  assert.deepEqual(await state(), {
    shown: ['0.12', '2.00', '1.78', '-0.50'],
    titles: ['0.123456', '2', '1.7829859999999997', '-0.5'],
    x: [[0.123456, 2], [1.7829859999999997, -0.5]],
  });
  await cell.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('abc');
  await page.keyboard.press('Escape');
  const after = await state();
  assert.equal(after.shown[0], '0.12');
  assert.deepEqual(after.x, [[0.123456, 2], [1.7829859999999997, -0.5]], 'Escape kept the whole value');
  await done(page);
});
