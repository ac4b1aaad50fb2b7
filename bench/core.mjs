// Benchmark suite "core": compute() at n = 512, d = 64 against the platform's own bound.
//
// In one page, in interleaved rounds (each round times every case once, in a rotated order, so a busy spell of the
// machine lands on all of them alike):
//   - the simd128 f64 multiply+add peak: a WASM module built here, byte by byte (no tool, nothing added to the shipped
//     .wasm), whose loop runs 12 independent chains acc = acc·m + a of f64x2.mul → f64x2.add (no FMA: the core has
//     none). 12 chains hide the latency of a mul then an add (8 cycles on x86), so the loop runs at the multiply and add
//     pipes' throughput, which is what the core's products are up against. Reported in GMAC/s (2 lanes × 12 a turn).
//   - the same with f64x2.relaxed_madd (relaxed SIMD's fused multiply-add, when the browser has it): what FMA would give.
//   - compute(config, {arrays: "typed"}) and compute(config) (nested arrays) at n = 512, d = 64: self-attention with
//     projections, 3·n·d² + 2·n²·d = 39.8 M multiply-adds; the bound = multiply-adds ÷ the peak of the same round.
//   - compute(config, {fields: ["weights", "context"], arrays: "views"}): the trace on request, the core skipping
//     what those fields do not need (the naive weights, the query's breakdown) and no copy out of WASM memory.
//   - informative: the core's flat `compute` request alone (Rust validation and compute, the trace left in WASM memory), and
//     the core's full recompute (a `{value}` edit of w_q), to split compute()'s time into the core's and the JS side's.
//   - tfjs-backend-wasm (float32, SIMD, one thread: the page is not cross-origin isolated), the browser alternative:
//     the same Q, K, V, softmax(Q·Kᵀ/8)·V, to the context read back with dataSync() (the core returns every stage;
//     tfjs only the context, which favours tfjs). Installed by `scripts/setup.sh bench` into bench/.tools/.
// NumPy + OpenBLAS on one thread (bench/numpy_compute.py, OPENBLAS_NUM_THREADS=1) is timed just before the rounds,
// on the same inputs (`np.random.seed(0)`, randn), which the page computes on.
//
// Targets: typed / bound ≤ 1.5 (and the trace on request's), nested / typed ≤ 1.2 (the ratios of the rounds'
// medians). Never asserted: a report.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { percentile } from './heatmap.mjs';

export const description = 'compute() at n = 512, d = 64 against the simd128 f64 multiply-add peak (NumPy, tfjs-backend-wasm beside)';
export const columns = [['GMAC/s', 'gmacs'], ['× bound', 'vs_bound']];

const N = 512;
const D = 64;
const MACS = 3 * N * D * D + 2 * N * N * D; // 39,845,888
const TARGET_BOUND = 1.5;
const TARGET_NESTED = 1.2;
const here = dirname(fileURLToPath(import.meta.url));
const TFJS = '/bench/.tools/node_modules/@tensorflow';

function numpyOneThread() {
  return new Promise((ok, fail) => {
    execFile(process.env.PYTHON || 'python3', [join(here, 'numpy_compute.py'), '--sizes', String(N), '--d', String(D)],
      { maxBuffer: 256 << 20, env: { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' } },
      (err, stdout, stderr) => {
        if (err) fail(new Error(`${err.message.split('\n')[0]} ${String(stderr).trim().split('\n').pop() ?? ''}`));
        else ok(JSON.parse(stdout));
      });
  });
}

/**
 * The peak kernel's module: `peak(turns: i32) -> f64` runs `turns` times 12 independent f64x2 chains
 * acc_i = acc_i · m + a (mul then add, or one relaxed_madd), and returns the accumulators' sum so that nothing is dead.
 * m = 0.9999 and a = 0.001 keep every accumulator near 10: no overflow, no subnormals.
 */
export function peakModule(relaxed = false) {
  const leb = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
  const f64 = (x) => [...new Uint8Array(new Float64Array([x]).buffer)];
  const simd = (op) => [0xfd, ...leb(op)];
  const [SPLAT, EXTRACT, ADD, MUL, RELAXED_MADD] = [0x14, 0x21, 0xf0, 0xf2, 0x107];
  const CHAINS = 12, M = CHAINS + 1, A = CHAINS + 2; // locals: 0 the turns (param), 1 … 12 the chains, then m, a
  const body = [];
  const splatInto = (local, x) => body.push(0x44, ...f64(x), ...simd(SPLAT), 0x21, local); // f64.const; splat; local.set
  splatInto(M, 0.9999);
  splatInto(A, 0.001);
  for (let i = 1; i <= CHAINS; i++) splatInto(i, i * 0.01);
  body.push(0x02, 0x40, 0x03, 0x40); // block, loop
  body.push(0x20, 0, 0x45, 0x0d, 1); // turns == 0 → out
  for (let i = 1; i <= CHAINS; i++) {
    body.push(...(relaxed
      ? [0x20, i, 0x20, M, 0x20, A, ...simd(RELAXED_MADD)]
      : [0x20, i, 0x20, M, ...simd(MUL), 0x20, A, ...simd(ADD)]), 0x21, i);
  }
  body.push(0x20, 0, 0x41, 1, 0x6b, 0x21, 0, 0x0c, 0, 0x0b, 0x0b); // turns -= 1; again; end loop, end block
  body.push(0x20, 1);
  for (let i = 2; i <= CHAINS; i++) body.push(0x20, i, ...simd(ADD));
  body.push(0x22, M, ...simd(EXTRACT), 0, 0x20, M, ...simd(EXTRACT), 1, 0xa0, 0x0b); // lane 0 + lane 1
  const func = [1, CHAINS + 2, 0x7b, ...body]; // one group of 14 v128 locals
  const section = (id, bytes) => [id, ...leb(bytes.length), ...bytes];
  const name = [...'peak'].map((c) => c.charCodeAt(0));
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, [1, 0x60, 1, 0x7f, 1, 0x7c]), // type: (i32) → f64
    ...section(3, [1, 0]),
    ...section(7, [1, name.length, ...name, 0, 0]),
    ...section(10, [1, ...leb(func.length), ...func])]);
}

/** Installed in the page. */
function pageBench() {
  /** ms per call of one batch of `batch` calls. */
  const batchMs = (fn, batch) => {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) fn();
    return (performance.now() - t0) / batch;
  };
  /** The batch size whose batch lasts ≥ ms (performance.now() is coarse). */
  const calibrate = (fn, ms) => {
    let batch = 1;
    while (batch < 1 << 16) {
      const t0 = performance.now();
      for (let i = 0; i < batch; i++) fn();
      if (performance.now() - t0 >= ms) break;
      batch *= 2;
    }
    return batch;
  };

  window.coreBench = { cases: {}, batch: {} };
  window.setupCore = async ({ n: N, d: D, inputsJson, peakBytes, relaxedBytes, tfjsBase }) => {
    const av = window.av = await import('/www/attention-viz.js');
    await av.ready;
    const config = JSON.parse(inputsJson);
    const cases = window.coreBench.cases;
    const out = { relaxed: null, tfjs: null };
    const TURNS = 1 << 18;
    const peak = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(peakBytes))).exports.peak;
    cases.peak = { fn: () => peak(TURNS), macs: TURNS * 24 };
    if (WebAssembly.validate(new Uint8Array(relaxedBytes))) {
      const madd = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(relaxedBytes))).exports.peak;
      cases.relaxed = { fn: () => madd(TURNS), macs: TURNS * 24 };
      out.relaxed = true;
    } else out.relaxed = false;
    const typed = { arrays: 'typed' };
    cases.typed = { fn: () => av.compute(config, typed) };
    cases.nested = { fn: () => av.compute(config) };
    const lean = { fields: ['weights', 'context'], arrays: 'views' };
    cases.lean = { fn: () => av.compute(config, lean) };
    const pkg = await import('/www/pkg/attention_viz.js'); // the instance attention-viz.js initialised
    const flat = av._internal.flatConfig(config);
    const request = { kind: 'compute', ...(await import('/www/core.js')).flatRequest(flat) };
    cases.computeFlat = { fn: () => pkg.call(request, flat.data) };
    const viz = new pkg.Viz(flat.json, flat.names, flat.shapes, flat.data); // as the element makes one
    const w0 = config.w_q[0][0];
    let flip = 0;
    cases.core = { fn: () => { flip ^= 1; viz.edit({ value: ['w_q', 0, 0, flip ? w0 + 0.5 : w0] }); } };
    // The context, for the agreement check against NumPy's (first and last rows).
    const t = av.compute(config, typed).context;
    out.context = { first: Array.from(t.data.subarray(0, D)), last: Array.from(t.data.subarray((N - 1) * D, N * D)) };
    const nested = av.compute(config).context;
    out.nestedEqualsTyped = nested.flat().every((x, i) => Object.is(x, t.data[i]));
    if (tfjsBase) {
      try {
        const tf = window.tf;
        tf.wasm.setWasmPaths(`${tfjsBase}/tfjs-backend-wasm/dist/`);
        await tf.setBackend('wasm');
        await tf.ready();
        const f32 = (m) => tf.tensor2d(m.flat(), [m.length, m[0].length], 'float32');
        const [x, wq, wk, wv] = [config.embeddings, config.w_q, config.w_k, config.w_v].map(f32);
        const attention = () => tf.tidy(() => {
          const q = tf.matMul(x, wq), k = tf.matMul(x, wk), v = tf.matMul(x, wv);
          return tf.matMul(tf.softmax(tf.div(tf.matMul(q, k, false, true), Math.sqrt(D))), v);
        });
        cases.tfjs = { fn: () => { const c = attention(); c.dataSync(); c.dispose(); } };
        const c = attention();
        const data = c.dataSync();
        c.dispose();
        out.tfjs = {
          backend: tf.getBackend(), version: tf.version_core,
          simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'), threads: tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT'),
          first: Array.from(data.subarray(0, D)),
        };
      } catch (e) {
        out.tfjs = { error: String(e) };
      }
    }
    for (const [name, c] of Object.entries(cases)) window.coreBench.batch[name] = calibrate(c.fn, 20);
    out.batch = window.coreBench.batch;
    return out;
  };
  /** One round: each case once, in the given order; ms per call. */
  window.coreRound = (order) => {
    const out = {};
    for (const name of order) out[name] = batchMs(window.coreBench.cases[name].fn, window.coreBench.batch[name]);
    return out;
  };
}

const med = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const f2 = (x) => (x == null || !Number.isFinite(x) ? '—' : x.toFixed(2));

export async function run({ site, samples = 11, warmup = 2, log = () => {} }) {
  const rounds = Math.max(11, samples);
  const notes = [`load average at the start ${loadavg().map((x) => x.toFixed(2)).join(' ')} (${cpus().length} CPUs: ${cpus()[0]?.model ?? '?'})`];
  log('  NumPy/SciPy, OPENBLAS_NUM_THREADS=1 …');
  let numpy = null, numpyEnv = null;
  try {
    const doc = await numpyOneThread();
    [numpy, numpyEnv] = [doc.cases[0], doc.env];
  } catch (e) {
    notes.push(`NumPy/SciPy could not run (${e.message}): no NumPy anchor, inputs from RandomState(0). Run scripts/setup.sh test.`);
  }
  const tfjsHere = existsSync(join(here, '.tools/node_modules/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js'));
  if (!tfjsHere) notes.push('tfjs-backend-wasm is not installed (scripts/setup.sh bench installs it into bench/.tools/): no tfjs anchor.');

  const page = await site.page('tests/fixtures/blank.html');
  if (tfjsHere) {
    await page.addScriptTag({ url: `${TFJS}/tfjs-core/dist/tf-core.min.js` });
    await page.addScriptTag({ url: `${TFJS}/tfjs-backend-wasm/dist/tf-backend-wasm.min.js` });
  }
  await page.evaluate(pageBench);
  let inputsJson = numpy ? JSON.stringify(numpy.inputs) : null;
  if (!inputsJson) {
    inputsJson = await page.evaluate(async ({ n, d }) => {
      const av = await import('/www/attention-viz.js');
      await av.ready;
      const rs = new av.RandomState(0);
      return JSON.stringify({ embeddings: rs.randn(n, d), w_q: rs.randn(d, d), w_k: rs.randn(d, d), w_v: rs.randn(d, d) });
    }, { n: N, d: D });
  }
  log('  setting up the page …');
  const setup = await page.evaluate((a) => window.setupCore(a), {
    n: N, d: D, inputsJson, peakBytes: [...peakModule(false)], relaxedBytes: [...peakModule(true)], tfjsBase: tfjsHere ? TFJS : null,
  });
  const names = Object.keys(setup.batch);
  const times = Object.fromEntries(names.map((k) => [k, []]));
  for (let r = 0; r < warmup + rounds; r++) {
    log(`  round ${r + 1 - warmup}/${rounds}${r < warmup ? ' (warm-up)' : ''} …`);
    const order = names.map((_, i) => names[(i + r) % names.length]);
    const got = await page.evaluate((o) => window.coreRound(o), order);
    if (r >= warmup) for (const k of names) times[k].push(got[k]);
  }
  if (page.errors.length) throw new Error(`the page logged errors: ${page.errors.join('; ')}`);
  await page.close();

  const m = Object.fromEntries(names.map((k) => [k, med(times[k])]));
  const peakMacs = (1 << 18) * 24;
  const peak = peakMacs / m.peak / 1e6; // GMAC/s
  const bound = MACS / peak / 1e6; // ms
  // The bound of each round against that round's typed compute: the spread of the ratio.
  const perRound = times.typed.map((t, i) => t / (MACS / (peakMacs / times.peak[i] / 1e6) / 1e6));
  const leanRound = times.lean.map((t, i) => t / (MACS / (peakMacs / times.peak[i] / 1e6) / 1e6));
  const row = (name, what, extra = {}) => ({
    what, median_ms: m[name], p90_ms: percentile(times[name], 90), target_ms: null, ok: null,
    samples_ms: times[name], batch: setup.batch[name], ...extra,
  });
  const rows = [
    row('peak', 'simd128 f64x2 mul → add peak (12 chains), 6.3 M MACs', { gmacs: f2(peak) }),
    ...(m.relaxed ? [row('relaxed', 'relaxed SIMD f64x2.relaxed_madd peak (FMA), info', { gmacs: f2(peakMacs / m.relaxed / 1e6) })] : []),
    { what: `bound: ${(MACS / 1e6).toFixed(1)} M MACs ÷ peak`, median_ms: bound, p90_ms: null, target_ms: null, ok: null, gmacs: f2(peak), vs_bound: '1.00' },
    row('typed', 'compute(config, {arrays: "typed"}), n=512 d=64', {
      target_ms: TARGET_BOUND * bound, ok: m.typed <= TARGET_BOUND * bound, gmacs: f2(MACS / m.typed / 1e6), vs_bound: f2(m.typed / bound),
    }),
    row('lean', 'compute(config, {fields: [weights, context], arrays: "views"})', {
      target_ms: TARGET_BOUND * bound, ok: m.lean <= TARGET_BOUND * bound, gmacs: f2(MACS / m.lean / 1e6), vs_bound: f2(m.lean / bound),
    }),
    row('nested', 'compute(config), nested arrays', {
      target_ms: TARGET_NESTED * m.typed, ok: m.nested <= TARGET_NESTED * m.typed, gmacs: f2(MACS / m.nested / 1e6), vs_bound: f2(m.nested / bound),
    }),
    row('computeFlat', 'compute request alone (validate + compute), info', { gmacs: f2(MACS / m.computeFlat / 1e6), vs_bound: f2(m.computeFlat / bound) }),
    row('core', 'core: Viz.edit({value: w_q}) full recompute, info', { gmacs: f2(MACS / m.core / 1e6), vs_bound: f2(m.core / bound) }),
    ...(m.tfjs ? [row('tfjs', 'tfjs-backend-wasm float32 SIMD, 1 thread (context only)', { gmacs: f2(MACS / m.tfjs / 1e6), vs_bound: f2(m.tfjs / bound) })] : []),
    ...(numpy ? [{
      what: 'NumPy + OpenBLAS, 1 thread (before the rounds)', median_ms: numpy.median_ms, p90_ms: numpy.p90_ms ?? null, target_ms: null, ok: null,
      gmacs: f2(MACS / numpy.median_ms / 1e6), vs_bound: f2(numpy.median_ms / bound),
    }] : []),
  ];
  notes.push(`Interleaved rounds: ${rounds} after ${warmup} warm-up; each case a batch of ≥ 20 ms a round (batch sizes ${JSON.stringify(setup.batch)}).`,
    `typed / bound per round: median ${f2(med(perRound))}, range ${f2(Math.min(...perRound))}–${f2(Math.max(...perRound))}.`,
    `views with fields [weights, context] / bound per round: median ${f2(med(leanRound))}, range ${f2(Math.min(...leanRound))}–${f2(Math.max(...leanRound))}.`,
    `compute() beside the core: typed − computeFlat ≈ ${f2(m.typed - m.computeFlat)} ms of JS conversion (typed), nested − computeFlat ≈ ${f2(m.nested - m.computeFlat)} ms.`,
    '  What is left (scripts/profile_core.mjs, and a CPU profile of typed compute()): the products at ~80-85 % of the peak, exp '
      + '(the degree-13 polynomial, ~10 % of the call, four f64x2 chains at once; a cheaper one changes the trained models\' '
      + 'weights, which tests hold bit for bit), and typed\'s copies out of WASM memory (~30 %): each n × n field goes into a '
      + 'fresh ArrayBuffer whose pages the OS supplies on first write, while nested lists live in V8\'s heap, whose pages are '
      + 'reused — hence nested < typed. The views row asks for two fields: no copies, no naive weights, no breakdown, and '
      + 'the scores scaled in place.',
    setup.relaxed
      ? `Relaxed SIMD's f64x2.relaxed_madd runs at ${f2(peakMacs / m.relaxed / 1e6)} GMAC/s here, ${f2(m.peak / m.relaxed)}× the mul → add peak. `
        + 'The core does not use it: relaxed_madd may be fused or not depending on the CPU (its result is implementation-defined), '
        + 'so the SIMD kernels could no longer equal their scalar twins bit for bit, and the numbers would change from NumPy\'s order '
        + 'of operations and between machines; the core\'s results must not change.'
      : 'Relaxed SIMD (f64x2.relaxed_madd) is not available in this browser: no FMA peak measured.');
  if (setup.tfjs?.error) notes.push(`tfjs-backend-wasm failed: ${setup.tfjs.error}`);
  else if (setup.tfjs) notes.push(`tfjs-core ${setup.tfjs.version}, backend ${setup.tfjs.backend}, SIMD ${setup.tfjs.simd}, threads ${setup.tfjs.threads}.`);
  notes.push(`nested compute()'s context equals typed's bit for bit: ${setup.nestedEqualsTyped}.`);
  if (numpy) {
    const diff = Math.max(...[[setup.context.first, numpy.check.context_first_row], [setup.context.last, numpy.check.context_last_row]]
      .flatMap(([a, b]) => a.map((x, j) => Math.abs(x - b[j]))));
    notes.push(`The core's context against NumPy's (first and last rows): max |Δ| ${diff.toExponential(2)}`
      + (setup.tfjs?.first ? `; tfjs's float32 first row: max |Δ| ${Math.max(...setup.tfjs.first.map((x, j) => Math.abs(x - numpy.check.context_first_row[j]))).toExponential(2)}` : '') + '.');
  }
  if (numpyEnv) notes.push(`NumPy ${numpyEnv.numpy}, SciPy ${numpyEnv.scipy}, BLAS ${numpyEnv.blas}, threads ${JSON.stringify(numpyEnv.thread_env)}.`);
  notes.push(`load average at the end ${loadavg().map((x) => x.toFixed(2)).join(' ')}: compare ratios, not times.`);

  const anchor = [`peak ${f2(peak)} GMAC/s`, `bound ${f2(bound)} ms`, numpy ? `NumPy 1 thread ${f2(numpy.median_ms)} ms (${f2(numpy.median_ms / bound)}× bound)` : null,
    m.tfjs ? `tfjs-wasm ${f2(m.tfjs)} ms (${f2(m.tfjs / bound)}× bound)` : null].filter(Boolean).join('; ');
  const targets = [
    { row: 3, what: 'compute(typed) n=512 d=64 / simd128 bound', measured: `${f2(m.typed / bound)}× (${f2(m.typed)} ms)`, target: `≤ ${TARGET_BOUND}×`, anchor, ok: m.typed <= TARGET_BOUND * bound },
    { row: 3, what: 'compute(views, weights + context) / simd128 bound', measured: `${f2(m.lean / bound)}× (${f2(m.lean)} ms)`, target: `≤ ${TARGET_BOUND}×`, anchor, ok: m.lean <= TARGET_BOUND * bound },
    { row: 3, what: 'compute() nested / typed', measured: `${f2(m.nested / m.typed)}× (${f2(m.nested)} ms)`, target: `≤ ${TARGET_NESTED}×`, anchor: `typed ${f2(m.typed)} ms`, ok: m.nested <= TARGET_NESTED * m.typed },
  ];
  return { rows, notes, targets, macs: MACS, peak_gmacs: peak, bound_ms: bound, setup: { ...setup, context: undefined }, numpy: numpy ? { median_ms: numpy.median_ms, samples_ms: numpy.samples_ms, env: numpyEnv } : null };
}
