// The heatmaps' outlines on an overlay: figures.js draws each heatmap without outlines and its
// outlines (the followed query, a hovered weight's links, the keyboard cursor) on a transparent canvas laid over it
// (a `layers` draw), so a hover redraws outlines, never the cells. What the reader sees must be what one
// `heatmap` draw with the outlines draws, pixel for pixel, in both themes and at both drawing paths (shapes for a small
// grid, the raster for a big one); a hover must leave every heatmap's cells as they were drawn; the PNG export and the
// narrow screen's peek carry the outlines. Real mouse and keyboard input; the focus is checked where it moves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, pageHelpers, done, WAIT } from './harness.mjs';

let site;
before(async () => { site = await open(); });
after(() => site.close());

/** A blank page with one <attention-viz id="fig"> of `config` (or a preset) drawn; `T` installed. */
async function figure({ preset = null, n = 0, theme = 'light', editable = true } = {}) {
  const page = await site.page('tests/fixtures/blank.html', { viewport: { width: 1280, height: 1000 } });
  await page.evaluate(async ({ preset, n, theme, editable }) => {
    const av = await import('/www/attention-viz.js');
    await av.ready;
    const el = document.createElement('attention-viz');
    el.id = 'fig';
    el.setAttribute('theme', theme);
    if (!editable) el.setAttribute('editable', 'false');
    if (preset) el.setAttribute('preset', preset);
    document.body.append(el);
    if (!preset) {
      const rs = new av.RandomState(0);
      el.config = { embeddings: rs.rand(n, 4), w_q: rs.rand(4, 4), w_k: rs.rand(4, 4), w_v: rs.rand(4, 4) };
    }
  }, { preset, n, theme, editable });
  await page.waitForFunction(() => {
    const e = document.getElementById('fig');
    return e?.trace && [...e.shadowRoot.querySelectorAll('canvas[data-view]')].every((c) => c.width > 0 && c.dataset.painted);
  });
  await page.evaluate(pageHelpers);
  await page.evaluate(() => {
    window.O = {
      el: () => document.getElementById('fig'),
      canvas: (v) => O.el().shadowRoot.querySelector(`canvas[data-view="${v}"]`),
      /** Each shown view: whether heatmap + overlay are, pixel for pixel, one `render` with the element's outlines. */
      same() {
        const el = O.el();
        const f = el._figures;
        const highlights = f.highlights();
        const out = {};
        for (const [view, c] of f.canvases) {
          const one = document.createElement('canvas');
          one.width = c.width; one.height = c.height;
          const dpr = c.width / parseFloat(c.style.width);
          el._viz.draw(one, { kind: 'heatmap', view, dpr, dark: el._state.dark, palette: el.palette ?? undefined, highlights: highlights[view] || [], fmt: el._state.fmt, contrast: el.contrast });
          out[view] = T.hash(one) === T.hash(c);
        }
        return out;
      },
      painted: () => Object.fromEntries([...O.el()._figures.canvases].map(([v, c]) => [v, c.dataset.painted])),
      /** Pixels of a canvas as seen within 24 of `rgb`. */
      count(v, rgb) {
        const c = O.canvas(v);
        const d = T.seen(c).getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let k = 0;
        for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - rgb[0]) + Math.abs(d[i + 1] - rgb[1]) + Math.abs(d[i + 2] - rgb[2]) <= 24) k++;
        return k;
      },
      center(v, i, j) {
        const c = O.canvas(v);
        const r = O.el()._figures.cellRect(c, i, j);
        return { x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2 };
      },
      frames: (n = 3) => new Promise((ok) => { const f = () => (--n <= 0 ? ok() : requestAnimationFrame(f)); requestAnimationFrame(f); }),
    };
  });
  return page;
}

const LINK = { light: [0x9a, 0x67, 0x00], dark: [0xd2, 0x99, 0x22] };

for (const theme of ['light', 'dark']) {
  for (const [what, opts] of [['seed-001 (shapes)', { preset: 'seed-001' }], ['n = 48 (raster)', { n: 48 }]]) {
    test(`${theme}, ${what}: heatmap + overlay show what one render with the outlines draws; a hover redraws no heatmap`, async () => {
      const page = await figure({ ...opts, theme });
      await page.evaluate(() => O.canvas('weights').scrollIntoView({ block: 'center' }));
      const first = await page.evaluate(() => ({ same: O.same(), painted: O.painted() }));
      for (const [v, ok] of Object.entries(first.same)) assert.ok(ok, `${v}: as one render draws it, the followed query outlined`);
      const at = await page.evaluate(() => O.center('weights', 2, 1));
      await page.mouse.move(at.x, at.y);
      await page.waitForFunction(() => O.el()._figures.hover !== null);
      const hovered = await page.evaluate(async (link) => {
        await O.frames();
        return { same: O.same(), painted: O.painted(), link: O.count('weights', link), tip: !O.el().shadowRoot.querySelector('.tip').hidden };
      }, LINK[theme]);
      assert.ok(hovered.tip, 'the tooltip shows');
      assert.ok(hovered.link > 10, `the hovered weight is outlined in the link colour (${hovered.link} px)`);
      for (const [v, ok] of Object.entries(hovered.same)) assert.ok(ok, `${v}: hovered, as one render with the links draws it`);
      assert.deepEqual(hovered.painted, first.painted, 'no heatmap was redrawn by the hover');
      // The keyboard cursor: Tab-less, a click-free focus on the canvas with the keyboard (the arrow keys move it).
      await page.mouse.move(1, 1);
      await page.evaluate(() => O.canvas('weights').focus());
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => O.el()._figures.reader.cursor !== null);
      const cursor = await page.evaluate(async () => {
        await O.frames();
        return { same: O.same(), painted: O.painted(), focus: O.el().shadowRoot.activeElement?.dataset.view };
      });
      assert.equal(cursor.focus, 'weights', 'the focus stays on the heatmap');
      for (const [v, ok] of Object.entries(cursor.same)) assert.ok(ok, `${v}: with the cursor, as one render draws it`);
      assert.deepEqual(cursor.painted, first.painted, 'no heatmap was redrawn by the cursor');
      await done(page);
    }, { timeout: WAIT });
  }
}

test('an edit that moves the cells redraws the overlay with them; the PNG export carries the outlines', async () => {
  const page = await figure({ preset: 'seed-001' });
  const cell = page.locator('#fig').locator('input.cell[data-matrix="embeddings"][data-row="1"][data-col="2"]');
  await cell.scrollIntoViewIfNeeded();
  await cell.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('-123.456');
  await page.keyboard.press('Enter');
  // The settle (canvases measured again, a timer after the last edit): wait for it to have run, however late.
  await page.waitForFunction(() => {
    const f = O.el()._figures;
    return f.settleTimer === 0 && f.frame === 0 && f.reader.fresh();
  });
  const r = await page.evaluate(async () => {
    await O.frames();
    const el = O.el();
    const png = await el.toPNG();
    const img = await createImageBitmap(png);
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    c.getContext('2d').drawImage(img, 0, 0);
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let accent = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 0x09) + Math.abs(d[i + 1] - 0x69) + Math.abs(d[i + 2] - 0xda) <= 24) accent++;
    return { same: O.same(), accent, focus: el.shadowRoot.activeElement?.dataset.matrix };
  });
  for (const [v, ok] of Object.entries(r.same)) assert.ok(ok, `${v}: after the edit, as one render draws it`);
  assert.ok(r.accent > 40, `the exported PNG shows the followed query's outline (${r.accent} accent px)`);
  assert.equal(r.focus, 'embeddings', 'the keyboard stays in the grid');
  await done(page);
}, { timeout: WAIT });
