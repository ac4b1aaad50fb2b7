// Benchmark suite "numpy": the core's attention computation in WASM (headless
// Chromium) against the same computation in NumPy/SciPy on this machine.
//
// Self-attention with projections, n = 4 … 1024 tokens, d_model = d_k = d_v =
// 64, float64. The inputs are drawn once, in Python, with
// `np.random.seed(0); X = randn(n, 64); W_Q = randn(64, 64); W_K = …; W_V = …`
// (bench/numpy_compute.py), and the page computes on exactly those numbers
// (and compared with our RandomState(0), meant to give them bit for bit).
//
// Timed in the page, per n (each sample is a batch of calls lasting ≥ 5 ms,
// divided by its size, since performance.now() is clamped to ~0.1 ms):
//   - `compute(config)`: the public API, from a JS object of nested arrays to
//     the trace of nested arrays. Its fast path: the matrices flattened into
//     one Float64Array (the rest of the config as a small JSON), Rust validate
//     + compute (the core's `call` of a `compute` request), and the trace read into nested arrays straight
//     from WASM memory.
//   - `compute(config, {arrays: "typed"})`: the same, the trace's vectors and
//     matrices as {shape, data: Float64Array}, one slice of WASM memory each
//     (with one head, heads[0]'s share the top-level fields').
//   - the core: `viz.edit({value: ['w_q', 0, 0, x]})` on a Viz built from the config:
//     a full recompute from the config Rust already holds (W_Q/W_K edits always
//     recompute fully; embedding and W_V edits are incremental, src/incremental.rs).
//     No JSON, nothing crosses to JS but the call. It includes a clone of the
//     config and the trace's extra fields (naive weights, the single-query
//     breakdown), so it is an upper bound on the bare computation. The value alternates, so a
//     no-op edit cannot be skipped.
//   - informative: the same edit of `w_v`, which recomputes one column
//     of V and of the context (O(n·d + n²)).
//   - informative: the same edit of `embeddings`, the incremental path
//     the element takes when one embedding is typed (not the same computation).
//   - breakdown (notes): the fast path's pieces (flattening in JS, the
//     core's `compute` request alone, `call flat`); compute()'s JSON path (taken for inputs
//     that are not clean: JSON.stringify, the same request with the whole config as JSON
//     text, `call json`, which keeps the trace in WASM memory as the flat one does, nested
//     arrays) in total and its first two pieces; `new Viz(json)` (parse
//     + compute + softmax state, no output), `normalize` (parse +
//     validate + re-serialise + JSON.parse); public compute() / the core for both forms.
// Where the core's time goes, piece by piece (projections, Q·Kᵀ, softmax and its exp, W·V,
// checks, naive weights): `node scripts/profile_core.mjs` (examples/profile_core.rs in WASM
// under Node's V8). The products run at ~8.3 GMAC/s (f64x2 multiply + add, no FMA: close to
// what 128-bit multiply and add pipes allow on this CPU) and the exponentials at ~6 ns each:
// at n = 256 the products alone take ~1.4 ms and the exponentials ~0.4 ms, against ~1.1 ms
// for all of NumPy's (OpenBLAS, 256-bit FMA) on a quiet machine.
// NumPy is timed by bench/numpy_compute.py with time.perf_counter, one call
// per sample, median of many; once with the default BLAS threads and once
// with OPENBLAS_NUM_THREADS=1 (the WASM core is single-threaded). The ratio
// and the target compare with the faster of the two medians: NumPy at its
// best on this machine. (One thread is often the faster at these sizes, and
// on a busy machine OpenBLAS's threads can wait on each other for 10-100×.)
//
// Memory: a fresh page imports the wasm-bindgen module alone
// (`/www/pkg/attention_viz.js`), whose init() resolves to the instance's
// exports, `memory` among them, and runs that instance's own flat `compute`
// request (the path compute() takes) at n = 1024 (the target); further fresh pages do
// the same with the JSON request and with a `Viz` and edits (informative). Linear
// memory only grows, so its size afterwards is the peak the computation needed.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { percentile } from './heatmap.mjs';

export const description = 'attention compute() in WASM vs NumPy/SciPy, self-attention with projections, d = 64, float64';

export const columns = [
  ['numpy ms', 'numpy_median_ms'],
  ['numpy 1-thread ms', 'numpy1_median_ms'],
  ['wasm/numpy', 'ratio'],
];

const SIZES = [4, 64, 256, 512, 1024];
const D = 64;
const TARGET_N = new Set([256, 512]); // ratio ≤ 1.0 here; informative elsewhere
const MEMORY_N = 1024;
const MEMORY_TARGET_MB = 64;
const here = dirname(fileURLToPath(import.meta.url));

function python(args, env = {}) {
  return new Promise((ok, fail) => {
    execFile(process.env.PYTHON || 'python3', [join(here, 'numpy_compute.py'), ...args],
      { maxBuffer: 256 << 20, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
        if (err) fail(new Error(`${err.message.split('\n')[0]} ${String(stderr).trim().split('\n').pop() ?? ''}`));
        else ok(JSON.parse(stdout));
      });
  });
}

/** Installed in the page. */
function pageBench() {
  /** Per-call ms of `samples` batches of `fn` (each ≥ minBatchMs) after `warmup` batches. */
  const timeit = (fn, { warmup, samples, minBatchMs = 5 }) => {
    let batch = 1;
    for (;;) {
      const t0 = performance.now();
      for (let i = 0; i < batch; i++) fn();
      if (performance.now() - t0 >= minBatchMs || batch >= 1 << 16) break;
      batch *= 2;
    }
    const out = [];
    for (let k = 0; k < warmup + samples; k++) {
      const t0 = performance.now();
      for (let i = 0; i < batch; i++) fn();
      if (k >= warmup) out.push((performance.now() - t0) / batch);
    }
    return { ms: out, batch };
  };
  const med = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

  /** Same replacer as www/attention-viz.js, so JSON.stringify is timed as compute() does it. */
  const replacer = (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);

  window.benchCase = ({ n, d, inputsJson, check, warmup, samples }) => {
    const pkg = window.pkg;
    // The inputs: NumPy's (as JSON), or our RandomState(0) when Python is unavailable.
    const rs = new av.RandomState(0);
    const ours = { embeddings: rs.randn(n, d), w_q: rs.randn(d, d), w_k: rs.randn(d, d), w_v: rs.randn(d, d) };
    const config = inputsJson ? JSON.parse(inputsJson) : ours;
    // Our RandomState(0) must give NumPy's inputs bit for bit: count the values that differ, and by how many ulps.
    const bits = (x) => { const v = new DataView(new ArrayBuffer(8)); v.setFloat64(0, x); return v.getBigInt64(0); };
    let differ = 0, total = 0, maxUlp = 0n;
    for (const key of Object.keys(ours)) {
      ours[key].forEach((row, i) => row.forEach((x, j) => {
        total++;
        const y = config[key][i][j];
        if (!Object.is(x, y)) { differ++; const u = bits(x) - bits(y); if ((u < 0n ? -u : u) > maxUlp) maxUlp = u < 0n ? -u : u; }
      }));
    }
    const randn = { differ, total, max_ulp: Number(maxUlp) };

    const json = JSON.stringify(config, replacer);
    const flat = av._internal.flatConfig(config);
    const pub = timeit(() => av.compute(config), { warmup, samples });
    const typedOptions = { arrays: 'typed' };
    const typed = timeit(() => av.compute(config, typedOptions), { warmup, samples });
    const flatten = timeit(() => av._internal.flatConfig(config), { warmup, samples });
    const request = { kind: 'compute', ...window.core.flatRequest(flat) };
    const computeFlat = timeit(() => pkg.call(request, flat.data), { warmup, samples });
    const viaJson = timeit(() => av._internal.computeViaJson(config), { warmup, samples });
    const stringify = timeit(() => JSON.stringify(config, replacer), { warmup, samples });
    const jsonRequest = { kind: 'compute', config_json: json };
    const computeJsonInMemory = timeit(() => pkg.call(jsonRequest), { warmup, samples });
    const newViz = timeit(() => new pkg.Viz(json).free(), { warmup, samples });
    const normalize = timeit(() => pkg.call({ kind: 'normalize', config_json: json }), { warmup, samples });
    const viz = av._viz(config);
    const w0 = config.w_q[0][0], x0 = config.embeddings[0][0];
    let flip = 0;
    const core = timeit(() => { flip ^= 1; viz.edit({ value: ['w_q', 0, 0, flip ? w0 + 0.5 : w0] }); }, { warmup, samples });
    viz.edit({ value: ['w_q', 0, 0, w0] });
    const fullCore = viz.ask({ kind: 'trace' }).fields.context;
    const incremental = timeit(() => { flip ^= 1; viz.edit({ value: ['embeddings', 0, 0, flip ? x0 + 0.5 : x0] }); }, { warmup, samples });
    viz.edit({ value: ['embeddings', 0, 0, x0] });
    const incCore = viz.ask({ kind: 'trace' }).fields.context;
    const v0 = config.w_v[0][0];
    const valueColumn = timeit(() => { flip ^= 1; viz.edit({ value: ['w_v', 0, 0, flip ? v0 + 0.5 : v0] }); }, { warmup, samples });
    viz.edit({ value: ['w_v', 0, 0, v0] });
    const wvCore = viz.ask({ kind: 'trace' }).fields.context;

    // Every path's context against NumPy's (max |Δ| over the first and last rows, relative Δ of Σ|C|).
    let agreement = null;
    if (check) {
      const cmp = (row, sum) => ({
        max_abs_diff: Math.max(...[[row(0), check.context_first_row], [row(n - 1), check.context_last_row]]
          .flatMap(([a, b]) => a.map((x, j) => Math.abs(x - b[j])))),
        abs_sum_rel_diff: Math.abs(sum - check.context_abs_sum) / check.context_abs_sum,
      });
      const raw = (f) => cmp((i) => Array.from(f.data.subarray(i * f.shape[1], (i + 1) * f.shape[1])), f.data.reduce((t, x) => t + Math.abs(x), 0));
      const trace = av.compute(config);
      agreement = {
        compute: cmp((i) => trace.context[i], trace.context.reduce((t, r) => t + r.reduce((u, x) => u + Math.abs(x), 0), 0)),
        core: raw(fullCore),
        incremental: raw(incCore),
        w_v: raw(wvCore),
      };
    }
    viz.free();
    const sum = (t) => ({ median: med(t.ms), batch: t.batch, ms: t.ms });
    return {
      randn, agreement, json_bytes: json.length,
      pub: sum(pub), typed: sum(typed), computeJsonInMemory: sum(computeJsonInMemory), core: sum(core), incremental: sum(incremental), valueColumn: sum(valueColumn), stringify: sum(stringify),
      newViz: sum(newViz), normalize: sum(normalize), flatten: sum(flatten), computeFlat: sum(computeFlat), viaJson: sum(viaJson),
    };
  };
}

/**
 * In a fresh page, WASM linear memory (MB) of one instance of the bare wasm-bindgen module, whose init()
 * resolves to that instance's exports: after init, then after each step `steps` runs with that module.
 */
async function measureMemory(site, json, steps) {
  const page = await site.page('tests/fixtures/blank.html');
  try {
    return await page.evaluate(async ({ json, steps }) => {
      const pkg = await import('/www/pkg/attention_viz.js');
      const exports = await pkg.default({ module_or_path: '/www/pkg/attention_viz_bg.wasm' });
      const mb = () => exports.memory.buffer.byteLength / 2 ** 20;
      const out = { after_init: mb() };
      const parsed = JSON.parse(json), names = ['embeddings', 'w_q', 'w_k', 'w_v'];
      const data = new Float64Array(names.flatMap((k) => parsed[k].flat()));
      const flat = names.map((name) => ({ name, shape: [parsed[name].length, parsed[name][0].length] }));
      const request = { kind: 'compute', config_json: '{}', flat };
      const run = {
        computeFlat: () => pkg.call(request, data),
        computeFlat_x4: () => { for (let k = 0; k < 4; k++) pkg.call(request, data); },
        computeJson: () => pkg.call({ kind: 'compute', config_json: json }).free(),
        computeJson_x4: () => { for (let k = 0; k < 4; k++) pkg.call({ kind: 'compute', config_json: json }).free(); },
        new_Viz: () => { window.viz = new pkg.Viz(json); },
        setValue_embeddings: () => { for (let k = 0; k < 4; k++) window.viz.edit({ value: ['embeddings', k, 0, 1.5] }); },
        setValue_w_q: () => window.viz.edit({ value: ['w_q', 0, 0, 1.5] }),
        trace: () => window.viz.ask({ kind: 'trace' }),
      };
      for (const step of steps) { run[step](); out[`after_${step}`] = mb(); }
      out.peak = Math.max(...Object.values(out));
      return out;
    }, { json, steps });
  } finally {
    await page.close();
  }
}

const f3 = (x) => (x == null ? '—' : x < 10 ? x.toFixed(3) : x.toFixed(1));
const pad = (cells, widths) => cells.map((c, k) => String(c).padStart(widths[k])).join('  ');

export async function run({ site, samples = 30, warmup = 5, log = () => {} }) {
  const notes = [];
  log('  NumPy/SciPy (default threads, then OPENBLAS_NUM_THREADS=1) …');
  let numpy = null, numpy1 = null;
  try {
    numpy = await python(['--sizes', SIZES.join(',')]);
    numpy1 = await python(['--sizes', SIZES.join(','), '--no-inputs'], { OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' });
  } catch (e) {
    notes.push(`NumPy/SciPy could not run (${e.message}): WASM times only, inputs from RandomState(0). Run scripts/setup.sh test.`);
  }
  const byN = (doc) => new Map((doc?.cases ?? []).map((c) => [c.n, c]));
  const np = byN(numpy), np1 = byN(numpy1);

  const page = await site.page('tests/fixtures/blank.html');
  await page.evaluate(async () => {
    window.av = await import('/www/attention-viz.js');
    await window.av.ready;
    window.pkg = await import('/www/pkg/attention_viz.js'); // the same module instance attention-viz.js initialised
    window.core = await import('/www/core.js');
  });
  await page.evaluate(pageBench);

  const rows = [], breakdown = [], vsCore = [], odd = [], randn = { differ: 0, total: 0, max_ulp: 0 };
  let memoryJson = null;
  const PATHS = [
    ['pub', 'compute(config), public API', true],
    ['typed', 'compute(config, {arrays: "typed"})', false],
    ['core', 'core: a {value} edit of w_q, full recompute', true],
    ['incremental', 'a {value} edit of embeddings, incremental', false],
    ['valueColumn', 'a {value} edit of w_v, incremental', false],
  ];
  for (const n of SIZES) {
    log(`  n=${n} …`);
    const c = np.get(n), c1 = np1.get(n);
    const inputsJson = c ? JSON.stringify(c.inputs) : null;
    if (n === MEMORY_N) memoryJson = inputsJson;
    const r = await page.evaluate((args) => window.benchCase(args), { n, d: D, inputsJson, check: c?.check ?? null, warmup, samples });
    randn.differ += r.randn.differ; randn.total += r.randn.total; randn.max_ulp = Math.max(randn.max_ulp, r.randn.max_ulp);
    for (const [path, a] of Object.entries(r.agreement ?? {})) {
      if (!(a.max_abs_diff < 1e-9 && a.abs_sum_rel_diff < 1e-12)) odd.push(`n=${n}: the ${path} path's context differs from NumPy's (max |Δ| ${a.max_abs_diff}, Σ|C| rel Δ ${a.abs_sum_rel_diff})`);
    }
    const best = c ? Math.min(c.median_ms, c1?.median_ms ?? Infinity) : null;
    for (const [key, label, targeted] of PATHS) {
      const t = r[key];
      const target = best != null && targeted && TARGET_N.has(n) ? best : null;
      rows.push({
        what: `n=${String(n).padEnd(4)} ${label}`,
        n, path: key === 'pub' ? 'compute' : key === 'typed' ? 'compute_typed' : key,
        median_ms: t.median, p90_ms: percentile(t.ms, 90),
        target_ms: target, ok: target == null ? null : t.median <= target,
        numpy_median_ms: c?.median_ms ?? null, numpy1_median_ms: c1?.median_ms ?? null,
        numpy_best_median_ms: best, ratio: best != null ? t.median / best : null,
        batch: t.batch, samples: t.ms.length, samples_ms: t.ms,
        // Public compute() against the core's full recompute (target: ≤ 1.1 at n = 256, 512).
        ...(key === 'pub' || key === 'typed' ? { core_median_ms: r.core.median, vs_core: t.median / r.core.median } : {}),
        ...(key === 'pub' ? {
          flatten_median_ms: r.flatten.median, compute_flat_median_ms: r.computeFlat.median, json_path_median_ms: r.viaJson.median,
          stringify_median_ms: r.stringify.median,
          computeJsonInMemory_median_ms: r.computeJsonInMemory.median, new_viz_median_ms: r.newViz.median,
          normalize_config_median_ms: r.normalize.median, config_json_bytes: r.json_bytes, agreement: r.agreement,
          numpy_samples_ms: c?.samples_ms, numpy_repeats: c?.repeats,
        } : {}),
      });
    }
    breakdown.push([n, r.pub.median, r.typed.median, r.flatten.median, r.computeFlat.median, r.pub.median - r.flatten.median - r.computeFlat.median,
      r.typed.median - r.flatten.median - r.computeFlat.median, r.viaJson.median, r.stringify.median, r.computeJsonInMemory.median,
      r.newViz.median, r.normalize.median, r.core.median, (r.json_bytes / 1e6).toFixed(2)]);
    vsCore.push({ n, nested: r.pub.median / r.core.median, typed: r.typed.median / r.core.median });
  }
  const after = await page.evaluate(async () => (await window.pkg.default()).memory.buffer.byteLength / 2 ** 20);
  if (page.errors.length) throw new Error(`the page logged errors: ${page.errors.join('; ')}`);
  await page.close();

  log(`  memory at n=${MEMORY_N} …`);
  if (!memoryJson) {
    const p = await site.page('tests/fixtures/blank.html');
    memoryJson = await p.evaluate(async ({ n, d }) => {
      const av = await import('/www/attention-viz.js');
      await av.ready;
      const rs = new av.RandomState(0);
      return JSON.stringify({ embeddings: rs.randn(n, d), w_q: rs.randn(d, d), w_k: rs.randn(d, d), w_v: rs.randn(d, d) });
    }, { n: MEMORY_N, d: D });
    await p.close();
  }
  const mem = await measureMemory(site, memoryJson, ['computeFlat', 'computeFlat_x4']);
  const memJson = await measureMemory(site, memoryJson, ['computeJson', 'computeJson_x4']);
  const memViz = await measureMemory(site, memoryJson, ['new_Viz', 'setValue_embeddings', 'setValue_w_q', 'trace']);

  // Notes: where compute()'s time goes, memory, agreement, the NumPy set-up.
  const head = ['n', 'compute()', 'typed', 'flatten', 'call flat', 'to arrays*', 'to typed*', 'JSON path', 'stringify', 'call json',
    'new Viz', 'normalize', 'setValue(w_q)', 'JSON MB'];
  const body = breakdown.map((b) => b.map((x, k) => (k === 0 || typeof x === 'string' ? String(x) : f3(x))));
  const widths = head.map((h, k) => Math.max(h.length, ...body.map((b) => b[k].length)));
  notes.push('Where compute(config)\'s time goes, median ms per call (* = difference of medians, approximate):',
    `  ${pad(head, widths)}`, ...body.map((b) => `  ${pad(b, widths)}`),
    '  compute()\'s fast path: flatten = the matrices into one Float64Array, the rest as JSON; call flat = the core\'s compute',
    '  request it makes (Rust validate + compute, the trace kept in WASM memory); to arrays = compute() − flatten − call flat (the',
    '  trace read into nested JS arrays); typed = compute(config, {arrays: "typed"}), to typed = its part after call flat (one',
    '  Float64Array slice per field; with one head heads[0]\'s share the top-level fields\'). JSON path = compute() for configs that',
    '  are not clean (all JSON): stringify = JSON.stringify, call json = its compute request (Rust JSON parse + compute, the',
    '  trace kept in WASM memory), then nested arrays.',
    '  new Viz = Rust JSON parse + compute (what the element does); normalize = Rust parse + validate + re-serialise + JSON.parse.',
    `Public compute() / the core (setValue(w_q) full recompute), target ≤ 1.1 at n = ${[...TARGET_N].join(', ')}: `
      + vsCore.filter(({ nested, typed }) => Number.isFinite(nested) && Number.isFinite(typed)) // the core at n = 4 can time 0
        .map(({ n, nested, typed }) => `n=${n} nested ${nested.toFixed(2)}, typed ${typed.toFixed(2)}`
        + (TARGET_N.has(n) ? ` (${nested <= 1.1 ? 'ok' : 'over'} / ${typed <= 1.1 ? 'ok' : 'over'})` : '')).join('; ') + '.');
  const memOk = mem.peak <= MEMORY_TARGET_MB;
  notes.push(`WASM linear memory at n=${MEMORY_N}, d=${D}, fresh instance each: flat compute ${mem.after_init.toFixed(1)} MB after init → `
    + `${mem.after_computeFlat.toFixed(1)} MB after one call → ${mem.after_computeFlat_x4.toFixed(1)} MB after 4 more; `
    + `peak ${mem.peak.toFixed(1)} MB, target ≤ ${MEMORY_TARGET_MB} MB: ${memOk ? 'ok' : 'OVER'}`);
  notes.push(`  the JSON path (info): JSON compute ${memJson.after_computeJson.toFixed(1)} MB after one call → ${memJson.after_computeJson_x4.toFixed(1)} MB after 4 more`);
  notes.push(`  the element's path (info): new Viz ${memViz.after_new_Viz.toFixed(1)} MB → 4 incremental edits ${memViz.after_setValue_embeddings.toFixed(1)} MB`
    + ` → a W_Q edit ${memViz.after_setValue_w_q.toFixed(1)} MB → trace() ${memViz.after_trace.toFixed(1)} MB; `
    + `this suite's page after every n: ${after.toFixed(1)} MB${memViz.peak > MEMORY_TARGET_MB ? ` (over ${MEMORY_TARGET_MB} MB)` : ''}`);
  if (numpy) {
    const e = numpy.env;
    notes.push(`NumPy ${e.numpy}, SciPy ${e.scipy}, Python ${e.python}, BLAS ${e.blas}, ${e.cpus} CPUs, load average ${e.loadavg?.map((x) => x.toFixed(2)).join(' ') ?? '?'}`
      + ` at the start. wasm/numpy is against the faster of NumPy's two medians; target ≤ 1.0 at n = ${[...TARGET_N].join(', ')}, for compute() and the core.`);
    const slow = SIZES.filter((n) => np.get(n) && np1.get(n) && np.get(n).median_ms > 3 * np1.get(n).median_ms);
    if (slow.length) notes.push(`Odd: NumPy with its default BLAS threads was over 3× slower than on one thread at n = ${slow.join(', ')}: the machine is busy (OpenBLAS threads waiting on each other).`);
    notes.push(randn.differ
      ? `Odd: our RandomState(0).randn in the page differs from NumPy's in ${randn.differ} of ${randn.total} values (by ≤ ${randn.max_ulp} ulp); the suite computes on NumPy's numbers.`
      : `Inputs: our RandomState(0).randn gives NumPy's ${randn.total} values bit for bit.`);
    notes.push(odd.length ? `Odd: ${odd.join('; ')}` : 'Every path\'s context matches NumPy\'s (max |Δ| < 1e-9 on the first and last rows, Σ|C| to 1e-12).');
  } else if (odd.length) {
    notes.push(`Odd: ${odd.join('; ')}`);
  }
  return {
    rows, notes, numpy_env: numpy?.env ?? null, randn_vs_numpy: numpy ? randn : null,
    memory_mb: { compute: mem, compute_json: memJson, viz: memViz, suite_page_after: after }, memory_target_mb: MEMORY_TARGET_MB, memory_ok: memOk,
  };
}
