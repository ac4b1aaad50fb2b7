// Benchmark suite "heatmap": how long one repaint of a heatmap canvas takes in
// headless Chromium, from `Viz.draw` to pixels on the canvas.
//
// A suite module exports `description` and `run(ctx)`; bench/run.mjs finds it
// by file name. `run` returns rows {what, median_ms, p90_ms, target_ms, ...};
// `target_ms: null` marks a row that is only informative.
//
// One repaint = `viz.draw(canvas, {kind: 'heatmap', view, dpr, …})` followed by a 1-pixel
// `getImageData`, which makes Chromium rasterise the 2D commands it would
// otherwise defer to the next frame. `call_median_ms` is the render call alone.

export const description = 'heatmap repaints (Viz.draw on a 2D canvas, flushed with a 1-px getImageData)';

/** Installed in the page: times `samples` repaints of one view after `warmup` untimed ones. */
function pageBench() {
  window.benchRepaint = ({ config, rand, view, css, dpr, warmup, samples }) => {
    if (rand) config = { embeddings: new av.RandomState(rand.seed).rand(rand.n, rand.d) };
    const viz = av._viz(config);
    const [w, h] = css ?? viz.ask({ kind: 'preferredSize', view });
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    canvas.style.width = `${w}px`;
    canvas.style.height = `${h}px`;
    document.body.append(canvas);
    const ctx = canvas.getContext('2d');
    const repaint = () => viz.draw(canvas, { kind: 'heatmap', view, dpr });
    for (let k = 0; k < warmup; k++) {
      repaint();
      ctx.getImageData(0, 0, 1, 1);
    }
    const total = [], call = [];
    for (let k = 0; k < samples; k++) {
      const t0 = performance.now();
      repaint();
      const t1 = performance.now();
      ctx.getImageData(0, 0, 1, 1);
      const t2 = performance.now();
      call.push(t1 - t0);
      total.push(t2 - t0);
    }
    canvas.remove();
    viz.free();
    return { total, call, canvas: { css: [w, h], device: [canvas.width, canvas.height], dpr } };
  };

  /** Times `cellAt` (one hover) at the canvas centre. */
  window.benchCellAt = ({ rand, view, css, dpr, warmup, samples }) => {
    const viz = av._viz({ embeddings: new av.RandomState(rand.seed).rand(rand.n, rand.d) });
    const [W, H] = css.map((v) => Math.round(v * dpr));
    for (let k = 0; k < warmup; k++) viz.ask({ kind: 'cellAt', view, width: W, height: H, dpr, x: W / 2, y: H / 2 });
    const total = [];
    for (let k = 0; k < samples; k++) {
      const t0 = performance.now();
      viz.ask({ kind: 'cellAt', view, width: W, height: H, dpr, x: W / 2 + k, y: H / 2 });
      total.push(performance.now() - t0);
    }
    viz.free();
    return { total, call: total, canvas: { css, device: [W, H], dpr } };
  };
}

export const CASES = [
  { what: '4×4 annotated (seed-001 weights), dpr 1', fn: 'benchRepaint', target: 2, args: { preset: 'seed-001', view: 'weights', dpr: 1 } },
  { what: '4×4 annotated (seed-001 weights), dpr 2', fn: 'benchRepaint', target: 2, args: { preset: 'seed-001', view: 'weights', dpr: 2 } },
  { what: '256×256 scores, 600×600 canvas, dpr 1', fn: 'benchRepaint', target: 8, args: { rand: { seed: 0, n: 256, d: 8 }, view: 'scores', css: [600, 600], dpr: 1 } },
  { what: '1024×1024 scores, 1024×1024 canvas, dpr 1', fn: 'benchRepaint', target: 40, args: { rand: { seed: 0, n: 1024, d: 8 }, view: 'scores', css: [1024, 1024], dpr: 1 } },
  { what: 'cellAt (one hover), 256×256 scores', fn: 'benchCellAt', target: null, args: { rand: { seed: 0, n: 256, d: 8 }, view: 'scores', css: [600, 600], dpr: 1 } },
  { what: 'cellAt (one hover), 1024×1024 scores', fn: 'benchCellAt', target: null, args: { rand: { seed: 0, n: 1024, d: 8 }, view: 'scores', css: [1024, 1024], dpr: 1 } },
];

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Nearest-rank percentile. */
export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** A blank page with the module loaded as `window.av` and a suite's in-page code installed. */
export async function benchPage(site, install) {
  const page = await site.page('tests/fixtures/blank.html', { viewport: { width: 1280, height: 1100 } });
  await page.evaluate(async () => {
    window.av = await import('/www/attention-viz.js');
    await window.av.ready;
  });
  await page.evaluate(install);
  return page;
}

/** Runs every case in one fresh page; `ctx` is {site, samples, warmup, log}. */
export async function run({ site, samples = 30, warmup = 5, log = () => {} }) {
  const page = await benchPage(site, pageBench);
  const rows = [];
  for (const c of CASES) {
    log(`  ${c.what} …`);
    const { preset, ...args } = c.args;
    const r = await page.evaluate(
      ([fn, args, preset]) => window[fn]({ ...args, config: preset ? av.presets[preset] : undefined }),
      [c.fn, { ...args, samples, warmup }, preset],
    );
    const med = median(r.total);
    rows.push({
      what: c.what,
      median_ms: med,
      p90_ms: percentile(r.total, 90),
      target_ms: c.target,
      ok: c.target == null ? null : med <= c.target,
      call_median_ms: median(r.call),
      samples: r.total.length,
      canvas: r.canvas,
      samples_ms: r.total,
    });
  }
  if (page.errors.length) throw new Error(`the page logged errors: ${page.errors.join('; ')}`);
  await page.close();
  return rows;
}
