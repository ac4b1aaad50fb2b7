// Benchmark suite "learn": training the tiny transformers of src/learn in WASM (headless Chromium) against
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
//     100 % held-out accuracy (onProgress every 5 steps; target under 10 s), and to the end of its 1,000
//     steps (every 25, the default), with the longest main-thread task seen meanwhile (PerformanceObserver 'longtask');
//   - the guided page's chapter 9: "Train from scratch" clicked for each model, its figures redrawn as it trains: the
//     whole training as steps per second (what README's training-speed sentence quotes, with the machine's cores and
//     load in the notes), the longest main-thread task until training ends and how many went over 50 ms, and the time
//     of one redraw;
//   - the target "training never blocks the page" (row 6 of the closing summary): the longest main-thread task and
//     the count of tasks over 50 ms while each model trains in chapter 9 and while train() trains reversal, on the
//     machine as it is and again with a CPU-heavy process beside the page (`python3 -c "while True: pass"`, spawned by
//     the suite and killed after); each beside its anchor, the same page's longest task with no training running,
//     watched for as long as the training took, under the same condition (target: ≤ 50 ms in both).
//   BENCH_ONLY=<sections> (comma-separated: numpy, steps, train, chapter, hog) runs only those; `hog` is the rows with
//   the busy process (chapter and train); the default is all of them.
import { execFile, spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { percentile } from './heatmap.mjs';

export const description = 'training the tiny transformers (src/learn) in WASM vs NumPy, and train() in the page';

export const columns = [
  ['steps/s', 'steps_per_s'],
  ['numpy ms', 'numpy_ms'],
  ['wasm/numpy', 'ratio'],
  ['longest main-thread task ms', 'longest_task_ms'],
  ['tasks > 50 ms', 'long_tasks'],
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
    trainer.call({ kind: 'step', n: 10 });
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
  return { ms, perfect, longest: Math.max(0, ...longTasks), long: longTasks.length, same: JSON.stringify(model) === JSON.stringify(window.A.models.reversal) };
}

/**
 * In the page: the anchor of row 6, the main-thread tasks over 50 ms of this page with nothing training, watched for
 * `ms` (as long as the training beside it took): what the page and the machine cost without training.
 */
async function idleTasks(ms) {
  const longTasks = [];
  const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push(e.duration); });
  observer.observe({ type: 'longtask' });
  await new Promise((r) => setTimeout(r, ms));
  await new Promise((r) => setTimeout(r, 100)); // a long task's entry is queued after it ends
  observer.disconnect();
  return { ms, longest: Math.max(0, ...longTasks), long: longTasks.length };
}

const stats = (xs) => ({ median_ms: percentile(xs, 50), p90_ms: percentile(xs, 90) });

/**
 * A CPU-heavy process beside the page (one core kept busy, as another program on a learner's laptop would): started
 * now, `stop()` kills it. Its pid is the only one this suite ends.
 */
function hog() {
  const child = spawn(process.env.PYTHON || 'python3', ['-c', 'while True: pass'], { stdio: 'ignore' });
  child.on('error', () => {});
  return { stop: () => { if (child.exitCode === null) child.kill('SIGKILL'); } };
}

/** Runs `fn` with the busy process beside it when `busy`; the process is killed whatever happens. */
async function beside(busy, fn) {
  const h = busy ? hog() : null;
  try {
    if (h) await new Promise((r) => setTimeout(r, 500)); // let it take its core
    return await fn();
  } finally {
    h?.stop();
  }
}

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
  // A redraw may be steps (an iterator, learned-train.js runs each in a task of its own): each step timed, and the
  // whole redraw as the sum of its steps.
  const redraws = [];
  const steps = [];
  const onModel = panel.onModel;
  panel.onModel = (...args) => {
    let t = performance.now();
    const out = onModel(...args);
    let total = performance.now() - t;
    steps.push(total);
    if (typeof out?.next !== 'function') { redraws.push(total); return out; }
    return {
      next: () => {
        t = performance.now();
        const r = out.next();
        const ms = performance.now() - t;
        steps.push(ms);
        total += ms;
        if (r.done) redraws.push(total);
        return r;
      },
    };
  };
  const started = performance.now();
  console.timeStamp('av-train'); // the traced run's window (traceTasks)
  window.benchChapter = new Promise((resolve) => {
    const finish = panel.finish.bind(panel);
    panel.finish = (job, model) => {
      const ms = performance.now() - started;
      console.timeStamp('av-train-end');
      // The long tasks up to the end of training (the redraw of the trained model after it is not "while it trains").
      const during = [...longTasks];
      finish(job, model);
      panel.onModel = onModel;
      panel.finish = finish;
      // The task that shows the trained model, for the notes: the first long task after the end, if any.
      setTimeout(() => {
        observer.disconnect();
        resolve({ ms, longest: Math.max(0, ...during), long: during.length, after: Math.max(0, ...longTasks.slice(during.length)), redraws, redrawSteps: steps, accuracy: panel.latest?.accuracy ?? null, steps: panel.steps });
      }, 300);
    };
  });
}

/** One "Train from scratch" of `which` in `chapter`, clicked with the mouse, to its end. */
async function chapterTraining(chapter, which) {
  await chapter.evaluate(watchChapterTraining, which);
  const button = chapter.locator(`#${which}-train [data-action="train"]`);
  await button.scrollIntoViewIfNeeded();
  await button.click();
  return chapter.evaluate(() => window.benchChapter);
}

const msText = (x) => (x ? `${x.toFixed(0)} ms` : 'none over 50 ms');
const taskText = (r) => `${msText(r.longest)} (${r.long} task${r.long === 1 ? '' : 's'} > 50 ms)`;

/**
 * The target "training never blocks the page" (row 6) as run.mjs prints it: the longest task while training beside
 * the same page's with none.
 */
function target(what, busy, runs, anchors) {
  const longest = Math.max(...runs.map((r) => r.longest));
  const long = runs.reduce((n, r) => n + r.long, 0);
  const anchorLongest = Math.max(...anchors.map((a) => a.longest));
  const anchorLong = anchors.reduce((n, a) => n + a.long, 0);
  const secs = anchors.reduce((n, a) => n + a.ms, 0) / 1000;
  return {
    row: 6, what: `${what}${busy ? ', beside a busy process' : ''}: longest main-thread task`,
    measured: `${taskText({ longest, long })} in ${runs.length} run${runs.length === 1 ? '' : 's'}`, target: '≤ 50 ms', ok: longest <= 50,
    anchor: `no training: ${taskText({ longest: anchorLongest, long: anchorLong })} in ${secs.toFixed(1)} s`,
  };
}

const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'toplevel', 'v8.execute'];

/**
 * The renderer main thread's tasks in a Chromium trace between the page's "av-train" and "av-train-end" marks: each
 * top-level task's wall time and CPU time (thread clock: what the page itself spent, whatever else the machine ran),
 * what started it, and how much of its CPU was layout, style and paint. On a loaded machine a task's wall time is its
 * CPU time stretched by waiting for a core; the CPU time says what the page asks of the thread.
 */
export function traceTasks(events) {
  const threads = new Map();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args.name);
  const marks = events.filter((e) => e.name === 'TimeStamp' && /^av-train(-end)?$/.test(e.args?.data?.message ?? '')).sort((a, b) => a.ts - b.ts);
  const from = marks.find((e) => e.args.data.message === 'av-train');
  const to = marks.find((e) => e.args.data.message === 'av-train-end');
  if (!from || !to) return null;
  const main = events.filter((e) => e.ph === 'X' && e.dur && e.pid === from.pid && threads.get(`${e.pid}:${e.tid}`) === 'CrRendererMain'
    && e.ts >= from.ts && e.ts < to.ts).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  // The task that ends training (its report, which shows the trained model) is not "while it trains".
  const last = main.filter((e) => e.ts + e.dur > to.ts).reduce((a, e) => Math.min(a, e.ts), Infinity);
  const tasks = [];
  let end = -1;
  for (const e of main) {
    if (e.ts >= last) break;
    if (e.ts >= end) { tasks.push({ e, inside: [] }); end = e.ts + e.dur; } else tasks.at(-1).inside.push(e);
  }
  const part = (inside, re) => {
    // The outermost matching events only (nested ones are inside them).
    let sum = 0, until = -1;
    for (const e of inside) if (re.test(e.name) && e.ts >= until) { sum += e.tdur ?? 0; until = e.ts + e.dur; }
    return sum / 1000;
  };
  const describe = ({ e, inside }) => {
    const first = inside.find((x) => /^(FunctionCall|TimerFire|FireAnimationFrame|HandlePostMessage|EventDispatch|WebFrameWidgetImpl::UpdateLifecycle|ParseHTML|EvaluateScript)$/.test(x.name));
    const d = first?.args?.data ?? {};
    const where = d.url ? ` ${d.url.split('/').pop()}:${d.lineNumber}` : d.type ? ` ${d.type}` : '';
    return {
      wall_ms: e.dur / 1000, cpu_ms: (e.tdur ?? 0) / 1000, what: first ? `${first.name}${where}` : e.name,
      layout_ms: part(inside, /^Layout$/), style_ms: part(inside, /^UpdateLayoutTree$/), paint_ms: part(inside, /^(Paint|PrePaint)$/),
    };
  };
  const all = tasks.map(describe);
  const byCpu = [...all].sort((a, b) => b.cpu_ms - a.cpu_ms);
  return {
    tasks: all.length, seconds: (to.ts - from.ts) / 1e6,
    longest_wall_ms: Math.max(0, ...all.map((t) => t.wall_ms)), longest_cpu_ms: byCpu[0]?.cpu_ms ?? 0,
    over_50_wall: all.filter((t) => t.wall_ms > 50).length, over_50_cpu: all.filter((t) => t.cpu_ms > 50).length,
    over_16_cpu: all.filter((t) => t.cpu_ms > 16).length, top: byCpu.slice(0, 3),
  };
}

const taskLine = (t) => `${t.cpu_ms.toFixed(1)} ms CPU (${t.wall_ms.toFixed(0)} ms wall; layout ${t.layout_ms.toFixed(1)}, style ${t.style_ms.toFixed(1)}, paint ${t.paint_ms.toFixed(1)}): ${t.what}`;

export async function run({ site, samples, warmup, log }) {
  const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((x) => x.trim()) : null;
  const want = (section) => !only || only.includes(section);
  const conditions = want('hog') ? [false, true] : [false];
  // `hog` alone: both sections that have it, in both conditions.
  const sections = only?.length === 1 && only[0] === 'hog' ? ['train', 'chapter'] : ['train', 'chapter'].filter(want);
  const page = await site.page(null);
  const notes = [`load average at the start ${loadavg().map((x) => x.toFixed(1)).join(' / ')} (1, 5, 15 min)`];
  const rows = [];
  const targets = [];
  try {
    await page.route(`${site.url}__bench.html`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>learn</title><link rel="icon" href="data:,">' }));
    await page.goto(`${site.url}__bench.html`);
    await page.evaluate(async () => { window.A = await import('/www/attention-viz.js'); await window.A.ready; await window.A.loadModels(); });

    let np = null;
    if (want('numpy')) {
      log('learn: NumPy…');
      try {
        np = await numpy();
        notes.push(`NumPy ${np.numpy} (Python ${np.python}): ${np.steps} steps in ${np.runs.map((r) => (r.seconds * 1000).toFixed(0)).join(' / ')} ms; `
          + `100 % held-out at step ${np.runs[0].first_perfect_step}; final weights within ${np.max_abs_diff_from_shipped?.toExponential(1)} of models/reversal.json`);
      } catch (e) {
        notes.push(`NumPy side not run: ${e.message}`);
      }
    }

    if (want('steps')) {
      log('learn: WASM steps…');
      const rev = await page.evaluate(stepTimes, { task: 'reversal', samples, warmup });
      const ind = await page.evaluate(stepTimes, { task: 'induction', samples: Math.min(samples, 10), warmup: 2 });
      const revStats = stats(rev);
      rows.push({
        what: 'reversal: one training step, WASM (main thread)', ...revStats, target_ms: null, ok: null,
        steps_per_s: 1000 / revStats.median_ms, numpy_ms: np?.ms_per_step_median ?? null,
        ratio: np ? revStats.median_ms / np.ms_per_step_median : null, samples: rev,
      });
      if (np) rows.push({ what: 'reversal: one training step, NumPy', median_ms: np.ms_per_step_median, p90_ms: null, target_ms: null, ok: null, steps_per_s: np.steps_per_s, numpy_ms: np.ms_per_step_median, numpy: np });
      const indStats = stats(ind);
      rows.push({ what: 'induction: one training step, WASM (main thread)', ...indStats, target_ms: null, ok: null, steps_per_s: 1000 / indStats.median_ms, samples: ind });
    }

    if (sections.includes('train')) {
      for (const busy of conditions) {
        const tag = busy ? ', beside a busy process' : '';
        log(`learn: train() in the page${tag}…`);
        const runs = Math.max(1, Math.min(5, Math.round(samples / 6)));
        const toPerfect = [], whole = [], all = [], anchors = [];
        let same = true;
        await beside(busy, async () => {
          for (let i = 0; i < runs; i++) {
            const a = await page.evaluate(trainOnce, 5);
            const b = await page.evaluate(trainOnce, 25);
            toPerfect.push(a.perfect);
            whole.push(b.ms);
            all.push(a, b);
            same &&= a.same && b.same;
            anchors.push(await page.evaluate(idleTasks, Math.round(a.ms + b.ms)));
          }
        });
        const longest = Math.max(...all.map((r) => r.longest));
        const long = all.reduce((n, r) => n + r.long, 0);
        const perfect = stats(toPerfect);
        rows.push({ what: `train({task: "reversal"}): to 100 % held-out (every 5)${tag}`, ...perfect, target_ms: busy ? null : TIME_TO_100_TARGET_MS, ok: busy ? null : perfect.median_ms <= TIME_TO_100_TARGET_MS, longest_task_ms: longest, long_tasks: String(long), samples: toPerfect });
        rows.push({ what: `train({task: "reversal"}): 1,000 steps (every 25)${tag}`, ...stats(whole), target_ms: null, ok: null, steps_per_s: 1e6 / percentile(whole, 50), longest_task_ms: longest, long_tasks: String(long), samples: whole, anchors });
        notes.push(`train()${tag} ran ${runs}× each way; every result ${same ? 'equals' : 'DIFFERS FROM'} models.reversal bit for bit; main-thread tasks while training: ${taskText({ longest, long })}; `
          + `with no training, as long: ${taskText({ longest: Math.max(...anchors.map((a) => a.longest)), long: anchors.reduce((n, a) => n + a.long, 0) })}`);
        targets.push(target('train({task: "reversal"})', busy, all, anchors));
      }
    }

    // The guided page's chapter 9 as a learner meets it: Train from scratch clicked, the figures redrawn as it trains.
    if (sections.includes('chapter')) {
      const chapter = await site.page('index.html#learned');
      try {
        await chapter.waitForFunction(() => window.learnedChapter?.reversal && window.learnedChapter?.induction, null, { timeout: 30000 });
        for (const busy of conditions) {
          const tag = busy ? ', beside a busy process' : '';
          for (const which of ['reversal', 'induction']) {
            log(`learn: chapter 9, ${which}: Train from scratch${tag}…`);
            const results = [], anchors = [];
            await beside(busy, async () => {
              for (let i = 0; i < Math.max(1, Math.min(3, Math.round(samples / 10))); i++) {
                const r = await chapterTraining(chapter, which);
                results.push(r);
                anchors.push(await chapter.evaluate(idleTasks, Math.round(r.ms)));
              }
            });
            const redraws = results.flatMap((r) => r.redraws);
            const whole = results.map((r) => r.ms);
            rows.push({
              what: `chapter 9, ${which}: Train from scratch, ${results[0].steps} steps with the figures following${tag}`, ...stats(whole), target_ms: null, ok: null,
              steps_per_s: results[0].steps / (percentile(whole, 50) / 1000), samples: whole,
            });
            const longestTask = Math.max(...results.map((r) => r.longest));
            const long = results.reduce((n, r) => n + r.long, 0);
            rows.push({
              what: `chapter 9, ${which}: longest main-thread task while training${tag}`, median_ms: longestTask, p90_ms: null, target_ms: 50,
              ok: longestTask <= 50, longest_task_ms: longestTask, long_tasks: String(long), runs: results, anchors,
            });
            rows.push({ what: `chapter 9, ${which}: one redraw of the figures (onModel, all its steps)${tag}`, ...stats(redraws), target_ms: null, ok: null, samples: redraws });
            const steps = results.flatMap((r) => r.redrawSteps);
            rows.push({ what: `chapter 9, ${which}: one step of a redraw (a task of its own)${tag}`, ...stats(steps), target_ms: null, ok: null, longest_task_ms: Math.max(...steps), samples: steps });
            notes.push(`chapter 9, ${which}${tag}: ${results.length} trainings of ${results[0].steps} steps in ${results.map((r) => (r.ms / 1000).toFixed(1)).join(' / ')} s, `
              + `held-out accuracy ${results.map((r) => `${(100 * r.accuracy).toFixed(0)} %`).join(' / ')}, ${redraws.length} redraws; `
              + `main-thread tasks while training: ${taskText({ longest: longestTask, long })}; with no training, as long: `
              + `${taskText({ longest: Math.max(...anchors.map((a) => a.longest)), long: anchors.reduce((n, a) => n + a.long, 0) })}; `
              + `showing the trained model at the end: ${results.map((r) => msText(r.after)).join(' / ')}`);
            targets.push(target(`chapter 9, ${which}`, busy, results, anchors));
          }
          // One more induction training under a Chromium trace: each main-thread task's CPU time beside its wall time.
          log(`learn: chapter 9, induction, traced${tag}…`);
          const traced = await beside(busy, async () => {
            await site.browser.startTracing(chapter, { categories: TRACE_CATEGORIES });
            let raw;
            try {
              await chapterTraining(chapter, 'induction');
            } finally {
              raw = await site.browser.stopTracing();
            }
            if (process.env.BENCH_TRACE) writeFileSync(join(process.env.BENCH_TRACE, `learn-induction${busy ? '-busy' : ''}.json`), raw);
            return traceTasks(JSON.parse(String(raw)).traceEvents);
          });
          if (traced) {
            rows.push({
              what: `chapter 9, induction: longest main-thread task's CPU time (traced)${tag}`, median_ms: traced.longest_cpu_ms, p90_ms: null, target_ms: null, ok: null,
              longest_task_ms: traced.longest_wall_ms, long_tasks: String(traced.over_50_wall), trace: traced,
            });
            notes.push(`chapter 9, induction, traced${tag}: ${traced.tasks} main-thread tasks in ${traced.seconds.toFixed(1)} s; over 50 ms: ${traced.over_50_wall} by wall time, `
              + `${traced.over_50_cpu} by CPU time (${traced.over_16_cpu} over 16 ms of CPU); the longest by CPU:`);
            for (const t of traced.top) notes.push(`  ${taskLine(t)}`);
          }
        }
      } finally {
        await chapter.close();
      }
    }
    notes.push(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), load average ${loadavg().map((x) => x.toFixed(1)).join(' / ')} (1, 5, 15 min) at the end`);
    return { rows, notes, targets };
  } finally {
    await page.close();
  }
}
