// Heatmaps off the screen (www/element/figures.js): a figure below the fold draws nothing at load, and draws as the
// reader scrolls it near with the mouse wheel (well before figures.js CATCH_UP_MS, when it would be drawn anyway); an
// edit made while its heatmaps are off the screen does not draw them, and they are drawn when they come near, never
// left stale: the same pixels as a twin figure that was on the screen throughout.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, openHTML, until } from './harness.mjs';

let site;
before(async () => { site = await open(); });
after(() => site.close());

const HTML = `<!doctype html><meta charset="utf-8"><script type="module" src="/www/attention-viz.js"></script>
<body style="margin: 0 40px">
<attention-viz id="near" preset="seed-001" views="scores,weights,context"></attention-viz>
<div style="height: 6000px"></div>
<attention-viz id="far" preset="seed-001" views="scores,weights,context"></attention-viz>
<div style="height: 2000px"></div>`;

function helpers() {
  window.O = {
    canvas: (id, view) => document.getElementById(id).shadowRoot.querySelector(`canvas[data-view="${view}"]`),
    /** Whether any pixel of the canvas is drawn (not transparent). */
    drawn(id, view) {
      const c = O.canvas(id, view);
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let k = 3; k < d.length; k += 4) if (d[k]) return true;
      return false;
    },
    hash: (id, view) => T.hash(O.canvas(id, view)),
    top: (id, view) => O.canvas(id, view).getBoundingClientRect().top,
  };
}

/** Real wheel steps over the page's left margin (no heatmap under the pointer: no hover outlines) until `done`. */
async function wheelUntil(page, dy, done) {
  await page.mouse.move(10, 300);
  for (let k = 0; k < 60 && !(await page.evaluate(done)); k++) {
    await page.mouse.wheel(0, dy);
    await page.waitForTimeout(50);
  }
}

test('a figure below the fold draws when the wheel brings it near, and an edit made off the screen is never left stale', async () => {
  const page = await openHTML(site, 'offscreen.html', HTML, helpers, { viewport: { width: 1000, height: 800 } });
  const views = ['scores', 'weights', 'context'];
  const atLoad = await page.evaluate((views) => views.map((v) => [O.drawn('near', v), O.drawn('far', v)]), views);
  assert.deepEqual(atLoad, views.map(() => [true, false]), 'at load: the near figure drawn, the far one not');
  // The wheel brings the far figure's heatmaps on the screen: drawn within a few frames, as the near twin is.
  await wheelUntil(page, 3000, () => O.top('far', 'context') < innerHeight - 100);
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(ok)))));
  assert.deepEqual(await page.evaluate((views) => views.map((v) => O.drawn('far', v)), views), views.map(() => true));
  for (const v of views) assert.equal(await page.evaluate((v) => O.hash('far', v), v), await page.evaluate((v) => O.hash('near', v), v), v);
  // Back at the top: both figures get the same new config; only the near one is on the screen to draw it.
  await wheelUntil(page, -3000, () => scrollY === 0);
  const { before, edited, after } = await page.evaluate(() => {
    const near = document.getElementById('near');
    const was = O.hash('far', 'weights');
    const config = { ...near.config, embeddings: near.config.embeddings.map((row, i) => row.map((x, j) => (i + j === 2 ? x + 3 : x))) };
    near.config = config;
    document.getElementById('far').config = config;
    return { before: was, edited: O.hash('near', 'weights'), after: O.hash('far', 'weights') };
  });
  assert.notEqual(edited, before, 'the edit changes the weights heatmap');
  assert.equal(after, before, 'off the screen, the far heatmap is not redrawn by the edit');
  await wheelUntil(page, 3000, () => O.top('far', 'context') < innerHeight - 100);
  await until(page, (h) => O.hash('far', 'weights') === h, edited);
  for (const v of views) assert.equal(await page.evaluate((v) => O.hash('far', v), v), await page.evaluate((v) => O.hash('near', v), v), v);
  assert.deepEqual(page.errors, []);
  await page.close();
});
