// Benchmark suite "learn": training the tiny transformers of issue 14 (src/learn) in WASM (headless Chromium) against
// the same training in NumPy on this machine, and train() in the page as a learner meets it.
//
// Rows:
//   - one training step of `reversal` (batch 32: forward, hand-written backward, Adam) in WASM on the page's main
//     thread — the core's TrainerCore that train()'s worker drives (www/train-worker.js) — each sample 10 steps / 10;
//   - the same step in NumPy (bench/learn_numpy.py: a float64 transcription of the formulas with the same draws; it
//     also reports how far its final weights are from models/reversal.json, ~1e-14), the median of 3 runs of 1,000
//     steps; `wasm/numpy` compares the two;
//   - informative: one step of `induction` (2 layers, d = 32, sequences of 16) in WASM;
//   - train({task: "reversal"}) in the page, a Web Worker training while the page stays responsive: the time to
//     100 % held-out accuracy (onProgress every 5 steps; target under 10 s, issue 14), and to the end of its 1,000
//     steps (every 25, the default), with the longest main-thread task seen meanwhile (PerformanceObserver 'longtask');
//   - the guided page's chapter 9: "Train from scratch" clicked for each model, its figures redrawn as it trains: the
//     whole training as steps per second (what README's training-speed sentence quotes, with the machine's cores and
//     load in the notes), the longest main-thread task until training ends (target ≤ 50 ms, issue 14) and the time of
//     one redraw.
import { execFile } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { percentile } from './heatmap.mjs';

export const description = 'training the tiny transformers (src/learn) in WASM vs NumPy, and train() in the page';

export const columns = [
  ['steps/s', 'steps_per_s'],
  ['numpy ms', 'numpy_ms'],
  ['wasm/numpy', 'ratio'],
  ['longest main-thread task ms', 'longest_task_ms'],
];

const here = dirname(fileURLToPath(import.meta.url));
const TIME_TO_100_TARGET_MS = 10000;

function numpy() {
  return new Promise((ok, fail) => {
    execFile(process.env.PYTHON || 'python3', [join(here, 'learn_numpy.py'), '--repeats', '3'], { maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) fail(new Error(`${err.message.split('\n')[0]} ${String(stderr).trim().split('\n').pop() ?? ''}`));
      else ok(JSON.parse(stdout));
    });
  });
}

/** In the page: per-step ms of `samples` batches of 10 steps of a fresh trainer of `task`, after `warmup` batches. */
async function stepTimes({ task, samples, warmup }) {
  const core = await import('/www/pkg/attention_viz.js'); // the instance attention-viz.js initialised
  const trainer = new core.TrainerCore(task, 0);
  const out = [];
  for (let i = 0; i < warmup + samples; i++) {
    const t = performance.now();
    trainer.step(10);
    const ms = (performance.now() - t) / 10;
    if (i >= warmup) out.push(ms);
  }
  trainer.free();
  return out;
}

/** In the page: one train() of reversal; its time, the time to the first 100 % report, the long tasks meanwhile. */
async function trainOnce(every) {
  const longTasks = [];
  const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push(e.duration); });
  observer.observe({ type: 'longtask' });
  const start = performance.now();
  let perfect = null;
  const model = await window.A.train({ task: 'reversal', every, onProgress: (p) => { if (p.accuracy === 1 && perfect === null) perfect = performance.now() - start; } });
  const ms = performance.now() - start;
  await new Promise((r) => setTimeout(r, 100));
  observer.disconnect();
  return { ms, perfect, longest: Math.max(0, ...longTasks), same: JSON.stringify(model) === JSON.stringify(window.A.models.reversal) };
}

const stats = (xs) => ({ median_ms: percentile(xs, 50), p90_ms: percentile(xs, 90) });

/**
 * In index.html#learned: watches one "Train from scratch" of section `which` (clicked by the bench with the real mouse)
 * to its end: every main-thread task over 50 ms meanwhile (PerformanceObserver 'longtask', from before the click), and
 * how long each redraw of the section's figures took (its panel's onModel, wrapped).
 */
function watchChapterTraining(which) {
  const section = window.learnedChapter[which];
  const panel = section.train;
  const longTasks = [];
  const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push(e.duration); });
  observer.observe({ type: 'longtask' });
  const redraws = [];
  const onModel = panel.onModel;
  panel.onModel = (...args) => { const t = performance.now(); try { return onModel(...args); } finally { redraws.push(performance.now() - t); } };
  const started = performance.now();
  window.benchChapter = new Promise((resolve) => {
    const finish = panel.finish.bind(panel);
    panel.finish = (job, model) => {
      const ms = performance.now() - started;
      // The long tasks up to the end of training (the redraw of the trained model after it is not "while it trains").
      const during = [...longTasks];
      finish(job, model);
      observer.disconnect();
      panel.onModel = onModel;
      panel.finish = finish;
      resolve({ ms, longest: Math.max(0, ...during), long: during.length, redraws, accuracy: panel.latest?.accuracy ?? null, steps: panel.steps });
    };
  });
}

export async function run({ site, samples, warmup, log }) {
  const page = await site.page(null);
  const notes = [];
  try {
    await page.route(`${site.url}__bench.html`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>learn</title><link rel="icon" href="data:,">' }));
    await page.goto(`${site.url}__bench.html`);
    await page.evaluate(async () => { window.A = await import('/www/attention-viz.js'); await window.A.ready; });

    log('learn: NumPy…');
    let np = null;
    try {
      np = await numpy();
      notes.push(`NumPy ${np.numpy} (Python ${np.python}): ${np.steps} steps in ${np.runs.map((r) => (r.seconds * 1000).toFixed(0)).join(' / ')} ms; `
        + `100 % held-out at step ${np.runs[0].first_perfect_step}; final weights within ${np.max_abs_diff_from_shipped?.toExponential(1)} of models/reversal.json`);
    } catch (e) {
      notes.push(`NumPy side not run: ${e.message}`);
    }

    log('learn: WASM steps…');
    const rev = await page.evaluate(stepTimes, { task: 'reversal', samples, warmup });
    const ind = await page.evaluate(stepTimes, { task: 'induction', samples: Math.min(samples, 10), warmup: 2 });
    const revStats = stats(rev);
    const rows = [{
      what: 'reversal: one training step, WASM (main thread)', ...revStats, target_ms: null, ok: null,
      steps_per_s: 1000 / revStats.median_ms, numpy_ms: np?.ms_per_step_median ?? null,
      ratio: np ? revStats.median_ms / np.ms_per_step_median : null, samples: rev,
    }];
    if (np) rows.push({ what: 'reversal: one training step, NumPy', median_ms: np.ms_per_step_median, p90_ms: null, target_ms: null, ok: null, steps_per_s: np.steps_per_s, numpy_ms: np.ms_per_step_median, numpy: np });
    const indStats = stats(ind);
    rows.push({ what: 'induction: one training step, WASM (main thread)', ...indStats, target_ms: null, ok: null, steps_per_s: 1000 / indStats.median_ms, samples: ind });

    log('learn: train() in the page…');
    const runs = Math.max(1, Math.min(5, Math.round(samples / 6)));
    const toPerfect = [], whole = [];
    let longest = 0, same = true;
    for (let i = 0; i < runs; i++) {
      const a = await page.evaluate(trainOnce, 5);
      const b = await page.evaluate(trainOnce, 25);
      toPerfect.push(a.perfect);
      whole.push(b.ms);
      longest = Math.max(longest, a.longest, b.longest);
      same &&= a.same && b.same;
    }
    const perfect = stats(toPerfect);
    rows.push({ what: 'train({task: "reversal"}): to 100 % held-out (every 5)', ...perfect, target_ms: TIME_TO_100_TARGET_MS, ok: perfect.median_ms <= TIME_TO_100_TARGET_MS, longest_task_ms: longest, samples: toPerfect });
    rows.push({ what: 'train({task: "reversal"}): 1,000 steps (every 25)', ...stats(whole), target_ms: null, ok: null, steps_per_s: 1e6 / percentile(whole, 50), longest_task_ms: longest, samples: whole });
    notes.push(`train() ran ${runs}× each way; every result ${same ? 'equals' : 'DIFFERS FROM'} models.reversal bit for bit; longest main-thread task while training: ${longest ? `${longest.toFixed(0)} ms` : 'none over 50 ms'}`);

    // The guided page's chapter 9 as a learner meets it: Train from scratch clicked, the figures redrawn as it trains.
    log('learn: chapter 9, Train from scratch…');
    const chapter = await site.page('index.html#learned');
    try {
      await chapter.waitForFunction(() => window.learnedChapter?.reversal && window.learnedChapter?.induction, null, { timeout: 30000 });
      for (const which of ['reversal', 'induction']) {
        const results = [];
        for (let i = 0; i < Math.max(1, Math.min(3, Math.round(samples / 10))); i++) {
          await chapter.evaluate(watchChapterTraining, which);
          const button = chapter.locator(`#${which}-train [data-action="train"]`);
          await button.scrollIntoViewIfNeeded();
          await button.click();
          results.push(await chapter.evaluate(() => window.benchChapter));
        }
        const redraws = results.flatMap((r) => r.redraws);
        const whole = results.map((r) => r.ms);
        rows.push({
          what: `chapter 9, ${which}: Train from scratch, ${results[0].steps} steps with the figures following`, ...stats(whole), target_ms: null, ok: null,
          steps_per_s: results[0].steps / (percentile(whole, 50) / 1000), samples: whole,
        });
        const longestTask = Math.max(...results.map((r) => r.longest));
        rows.push({
          what: `chapter 9, ${which}: longest main-thread task while training`, median_ms: longestTask, p90_ms: null, target_ms: 50,
          ok: longestTask <= 50, longest_task_ms: longestTask, runs: results,
        });
        rows.push({ what: `chapter 9, ${which}: one redraw of the figures (onModel)`, ...stats(redraws), target_ms: null, ok: null, samples: redraws });
        notes.push(`chapter 9, ${which}: ${results.length} trainings of ${results[0].steps} steps in ${results.map((r) => (r.ms / 1000).toFixed(1)).join(' / ')} s, `
          + `held-out accuracy ${results.map((r) => `${(100 * r.accuracy).toFixed(0)} %`).join(' / ')}, ${redraws.length} redraws; `
          + `tasks over 50 ms while training: ${results.reduce((n, r) => n + r.long, 0)} (0 = none; the longest task is shown as 0 then)`);
      }
    } finally {
      await chapter.close();
    }
    notes.push(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), load average ${loadavg().map((x) => x.toFixed(1)).join(' / ')} (1, 5, 15 min) at the end`);
    return { rows, notes };
  } finally {
    await page.close();
  }
}
