// The heatmap renderer on a real canvas in headless Chromium: cell colours
// against seaborn's goldens (tests/fixtures/seaborn-goldens.json), the white
// gaps between cells at dpr 1 and 2, the pixel-buffer path of large grids
// against the SVG (shape) path, renderSVG, and NaN cells.
//
// Cells are located from the pixels, not from a copy of the layout formulas:
// `cellAt` gives a point well inside each cell, and from there the test walks
// the pixels to the cell's drawn edges. Colours are sampled in the cell's centre
// column a quarter of the way down (the annotation text sits on the exact
// centre) and also as the cell's most common colour.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, done, fixture } from './harness.mjs';

let site, page;
const goldens = Object.fromEntries(fixture('seaborn-goldens.json').figures.map((f) => [f.name, f]));

// [preset, view, golden figure]
const GOLDEN_VIEWS = [
  ['seed-003', 'decoder_state', 'seed003_decoder_state'],
  ['seed-003', 'annotations', 'seed003_annotations'],
  ['seed-003', 'applied', 'seed003_applied_attention'],
  ['seed-003', 'context', 'seed003_context_vector'],
  ['seed-001', 'weights', 'seed001_weights'],
  ['seed-001', 'scaled', 'seed001_scaled_scores'],
];

/** Installed in the page: draw a view on a fresh canvas and measure its cells from the pixels. */
function pageHelpers() {
  // Colours are compared as 0xrrggbb integers and reported as '#rrggbb'.
  const hex = (c) => '#' + c.toString(16).padStart(6, '0');
  const WHITE = 0xffffff;

  /** Draws `view` of `config` on a new canvas of its preferred CSS size × dpr, with a figure of the core's own (`Viz`). */
  window.draw = (config, view, dpr = 1, { dark = false, cssSize = null } = {}) => {
    const viz = new core.Viz(JSON.stringify(config));
    const [w, h] = cssSize ?? viz.ask({ kind: 'preferredSize', view });
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    canvas.style.width = `${w}px`;
    canvas.style.height = `${h}px`;
    document.body.append(canvas);
    viz.draw(canvas, { kind: 'heatmap', view, dpr, dark });
    return { viz, canvas };
  };

  /**
   * Every cell's drawn rectangle (exclusive ends), its sampled colour, its most
   * common colour, and the gaps to its right and lower neighbours:
   * {rows, cols, cells[i][j], gapsRight: [{width, allWhite}], gapsDown, cellAtOk}.
   */
  window.measure = (viz, view, canvas, dpr, { walk = true } = {}) => {
    const { width: W, height: H } = canvas;
    const img = canvas.getContext('2d').getImageData(0, 0, W, H).data;
    const at = (x, y) => { const o = (y * W + x) * 4; return (img[o] << 16) | (img[o + 1] << 8) | img[o + 2]; };
    const cellAt = (x, y) => viz.ask({ kind: 'cellAt', view, width: W, height: H, dpr, x, y });
    // A point inside the grid (the canvas centre, else a coarse search), then
    // cellAt's spans of every row and column through it.
    let start = cellAt(W / 2, H / 2) ? [Math.floor(W / 2), Math.floor(H / 2)] : null;
    for (let y = 0; y < H && !start; y += 4) for (let x = 0; x < W && !start; x += 4) if (cellAt(x + 0.5, y + 0.5)) start = [x, y];
    if (!start) throw new Error('cellAt finds no cell anywhere on the canvas');
    // cellAt costs O(cells) (see the report), so large canvases are sampled every
    // `step` px: the spans then lie inside the true ones, which is all the walk needs.
    const step = Math.max(1, Math.floor(Math.min(W, H) / 300));
    const colSpans = [], rowSpans = [];
    for (let x = 0; x < W; x += step) {
      const c = cellAt(x + 0.5, start[1] + 0.5);
      if (c) (colSpans[c[1]] ??= [x, x])[1] = x;
    }
    for (let y = 0; y < H; y += step) {
      const c = cellAt(start[0] + 0.5, y + 0.5);
      if (c) (rowSpans[c[0]] ??= [y, y])[1] = y;
    }
    const rows = rowSpans.length, cols = colSpans.length;
    const cells = [];
    for (let i = 0; i < rows; i++) {
      cells.push([]);
      for (let j = 0; j < cols; j++) {
        const [sx0, sx1] = colSpans[j], [sy0, sy1] = rowSpans[i];
        const mx = Math.floor((sx0 + sx1) / 2);
        const qy = Math.floor(sy0 + (sy1 - sy0) / 4), qy3 = Math.ceil(sy0 + (3 * (sy1 - sy0)) / 4);
        const color = at(mx, qy);
        const cell = { color, mx, qy };
        if (walk) {
          // Walk from (mx, qy) to the drawn edges: left/right along the row a
          // quarter down (above the text), up from there, down from three quarters.
          let x0 = mx, x1 = mx, y0 = qy, y1 = qy3;
          while (x0 > 0 && at(x0 - 1, qy) === color) x0--;
          while (x1 < W && at(x1, qy) === color) x1++;
          while (y0 > 0 && at(mx, y0 - 1) === color) y0--;
          while (y1 < H && at(mx, y1) === color) y1++;
          Object.assign(cell, { x0, x1, y0, y1 });
        }
        // The most common colour of the drawn cell (without a walk: of the inside of cellAt's span).
        const counts = new Map();
        const [cx0, cx1, cy0, cy1] = walk ? [cell.x0, cell.x1, cell.y0, cell.y1] : [sx0 + 1, sx1 - dpr, sy0 + 1, sy1 - dpr];
        for (let y = cy0; y < cy1; y++) for (let x = cx0; x < cx1; x++) {
          const c = at(x, y);
          counts.set(c, (counts.get(c) ?? 0) + 1);
        }
        cell.mode = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? color;
        cell.pixels = counts;
        cell.color = hex(color);
        cell.mode = hex(cell.mode);
        cells[i].push(cell);
      }
    }
    // Gaps between neighbours: the pixels between one cell's end and the next one's start.
    const white = (x0, x1, y0, y1) => {
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (at(x, y) !== WHITE) return false;
      return true;
    };
    const gapsRight = [], gapsDown = [];
    let cellAtOk = true;
    if (walk) {
      for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) {
        const a = cells[i][j];
        // cellAt at the drawn centre: every cell of small grids, the edges and diagonals of large ones.
        if (rows * cols <= 256 || i === j || i + j === cols - 1 || i % (rows - 1) === 0 || j % (cols - 1) === 0) {
          const c = cellAt(Math.floor((a.x0 + a.x1) / 2) + 0.5, Math.floor((a.y0 + a.y1) / 2) + 0.5);
          if (!c || c[0] !== i || c[1] !== j) cellAtOk = false;
        }
        if (j + 1 < cols) {
          const b = cells[i][j + 1];
          gapsRight.push({ i, j, width: b.x0 - a.x1, allWhite: white(a.x1, b.x0, a.y0, a.y1) });
        }
        if (i + 1 < rows) {
          const b = cells[i + 1][j];
          gapsDown.push({ i, j, width: b.y0 - a.y1, allWhite: white(a.x0, a.x1, a.y1, b.y0) });
        }
      }
    }
    for (const row of cells) for (const c of row) c.pixels = Object.fromEntries([...c.pixels].map(([k, n]) => [hex(k), n]));
    return { width: W, height: H, rows, cols, cells, gapsRight, gapsDown, cellAtOk };
  };

  /** The cell rectangles of a renderSVG string: the rects after the background, row-major. */
  window.svgCells = (svg, rows, cols) => {
    const rects = [...svg.matchAll(/<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"[^>]*fill="(#[0-9a-f]{6})"/g)]
      .map((m) => ({ x0: +m[1], y0: +m[2], x1: +m[1] + +m[3], y1: +m[2] + +m[4], fill: m[5] }));
    const cells = rects.slice(1, 1 + rows * cols);
    return Array.from({ length: rows }, (_, i) => cells.slice(i * cols, (i + 1) * cols));
  };
}

/** A blank page with the module as `av`, the core's module (www/core.js: its `Viz`, a figure) as `core` and the helpers above. */
async function drawingPage() {
  const p = await site.page('tests/fixtures/blank.html', { viewport: { width: 1400, height: 1000 } });
  await p.evaluate(async () => {
    window.av = await import('/www/attention-viz.js');
    await window.av.ready;
    window.core = await import('/www/core.js');
  });
  await p.evaluate(pageHelpers);
  return p;
}

before(async () => {
  site = await open();
  page = await drawingPage();
});
after(async () => {
  // Whatever order the tests ran in, the shared page's console is checked once they are done (the test "no errors
  // reached the console" below checks its own page, so it means the same run alone).
  const errors = page ? [...page.errors] : [];
  await site.close();
  assert.deepEqual(errors, [], 'console errors / uncaught page errors on the shared page');
});

const rgb = (h) => [1, 3, 5].map((o) => parseInt(h.slice(o, o + 2), 16));
const near = (got, want, tol = 2) => rgb(got).every((v, k) => Math.abs(v - rgb(want)[k]) <= tol);
const assertColor = (got, want, what) => assert.ok(near(got, want), `${what}: got ${got}, want ${want} (±2 per channel)`);

async function measureView(preset, view, dpr) {
  return page.evaluate(([preset, view, dpr]) => {
    const { viz, canvas } = draw(av.presets[preset], view, dpr);
    const m = measure(viz, view, canvas, dpr);
    for (const row of m.cells) for (const c of row) delete c.pixels;
    canvas.remove();
    return m;
  }, [preset, view, dpr]);
}

for (const dpr of [1, 2]) {
  for (const [preset, view, name] of GOLDEN_VIEWS) {
    test(`${preset} ${view} at dpr ${dpr}: seaborn colours in every cell, ${dpr} px white gaps`, async () => {
      const g = goldens[name];
      const m = await measureView(preset, view, dpr);
      assert.equal(m.rows, g.facecolors.length, 'rows found by cellAt');
      assert.equal(m.cols, g.facecolors[0].length, 'columns found by cellAt');
      assert.ok(m.cellAtOk, 'cellAt at each drawn cell centre names that cell');
      for (let i = 0; i < m.rows; i++) {
        for (let j = 0; j < m.cols; j++) {
          const c = m.cells[i][j];
          assertColor(c.color, g.facecolors[i][j], `cell (${i}, ${j}) at (${c.mx}, ${c.qy})`);
          assertColor(c.mode, g.facecolors[i][j], `most common colour of cell (${i}, ${j})`);
          // Cells are big (≈ 30 CSS px tall) at the preferred size.
          assert.ok(c.y1 - c.y0 >= 20 * dpr && c.x1 - c.x0 >= 20 * dpr, `cell (${i}, ${j}) is ${c.x1 - c.x0}×${c.y1 - c.y0}`);
        }
      }
      // Cells line up in rows and columns.
      for (let i = 0; i < m.rows; i++) for (let j = 1; j < m.cols; j++) {
        assert.equal(m.cells[i][j].y0, m.cells[i][0].y0);
        assert.equal(m.cells[i][j].y1, m.cells[i][0].y1);
      }
      for (let j = 0; j < m.cols; j++) for (let i = 1; i < m.rows; i++) {
        assert.equal(m.cells[i][j].x0, m.cells[0][j].x0);
        assert.equal(m.cells[i][j].x1, m.cells[0][j].x1);
      }
      assert.equal(m.gapsRight.length, m.rows * (m.cols - 1));
      assert.equal(m.gapsDown.length, (m.rows - 1) * m.cols);
      for (const gap of [...m.gapsRight, ...m.gapsDown]) {
        assert.equal(gap.width, dpr, `gap after cell (${gap.i}, ${gap.j}) is ${gap.width} px`);
        assert.ok(gap.allWhite, `gap after cell (${gap.i}, ${gap.j}) is not all white`);
      }
    });
  }
}

const BIG = 'embeddings: new RandomState(0).rand(64, 8), 64 tokens, no projections';

test(`large grid (${BIG}; scores 64×64 = 4096 cells, pixel-buffer path) equals the SVG path cell for cell`, async () => {
  const r = await page.evaluate(() => {
    const config = { embeddings: new av.RandomState(0).rand(64, 8) };
    const { viz, canvas } = draw(config, 'scores', 1);
    const m = measure(viz, 'scores', canvas, 1);
    const svg = av.renderSVG(config, 'scores');
    const s = svgCells(svg, 64, 64);
    const mismatches = [];
    const colours = new Set();
    for (let i = 0; i < m.rows; i++) for (let j = 0; j < m.cols; j++) {
      const c = m.cells[i][j], e = s[i]?.[j];
      colours.add(c.color);
      const keys = Object.keys(c.pixels);
      if (!e || c.color !== e.fill || keys.length !== 1 || c.x0 !== e.x0 || c.x1 !== e.x1 || c.y0 !== e.y0 || c.y1 !== e.y1) {
        mismatches.push({ i, j, canvas: { ...c, pixels: keys }, svg: e });
      }
    }
    canvas.remove();
    return {
      rows: m.rows, cols: m.cols, size: [m.width, m.height], distinct: colours.size, white: colours.has('#ffffff'),
      gaps: [...m.gapsRight, ...m.gapsDown].filter((g) => g.width !== 1 || !g.allWhite).slice(0, 5),
      gapCount: m.gapsRight.length + m.gapsDown.length, cellAtOk: m.cellAtOk,
      mismatches: mismatches.slice(0, 5), mismatchCount: mismatches.length, svgStart: svg.slice(0, 4),
    };
  });
  assert.equal(r.svgStart, '<svg');
  assert.deepEqual([r.rows, r.cols], [64, 64]);
  assert.ok(r.cellAtOk, 'cellAt at each drawn cell centre names that cell');
  assert.ok(!r.white, 'no cell is white');
  assert.ok(r.distinct >= 100, `only ${r.distinct} distinct cell colours in 4096 random scores`);
  assert.equal(r.mismatchCount, 0, `canvas cells differ from SVG rects, e.g. ${JSON.stringify(r.mismatches)}`);
  assert.equal(r.gapCount, 2 * 64 * 63);
  assert.deepEqual(r.gaps, [], 'every gap between neighbouring cells is 1 white px');
});

test(`large grid at dpr 2 (${BIG}): uniform cells, 2 px white gaps, same colours as at dpr 1`, async () => {
  const r = await page.evaluate(() => {
    const config = { embeddings: new av.RandomState(0).rand(64, 8) };
    const svg = svgCells(av.renderSVG(config, 'scores'), 64, 64);
    const { viz, canvas } = draw(config, 'scores', 2);
    const m = measure(viz, 'scores', canvas, 2);
    canvas.remove();
    const bad = [];
    for (let i = 0; i < 64; i++) for (let j = 0; j < 64; j++) {
      const c = m.cells[i][j];
      if (c.color !== svg[i][j].fill || Object.keys(c.pixels).length !== 1 || c.x1 - c.x0 < 16) bad.push({ i, j, c: { ...c, pixels: Object.keys(c.pixels) } });
    }
    return {
      rows: m.rows, cols: m.cols, size: [m.width, m.height], pref: viz.ask({ kind: 'preferredSize', view: 'scores' }), bad: bad.slice(0, 5), badCount: bad.length,
      gaps: [...m.gapsRight, ...m.gapsDown].filter((g) => g.width !== 2 || !g.allWhite).slice(0, 5),
    };
  });
  assert.deepEqual(r.size, r.pref.map((x) => 2 * x), 'device size is twice the CSS size');
  assert.deepEqual([r.rows, r.cols], [64, 64]);
  assert.equal(r.badCount, 0, JSON.stringify(r.bad));
  assert.deepEqual(r.gaps, []);
});

test('renderSVG(seed-003, decoder_state): <svg> with seaborn fills and the annotations 5, 1, 20', async () => {
  const svg = await page.evaluate(() => av.renderSVG(av.presets['seed-003'], 'decoder_state'));
  assert.ok(svg.startsWith('<svg'), svg.slice(0, 40));
  assert.ok(svg.trimEnd().endsWith('</svg>'));
  const fills = [...svg.matchAll(/<rect [^>]*fill="(#[0-9a-f]{6})"/g)].map((m) => m[1]);
  // Background first, then the cells in order.
  assert.deepEqual(fills.slice(1, 4), ['#dbbedb', '#f3f0f3', '#800080']);
  const texts = [...svg.matchAll(/<text [^>]*>\s*([^<]*?)\s*<\/text>/g)].map((m) => m[1]);
  assert.deepEqual(texts.slice(0, 3), ['5', '1', '20']);
  assert.ok(texts.includes('decoder state'), 'title');
  // seaborn's text colours: dark on light cells, white on the dark one.
  const textFills = [...svg.matchAll(/<text [^>]*fill="(#[0-9a-f]{6})"/g)].map((m) => m[1]);
  assert.deepEqual(textFills.slice(0, 3), ['#262626', '#262626', '#ffffff']);
});

test('renderSVG: an unknown view throws an Error listing the views; a malformed config throws', async () => {
  const r = await page.evaluate(() => {
    const attempt = (f) => { try { f(); return null; } catch (e) { return { error: e instanceof Error, message: e.message }; } };
    return {
      cross: attempt(() => av.renderSVG(av.presets['seed-003'], 'nope')),
      self: attempt(() => av.renderSVG(av.presets['seed-001'], 'decoder_state')),
      ragged: attempt(() => av.renderSVG({ embeddings: [[1, 2], [3]] }, 'scores')),
      nan: attempt(() => av.renderSVG({ embeddings: [[1, NaN]] }, 'scores')),
      notObject: attempt(() => av.renderSVG('not json', 'scores')),
      after: av.renderSVG(av.presets['seed-000'], 'weights').slice(0, 4),
    };
  });
  assert.ok(r.cross?.error, JSON.stringify(r.cross));
  for (const v of ['decoder_state', 'annotations', 'scores', 'scaled', 'weights', 'naive_weights', 'applied', 'context']) {
    assert.ok(r.cross.message.includes(v), `message lists ${v}: ${r.cross.message}`);
  }
  assert.ok(r.cross.message.includes('nope'));
  assert.ok(r.self?.error && r.self.message.includes('embeddings') && r.self.message.includes('weights'), JSON.stringify(r.self));
  assert.ok(r.ragged?.error && r.ragged.message.includes('embeddings row 1'), JSON.stringify(r.ragged));
  assert.ok(r.nan?.error && r.nan.message.includes('NaN'), JSON.stringify(r.nan));
  assert.ok(r.notObject?.error, JSON.stringify(r.notObject));
  assert.equal(r.after, '<svg', 'renderSVG still works after errors');
});

test('NaN never crashes: seed-003 naive_weights renders, NaN cells grey, finite cells coloured', async () => {
  for (const dpr of [1, 2]) {
    const r = await page.evaluate((dpr) => {
      const config = av.presets['seed-003'];
      const nan = av.compute(config).naive_weights.map((v) => Number.isNaN(v));
      const { viz, canvas } = draw(config, 'naive_weights', dpr);
      const m = measure(viz, 'naive_weights', canvas, dpr, { walk: false });
      canvas.remove();
      const svg = av.renderSVG(config, 'naive_weights');
      return { nan, rows: m.rows, cols: m.cols, modes: m.cells[0].map((c) => c.mode), svgFills: svgCells(svg, 1, 4)[0].map((c) => c.fill) };
    }, dpr);
    assert.deepEqual(r.nan, [true, false, false, true], 'exp(927) and exp(929) overflow in the naive softmax');
    assert.deepEqual([r.rows, r.cols], [1, 4]);
    r.nan.forEach((isNan, j) => {
      if (isNan) assertColor(r.modes[j], '#d0d0d0', `dpr ${dpr}: NaN cell ${j}`);
      else assert.ok(!near(r.modes[j], '#d0d0d0', 8) && r.modes[j] !== '#ffffff', `dpr ${dpr}: finite cell ${j} is ${r.modes[j]}`);
    });
    assert.deepEqual(r.svgFills.filter((_, j) => r.nan[j]), ['#d0d0d0', '#d0d0d0']);
  }
});

test('NaN in a large grid (pixel-buffer path): grey cells with the darker hatch', async () => {
  const r = await page.evaluate(() => {
    // Scores up to 8·20² = 3200: exp() overflows, naive softmax rows become NaN / 0.
    const embeddings = new av.RandomState(1).rand(48, 8).map((row) => row.map((v) => 20 * v));
    const config = { embeddings };
    const values = av.compute(config).naive_weights;
    const { viz, canvas } = draw(config, 'naive_weights', 1);
    const m = measure(viz, 'naive_weights', canvas, 1, { walk: false });
    canvas.remove();
    let nanCells = 0, wrong = [];
    for (let i = 0; i < 48; i++) for (let j = 0; j < 48; j++) {
      if (!Number.isNaN(values[i][j])) continue;
      nanCells++;
      const px = m.cells[i][j].pixels;
      if (m.cells[i][j].mode !== '#d0d0d0' || !px['#9a9a9a']) wrong.push({ i, j, px });
    }
    return { rows: m.rows, cols: m.cols, nanCells, wrong: wrong.slice(0, 3), wrongCount: wrong.length };
  });
  assert.deepEqual([r.rows, r.cols], [48, 48]);
  assert.ok(r.nanCells > 100, `only ${r.nanCells} NaN cells`);
  assert.equal(r.wrongCount, 0, JSON.stringify(r.wrong));
});

test('cellAt names the cell that is drawn under every pixel, boundaries included', async () => {
  // Layout::cell puts column j at x0 + floor(W·j / cols); cellAt maps a point back with
  // floor((x − x0)·cols / W), so the first pixel column of a cell can be named after its left neighbour.
  const r = await page.evaluate(() => {
    const { viz, canvas } = draw(av.presets['seed-003'], 'naive_weights', 1);
    const m = measure(viz, 'naive_weights', canvas, 1);
    canvas.remove();
    // The cell found drawn at row i, column j (from the pixels) must be named [i, j] at its first pixel column, not
    // only named as cellAt names its middle (which a cellAt giving the same answer everywhere would pass).
    const wrong = [];
    m.cells.forEach((row, i) => row.forEach((c, j) => {
      const got = viz.ask({ kind: 'cellAt', view: 'naive_weights', width: m.width, height: m.height, dpr: 1, x: c.x0 + 0.5, y: c.qy + 0.5 });
      if (String(got) !== String([i, j])) wrong.push({ x: c.x0, got: Array.from(got ?? []), want: [i, j] });
    }));
    return { wrong, rows: m.rows, cols: m.cols };
  });
  assert.deepEqual([r.rows, r.cols], [1, 4], 'seed-003\'s naive weights (one decoder state, four annotations) found drawn');
  assert.deepEqual(r.wrong, []);
});

test('no errors reached the console: drawing every golden view, a large grid, NaN and refused SVGs on a page of its own', async () => {
  // Its own page and its own actions (what the tests above do that may reach the console), so it says the same
  // whichever tests ran before it, or none.
  const own = await drawingPage();
  const refused = await own.evaluate((views) => {
    for (const dpr of [1, 2]) {
      for (const [preset, view] of views) { const { canvas } = draw(av.presets[preset], view, dpr); canvas.remove(); }
      draw(av.presets['seed-003'], 'naive_weights', dpr).canvas.remove();
      draw({ embeddings: new av.RandomState(0).rand(64, 8) }, 'scores', dpr).canvas.remove();
    }
    let n = 0;
    for (const [config, view] of [[av.presets['seed-003'], 'nope'], [{ embeddings: [[1, 2], [3]] }, 'scores'], ['not json', 'scores']]) {
      try { av.renderSVG(config, view); } catch { n++; } // refused with an Error, which says it: nothing for the console
    }
    return n;
  }, GOLDEN_VIEWS);
  assert.equal(refused, 3, 'the bad renderSVG calls were refused');
  await done(own);
});
