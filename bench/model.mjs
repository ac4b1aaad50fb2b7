// Benchmark suite "model": a model's attention (mechanism "weights") in the <attention-viz> element.
//
// Rows: loading a stack (el.config = … to the first drawn figure), the layer × head grid raster
// (Viz.modelGrid alone), and picking a head (a click's path: selectHead through _apply, every repaint,
// `change`) to the end of its handler and to the next frame. Stacks are random rows that sum to 1,
// drawn with np.random.seed(0) + rand(n) per row, so they are the same in every run. Informative rows (no
// target in the issue beyond "drawn fast at n = 512"); `make bench` reports them, no test asserts them.

import { benchPage, median, percentile } from './heatmap.mjs';

export const description = 'a model\'s attention: load, grid raster and head picking at n = 64 (12 × 12) and n = 512 (1 × 12)';

export const columns = [['to next frame ms', 'frame_median_ms'], ['load ms', 'load_ms'], ['grid ms', 'grid_ms']];

function pageBench() {
  const frame = () => new Promise((ok) => requestAnimationFrame(() => ok()));
  window.benchModel = async ({ layers, heads, n, samples }) => {
    const rs = new av.RandomState(0);
    const attention = [];
    for (let l = 0; l < layers; l++) {
      const layer = [];
      for (let h = 0; h < heads; h++) {
        // Row by row: one RandomState call draws at most 131 072 values.
        layer.push(Array.from({ length: n }, () => { const row = rs.rand(n); const s = row.reduce((a, b) => a + b, 0); return row.map((x) => x / s); }));
      }
      attention.push(layer);
    }
    document.querySelectorAll('attention-viz').forEach((e) => e.remove());
    const el = document.createElement('attention-viz');
    document.body.append(el);
    const t0 = performance.now();
    el.config = { attention };
    await new Promise((ok) => { const wait = () => (el.trace !== null && el._viz?.modelShape() ? ok() : requestAnimationFrame(wait)); wait(); });
    const load = performance.now() - t0;
    await frame();
    const grid = [];
    for (let k = 0; k < 5; k++) {
      const t = performance.now();
      el._viz.modelGrid(46, 4, false);
      grid.push(performance.now() - t);
    }
    const handler = [], nextFrame = [];
    for (let k = 0; k < samples; k++) {
      await frame();
      const [l, h] = [k % layers, (k * 5) % heads];
      const t = performance.now();
      el._apply(() => el._viz.selectHead(l, h));
      const t1 = performance.now();
      await frame();
      handler.push(t1 - t);
      nextFrame.push(performance.now() - t);
    }
    return { load, grid, handler, nextFrame };
  };
}

const CASES = [
  { what: '12 layers × 12 heads, n = 64', layers: 12, heads: 12, n: 64 },
  { what: '1 layer × 12 heads, n = 512', layers: 1, heads: 12, n: 512 },
];

export async function run({ site, samples = 30, log = () => {} }) {
  const page = await benchPage(site, pageBench);
  await page.setViewportSize({ width: 1280, height: 3000 });
  const rows = [];
  for (const c of CASES) {
    log(`  ${c.what} …`);
    const r = await page.evaluate((args) => window.benchModel(args), { ...c, samples: Math.min(samples, 20) });
    rows.push({
      what: `pick a head: ${c.what}`,
      median_ms: median(r.handler),
      p90_ms: percentile(r.handler, 90),
      target_ms: null,
      ok: null,
      frame_median_ms: median(r.nextFrame),
      load_ms: r.load,
      grid_ms: median(r.grid),
      samples: r.handler.length,
    });
  }
  if (page.errors.length) throw new Error(`the page logged errors: ${page.errors.join('; ')}`);
  await page.close();
  return rows;
}
