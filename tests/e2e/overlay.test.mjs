// The heatmaps' outlines on an overlay: figures.js draws each heatmap without outlines and its
// outlines (the followed query, a hovered weight's links, the keyboard cursor) on a transparent canvas laid over it
// (a `layers` draw), so a hover redraws outlines, never the cells. What the reader sees must be what one
// `heatmap` draw of the core (a second figure of the same config, harness `T.twin`) with the outlines the state calls
// for (the followed query, the hovered weight's links, the cursor: `O.outlines`) draws, pixel for pixel, in both themes
// and at both drawing paths (shapes for a small grid, the raster for a big one); a hover must leave every heatmap's cells as they were drawn; the PNG export and the
// narrow screen's peek carry the outlines. Real mouse and keyboard input; the focus is checked where it moves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, pageHelpers, done, until, WAIT } from './harness.mjs';

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
  await page.evaluate(async () => {
    const { HIGHLIGHT } = await import('/www/element/facts.js');
    window.O = {
      el: () => document.getElementById('fig'),
      canvas: (v) => O.el().shadowRoot.querySelector(`canvas[data-view="${v}"]`),
      canvases: () => [...O.el().shadowRoot.querySelectorAll('canvas[data-view]')],
      /**
       * The outlines a reader must see, as a heatmap drawing takes them ({view: [kind, r0, c0, r1, c1, …]}): the followed
       * query's row on the scores, scaled scores and weights (solid); for a weight (i, j) hovered (`hover`) or under the
       * keyboard cursor (`cursor`), what it links (dashed): cell (i, j) of those three, row i of Q and of the context,
       * row j of K and V; the cursor's own cell.
       */
      outlines({ hover = null, cursor = null } = {}) {
        const el = O.el();
        const q = el.config.query ?? 0;
        const t = el.trace;
        const n = t.weights[0].length;
        const out = {};
        const add = (view, kind, r0, c0, r1, c1) => { (out[view] ||= []).push(kind, r0, c0, r1, c1); };
        const weights = ['scores', 'scaled', 'weights'];
        for (const v of weights) add(v, HIGHLIGHT.selected, q, 0, q + 1, n);
        const links = ([i, j]) => {
          for (const v of weights) add(v, HIGHLIGHT.link, i, j, i + 1, j + 1);
          for (const [v, r] of [['q', i], ['k', j], ['v', j], ['context', i]]) add(v, HIGHLIGHT.link, r, 0, r + 1, t[v][0].length);
        };
        if (hover) links(hover);
        if (cursor) { links(cursor); add('weights', HIGHLIGHT.cursor, cursor[0], cursor[1], cursor[0] + 1, cursor[1] + 1); }
        return out;
      },
      /**
       * Each shown view: whether heatmap + overlay are, pixel for pixel, one `heatmap` drawing of the core with the
       * outlines `outlines(state)` says, by a second figure of the same config (harness `T.twin`), or by `viz`.
       */
      async same(state, viz = null) {
        const el = O.el();
        const [twin, fmt] = [viz ?? await T.twin(el), await T.fmt(el)];
        const highlights = O.outlines(state);
        const out = {};
        for (const c of O.canvases()) {
          const view = c.dataset.view;
          const one = document.createElement('canvas');
          one.width = c.width; one.height = c.height;
          const dpr = c.width / parseFloat(c.style.width);
          twin.draw(one, { kind: 'heatmap', view, dpr, dark: el.theme === 'dark', palette: el.palette ?? undefined, highlights: highlights[view] || [], fmt, contrast: el.contrast });
          out[view] = T.hash(one) === T.hash(c);
        }
        return out;
      },
      /** What each canvas was last painted for (its `data-painted` mark): unchanged when it was not drawn again. */
      painted: () => Object.fromEntries(O.canvases().map((c) => [c.dataset.view, c.dataset.painted])),
      /** Pixels of a canvas as seen within 24 of `rgb`. */
      count(v, rgb) {
        const c = O.canvas(v);
        const d = T.seen(c).getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let k = 0;
        for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - rgb[0]) + Math.abs(d[i + 1] - rgb[1]) + Math.abs(d[i + 2] - rgb[2]) <= 24) k++;
        return k;
      },
      center: (v, i, j) => T.cellPoint(O.el(), v, i, j),
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
      const first = await page.evaluate(async () => ({ same: await O.same(), painted: O.painted() }));
      for (const [v, ok] of Object.entries(first.same)) assert.ok(ok, `${v}: as one render draws it, the followed query outlined`);
      const at = await page.evaluate(() => O.center('weights', 2, 1));
      await page.mouse.move(at.x, at.y);
      await page.waitForFunction(() => /^weights\[2\]\[1\]/.test(O.el().shadowRoot.querySelector('.tip:not([hidden])')?.textContent));
      const hovered = await page.evaluate(async (link) => {
        await O.frames();
        return { same: await O.same({ hover: [2, 1] }), painted: O.painted(), link: O.count('weights', link), tip: !O.el().shadowRoot.querySelector('.tip').hidden };
      }, LINK[theme]);
      assert.ok(hovered.tip, 'the tooltip shows');
      assert.ok(hovered.link > 10, `the hovered weight is outlined in the link colour (${hovered.link} px)`);
      for (const [v, ok] of Object.entries(hovered.same)) assert.ok(ok, `${v}: hovered, as one render with the links draws it`);
      assert.deepEqual(hovered.painted, first.painted, 'no heatmap was redrawn by the hover');
      // The keyboard cursor: Tab-less, a click-free focus on the canvas with the keyboard (the arrow keys move it).
      await page.mouse.move(1, 1);
      await page.evaluate(() => O.canvas('weights').focus());
      await page.keyboard.press('ArrowRight');
      // The cursor is read out (the live region): it moved from the followed query's first key to the next.
      await page.waitForFunction(() => O.el().shadowRoot.querySelector('[aria-live].announce')?.textContent);
      const cursor = await page.evaluate(async () => {
        await O.frames();
        const q = O.el().config.query ?? 0;
        return { same: await O.same({ cursor: [q, 1] }), painted: O.painted(), focus: O.el().shadowRoot.activeElement?.dataset.view };
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
  // The reference: a second figure of the config before the edit, given the same edit (a one-value edit is patched in,
  // equal to a full recompute to 1e-12, not bit for bit: the reference must be patched the same way).
  await page.evaluate(async () => { const { Viz } = await import('/www/core.js'); window.mirror = new Viz(JSON.stringify(O.el().config)); });
  const cell = page.locator('#fig').locator('input.cell[data-matrix="embeddings"][data-row="1"][data-col="2"]');
  await cell.scrollIntoViewIfNeeded();
  await cell.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('-123.456');
  await page.keyboard.press('Enter');
  // The settle (canvases measured again, a timer after the last edit): wait for it to have run, however late (the
  // text alternatives, rebuilt in the same turn, hold the edit's numbers).
  await until(page, () => T.current(O.el()));
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
    // The last keystroke's edit is the one whose changes are marked: the mirror takes the one before it too.
    window.mirror.edit({ value: ['embeddings', 1, 2, -123.45] });
    window.mirror.edit({ value: ['embeddings', 1, 2, el.config.embeddings[1][2]] });
    return { same: await O.same(undefined, window.mirror), accent, focus: el.shadowRoot.activeElement?.dataset.matrix };
  });
  for (const [v, ok] of Object.entries(r.same)) assert.ok(ok, `${v}: after the edit, as one render draws it`);
  assert.ok(r.accent > 40, `the exported PNG shows the followed query's outline (${r.accent} accent px)`);
  assert.equal(r.focus, 'embeddings', 'the keyboard stays in the grid');
  await done(page);
}, { timeout: WAIT });
