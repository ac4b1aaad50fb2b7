// A read-only figure of 4,096 tokens (issue 26 row 5): over the page's cost bound, so a Web Worker computes it
// (www/compute-worker.js, www/element/large.js) and the page shows a progress line, then scores, weights and context
// as images with their colour bars. A real mouse move over the weights and the keyboard cursor show a cell's value,
// checked against NumPy's for that cell: the inputs are drawn with RandomState(0) in the page and np.random.seed(0)
// in Python (`randn` row by row: X, then W_Q, W_K, W_V), the same numbers, so no fixture holds a value. Nothing timed
// is asserted. An editable figure of the same config keeps the core's cost refusal.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { open, done, WAIT } from './harness.mjs';

const N = 4096;
const D = 64;

let site;
before(async () => { site = await open(); });
after(async () => { await site?.close(); });

// Each row's largest weight and its column, and the weights asked for (`cells` on stdin: [[i, j], …]).
const NUMPY = String.raw`
import json, sys
import numpy as np
n, d = int(sys.argv[1]), int(sys.argv[2])
np.random.seed(0)
X = np.random.randn(n, d); W_Q = np.random.randn(d, d); W_K = np.random.randn(d, d); W_V = np.random.randn(d, d)
S = (X @ W_Q) @ (X @ W_K).T / np.sqrt(d)
S -= S.max(axis=1, keepdims=True)
W = np.exp(S)
W /= W.sum(axis=1, keepdims=True)
cells = json.loads(sys.stdin.read())
json.dump({'argmax': W.argmax(axis=1).tolist(), 'cells': [W[i, j] for i, j in cells]}, sys.stdout)
`;
const numpy = (cells) => JSON.parse(execFileSync('python3', ['-c', NUMPY, String(N), String(D)],
  { input: JSON.stringify(cells), maxBuffer: 1 << 26 }));

/** The tooltip's number ("t, u: 0.123456"): 6 significant digits of the value. */
const tipValue = (text) => Number(text.slice(text.lastIndexOf(': ') + 2));
const close = (shown, want) => Math.abs(shown - want) <= 1e-5 * Math.abs(want) + 1e-300;

async function figure(page, editable) {
  return page.evaluate(async ([n, d, editable]) => {
    const av = await import('/www/attention-viz.js');
    await av.ready;
    const rs = new av.RandomState(0);
    // Row by row: one call draws at most 131,072 values; the sequence is the same.
    const rows = (k) => Array.from({ length: k }, () => rs.randn(d));
    const config = { embeddings: rows(n), w_q: rows(d), w_k: rows(d), w_v: rows(d) };
    const el = document.createElement('attention-viz');
    el.id = 'big';
    el.setAttribute('editable', String(editable));
    el.setAttribute('views', 'scores,weights,context');
    document.body.append(el);
    window.progress = [];
    new MutationObserver(() => {
      const p = el.shadowRoot.querySelector('[data-role=progress]');
      if (p && progress.at(-1) !== p.textContent) progress.push(p.textContent);
    }).observe(el.shadowRoot, { subtree: true, childList: true, characterData: true });
    el.config = config;
  }, [N, D, editable]);
}

test('n = 4096, editable="false": computed in a worker with a progress line; scores, weights, context drawn; hover and the cursor show NumPy\'s weights', { timeout: WAIT * 3 }, async () => {
  const page = await site.page('tests/fixtures/blank.html');
  await figure(page, false);
  const host = page.locator('#big');
  await host.locator('[data-role="large"] canvas[data-view="context"][data-painted]').waitFor({ timeout: WAIT * 2 });
  const progress = await page.evaluate(() => window.progress);
  assert.ok(progress.some((t) => /Computing 4096 tokens in a background worker .*step 2 of 3/.test(t)), progress.join(' | '));
  assert.equal(await page.evaluate(() => document.querySelector('#big').shadowRoot.querySelector('.status').textContent), '');
  for (const view of ['scores', 'weights', 'context']) {
    assert.equal(await host.locator(`[data-role="large"] canvas[data-view="${view}"][data-painted]`).count(), 1, view);
  }
  // The weights' pixels are each block's largest weight, said in its caption.
  assert.match(await host.locator('figure[data-view="weights"] .caption').textContent(), /largest value of its block of \d+ × \d+ cells/);
  // A canvas that was drawn: not one colour.
  const colours = await page.evaluate(() => {
    const c = document.querySelector('#big').shadowRoot.querySelector('[data-role="large"] canvas[data-view="weights"]');
    // Its pixels through a 2D copy (the figure shows the worker's ImageBitmap through a 'bitmaprenderer' context).
    const copy = Object.assign(document.createElement('canvas'), { width: c.width, height: c.height }).getContext('2d');
    copy.drawImage(c, 0, 0);
    const d = copy.getImageData(0, 0, c.width, c.height).data;
    return new Set(Array.from({ length: d.length / 4 }, (_, k) => d[4 * k] * 65536 + d[4 * k + 1] * 256 + d[4 * k + 2])).size;
  });
  assert.ok(colours > 2, `${colours} colours`);

  // The mouse: a point whose cell is its row's peak (a cell is 1/8 of a CSS pixel: integer points reach every 8th).
  const weights = host.locator('[data-role="large"] canvas[data-view="weights"]');
  await weights.scrollIntoViewIfNeeded();
  const rect = await weights.evaluate((c) => { const r = c.getBoundingClientRect(); return { left: r.left, top: r.top, width: r.width, height: r.height }; });
  const { argmax } = numpy([]);
  const cellAt = (x, y) => [Math.floor(((y - rect.top) / rect.height) * N), Math.floor(((x - rect.left) / rect.width) * N)];
  let point = null;
  for (let y = Math.ceil(rect.top + rect.height / 3); !point && y < rect.top + rect.height; y++) {
    const [i] = cellAt(0, y);
    const j = argmax[i];
    const x = Math.ceil(rect.left + (j * rect.width) / N);
    if (cellAt(x, y)[1] === j) point = { x, y, cell: [i, j] };
  }
  assert.ok(point, 'a row whose peak an integer point reaches');
  const gold = numpy([point.cell, [0, 0], [0, 1], [64, 1]]).cells;
  await page.mouse.move(point.x, point.y);
  const tip = host.locator('[role="tooltip"]:not([hidden])');
  await tip.waitFor();
  const text = await tip.textContent();
  assert.ok(close(tipValue(text), gold[0]), `${text} against NumPy's W[${point.cell}] = ${gold[0]}`);
  assert.ok(gold[0] > 1 / N, `a peak: ${gold[0]}`);

  // The keyboard: Tab to the weights, the cursor at (0, 0); → and Shift+↓ move it; the focus stays.
  await page.mouse.move(0, 0);
  await weights.focus();
  const focused = () => page.evaluate(() => document.querySelector('#big').shadowRoot.activeElement?.dataset.view);
  const live = () => page.evaluate(() => document.querySelector('#big').shadowRoot.querySelector('.sr-only[role="status"]').textContent);
  assert.ok(close(tipValue(await live()), gold[1]), `${await live()} against ${gold[1]}`);
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(), 'weights');
  assert.ok(close(tipValue(await live()), gold[2]), `${await live()} against ${gold[2]}`);
  await page.keyboard.press('Shift+ArrowDown');
  assert.equal(await focused(), 'weights');
  assert.ok(close(tipValue(await tip.textContent()), gold[3]), `${await tip.textContent()} against ${gold[3]}`);
  await done(page);
});

// The dist builds carry the worker inside (scripts/dist.mjs: COMPUTE_WORKER_SOURCE): from npm's module and in the
// single-file build (the notebooks' engine), a read-only figure over the cost bound draws too. 1,600 tokens × 64 is
// just over the page's bound (3.5e8 multiply-adds), so the worker takes it; needs `make dist`.
for (const build of ['attention-viz.js', 'attention-viz.inline.js']) {
  test(`dist/${build}: a read-only figure over the page's bound is computed by the bundled worker and drawn`, { timeout: WAIT * 2 }, async () => {
    const page = await site.page('tests/fixtures/blank.html');
    await page.evaluate(async ([build, n, d]) => {
      let av;
      if (build.endsWith('.inline.js')) {
        await new Promise((ok, fail) => document.head.append(Object.assign(document.createElement('script'), { src: `/dist/${build}`, onload: ok, onerror: fail })));
        av = window.AttentionViz;
      } else {
        av = await import(`/dist/${build}`);
      }
      await av.ready;
      const rs = new av.RandomState(0);
      const rows = (k) => Array.from({ length: k }, () => rs.randn(d));
      const el = document.createElement('attention-viz');
      el.id = 'big';
      el.setAttribute('editable', 'false');
      document.body.append(el);
      el.config = { embeddings: rows(n), w_q: rows(d), w_k: rows(d), w_v: rows(d) };
    }, [build, 1600, D]);
    await page.locator('#big [data-role="large"] canvas[data-view="weights"][data-painted]').waitFor({ timeout: WAIT * 2 });
    assert.equal(await page.evaluate(() => document.querySelector('#big').shadowRoot.querySelector('.status').textContent), '');
    await done(page);
  });
}

test('the same config in an editable figure keeps the core\'s cost refusal (no worker)', { timeout: WAIT }, async () => {
  const page = await site.page('tests/fixtures/blank.html');
  await figure(page, true);
  const status = page.locator('#big').locator('.status.error:not([data-role])');
  await status.waitFor();
  assert.match(await status.textContent(), /multiply-adds .* the limit is 3\.0e8/);
  assert.equal(await page.locator('#big').locator('[data-role="large"]:not([hidden])').count(), 0);
  // The refusal is the page's: an error on the console is not expected, only the figure's message.
  await done(page);
});

test('a read-only figure goes from a large config to a small one and back: each time only its own parts show', { timeout: WAIT * 2 }, async () => {
  const page = await site.page('tests/fixtures/blank.html');
  const host = page.locator('#f');
  await page.evaluate(async () => {
    const av = await import('/www/attention-viz.js');
    await av.ready;
    const rs = new av.RandomState(1);
    const rows = (k) => Array.from({ length: k }, () => rs.randn(64));
    // 2048 tokens × 64: 9.6e8 multiply-adds, over the page's bound.
    window.big = { embeddings: rows(2048), w_q: rows(64), w_k: rows(64), w_v: rows(64) };
    window.small = av.presets['seed-000'];
    const el = Object.assign(document.createElement('attention-viz'), { id: 'f' });
    el.setAttribute('editable', 'false');
    el.config = big;
    document.body.append(el);
  });
  const largeShown = host.locator('[data-role="large"]');
  await host.locator('[data-role="large"] canvas[data-view="context"][data-painted]').waitFor();
  assert.ok(await largeShown.isVisible());
  const figureCanvas = host.locator('.stages canvas').first();
  await page.evaluate(() => { document.querySelector('#f').config = small; });
  await figureCanvas.waitFor({ state: 'visible' });
  assert.equal(await largeShown.isVisible(), false);
  assert.equal(await page.evaluate(() => 'large' in document.querySelector('#f').shadowRoot.querySelector('.av').dataset), false);
  await page.evaluate(() => { document.querySelector('#f').config = big; });
  await host.locator('[data-role="large"] canvas[data-view="weights"][data-painted]').waitFor();
  assert.ok(await largeShown.isVisible());
  assert.equal(await figureCanvas.isVisible(), false);
  await done(page);
});
