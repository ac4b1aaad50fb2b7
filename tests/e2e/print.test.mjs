// Captures and print (www/element/style.js `@media print`, index.js print resolution): every panel renders in a
// full-page capture of a normal viewport (no content-visibility placeholders); on paper no controls, the heatmaps
// at print resolution, the breakdown not clipped, and each figure kept whole.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, done, WAIT } from './harness.mjs';

let site;
before(async () => { site = await open(); });
after(() => site.close());

const drawn = (page) => page.waitForFunction(() => [...document.querySelectorAll('attention-viz')]
  .every((e) => [...(e.shadowRoot?.querySelectorAll('canvas[data-view]') ?? [])].every((c) => c.width > 0) && e.trace));

test('a full-page capture of a 900 px viewport renders every panel: nothing is skipped as off-screen', async () => {
  const page = await site.page('index.html');
  await drawn(page);
  const skipped = await page.evaluate(() => [...document.querySelectorAll('attention-viz')].flatMap((e) => [...e.shadowRoot.querySelectorAll('*')]
    .filter((n) => getComputedStyle(n).contentVisibility !== 'visible').map((n) => `${e.id} ${n.localName}.${n.className}`)));
  assert.deepEqual(skipped, []);
  // The last figure's inputs, far below the fold, have their real size and cells.
  const box = await page.evaluate(() => {
    const fs = document.getElementById('chapter-4').shadowRoot.querySelector('fieldset.matrix');
    return { h: fs.getBoundingClientRect().height, cells: fs.querySelectorAll('input.cell').length };
  });
  assert.ok(box.h > 40 && box.cells > 0, JSON.stringify(box));
  await page.close();
});

test('print: no controls, the breakdown unclipped, figures kept whole, heatmaps at print resolution', async () => {
  const page = await site.page('index.html');
  await drawn(page);
  await page.emulateMedia({ media: 'print' });
  await page.waitForFunction(() => {
    const c = document.getElementById('chapter-2').shadowRoot.querySelector('canvas[data-view="weights"]');
    return c.width >= 2.9 * parseFloat(c.style.width);
  }, null, { timeout: WAIT });
  const p = await page.evaluate(() => {
    const root = document.getElementById('chapter-2').shadowRoot;
    const shown = (sel) => [...root.querySelectorAll(sel)].filter((n) => getComputedStyle(n).display !== 'none').length;
    const wrap = root.querySelector('.breakdown .wrap');
    const c = root.querySelector('canvas[data-view="weights"]');
    return {
      controls: shown('.toolbar, details.menu, .window, .skip'),
      overflow: getComputedStyle(wrap).overflowX,
      clipped: wrap.scrollWidth > wrap.clientWidth + 1,
      breakInside: getComputedStyle(document.getElementById('chapter-2')).breakInside,
      ratio: c.width / parseFloat(c.style.width),
    };
  });
  assert.equal(p.controls, 0, 'no toolbar, menu, window arrows or skip link on paper');
  assert.equal(p.overflow, 'visible');
  assert.equal(p.clipped, false, 'the breakdown is not cut at the right edge');
  assert.equal(p.breakInside, 'avoid');
  assert.ok(p.ratio >= 2.9, `heatmaps drawn at ≥ 3 device pixels per CSS pixel for print (got ${p.ratio})`);
  const pdf = await page.pdf({ format: 'A4', printBackground: true });
  assert.ok(pdf.length > 10000);
  // Back on screen, the screen resolution again.
  await page.emulateMedia({ media: 'screen' });
  await page.waitForFunction(() => {
    const c = document.getElementById('chapter-2').shadowRoot.querySelector('canvas[data-view="weights"]');
    return Math.abs(c.width / parseFloat(c.style.width) - devicePixelRatio) < 0.05;
  }, null, { timeout: WAIT });
  await done(page);
});
