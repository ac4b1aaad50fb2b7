// The public JS API (www/attention-viz.js) in headless Chromium: compute()
// against the seed documents, RandomState against NumPy, and malformed configs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, fixture } from './harness.mjs';

let site, page;
const seeds = fixture('seed-values.json');

before(async () => {
  site = await open();
  page = await site.page('tests/fixtures/blank.html');
  await page.evaluate(async () => {
    window.av = await import('/www/attention-viz.js');
    await window.av.ready;
  });
});
after(() => site.close());

const close = (got, want, rel = 1e-12) => {
  if (Array.isArray(want)) {
    assert.equal(got.length, want.length);
    want.forEach((w, i) => close(got[i], w, rel));
  } else {
    assert.ok(Math.abs(got - want) <= rel * Math.abs(want), `got ${got}, want ${want}`);
  }
};

test('presets are exported and compute() reproduces document 001', async () => {
  const { names, trace } = await page.evaluate(() => ({ names: Object.keys(av.presets), trace: av.compute(av.presets['seed-001']) }));
  assert.deepEqual(names, ['seed-000', 'seed-001', 'seed-002', 'seed-003']);
  const r = seeds.seed_000_001;
  assert.deepEqual(trace.q, r.Q);
  assert.deepEqual(trace.scores, r.scores);
  close(trace.weights, r.weights);
  close(trace.context, r.attention);
  assert.equal(trace.scale, Math.sqrt(3));
  assert.equal(trace.query.index, 0);
  close(trace.query.context, seeds.seed_000_single_word.attention);
});

test('compute() reproduces documents 002 and 003', async () => {
  const [t2, t3] = await page.evaluate(() => [av.compute(av.presets['seed-002']), av.compute(av.presets['seed-003'])]);
  close(t2.weights, seeds.seed_002.weights);
  close(t2.context, seeds.seed_002.contexts);
  assert.equal(t2.query.index, 1);
  const s = seeds.seed_003.stable_softmax;
  assert.deepEqual(t3.scores, [927, 397, 148, 929]);
  close(t3.weights, s.weights);
  close(t3.applied, s.applied_attention);
  close(t3.context, s.context_vector);
});

test('RandomState equals NumPy for the shared vectors', async () => {
  const got = await page.evaluate(() => {
    const rs = new av.RandomState(42);
    const w = [rs.randint(3, null, [3, 3]), rs.randint(3, null, [3, 3]), rs.randint(3, null, [3, 3])];
    const one = rs.randint(3);
    const a = rs.randint(0, 100, 12);
    const fresh = new av.RandomState(42);
    return { w, one, a, rand: fresh.rand(8), randn: new av.RandomState(42).randn(2, 2), scalar: new av.RandomState(42).rand() };
  });
  const seq = fixture('numpy-random-vectors.json').seeds['42'];
  assert.deepEqual(got.w, seq.script_sequence_fresh_seed.slice(0, 3).map((c) => c.result));
  assert.equal(got.one, 2);
  assert.deepEqual(got.a, seq.script_sequence_fresh_seed[4].result);
  assert.deepEqual(got.rand, seq.fresh_seed_each['rand(8)'].map(Number));
  assert.deepEqual(got.randn, [seq.fresh_seed_each['randn(8)'].slice(0, 2).map(Number), seq.fresh_seed_each['randn(8)'].slice(2, 4).map(Number)]);
  assert.equal(got.scalar, 0.3745401188473625);
});

test('every malformed config throws a clear Error and the module keeps working', async () => {
  const { cases } = fixture('malformed-configs.json');
  const results = await page.evaluate((cases) => cases.map((c) => {
    let message = null;
    try { av.compute(c.config); } catch (e) { message = e instanceof Error ? e.message : `not an Error: ${e}`; }
    const after = av.compute(av.presets['seed-000']).query.context[0];
    return { name: c.name, message, after };
  }), cases);
  assert.ok(results.length >= 30);
  for (const [i, r] of results.entries()) {
    assert.ok(r.message && r.message.includes(cases[i].error), `${r.name}: ${r.message}`);
    assert.equal(r.after, 0.9852202489021356, `${r.name}: module unusable afterwards`);
  }
});

test('JS-only bad values: NaN, Infinity, 1e400, cycles, undefined', async () => {
  const results = await page.evaluate(() => {
    const cyclic = { embeddings: [[1]] }; cyclic.self = cyclic;
    const bad = [
      { embeddings: [[1, NaN]] }, { embeddings: [[Infinity]] }, { embeddings: [[1e400, 0]] }, { embeddings: [[-Infinity]] },
      cyclic, undefined, null, [], 'not json', { embeddings: [[1e200, 1], [1, 1e200]] }, { embeddings: [[1, 2]], query: NaN },
    ];
    return bad.map((c) => { try { av.compute(c); return null; } catch (e) { return e.message; } })
      .concat([av.compute({ embeddings: [[1, 0], [0, 1]] }).scores]);
  });
  const expected = ['row 0, column 1 is NaN', 'row 0, column 0 is Infinity', 'row 0, column 0 is Infinity', 'is -Infinity',
    'could not be read as JSON', 'config must be an object, got undefined', 'config must be an object, got null',
    'config must be an object, got a list of 0 items', 'config must be an object, got the text "not json"', 'overflowed to inf', 'query must be a token index'];
  expected.forEach((want, i) => assert.ok(results[i] && results[i].includes(want), `${i}: ${results[i]}`));
  assert.deepEqual(results.at(-1), [[1, 0], [0, 1]]);
});



test('a forced internal error (Rust panic) is reported and leaves the next compute() correct', async () => {
  const r = await page.evaluate(() => {
    const logged = [];
    const original = console.error;
    console.error = (...a) => { logged.push(a.join(' ')); };
    let message = null;
    try { av._internal.forceInternalError(); } catch (e) { message = e.message; }
    console.error = original;
    const after = av.compute(av.presets['seed-003']).weights;
    const rs = new av.RandomState(42).randint(3, null, [3, 3]);
    return { message, logged, after, rs };
  });
  assert.match(r.message, /^attention-viz internal error: .*forced internal error/s);
  assert.ok(r.logged.some((l) => l.includes('forced internal error')), 'the panic hook reports to the console');
  assert.deepEqual(r.after.map((x) => Number(x.toPrecision(12))), [0.119202922022, 7.94715150796e-232, 0, 0.880797077978]);
  assert.deepEqual(r.rs, [[2, 0, 2], [2, 0, 0], [2, 1, 2]]);
});

test('no errors reached the console', () => {
  assert.deepEqual(page.errors, []);
});
