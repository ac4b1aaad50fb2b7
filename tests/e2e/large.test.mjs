// A read-only figure of 4,096 tokens: over the page's cost bound, so a Web Worker computes it
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
    window.pending = null;
    new MutationObserver(() => {
      const p = el.shadowRoot.querySelector('[data-role=progress]');
      if (p && progress.at(-1) !== p.textContent) progress.push(p.textContent);
      // While the worker computes: no trace yet, and the exports say why.
      if (p && !window.pending) {
        let svg;
        try { el.toSVG('weights'); svg = 'no error'; } catch (e) { svg = e.message; }
        window.pending = { trace: el.trace, svg };
      }
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

  // What the figure exports once drawn: its trace (the shown stages, typed), an SVG and a PNG of what shows.
  const pending = await page.evaluate(() => window.pending);
  assert.equal(pending.trace, null);
  assert.match(pending.svg, /still being computed in a background worker/);
  const exported = await page.evaluate(async ([cell, n]) => {
    const el = document.querySelector('#big');
    const t = el.trace;
    const svg = el.toSVG('weights');
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    const images = [...doc.querySelectorAll('image')];
    const decoded = await Promise.all(images.map((i) => new Promise((ok) => {
      const img = new Image();
      img.onload = () => ok([img.naturalWidth, img.naturalHeight]);
      img.onerror = () => ok(null);
      img.src = i.getAttribute('href');
    })));
    let unknown;
    try { el.toSVG('scaled'); } catch (e) { unknown = e.message; }
    // The PNG: decoded, its pixel at the middle of the weights' image against the canvas's own pixel there.
    const png = await el.toPNG();
    const bitmap = await createImageBitmap(png);
    const root = el.shadowRoot.querySelector('[data-role="large"]').getBoundingClientRect();
    const c = el.shadowRoot.querySelector('[data-role="large"] canvas[data-view="weights"]');
    const r = c.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const pixel = (source, x, y) => {
      const copy = Object.assign(document.createElement('canvas'), { width: 1, height: 1 }).getContext('2d');
      copy.drawImage(source, x, y, 1, 1, 0, 0, 1, 1);
      return [...copy.getImageData(0, 0, 1, 1).data];
    };
    // A point away from the cursor's outline (the keyboard cursor is near the top left).
    const [fx, fy] = [0.75, 0.75];
    const one = await createImageBitmap(await el.toPNG('weights'));
    return {
      keys: Object.keys(t).sort(), large: t.large, scale: t.scale, note: t.note, shape: t.weights.shape,
      typed: t.weights.data instanceof Float64Array, length: t.weights.data.length, value: t.weights.data[cell[0] * n + cell[1]],
      parses: !doc.querySelector('parsererror'), title: doc.querySelector('text')?.textContent, images: images.length,
      decoded, canvas: [c.width, c.height], unknown, pngType: png.type,
      pngSize: [bitmap.width, bitmap.height],
      // Where the figure's pictures and texts end (device pixels from its top left).
      shownSize: [...el.shadowRoot.querySelectorAll('[data-role="large"] :is(canvas, figcaption, .caption)')].reduce(([w, h], e) => {
        const b = e.getBoundingClientRect();
        return [Math.max(w, Math.round((b.right - root.left) * dpr)), Math.max(h, Math.round((b.bottom - root.top) * dpr))];
      }, [0, 0]),
      pngPixel: pixel(bitmap, Math.floor((r.left - root.left + fx * r.width) * dpr), Math.floor((r.top - root.top + fy * r.height) * dpr)),
      canvasPixel: pixel(c, Math.floor(fx * c.width), Math.floor(fy * c.height)),
      oneSize: [one.width, one.height], viewSize: [Math.round(r.width * dpr), Math.round(r.height * dpr)],
    };
  }, [point.cell, N]);
  assert.deepEqual(exported.keys, ['context', 'head', 'large', 'mechanism', 'note', 'scale', 'scores', 'tokens', 'weights']);
  assert.equal(exported.large, true);
  assert.equal(exported.scale, Math.sqrt(D));
  assert.match(exported.note, /only the followed head's scores, weights, context/);
  assert.deepEqual(exported.shape, [N, N]);
  assert.ok(exported.typed);
  assert.equal(exported.length, N * N);
  assert.ok(close(exported.value, gold[0]), `trace.weights at ${point.cell}: ${exported.value} against ${gold[0]}`);
  assert.ok(exported.parses, 'the SVG parses');
  assert.match(exported.title, /weights/);
  // The view's own image (the canvas's pixels) and its colour bar, both PNGs that decode.
  assert.equal(exported.images, 2);
  assert.deepEqual(exported.decoded[0], exported.canvas);
  assert.equal(exported.decoded[1]?.[0], 1);
  assert.match(exported.unknown, /exports the views it shows \(scores, weights, context\): "scaled" is not one of them/);
  assert.equal(exported.pngType, 'image/png');
  assert.ok(exported.pngSize[0] >= exported.shownSize[0] && exported.pngSize[1] >= exported.shownSize[1],
    `PNG ${exported.pngSize} covers the figure ${exported.shownSize}`);
  assert.deepEqual(exported.pngPixel, exported.canvasPixel);
  assert.ok(exported.oneSize[0] >= exported.viewSize[0] && exported.oneSize[1] >= exported.viewSize[1] && exported.oneSize[1] < exported.pngSize[1],
    `toPNG('weights') ${exported.oneSize}: the view ${exported.viewSize}, less than the figure ${exported.pngSize}`);
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
  // Made read-only, the figure that had nothing to show takes the config to its worker; editable again, the refusal.
  await page.evaluate(() => document.querySelector('#big').setAttribute('editable', 'false'));
  await page.locator('#big [data-role="large"] canvas[data-view="weights"][data-painted]').waitFor();
  assert.equal(await status.count(), 0);
  await page.evaluate(() => document.querySelector('#big').setAttribute('editable', 'true'));
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

  // editable="true" while it shows: the small path takes the config and refuses it in the core's words (the last
  // small figure stays); editable="false" brings the large figure back, computed again.
  const refusal = host.locator('.status.error:not([data-role])');
  await page.evaluate(() => document.querySelector('#f').setAttribute('editable', 'true'));
  await refusal.waitFor();
  assert.match(await refusal.textContent(), /multiply-adds .* the limit is 3\.0e8/);
  assert.equal(await largeShown.isVisible(), false);
  assert.ok(await figureCanvas.isVisible());
  await page.evaluate(() => document.querySelector('#f').setAttribute('editable', 'false'));
  await host.locator('[data-role="large"] canvas[data-view="weights"][data-painted]').waitFor();
  assert.ok(await largeShown.isVisible());
  assert.equal(await refusal.count(), 0);

  // A palette change recomputes it in the new colours.
  const pixel = () => page.evaluate(() => {
    const c = document.querySelector('#f').shadowRoot.querySelector('[data-role="large"] canvas[data-view="scores"]');
    const copy = Object.assign(document.createElement('canvas'), { width: 1, height: 1 }).getContext('2d');
    copy.drawImage(c, c.width / 2, c.height / 2, 1, 1, 0, 0, 1, 1);
    return [...copy.getImageData(0, 0, 1, 1).data];
  });
  const before = await pixel();
  await page.evaluate(() => new Promise((ok) => {
    const el = document.querySelector('#f');
    el.addEventListener('change', ok, { once: true });
    el.setAttribute('palette', 'mako');
  }));
  assert.notDeepEqual(await pixel(), before);
  // An unknown palette: drawn in the views' own palettes, and said in the core's words, as a small figure says it.
  const attributes = host.locator('.status[data-role="attributes"]');
  const repalette = (name) => page.evaluate((name) => new Promise((ok) => {
    const el = document.querySelector('#f');
    el.addEventListener('change', ok, { once: true });
    el.setAttribute('palette', name);
  }), name);
  await repalette('no-such-palette');
  assert.ok(await attributes.isVisible(), 'the unknown palette is said');
  assert.match(await attributes.textContent(), /no-such-palette[\s\S]*the heatmaps keep their own palettes/);
  await repalette('mako');
  assert.equal(await attributes.isVisible(), false, 'and no longer once the palette is known');

  // No result of an older run is ever drawn over a newer config: a large config replaced at once by a small one, and
  // a large one made editable while its worker computes. Any large canvas put on the page after that is stale.
  await page.evaluate(() => {
    const el = document.querySelector('#f');
    // Every worker started from here on, and what became of it: a stale run can draw only through a live worker.
    const W = window.Worker;
    window.workers = [];
    window.Worker = class extends W {
      constructor(...args) {
        super(...args);
        this.log = [];
        workers.push(this);
        this.addEventListener('message', (e) => this.log.push(e.data?.type));
      }
      terminate() { this.log.push('terminated'); super.terminate(); }
    };
    window.stale = [];
    window.changes = [];
    el.addEventListener('change', (e) => changes.push(e.detail.large ? 'large' : 'small'));
    new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) if (n.querySelector?.('canvas')) stale.push(n.dataset.view);
    }).observe(el.shadowRoot.querySelector('[data-role="large"]'), { childList: true });
    el.config = big;
    el.config = small;
  });
  await figureCanvas.waitFor({ state: 'visible' });
  await page.evaluate(() => { document.querySelector('#f').config = big; });
  await host.locator('[data-role="progress"]').waitFor();
  await page.evaluate(() => document.querySelector('#f').setAttribute('editable', 'true'));
  await refusal.waitFor();
  // Each of the two runs started a worker, and each must be stopped (a newer config replaced it): wait for that,
  // however long a loaded machine takes, then give a result already on its way the chance to be drawn wrongly.
  await page.waitForFunction(() => workers.length >= 2 && workers.every((w) => w.log.includes('terminated')));
  await page.waitForTimeout(1000); // only that chance: nothing is awaited by it
  assert.deepEqual(await page.evaluate(() => workers.map((w) => w.log.filter((t) => t !== 'progress'))), [['terminated'], ['terminated']],
    'each stale run\'s worker was stopped before its result');
  assert.deepEqual(await page.evaluate(() => window.stale), []);
  assert.equal(await largeShown.isVisible(), false);
  assert.ok(!(await page.evaluate(() => changes)).includes('large'), await page.evaluate(() => changes.join()));
  await done(page);
});
