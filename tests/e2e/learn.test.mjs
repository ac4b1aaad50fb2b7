// The trained models' JavaScript API (www/train.js, www/train-worker.js, src/web/learn.rs) in a real
// browser: compute({mechanism: "model"}) on the shipped models (reversal reverses sequences it never trained on, with
// its weight on the anti-diagonal; induction continues repeated segments through its induction head), its error
// messages, `models`, train() in a Web Worker (100 % held-out accuracy, bit for bit the shipped reversal model, the
// training in a worker, not on the page's main thread; pause/resume/cancel/AbortSignal, option checks), and the same
// from the dist module bundle and from the single-file build opened from file://. Every page fails the test on console
// errors. How long training takes and the longest main-thread task meanwhile are `make bench`'s (bench/learn.mjs).
//
// The sequences "never trained on" are checked against the training stream itself, replayed with the exported
// RandomState (NumPy's legacy generator, checked bit for bit against NumPy by tests/e2e/api.test.mjs): seed 0 draws
// the 464 initial weights (rand), then each step's 32 sequences (randint(0, 10, 6) each).
// LEARN_TEST_ROOT serves another checkout's www/ (e.g. one whose www/pkg was rebuilt elsewhere); LEARN_TEST_DIST another dist/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { open, done, watch, countTraffic, WAIT } from './harness.mjs';
import { serve, CSP } from '../../scripts/serve.mjs';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const ROOT = process.env.LEARN_TEST_ROOT || REPO;
const DIST = process.env.LEARN_TEST_DIST || join(REPO, 'dist');
const BLANK = '<!doctype html><meta charset="utf-8"><title>learn</title><link rel="icon" href="data:,"><body></body>';

let site;
before(async () => { site = await open({ root: ROOT }); });
after(() => site?.close());

/** A blank page of the served site with the API imported as `window.A` (and the shipped models loaded: `loadModels()`). */
async function apiPage(module = '/www/attention-viz.js') {
  const page = await site.page(null);
  await page.route(`${site.url}__learn.html`, (route) => route.fulfill({ contentType: 'text/html', body: BLANK }));
  await page.goto(`${site.url}__learn.html`);
  await page.evaluate(async (m) => { window.A = await import(m); await window.A.loadModels(); }, module);
  return page;
}

/** In the page: everything train() reports, and the first step whose report says 100 % held-out. */
function pageTrain(options) {
  return (async () => {
    const reports = [];
    let firstPerfect = null;
    const model = await window.A.train({
      ...options,
      onProgress(p) {
        reports.push({ step: p.step, steps: p.steps, loss: p.loss, accuracy: p.accuracy, modelSteps: p.model.trained.steps });
        if (p.accuracy === 1 && firstPerfect === null) firstPerfect = p.step;
      },
    });
    return { model, json: JSON.stringify(model), shipped: JSON.stringify(window.A.models.reversal), reports, firstPerfect };
  })();
}

/** The training workers `page` starts (their script URLs) and its warnings that training fell back to the main thread. */
function watchTraining(page) {
  const seen = { workers: [], fellBack: [] };
  page.on('worker', (w) => seen.workers.push(w.url()));
  page.on('console', (m) => { if (m.type() === 'warning' && m.text().includes('training on the main thread')) seen.fellBack.push(m.text()); });
  return seen;
}

// ---- compute({mechanism: "model"}) ------------------------------------------------------------------------------

test('the shipped reversal model reverses sequences it never trained on, with ≥ 0.8 mean weight on the anti-diagonal', async () => {
  const page = await apiPage();
  const r = await page.evaluate(() => {
    const { RandomState, compute } = window.A;
    // The training stream of models.reversal (seed 0, 1,000 steps of 32): the initial weights, then the sequences.
    const rs = new RandomState(0);
    rs.rand(464);
    const trained = new Set();
    for (let chunk = 0; chunk < 2; chunk++) for (const s of rs.randint(0, 10, [16000, 6])) trained.add(s.join(''));
    // Candidates: random sequences from another seed, and held-out ones (the core's held-out seed, 1000003).
    const candidates = [...new RandomState(2024).randint(0, 10, [300, 6]), ...new RandomState(1000003).randint(0, 10, [100, 6])];
    const unseen = candidates.filter((s) => !trained.has(s.join('')));
    let right = 0, positions = 0, diagonal = 0;
    const wrong = [];
    for (const input of unseen) {
      const t = compute({ mechanism: 'model', model: 'reversal', input });
      const want = [...input].reverse();
      t.prediction.forEach((p, i) => { positions++; if (p === want[i]) right++; });
      if (t.prediction.join() !== want.join()) wrong.push(`${input.join('')} → ${t.prediction.join('')}`);
      const w = t.layers[0].heads[0].weights;
      for (let i = 0; i < 6; i++) diagonal += w[i][5 - i];
    }
    const first = compute({ mechanism: 'model', model: 'reversal', input: [3, 1, 4, 1, 5, 9] });
    return { trainedCount: trained.size, unseen: unseen.length, candidates: candidates.length, right, positions, wrong, meanDiagonal: diagonal / (unseen.length * 6), first };
  });
  assert.ok(r.trainedCount > 30000 && r.trainedCount <= 32000, `the replayed training stream holds ${r.trainedCount} distinct sequences`);
  assert.ok(r.unseen >= 380, `${r.unseen} of ${r.candidates} candidates were never trained on`);
  assert.deepEqual(r.wrong, [], `every unseen sequence reversed (${r.right}/${r.positions} positions)`);
  assert.ok(r.meanDiagonal >= 0.8, `mean anti-diagonal weight ${r.meanDiagonal}`);
  console.log(`reversal: ${r.unseen} unseen sequences reversed, mean anti-diagonal weight ${r.meanDiagonal.toFixed(4)}`);

  const t = r.first;
  assert.equal(t.mechanism, 'model');
  assert.equal(t.model, 'reversal');
  assert.deepEqual(t.input, [3, 1, 4, 1, 5, 9]);
  assert.deepEqual(t.tokens, ['3', '1', '4', '1', '5', '9']);
  assert.deepEqual(t.prediction, [9, 5, 1, 4, 1, 3]);
  const shape = (m) => [m.length, m[0].length];
  assert.deepEqual(shape(t.probabilities), [6, 10]);
  assert.deepEqual(shape(t.logits), [6, 10]);
  for (const row of t.probabilities) assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-12, 'probabilities sum to 1');
  t.prediction.forEach((p, i) => assert.equal(t.probabilities[i].indexOf(Math.max(...t.probabilities[i])), p, 'prediction = argmax'));
  assert.equal(t.layers.length, 1);
  assert.equal(t.layers[0].heads.length, 1);
  const head = t.layers[0].heads[0];
  assert.deepEqual(Object.keys(head).sort(), ['context', 'k', 'q', 'scaled', 'scores', 'v', 'weights']);
  for (const k of ['q', 'k', 'v', 'context']) assert.deepEqual(shape(head[k]), [6, 8], k);
  for (const k of ['scores', 'scaled', 'weights']) assert.deepEqual(shape(head[k]), [6, 6], k);
  head.scores.forEach((row, i) => row.forEach((s, j) => assert.ok(Math.abs(head.scaled[i][j] - s / Math.sqrt(8)) <= 1e-15 * Math.abs(s) + 1e-300, 'scaled = scores / √d_h')));
  await done(page);
});

test('the shipped induction model continues repeated segments; layer 1 is an induction head, -Infinity where masked', async () => {
  const page = await apiPage();
  // Distinct tokens, a segment of 5 at a and again at b: from b, the next token is the one after the earlier occurrence.
  const cases = [
    { input: [14, 2, 3, 11, 6, 0, 9, 8, 13, 3, 11, 6, 0, 9, 5, 1], a: 2, b: 9 },
    { input: [7, 1, 12, 4, 10, 15, 0, 6, 3, 9, 2, 7, 1, 12, 4, 10], a: 0, b: 11 },
    { input: [5, 8, 2, 13, 0, 4, 11, 2, 13, 0, 4, 11, 9, 15, 6, 3], a: 2, b: 7 },
    { input: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 3, 4, 5, 6, 7], a: 3, b: 11 },
  ];
  const got = await page.evaluate((cases) => cases.map(({ input, a, b }) => {
    const t = window.A.compute({ mechanism: 'model', model: 'induction', input });
    const w1 = t.layers[1].heads[0].weights;
    const scaled0 = t.layers[0].heads[0].scaled;
    return {
      model: t.model, tokens: t.tokens, layers: t.layers.length,
      predicted: t.prediction.slice(b, b + 4),
      induction: [0, 1, 2, 3].map((j) => w1[b + j][a + j + 1]),
      // Strictly above the diagonal: masked (causal) → -Infinity; on and below: finite.
      masked: scaled0.every((row, i) => row.every((x, j) => (j > i ? x === -Infinity : Number.isFinite(x)))),
      maskedWeights: w1.every((row, i) => row.every((x, j) => j <= i || x === 0)),
    };
  }), cases);
  got.forEach((g, n) => {
    const { input, a, b } = cases[n];
    assert.equal(g.model, 'induction');
    assert.equal(g.layers, 2);
    assert.equal(g.tokens.join(''), input.map((i) => String.fromCharCode(65 + i)).join(''), 'token names are letters');
    assert.deepEqual(g.predicted, input.slice(b + 1, b + 5), `case ${n}: the continuation of the segment at ${a}`);
    const mean = g.induction.reduce((x, y) => x + y, 0) / 4;
    assert.ok(mean >= 0.8, `case ${n}: layer 1 attends the token after the earlier occurrence (mean ${mean})`);
    assert.ok(g.masked, 'scaled is -Infinity exactly above the diagonal');
    assert.ok(g.maskedWeights, 'masked weights are 0');
  });
  await done(page);
});

test('models: the shipped model objects; compute() takes them (and edited copies) as well as names', async () => {
  const page = await apiPage();
  const r = await page.evaluate(() => {
    const { models, compute } = window.A;
    const byName = compute({ mechanism: 'model', model: 'reversal', input: [0, 1, 2, 3, 4, 5] });
    const byObject = compute({ mechanism: 'model', model: structuredClone(models.reversal), input: [0, 1, 2, 3, 4, 5] });
    // The learner's edit: one W_Q value. The weights change, the model object given stays as it was.
    const edited = structuredClone(models.reversal);
    edited.params.layers[0].w_q[0][0] += 5;
    const before = JSON.stringify(edited);
    const after = compute({ mechanism: 'model', model: edited, input: [0, 1, 2, 3, 4, 5] });
    const untouched = JSON.stringify(edited) === before;
    const noTask = structuredClone(models.reversal);
    delete noTask.task; delete noTask.tokens; delete noTask.trained;
    const bare = compute({ mechanism: 'model', model: noTask, input: [7, 7] });
    return {
      keys: Object.keys(models).sort(),
      reversal: { task: models.reversal.task, vocab: models.reversal.vocab, seq_len: models.reversal.seq_len, d_model: models.reversal.d_model, layers: models.reversal.layers, heads: models.reversal.heads, causal: models.reversal.causal, trained: models.reversal.trained },
      induction: { task: models.induction.task, vocab: models.induction.vocab, layers: models.induction.layers, causal: models.induction.causal, trained: models.induction.trained },
      same: JSON.stringify(byName) === JSON.stringify(byObject),
      changed: JSON.stringify(after.layers[0].heads[0].weights) !== JSON.stringify(byName.layers[0].heads[0].weights),
      untouched,
      bare: { model: bare.model, tokens: bare.tokens, n: bare.prediction.length },
      plain: Object.getPrototypeOf(models.reversal) === Object.prototype && JSON.stringify(structuredClone(models.induction)) === JSON.stringify(models.induction),
    };
  });
  assert.deepEqual(r.keys, ['induction', 'reversal']);
  assert.deepEqual(r.reversal, { task: 'reversal', vocab: 10, seq_len: 6, d_model: 8, layers: 1, heads: 1, causal: false, trained: { seed: 0, steps: 1000 } });
  assert.equal(r.induction.task, 'induction');
  assert.equal(r.induction.layers, 2);
  assert.equal(r.induction.causal, true);
  assert.ok(r.same, 'a model object gives the same trace as its name');
  assert.ok(r.changed, 'an edited W_Q changes the weights');
  assert.ok(r.untouched, 'compute() does not change the model object');
  assert.deepEqual(r.bare, { model: null, tokens: ['7', '7'], n: 2 });
  assert.ok(r.plain, 'plain, cloneable JSON');
  await done(page);
});

test('compute({mechanism: "model"}) errors name the field; the module keeps working', async () => {
  const page = await apiPage();
  const r = await page.evaluate(() => {
    const { compute, models } = window.A;
    const bad = (edit) => { const m = structuredClone(models.reversal); edit(m); return m; };
    const configs = {
      unknownName: { mechanism: 'model', model: 'sorting', input: [1] },
      noModel: { mechanism: 'model', input: [1] },
      modelNumber: { mechanism: 'model', model: 3, input: [1] },
      noInput: { mechanism: 'model', model: 'reversal' },
      inputText: { mechanism: 'model', model: 'reversal', input: '314159' },
      tooLong: { mechanism: 'model', model: 'reversal', input: [1, 2, 3, 4, 5, 6, 7] },
      empty: { mechanism: 'model', model: 'reversal', input: [] },
      outOfRange: { mechanism: 'model', model: 'reversal', input: [1, 2, 10] },
      huge: { mechanism: 'model', model: 'reversal', input: [1, 1e15] },
      fraction: { mechanism: 'model', model: 'reversal', input: [1, 2.5] },
      negative: { mechanism: 'model', model: 'reversal', input: [-1] },
      textId: { mechanism: 'model', model: 'reversal', input: [1, '2'] },
      unknownField: { mechanism: 'model', model: 'reversal', input: [1], tokens: ['a'] },
      badRow: { mechanism: 'model', model: bad((m) => m.params.layers[0].w_q[3].pop()), input: [1] },
      nan: { mechanism: 'model', model: bad((m) => { m.params.w_u[0][1] = NaN; }), input: [1] },
      missingVocab: { mechanism: 'model', model: bad((m) => { delete m.vocab; }), input: [1] },
      extraParam: { mechanism: 'model', model: bad((m) => { m.params.bias = []; }), input: [1] },
      cycle: { mechanism: 'model', model: bad((m) => { m.self = m; }), input: [1] },
      getter: Object.defineProperty({ mechanism: 'model', model: 'reversal' }, 'input', { enumerable: true, get() { throw new Error('no input today'); } }),
      proxyInput: { mechanism: 'model', model: 'reversal', input: new Proxy([1, 2], { get(t, k) { if (k === '1') throw 'a thrown string'; return t[k]; } }) },
    };
    const out = {};
    for (const [k, c] of Object.entries(configs)) {
      try { compute(c); out[k] = 'no error'; } catch (e) { out[k] = `${e.constructor.name}: ${e.message}`; }
    }
    out.after = compute({ mechanism: 'model', model: 'reversal', input: [1, 2, 3, 4, 5, 6] }).prediction.join('');
    return out;
  });
  const want = {
    unknownName: /^Error: model: unknown model "sorting"; the shipped models are reversal, induction/,
    noModel: /^Error: model is missing/,
    modelNumber: /^Error: model must be "reversal", "induction" or a model object, got 3$/,
    noInput: /^Error: input is missing: a list of token ids/,
    inputText: /^Error: input must be a list of token ids, got the text "314159"$/,
    tooLong: /^Error: input has 7 tokens; this model reads 1 to 6$/,
    empty: /^Error: input has 0 tokens; this model reads 1 to 6$/,
    outOfRange: /^Error: input\[2\] is 10; token ids go from 0 to 9$/,
    huge: /^Error: input\[1\] is 1000000000000000; token ids go from 0 to 9$/,
    fraction: /^Error: input\[1\] must be a token id \(a whole number ≥ 0\), got 2.5$/,
    negative: /^Error: input\[0\] must be a token id \(a whole number ≥ 0\), got -1$/,
    textId: /^Error: input\[1\] must be a token id \(a whole number ≥ 0\), got the text "2"$/,
    unknownField: /^Error: unknown field "tokens" for mechanism "model"; its fields are mechanism, model, input$/,
    badRow: /^Error: model: params\.layers\[0\]\.w_q row 3 has 7 values, expected 8 \(d_model\)$/,
    nan: /^Error: model: params\.w_u\[0\]\[1\] must be a finite number, got the text "NaN"$/,
    missingVocab: /^Error: model: vocab is missing/,
    extraParam: /^Error: model: unknown field params\."bias"/,
    cycle: /^Error: config could not be read as JSON: Converting circular structure/,
    getter: /^Error: config could not be read: no input today$/,
    proxyInput: /^Error: config could not be read: threw a thrown string$/,
  };
  for (const [k, re] of Object.entries(want)) assert.match(r[k], re, k);
  assert.equal(r.after, '654321');
  await done(page);
});

// ---- train() ------------------------------------------------------------------------------------------------------

test('train({task: "reversal"}) in a worker: 100 % held-out accuracy, bit for bit models.reversal, the main thread left free', async () => {
  const page = await apiPage();
  const seen = watchTraining(page);
  const r = await page.evaluate(pageTrain, { task: 'reversal', every: 5 });
  assert.equal(r.json, r.shipped, 'the trained model is models.reversal, bit for bit');
  assert.deepEqual(r.model.trained, { seed: 0, steps: 1000 });
  const steps = r.reports.map((p) => p.step);
  assert.deepEqual(steps, Array.from({ length: 201 }, (_, i) => i * 5), 'onProgress at step 0 and every 5 steps');
  assert.ok(r.reports.every((p) => p.steps === 1000 && p.modelSteps === p.step), 'each report has the model of its step');
  assert.ok(r.reports[0].accuracy < 0.3, `untrained: ${r.reports[0].accuracy}`);
  assert.equal(r.reports.at(-1).accuracy, 1, 'the last report: 100 % of the held-out positions');
  assert.ok(r.reports.at(-1).loss < 0.01 && r.reports[0].loss > 2, `loss from ${r.reports[0].loss} to ${r.reports.at(-1).loss}`);
  assert.ok(r.firstPerfect !== null && r.firstPerfect <= 1000, `100 % held-out first at step ${r.firstPerfect}`);
  // The main thread stays free because the steps run in the training worker (www/train-worker.js), never in the
  // page's own slices (which say so on the console).
  assert.ok(seen.workers.some((u) => u.endsWith('/www/train-worker.js')), `a training worker started: ${seen.workers.join(', ') || 'none'}`);
  assert.deepEqual(seen.fellBack, [], 'not trained on the main thread');
  console.log(`reversal in the page: 100 % held-out first at step ${r.firstPerfect}`);
  await done(page);
});

test('train(): pause() holds the worker, resume() continues to the same weights; cancel() and an AbortSignal reject with AbortError', async () => {
  const page = await apiPage();
  await page.evaluate(countTraffic);
  // Pause after step 100; the run already asked for may still report once.
  const wasPaused = await page.evaluate(async () => {
    window.seen = [];
    await new Promise((ok) => {
      window.run = window.A.train({ task: 'reversal', every: 10, onProgress: (p) => { seen.push(p.step); if (p.step === 100) { run.pause(); ok(); } } });
    });
    return run.paused;
  });
  // The worker answers every message (www/training.js): once it has answered all it was asked, nothing is in flight.
  await page.waitForFunction(() => workerTraffic.length > 0 && workerTraffic.every((w) => w.sent === w.heard));
  const whilePaused = await page.evaluate(() => seen.filter((s) => s > 100));
  await page.waitForTimeout(300); // only a chance for a report that must not come while paused: nothing is awaited
  const stillPaused = await page.evaluate(() => seen.filter((s) => s > 100));
  const r = await page.evaluate(async ([wasPaused, whilePaused, stillPaused]) => {
    const { train, models } = window.A;
    const { run } = window;
    const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
    run.resume();
    const model = await run;
    const resumed = { same: JSON.stringify(model) === JSON.stringify(models.reversal), last: seen.at(-1), count: seen.length, paused: run.paused };

    // cancel(): rejects with AbortError; no report after it.
    const after = [];
    let cancelled = false;
    const c = train({ task: 'reversal', every: 5, onProgress: (p) => { if (cancelled) after.push(p.step); if (p.step === 50) { c.cancel(); cancelled = true; } } });
    const cancel = await c.then(() => 'resolved', (e) => `${e.name}: ${e.message} (${e instanceof Error})`);
    await sleep(200); // only a chance for a report after the cancel, which must not come: nothing is awaited

    // An AbortSignal, aborted during training and before it.
    const controller = new AbortController();
    const s = train({ task: 'induction', signal: controller.signal, every: 1 });
    setTimeout(() => controller.abort(), 50);
    const signal = await s.then(() => 'resolved', (e) => `${e.name}: ${e.message}`);
    const pre = await train({ task: 'reversal', signal: AbortSignal.abort() }).then(() => 'resolved', (e) => e.name);
    // steps: 0 is the untrained model; a short run ends at its own step.
    const untrained = await train({ task: 'reversal', steps: 0 });
    const reports = [];
    const short = await train({ task: 'reversal', steps: 12, seed: 7, every: 5, onProgress: (p) => reports.push(p.step) });
    return { wasPaused, whilePaused, stillPaused, resumed, cancel, after, signal, pre, untrained: untrained.trained, short: short.trained, reports };
  }, [wasPaused, whilePaused, stillPaused]);
  assert.ok(r.wasPaused, 'paused is true after pause()');
  assert.ok(r.whilePaused.length <= 1, `at most the one run in flight reports after pause(): ${r.whilePaused}`);
  assert.deepEqual(r.stillPaused, r.whilePaused, 'nothing more while paused');
  assert.deepEqual(r.resumed, { same: true, last: 1000, count: 101, paused: false });
  assert.equal(r.cancel, 'AbortError: train: cancelled (true)');
  assert.deepEqual(r.after, []);
  assert.equal(r.signal, 'AbortError: train: cancelled');
  assert.equal(r.pre, 'AbortError');
  assert.deepEqual(r.untrained, { seed: 0, steps: 0 });
  assert.deepEqual(r.short, { seed: 7, steps: 12 });
  assert.deepEqual(r.reports, [0, 5, 10, 12]);
  await done(page);
});

test('train() checks its options: clear messages, thrown at once', async () => {
  const page = await apiPage();
  const r = await page.evaluate(() => {
    const cases = {
      none: undefined,
      text: 'reversal',
      noTask: {},
      unknownTask: { task: 'sorting' },
      seed: { task: 'reversal', seed: -1 },
      seedFraction: { task: 'reversal', seed: 1.5 },
      seedBig: { task: 'reversal', seed: 2 ** 32 },
      steps: { task: 'reversal', steps: '100' },
      stepsNegative: { task: 'reversal', steps: -5 },
      every: { task: 'reversal', every: 0 },
      onProgress: { task: 'reversal', onProgress: 'draw' },
      signal: { task: 'reversal', signal: {} },
      // Without removeEventListener the training's end would throw and leave the promise pending.
      signalLike: { task: 'reversal', signal: { aborted: false, addEventListener() {} } },
      unknown: { task: 'reversal', step: 10 },
    };
    const out = {};
    for (const [k, o] of Object.entries(cases)) {
      try { const p = window.A.train(o); p.cancel(); p.catch(() => {}); out[k] = 'no error'; } catch (e) { out[k] = e.message; }
    }
    return out;
  });
  const want = {
    none: /^train: options must be an object such as \{task: "reversal"\}, got undefined$/,
    text: /^train: options must be an object .*got the string "reversal"$/,
    noTask: /^train: task is missing: one of reversal, induction$/,
    unknownTask: /^train: unknown task the string "sorting"; the tasks are reversal, induction$/,
    seed: /^train: seed must be a whole number from 0 to 2\*\*32 - 1, got -1$/,
    seedFraction: /^train: seed must be .*got 1.5$/,
    seedBig: /^train: seed must be .*got 4294967296$/,
    steps: /^train: steps must be a whole number from 0 to 1000000, got the string "100"$/,
    stepsNegative: /^train: steps must be .*got -5$/,
    every: /^train: every must be a whole number ≥ 1, got 0$/,
    onProgress: /^train: onProgress must be a function, got the string "draw"$/,
    signal: /^train: signal must be an AbortSignal \(or an object with aborted, addEventListener and removeEventListener\), got an object$/,
    signalLike: /^train: signal must be an AbortSignal \(or an object with aborted, addEventListener and removeEventListener\), got an object$/,
    unknown: /^train: unknown option "step"; the options are task, seed, steps, every, onProgress, signal$/,
  };
  for (const [k, re] of Object.entries(want)) assert.match(r[k], re, k);
  await done(page);
});

test('train() always settles: a signal-like object ends cleanly even when it throws, cancel() never throws, a silent worker is refused', async () => {
  const page = await apiPage();
  const r = await page.evaluate(async (wait) => {
    const { train } = window.A;
    const { trainLimits } = await import('/www/train.js');
    // Only a liveness guard, far longer than any of these takes: a promise that never settles fails the test, not hangs it.
    const settled = (p) => Promise.race([p.then((m) => `resolved ${m.trained.steps}`, (e) => `${e.name}: ${e.message}`),
      new Promise((ok) => setTimeout(() => ok('still pending'), wait))]);
    const out = {};
    const calls = [];
    const like = { aborted: false, addEventListener: (t) => calls.push(`add ${t}`), removeEventListener: (t) => calls.push(`remove ${t}`) };
    out.like = await settled(train({ task: 'reversal', steps: 5, signal: like }));
    out.calls = calls;
    const throwing = { aborted: false, addEventListener() {}, removeEventListener() { throw new Error('not today'); } };
    out.throwingEnd = await settled(train({ task: 'reversal', steps: 5, signal: throwing }));
    const c = train({ task: 'reversal', signal: throwing });
    const cancels = [];
    for (let i = 0; i < 2; i++) { try { c.cancel(); cancels.push('ok'); } catch (e) { cancels.push(`threw ${e.message}`); } }
    out.cancelled = await settled(c);
    try { c.cancel(); cancels.push('ok'); } catch (e) { cancels.push(`threw ${e.message}`); }
    out.cancels = cancels;

    // Workers that stop answering: one that never does, one that answers the first message only.
    const Real = window.Worker;
    const made = [];
    trainLimits.silenceMs = 100;
    try {
      for (const answers of [0, 1]) {
        window.Worker = class {
          constructor() { this.posted = 0; this.terminated = false; made.push(this); }
          postMessage() { if (this.posted++ < answers) setTimeout(() => this.onmessage?.({ data: { type: 'ran', step: 0 } })); }
          terminate() { this.terminated = true; }
        };
        out[`silent${answers}`] = await settled(train({ task: 'reversal' }));
      }
    } finally {
      window.Worker = Real;
      trainLimits.silenceMs = 60_000;
    }
    out.silentWorkers = made.map((w) => `${w.posted} posted, terminated ${w.terminated}`);
    out.after = await settled(train({ task: 'reversal', steps: 5 }));
    return out;
  }, WAIT);
  assert.equal(r.like, 'resolved 5', 'an object with aborted, addEventListener and removeEventListener serves as the signal');
  assert.deepEqual(r.calls, ['add abort', 'remove abort']);
  assert.equal(r.throwingEnd, 'resolved 5', 'a signal whose removeEventListener throws does not keep the promise pending');
  assert.deepEqual(r.cancels, ['ok', 'ok', 'ok'], 'cancel() never throws, before or after the end');
  assert.equal(r.cancelled, 'AbortError: train: cancelled');
  assert.equal(r.silent0, 'Error: train: the training worker stopped answering (no message for 0.1 s); it was stopped');
  assert.equal(r.silent1, r.silent0);
  assert.deepEqual(r.silentWorkers, ['1 posted, terminated true', '2 posted, terminated true']);
  assert.equal(r.after, 'resolved 5', 'training works again afterwards');
  await done(page);
});

// ---- the dist builds ----------------------------------------------------------------------------------------------

/** The dist builds, checked to be new enough to have train() (the module build's glue of it: the whole core's chunk). */
function distFile(name) {
  const file = join(DIST, name);
  assert.ok(existsSync(file), `${file} is missing: run \`make dist\` first`);
  const whole = name === 'attention-viz.js' ? readdirSync(DIST).filter((f) => /^attention-viz-whole-[\w-]+\.js$/.test(f)) : [];
  const text = [file, ...whole.map((f) => join(DIST, f))].map((f) => readFileSync(f, 'utf8')).join('');
  assert.ok(text.includes('trainercore_new'), `${file} predates train(): run \`make dist\``);
  return file;
}

/** In the page, with the API at `window.A`: a compute(), then train() of reversal, compared with models.reversal. */
async function distChecks() {
  const A = window.A;
  const t = A.compute({ mechanism: 'model', model: 'reversal', input: [3, 1, 4, 1, 5, 9] });
  const trained = await A.train({ task: 'reversal' });
  return { prediction: t.prediction.join(''), same: JSON.stringify(trained) === JSON.stringify(A.models.reversal), models: Object.keys(A.models).sort().join() };
}

test('the dist module bundle: compute() and train() (the models fetched by loadModels(); train()\'s chunk; the worker from a Blob URL, handed the compiled module: no other request)', async () => {
  distFile('attention-viz.js');
  const { server, url } = await serve({ root: DIST, port: 0 });
  const page = watch(await site.browser.newPage());
  const requests = [];
  page.on('request', (q) => { if (!q.url().startsWith('blob:') && !q.url().startsWith('data:')) requests.push(new URL(q.url()).pathname); });
  try {
    await page.route(`${url}__learn.html`, (route) => route.fulfill({ contentType: 'text/html', body: BLANK }));
    await page.goto(`${url}__learn.html`);
    await page.evaluate(async () => { window.A = await import('/attention-viz.js'); await window.A.loadModels(); });
    const r = await page.evaluate(distChecks);
    assert.deepEqual(r, { prediction: '951413', same: true, models: 'induction,reversal' });
    // train()'s training side is a chunk of the module build, fetched on the first train(); the worker is not. The
    // models need the whole core (its .wasm and its glue's chunk), which the figure core starts before.
    const chunks = requests.filter((p) => /^\/attention-viz-training-[\w-]+\.js$/.test(p));
    assert.equal(chunks.length, 1, `one training chunk: ${requests.join(', ')}`);
    const whole = requests.filter((p) => /^\/attention-viz-whole-[\w-]+\.js$/.test(p));
    assert.equal(whole.length, 1, `one whole core chunk: ${requests.join(', ')}`);
    assert.deepEqual(requests.filter((p) => !chunks.includes(p) && !whole.includes(p)).sort(),
      ['/__learn.html', '/attention-viz.js', '/pkg/attention_viz_bg.wasm', '/pkg/attention_viz_figure.wasm', '/pkg/attention_viz_models.bin']);
    await done(page);
  } finally {
    server.close();
  }
});

test('the dist module bundle without its models file: `ready` and `loadModels()` resolve, the rest works, a named model says why it is missing', async () => {
  distFile('attention-viz.js');
  const { server, url } = await serve({ root: DIST, port: 0 });
  const page = watch(await site.browser.newPage());
  try {
    await page.route(`${url}__learn.html`, (route) => route.fulfill({ contentType: 'text/html', body: BLANK }));
    await page.route(`${url}pkg/attention_viz_models.bin`, (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' }));
    await page.goto(`${url}__learn.html`);
    await page.evaluate(async () => {
      const A = await import('/attention-viz.js');
      await A.loadModels(); // resolves: a missing file is said where a model is used
      const el = document.createElement('attention-viz');
      el.id = 'named';
      el.setAttribute('config', JSON.stringify({ mechanism: 'model', model: 'reversal', input: [3, 1, 4, 1, 5, 9] }));
      document.body.append(el);
    });
    // The figure says why once it has loaded: wait for that, however late.
    await page.waitForFunction(() => /could not be loaded/.test(document.getElementById('named').shadowRoot?.textContent ?? ''));
    const r = await page.evaluate(async () => {
      const A = await import('/attention-viz.js');
      const error = (f) => { try { f(); return 'no error'; } catch (e) { return `${e.constructor.name}: ${e.message}`; } };
      const model = { mechanism: 'model', model: 'reversal', input: [3, 1, 4, 1, 5, 9] };
      const el = document.getElementById('named');
      return {
        weights: A.compute(A.presets['seed-001']).weights.length,
        names: Object.keys(A.models).sort().join(),
        named: error(() => A.compute(model)),
        read: error(() => A.models.induction),
        element: el.shadowRoot.textContent,
        trained: (await A.train({ task: 'reversal', steps: 25 })).trained.steps,
      };
    });
    const why = `could not be loaded: fetching ${url}pkg/attention_viz_models.bin failed: 404 Not Found`;
    assert.equal(r.weights, 4);
    assert.equal(r.names, 'induction,reversal');
    assert.equal(r.named, `Error: model: the shipped model "reversal" ${why}`);
    assert.equal(r.read, `Error: attention-viz: the shipped model "induction" ${why}`);
    assert.ok(r.element.includes(`the shipped model "reversal" ${why}`), `the figure says why: ${r.element}`);
    assert.equal(r.trained, 25, 'train() needs no shipped model');
    // The 404 itself is the only console error.
    assert.deepEqual(page.errors.filter((e) => !/404/.test(e)), []);
    await page.close();
  } finally {
    server.close();
  }
});

test('the single-file build from file://: compute() and train() without any request', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'attention-viz-learn-'));
  try {
    cpSync(distFile('attention-viz.inline.js'), join(dir, 'attention-viz.inline.js'));
    writeFileSync(join(dir, 'index.html'), `${BLANK}<script src="attention-viz.inline.js"></script>`);
    const page = watch(await site.browser.newPage());
    const requests = [];
    page.on('request', (q) => { if (!/^(blob|data):/.test(q.url())) requests.push(q.url().slice(q.url().lastIndexOf('/') + 1)); });
    await page.goto(pathToFileURL(join(dir, 'index.html')).href);
    await page.evaluate(async () => { window.A = window.AttentionViz; await window.A.loadModels(); });
    const r = await page.evaluate(distChecks);
    assert.deepEqual(r, { prediction: '951413', same: true, models: 'induction,reversal' });
    assert.deepEqual(requests.sort(), ['attention-viz.inline.js', 'index.html']);
    await done(page);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("under the strict CSP: www/'s module worker trains; the dist bundle, refused a blob: worker, trains on the main thread in short slices", async () => {
  distFile('attention-viz.js');
  for (const [root, module, worker] of [[ROOT, '/www/attention-viz.js', true], [DIST, '/attention-viz.js', false]]) {
    const { server, url } = await serve({ root, port: 0, csp: true });
    const page = watch(await site.browser.newPage());
    const warnings = [];
    page.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
    const seen = watchTraining(page);
    try {
      await page.route(`${url}__learn.html`, (route) => route.fulfill({ contentType: 'text/html', body: BLANK, headers: { 'Content-Security-Policy': CSP } }));
      await page.goto(`${url}__learn.html`);
      await page.evaluate(async (m) => { window.A = await import(m); await window.A.loadModels(); }, module);
      const r = await page.evaluate(pageTrain, { task: 'reversal', every: 25 });
      assert.equal(r.json, r.shipped, `${module}: models.reversal, bit for bit`);
      assert.equal(r.reports.at(-1).accuracy, 1);
      // The worker keeps the main thread free (the main-thread slices' lengths are bench/learn.mjs's to report).
      if (worker) assert.ok(seen.workers.some((u) => u.endsWith('/www/train-worker.js')), `${module}: a training worker started (${seen.workers.join(', ') || 'none'})`);
      const fellBack = warnings.filter((w) => w.includes('training on the main thread'));
      if (worker) {
        assert.deepEqual(fellBack, [], 'www/ trains in its module worker');
        await done(page);
      } else {
        assert.equal(fellBack.length, 1, `one warning: ${warnings.join(' | ')}`);
        assert.match(fellBack[0], /worker-src blob:/);
        // The browser's own report of the refused worker is the page's only console error.
        assert.ok(page.errors.length === 1 && /Content Security Policy/.test(page.errors[0]), page.errors.join(' | '));
        await page.close();
      }
    } finally {
      server.close();
    }
  }
});

test("under Trusted Types (require-trusted-types-for 'script'; trusted-types attention-viz): www/'s module worker and the dist bundle's blob: worker train", async () => {
  distFile('attention-viz.js');
  // The strict CSP with blob: workers allowed (the dist bundle's worker), Trusted Types required and the library's policy
  // named, as README "Trained models" tells authors to write it.
  const trusted = `${CSP}; worker-src 'self' blob:; require-trusted-types-for 'script'; trusted-types attention-viz`;
  for (const [root, module, workerURL] of [[ROOT, '/www/attention-viz.js', /\/www\/train-worker\.js$/], [DIST, '/attention-viz.js', /^blob:/]]) {
    const { server, url } = await serve({ root, port: 0 });
    const page = watch(await site.browser.newPage());
    const seen = watchTraining(page);
    try {
      await page.route(`${url}__learn.html`, (route) => route.fulfill({ contentType: 'text/html', body: BLANK, headers: { 'Content-Security-Policy': trusted } }));
      await page.goto(`${url}__learn.html`);
      await page.evaluate(async (m) => { window.A = await import(m); await window.A.loadModels(); }, module);
      const r = await page.evaluate(async () => {
        const model = await window.A.train({ task: 'reversal', steps: 50 });
        return { steps: model.trained.steps, trustedTypes: typeof window.trustedTypes };
      });
      assert.equal(r.trustedTypes, 'object', 'the browser has Trusted Types');
      assert.equal(r.steps, 50, `${module}: trained`);
      assert.ok(seen.workers.some((u) => workerURL.test(u)), `${module}: a training worker started (${seen.workers.join(', ') || 'none'})`);
      assert.deepEqual(seen.fellBack, [], `${module}: not trained on the main thread`);
      await done(page);
    } finally {
      server.close();
    }
  }
});
