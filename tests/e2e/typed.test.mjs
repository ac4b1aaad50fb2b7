// compute(config, {arrays: "typed"}) in headless Chromium (www/attention-viz.js): the same trace as the nested form
// with every vector and matrix as {shape, data: Float64Array}, bit for bit, on both of compute()'s paths (the flat one
// for clean configs, the JSON one for the rest) and for every mechanism; the values against the fixtures' goldens
// (NumPy); bad options refused with a TypeError; data that outlives the next call; the trace on request (`fields`)
// and views over WASM memory (`arrays: "views"`).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, done, fixture } from './harness.mjs';

let site, page;
const seeds = fixture('seed-values.json');
const variants = fixture('variant-goldens.json').cases;
const weights = fixture('weights-goldens.json').cases;
const learned = fixture('learn-goldens.json');

before(async () => {
  site = await open();
  page = await site.page('tests/fixtures/blank.html');
  await page.evaluate(async () => {
    window.av = await import('/www/attention-viz.js');
    await window.av.loadModels();
    /**
     * The first difference between a nested trace and its typed twin, or null: the same keys at every level, and
     * where the nested one has a rectangular list of numbers, the typed one has exactly {shape, data} with that
     * shape and a Float64Array of its own holding the same values bit for bit (Object.is: NaN, -0, ±Infinity).
     */
    window.typedDiff = (nested, typed, path = 'trace') => {
      const shapeOf = (x) => {
        const shape = [];
        for (; Array.isArray(x); x = x[0]) shape.push(x.length);
        return typeof x === 'number' ? shape : null;
      };
      if (Array.isArray(nested) && shapeOf(nested)) {
        if (!typed || typeof typed !== 'object' || Object.keys(typed).join() !== 'shape,data') return `${path}: not {shape, data}`;
        if (!(typed.data instanceof Float64Array)) return `${path}: data is not a Float64Array`;
        if (typed.data.byteOffset !== 0 || typed.data.buffer.byteLength !== typed.data.byteLength) return `${path}: data shares its buffer`;
        if (JSON.stringify(typed.shape) !== JSON.stringify(shapeOf(nested))) return `${path}: shape ${typed.shape}, nested ${shapeOf(nested)}`;
        const flat = nested.flat(Infinity);
        if (flat.length !== typed.data.length) return `${path}: ${typed.data.length} values, nested ${flat.length}`;
        for (let k = 0; k < flat.length; k++) if (!Object.is(flat[k], typed.data[k])) return `${path}[${k}]: ${typed.data[k]}, nested ${flat[k]}`;
        return null;
      }
      if (nested !== null && typeof nested === 'object') {
        if (typed === null || typeof typed !== 'object') return `${path}: not an object`;
        if (Array.isArray(nested) !== Array.isArray(typed)) return `${path}: list ≠ object`;
        const a = Object.keys(nested).join(), b = Object.keys(typed).join();
        if (a !== b) return `${path}: keys ${b}, nested ${a}`;
        for (const k of Object.keys(nested)) { const d = window.typedDiff(nested[k], typed[k], `${path}.${k}`); if (d) return d; }
        return null;
      }
      return Object.is(nested, typed) ? null : `${path}: ${typed}, nested ${nested}`;
    };
    /** A typed field's values at [i][j] (or [i] for a vector). */
    window.at = (f, i, j) => (f.shape.length === 1 ? f.data[i] : f.data[i * f.shape[1] + j]);
    /** A config the fast path does not take (not a plain object): compute() sends it as JSON. */
    window.notClean = (config) => Object.assign(Object.create({ inherited: true }), config);
    /** The differences between nested and typed on compute()'s two paths (and the test hook's JSON path). */
    window.bothPaths = (name, config) => {
      const out = [];
      const runs = [
        ['fast', (o) => av.compute(config, o), true],
        ['json', (o) => av.compute(notClean(config), o), false],
        ['hook', (o) => av._internal.computeViaJson(config, o), null],
      ];
      for (const [path, run, fast] of runs) {
        if (fast !== null && config.mechanism !== 'model' && Boolean(av._internal.flatConfig(path === 'json' ? notClean(config) : config)) !== fast) {
          out.push(`${name} ${path}: not the path meant`);
        }
        const d = typedDiff(run(), run({ arrays: 'typed' }));
        if (d) out.push(`${name} ${path}: ${d}`);
      }
      return out;
    };
  });
});
after(async () => {
  await done(page);
  await site.close();
});

test('the seed presets: typed equals nested bit for bit on both paths, and the typed values are the documents\'', async () => {
  const { bad, t1, t2, t3 } = await page.evaluate(() => {
    const bad = Object.entries(av.presets).flatMap(([name, c]) => bothPaths(name, c));
    const typed = (name) => av.compute(av.presets[name], { arrays: 'typed' });
    return { bad, t1: typed('seed-001'), t2: typed('seed-002'), t3: typed('seed-003') };
  });
  assert.deepEqual(bad, []);
  // The documents' numbers (NumPy), read from the typed form: row-major, shape [n, m].
  const rows = (f) => Array.from({ length: f.shape[0] }, (_, i) => Array.from(f.data.slice(i * f.shape[1], (i + 1) * f.shape[1])));
  const close = (got, want) => got.flat().forEach((x, k) => assert.ok(Math.abs(x - want.flat()[k]) <= 1e-12 * Math.abs(want.flat()[k]), `${x} vs ${want.flat()[k]}`));
  const r = seeds.seed_000_001;
  assert.deepEqual(rows(t1.q), r.Q);
  assert.deepEqual(rows(t1.scores), r.scores);
  close(rows(t1.weights), r.weights);
  close(rows(t1.context), r.attention);
  close(Array.from(t1.query.context.data), seeds.seed_000_single_word.attention);
  assert.equal(t1.scale, Math.sqrt(3));
  assert.equal(t1.query.index, 0);
  assert.equal(t1.mechanism, 'self');
  close(rows(t2.weights), seeds.seed_002.weights);
  // Document 003 is cross-attention: vectors are shape [m].
  assert.deepEqual(t3.scores.shape, [4]);
  assert.deepEqual(Array.from(t3.scores.data), [927, 397, 148, 929]);
  close(Array.from(t3.weights.data), seeds.seed_003.stable_softmax.weights);
  close(Array.from(t3.context.data), seeds.seed_003.stable_softmax.context_vector);
});

test('heads, masks, valid_lens, masked rows, scorings: typed equals nested on every variant, and NumPy\'s goldens', async () => {
  const bad = await page.evaluate((cases) => {
    const number = (x) => (x === 'NaN' ? NaN : x === '-Infinity' ? -Infinity : x === 'Infinity' ? Infinity : x);
    const pick = (t, name) => name.split('.').reduce((o, k) => (o == null ? undefined : o[/^\d+$/.test(k) ? Number(k) : k]), t);
    const out = [];
    for (const c of cases) {
      out.push(...bothPaths(c.name, c.config));
      const t = av.compute(c.config, { arrays: 'typed' });
      for (const [name, want] of Object.entries(c.expect)) {
        const got = pick(t, name);
        const w = [want].flat(2).map(number);
        if (!got || !(got.data instanceof Float64Array)) { out.push(`${c.name} ${name}: not typed`); continue; }
        if (got.data.length !== w.length) { out.push(`${c.name} ${name}: ${got.data.length} values, want ${w.length}`); continue; }
        got.data.forEach((x, k) => {
          const y = w[k];
          const ok = Number.isFinite(y) ? Math.abs(x - y) <= 1e-12 * Math.max(Math.abs(y), 1e-300) : Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y));
          if (!ok) out.push(`${c.name} ${name}[${k}]: ${x}, want ${y}`);
        });
      }
    }
    return out;
  }, variants);
  assert.ok(variants.some((c) => c.config.heads > 1 && c.config.mask));
  assert.deepEqual(bad.slice(0, 10), []);
});

test('a model\'s weights: the stack [layers, heads, n, m] and summary.* typed, equal to nested and NumPy\'s summaries', async () => {
  const bad = await page.evaluate((cases) => {
    const out = [];
    for (const c of cases) {
      const config = { mechanism: 'weights', attention: c.attention };
      out.push(...bothPaths(c.name, config));
      const t = av.compute(config, { arrays: 'typed' });
      if (JSON.stringify(t.attention.shape) !== JSON.stringify(c.shape)) out.push(`${c.name}: shape ${t.attention.shape}, want ${c.shape}`);
      if (t.tokens.length !== c.shape[2] || t.key_tokens.length !== c.shape[3]) out.push(`${c.name}: tokens are not lists of names`);
      for (const [key, want] of Object.entries(c.summary)) {
        const w = want.flat();
        if (JSON.stringify(t.summary[key].shape) !== JSON.stringify([want.length, want[0].length])) out.push(`${c.name} summary.${key}: shape`);
        t.summary[key].data.forEach((x, k) => {
          if (!(Math.abs(x - w[k]) <= 1e-12 * Math.max(Math.abs(w[k]), 1))) out.push(`${c.name} summary.${key}[${k}]: ${x}, want ${w[k]}`);
        });
      }
    }
    return out;
  }, weights);
  assert.deepEqual(bad, []);
});

test('a trained model (mechanism "model"): typed equals nested, names stay names, and the values are NumPy\'s', async () => {
  const golden = learned.reversal.find((c) => JSON.stringify(c.input) === '[3,1,4,1,5,9]');
  assert.ok(golden, 'learn-goldens.json has reversal on [3, 1, 4, 1, 5, 9]');
  const { bad, t } = await page.evaluate(() => {
    const config = { mechanism: 'model', model: 'reversal', input: [3, 1, 4, 1, 5, 9] };
    const induction = { mechanism: 'model', model: 'induction', input: [7, 3, 12, 0, 5, 9, 1, 14, 3, 12, 0, 5, 9, 2, 11, 6] };
    const bad = [];
    for (const [name, c] of [['reversal', config], ['induction', induction], ['model object', { ...config, model: av.models.reversal }]]) {
      const d = typedDiff(av.compute(c), av.compute(c, { arrays: 'typed' }));
      if (d) bad.push(`${name}: ${d}`);
    }
    return { bad, t: av.compute(config, { arrays: 'typed' }) };
  });
  assert.deepEqual(bad, []);
  assert.equal(t.mechanism, 'model');
  assert.equal(t.model, 'reversal');
  assert.ok(t.tokens.every((s) => typeof s === 'string'));
  assert.deepEqual(t.input.shape, [6]);
  assert.deepEqual(Array.from(t.prediction.data), golden.prediction);
  assert.deepEqual(t.logits.shape, [golden.logits.length, golden.logits[0].length]);
  Array.from(t.logits.data).forEach((x, k) => {
    const y = golden.logits.flat()[k];
    assert.ok(Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(y), 1), `logits[${k}]: ${x} vs ${y}`);
  });
  const w = t.layers[0].heads[0].weights;
  assert.deepEqual(w.shape, [6, 6]);
});

test('with one head, heads[0]\'s fields are the top-level ones\' (typed: one data; nested: one list), naive_weights weights\' when equal', async () => {
  const r = await page.evaluate((variantsH2) => {
    const c = av.presets['seed-001'];
    const names = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'context'];
    // One n × n field read from one place is built once (nested: 3 lists instead of 7 at one head).
    const check = (t, nt) => ({
      shared: names.every((k) => t[k].data === t.heads[0][k].data && t[k] !== t.heads[0][k])
        && t.naive_weights.data === t.weights.data && t.naive_weights !== t.weights,
      nested: names.every((k) => nt[k] === nt.heads[0][k]) && nt.naive_weights === nt.weights,
    });
    // The overflow lesson: the naive softmax's rows differ from the stable ones, so they are fields of their own.
    const lesson = av.presets['seed-003'];
    const [lt, ln] = [av.compute(lesson, { arrays: 'typed' }), av.compute(lesson)];
    const json = (o) => av.compute(notClean(c), o);
    const several = av.compute(variantsH2, { arrays: 'typed' });
    return {
      fast: check(av.compute(c, { arrays: 'typed' }), av.compute(c)),
      json: check(json({ arrays: 'typed' }), json()),
      several: several.heads[0].weights.data !== several.heads[1].weights.data && !('weights' in several),
      lesson: lt.naive_weights.data !== lt.weights.data && ln.naive_weights !== ln.weights && Number.isNaN(ln.naive_weights.flat().find((x) => !Number.isFinite(x))),
    };
  }, variants.find((c) => c.name === 'heads2').config);
  assert.deepEqual(r, { fast: { shared: true, nested: true }, json: { shared: true, nested: true }, several: true, lesson: true });
});

test('the default is the nested form: no options, undefined, null, {} and {arrays: "nested"} give the same trace', async () => {
  const same = await page.evaluate(() => {
    const c = av.presets['seed-001'];
    const want = JSON.stringify(av.compute(c));
    return [undefined, null, {}, { arrays: undefined }, { arrays: 'nested' }].map((o) => JSON.stringify(av.compute(c, o)) === want);
  });
  assert.deepEqual(same, [true, true, true, true, true]);
});

test('bad options throw a TypeError naming the option and the allowed values; the module keeps working', async () => {
  const results = await page.evaluate(() => {
    const c = av.presets['seed-000'];
    const tries = [
      { arrays: 'flat' }, { arrays: 'Typed' }, { arrays: true }, { array: 'typed' }, { arrays: 'typed', copy: false },
      'typed', 1, ['typed'], { get arrays() { throw new Error('boom'); } },
    ];
    return tries.map((o) => {
      let got;
      try { av.compute(c, o); got = 'no error'; } catch (e) { got = `${e.constructor.name}: ${e.message}`; }
      let model;
      try { av.compute({ mechanism: 'model', model: 'reversal', input: [1] }, o); model = 'no error'; } catch (e) { model = `${e.constructor.name}: ${e.message}`; }
      return { got, model, after: av.compute(c).query.context[0] };
    });
  });
  const want = [
    'TypeError: compute: options.arrays must be "nested" or "typed" or "views", got the string "flat"',
    'TypeError: compute: options.arrays must be "nested" or "typed" or "views", got the string "Typed"',
    'TypeError: compute: options.arrays must be "nested" or "typed" or "views", got true',
    'TypeError: compute: unknown option "array"; the options are: arrays ("nested" or "typed" or "views"), fields (a list of trace field names)',
    'TypeError: compute: unknown option "copy"; the options are: arrays ("nested" or "typed" or "views"), fields (a list of trace field names)',
    'TypeError: compute: options must be an object such as {arrays: "typed"}, got the string "typed"',
    'TypeError: compute: options must be an object such as {arrays: "typed"}, got 1',
    'TypeError: compute: options must be an object such as {arrays: "typed"}, got an array',
    'TypeError: compute: options could not be read: boom',
  ];
  assert.deepEqual(results.map((r) => r.got), want);
  assert.deepEqual(results.map((r) => r.model), want, 'the model path checks the options the same way');
  for (const r of results) assert.equal(r.after, 0.9852202489021356);
});

test('typed data is a copy: it survives the next compute() calls, memory growth included', async () => {
  const r = await page.evaluate(() => {
    const rs = new av.RandomState(3);
    const small = { embeddings: rs.randn(8, 4), w_q: rs.randn(4, 4), w_k: rs.randn(4, 4), w_v: rs.randn(4, 4) };
    const t = av.compute(small, { arrays: 'typed' });
    const json = av.compute(notClean(small), { arrays: 'typed' });
    const before = [Array.from(t.weights.data), Array.from(t.heads[0].context.data), Array.from(json.weights.data)];
    // Bigger computations: the core reuses and grows its memory (n = 768 needs more than the page started with).
    for (const n of [64, 768]) {
      const big = { embeddings: rs.randn(n, 64), w_q: rs.randn(64, 64), w_k: rs.randn(64, 64), w_v: rs.randn(64, 64) };
      av.compute(big, { arrays: 'typed' });
      av.compute(big);
    }
    av.compute({ mechanism: 'model', model: 'induction', input: [1, 2, 3] }, { arrays: 'typed' });
    const afterwards = [Array.from(t.weights.data), Array.from(t.heads[0].context.data), Array.from(json.weights.data)];
    return { same: JSON.stringify(before) === JSON.stringify(afterwards), length: t.weights.data.length, fresh: JSON.stringify(av.compute(small).weights.flat()) === JSON.stringify(before[0]) };
  });
  assert.equal(r.length, 64);
  assert.ok(r.same, 'typed data changed after later calls');
  assert.ok(r.fresh, 'the same config computed again gives the same weights');
});

test('compute()\'s JSON path and the typed form free what the core holds: WASM memory does not grow over repeated calls', async () => {
  const mb = await page.evaluate(async () => {
    const memory = (await (await import('/www/pkg/attention_viz.js')).default()).memory;
    const rs = new av.RandomState(1);
    const config = { embeddings: rs.randn(200, 32), w_q: rs.randn(32, 32), w_k: rs.randn(32, 32), w_v: rs.randn(32, 32) };
    const runs = () => {
      av.compute(notClean(config));
      av.compute(notClean(config), { arrays: 'typed' });
      av.compute(config, { arrays: 'typed' });
      try { av.compute(notClean({ ...config, tokens: [] })); } catch { /* refused */ }
    };
    for (let i = 0; i < 3; i++) runs();
    const before = memory.buffer.byteLength;
    for (let i = 0; i < 40; i++) runs();
    return [before, memory.buffer.byteLength];
  });
  assert.equal(mb[1], mb[0]);
});

test('fields: the trace holds the fields asked for, each the full trace\'s bit for bit, on both paths', async () => {
  const r = await page.evaluate((multi) => {
    const modern = { ...av.presets['seed-001'], mask: 'causal', decode_step: 2, tiles: [2, 2], position: { kind: 'alibi' } };
    const configs = { 'seed-001': av.presets['seed-001'], modern, multi, cross: av.presets['seed-003'],
      weights: { attention: [[[0.5, 0.5], [0.25, 0.75]]] } };
    const out = [];
    for (const [name, c] of Object.entries(configs)) {
      for (const run of [(o) => av.compute(c, o), (o) => av.compute(notClean(c), o)]) {
        const full = run();
        const always = Object.keys(full).filter((k) => ['mechanism', 'scale', 'tokens', 'key_tokens'].includes(k));
        for (const field of Object.keys(full).filter((k) => !always.includes(k))) {
          const one = run({ fields: [field] });
          const keys = Object.keys(one).sort().join();
          if (keys !== [...always, field].sort().join()) out.push(`${name} ${field}: keys ${keys}`);
          if (JSON.stringify(one[field]) !== JSON.stringify(full[field])) out.push(`${name} ${field}: values differ`);
          // flash.steps' typed vectors are views of one buffer for every step (flashSteps): not typedDiff's own-buffer form.
          if (field !== 'flash' && typedDiff(one[field], run({ fields: [field], arrays: 'typed' })[field])) out.push(`${name} ${field}: typed differs`);
        }
        const none = run({ fields: [] });
        if (Object.keys(none).sort().join() !== always.sort().join()) out.push(`${name} []: keys ${Object.keys(none)}`);
      }
    }
    return out;
  }, variants.find((c) => c.name === 'heads2').config);
  assert.deepEqual(r, []);
});

test('arrays "views": each field a view of WASM memory holding the typed values, shared between heads[0] and the top', async () => {
  const r = await page.evaluate(() => {
    const c = av.presets['seed-001'];
    const typed = av.compute(c, { arrays: 'typed' });
    const views = av.compute(c, { arrays: 'views', fields: ['weights', 'context', 'heads', 'naive_weights'] });
    const same = ['weights', 'context', 'naive_weights'].every((k) => typedDiff(
      Array.from({ length: typed[k].shape[0] }, (_, i) => Array.from(typed[k].data.subarray(i * typed[k].shape[1], (i + 1) * typed[k].shape[1]))),
      { shape: views[k].shape, data: views[k].data.slice() }) === null);
    return {
      same,
      inMemory: views.weights.data.buffer.byteLength > views.weights.data.byteLength,
      shared: views.heads[0].weights.data === views.weights.data && views.naive_weights.data === views.weights.data,
      keys: Object.keys(views).sort().join(),
      // A cross trace's query holds its masks, no index (only self-attention follows a query).
      crossQuery: Object.keys(av.compute(av.presets['seed-003'], { arrays: 'views' }).query).join(),
    };
  });
  assert.deepEqual(r, { same: true, inMemory: true, shared: true, keys: 'context,heads,mechanism,naive_weights,scale,weights', crossQuery: 'masked' });
});

test('bad fields: the core\'s message, naming the closest field; a model\'s trace comes whole', async () => {
  const r = await page.evaluate(() => {
    const c = av.presets['seed-000'];
    const model = { mechanism: 'model', model: 'reversal', input: [1] };
    const message = (f) => { try { f(); return 'no error'; } catch (e) { return `${e.constructor.name}: ${e.message}`; } };
    return [
      message(() => av.compute(c, { fields: ['wieghts'] })),
      message(() => av.compute(c, { fields: 'weights' })),
      message(() => av.compute(c, { fields: [1] })),
      message(() => av.compute(model, { fields: ['weights'] })),
      av.compute(c).query.context[0],
    ];
  });
  assert.match(r[0], /^Error: compute: options\.fields: a trace has no field "wieghts" \(did you mean "weights"\?\); its fields are q, k, v, scores, /);
  assert.equal(r[1], 'Error: compute: options.fields must be a list of trace field names such as ["weights", "context"], got "weights"');
  assert.equal(r[2], 'Error: compute: options.fields must be a list of trace field names such as ["weights", "context"], got [1]');
  assert.match(r[3], /^Error: compute: options\.fields picks the fields of an attention trace; a trained model's trace/);
  assert.equal(r[4], 0.9852202489021356);
});
