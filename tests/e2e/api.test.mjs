// The public JS API (www/attention-viz.js) in headless Chromium: compute()
// against the seed documents, RandomState against NumPy, and malformed configs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, done, fixture, pageHelpers } from './harness.mjs';

let site, page;
const seeds = fixture('seed-values.json');

before(async () => {
  site = await open();
  page = await site.page('tests/fixtures/blank.html');
  await page.evaluate(async () => {
    window.av = await import('/www/attention-viz.js');
    await window.av.ready;
    // The golden tests' readers: a fixture number ("NaN", "±Infinity" as text), a trace field by the fixture's dotted
    // name (heads.1.weights → trace.heads[1].weights), and agreement within 1e-12 relative (non-finite: identical).
    window.G = {
      number: (x) => (x === 'NaN' ? NaN : x === '-Infinity' ? -Infinity : x === 'Infinity' ? Infinity : x),
      pick: (t, name) => name.split('.').reduce((o, k) => (o == null ? undefined : o[/^\d+$/.test(k) ? Number(k) : k]), t),
      same: (x, y) => (Number.isFinite(y) ? Math.abs(x - y) <= 1e-12 * Math.max(Math.abs(y), 1e-300) : Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y))),
    };
  });
  await page.evaluate(pageHelpers);
});
after(async () => {
  // Whatever order the tests ran in, the shared page's console is checked once they are done (the test "no errors
  // reached the console" below checks its own page, so it means the same run alone).
  const errors = page ? [...page.errors] : [];
  await site.close();
  assert.deepEqual(errors, [], 'console errors / uncaught page errors on the shared page');
});

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

test('heads, masks, temperature and scorings through compute(): both paths give the golden values (NumPy float64, 1e-12)', async () => {
  const { cases } = fixture('variant-goldens.json');
  const bad = await page.evaluate((cases) => {
    const { number, pick, same } = window.G;
    const out = [];
    for (const c of cases) {
      const traces = [['fast', av.compute(c.config)], ['json', av._internal.computeViaJson(c.config)]];
      if (!av._internal.flatConfig(c.config)) out.push(`${c.name}: compute() did not take the fast path`);
      for (const [path, t] of traces) {
        for (const [name, want] of Object.entries(c.expect)) {
          const got = pick(t, name);
          const g = [got].flat(2), w = [want].flat(2).map(number);
          if (g.length !== w.length) { out.push(`${c.name} ${path} ${name}: ${g.length} values, want ${w.length}`); continue; }
          g.forEach((x, k) => { if (!same(x, w[k])) out.push(`${c.name} ${path} ${name}[${k}]: ${x}, want ${w[k]}`); });
        }
        if (t.mechanism === 'self' && t.heads.length > 1 && 'weights' in t) out.push(`${c.name}: weights present with several heads`);
      }
    }
    return out;
  }, cases);
  assert.ok(cases.length >= 60);
  assert.deepEqual(bad.slice(0, 10), []);
});

test('the modern fields through compute(): positions, kv_heads, windows, sinks, decode and tiles give the golden values (NumPy float64, 1e-12) on both paths, typed too; decode = the causal row, o / l = the context', async () => {
  const { cases } = fixture('modern-goldens.json');
  const bad = await page.evaluate((cases) => {
    const { number, pick, same } = window.G;
    const out = [];
    for (const c of cases) {
      const typed = av.compute(c.config, { arrays: 'typed' });
      const traces = [['fast', av.compute(c.config)], ['json', av._internal.computeViaJson(c.config)]];
      if (!av._internal.flatConfig(c.config)) out.push(`${c.name}: compute() did not take the fast path`);
      for (const [path, t] of traces) {
        for (const [name, want] of Object.entries(c.expect)) {
          const got = pick(t, name);
          const g = [got].flat(2), w = [want].flat(2).map(number);
          if (g.length !== w.length) { out.push(`${c.name} ${path} ${name}: ${g.length} values, want ${w.length}`); continue; }
          g.forEach((x, k) => { if (!same(x, w[k])) out.push(`${c.name} ${path} ${name}[${k}]: ${x}, want ${w[k]}`); });
          const tv = pick(typed, name);
          const td = typeof tv === 'number' ? [tv] : Array.from(tv.data);
          if (JSON.stringify(td) !== JSON.stringify(g)) out.push(`${c.name} typed ${name}: not the nested values`);
        }
        const head = t.heads[c.config.head ?? 0];
        if (t.decode) {
          const s = t.decode.step;
          head.weights[s].forEach((w, j) => { if (!same(j <= s ? t.decode.weights[j] : 0, w)) out.push(`${c.name} ${path}: decode weight ${j}`); });
          head.context[s].forEach((x, k) => { if (!same(t.decode.context[k], x)) out.push(`${c.name} ${path}: decode context ${k}`); });
        }
        if (t.flash) {
          const [rows, cols] = t.flash.tiles, n = head.weights.length, last = Math.ceil(n / cols) - 1;
          for (const st of t.flash.steps.filter((st) => st.k_block === last)) {
            st.l.forEach((l, r) => {
              if (l === 0) return; // a query with every key masked: no softmax to end at
              st.o[r].forEach((o, k) => { if (!same(o / l, head.context[st.q_block * rows + r][k])) out.push(`${c.name} ${path}: o / l row ${st.q_block * rows + r}`); });
            });
          }
        }
      }
    }
    return out;
  }, cases);
  assert.ok(cases.length >= 40);
  assert.deepEqual(bad.slice(0, 10), []);
});

test('a real model\'s layer through compute(): layer_config\'s configs (tests/fixtures/real-layers.json) give transformers\' weights and output (float32 2e-5, float64 1e-9) and the NumPy transcription\'s (1e-9), on both paths', async () => {
  const { cases } = fixture('real-layers.json');
  const bad = await page.evaluate((cases) => {
    const out = [];
    const worst = (got, want) => Math.max(0, ...[got].flat(2).map((x, k) => Math.abs(x - [want].flat(2)[k])));
    for (const c of cases) {
      const bound = c.dtype === 'float32' ? 2e-5 : 1e-9;
      for (const [path, t] of [['fast', av.compute(c.config)], ['json', av._internal.computeViaJson(c.config)]]) {
        for (const source of c.dtype === 'float32' ? ['transformers'] : ['transformers', 'numpy']) {
          const want = c[source];
          if (t.heads.length !== want.weights.length) out.push(`${c.name} ${path}: ${t.heads.length} heads`);
          const w = Math.max(...t.heads.map((h, i) => worst(h.weights, want.weights[i])));
          const o = worst(t.output, want.output);
          if (!(w <= bound && o <= bound)) out.push(`${c.name} ${path} vs ${source}: weights ${w}, output ${o}`);
        }
      }
    }
    return out;
  }, cases);
  assert.ok(cases.length >= 28);
  assert.deepEqual(bad, []);
});

test('hovering a weights cell outside the window: the tooltip says why, in the core\'s code (no copy of the rule in the element)', async () => {
  await page.evaluate(async () => {
    const el = document.createElement('attention-viz');
    el.id = 'windowed';
    el.setAttribute('views', 'weights');
    el.config = { embeddings: [[1, 0], [0, 1], [1, 1], [0, 2], [2, 1]], window: [1, 0], sinks: 1, valid_lens: [5, 5, 5, 5, 3] };
    document.body.prepend(el);
  });
  await page.waitForFunction(() => document.getElementById('windowed').shadowRoot?.querySelector('canvas[data-view="weights"]')?.width > 0);
  /** The centre of cell [i, j] of the weights canvas, in page pixels, where the core lays it out (harness `T.cellPoint`). */
  const center = (i, j) => page.evaluate(([i, j]) => T.cellPoint(document.getElementById('windowed'), 'weights', i, j), [i, j]);
  const tip = async (i, j) => {
    const at = await center(i, j);
    await page.mouse.move(at.x, at.y);
    await page.waitForFunction(([i, j]) => {
      const t = document.getElementById('windowed').shadowRoot.querySelector('.tip');
      return t && !t.hidden && t.textContent.includes(`weights[${i}][${j}]`);
    }, [i, j]);
    return page.evaluate(() => document.getElementById('windowed').shadowRoot.querySelector('.tip').textContent);
  };
  assert.match(await tip(4, 1), /masked: outside the window \[1, 0\]/);
  assert.match(await tip(4, 4), /masked: beyond valid length 3$/);
  assert.match(await tip(4, 0), /weights\[4\]\[0\]/);
  assert.doesNotMatch(await tip(4, 0), /masked/, 'key 0 is a sink: attended');
  assert.match(await tip(3, 0), /weights\[3\]\[0\]/);
  await page.mouse.move(0, 0);
  await page.evaluate(() => document.getElementById('windowed').remove());
});

test('the element\'s breakdown names a window and its sink: keys outside it are "masked: outside the window"', async () => {
  await page.evaluate(() => {
    const el = document.createElement('attention-viz');
    el.id = 'broken-down';
    el.setAttribute('views', 'breakdown');
    el.config = { embeddings: [[1, 0], [0, 1], [1, 1], [0, 2], [2, 1]], window: [1, 0], sinks: 1, query: 4 };
    document.body.append(el);
  });
  await page.waitForFunction(() => /word_5/.test(document.getElementById('broken-down').shadowRoot?.textContent));
  const text = await page.evaluate(() => {
    const el = document.getElementById('broken-down');
    const t = el.shadowRoot.textContent;
    el.remove();
    return t;
  });
  assert.match(text, /Masking by a window \[1, 0\] and a sink, key 0: 2 of 5 keys masked for query 4/);
  assert.match(text, /1: word_2masked: outside the window \[1, 0\]/);
  assert.match(text, /0: word_1attended/);
});

test('a model\'s weights through compute(): both paths keep the stack and give NumPy\'s summaries (1e-12)', async () => {
  const { cases } = fixture('weights-goldens.json');
  const bad = await page.evaluate((cases) => {
    const out = [];
    for (const c of cases) {
      const config = { mechanism: 'weights', attention: c.attention };
      if (!av._internal.flatConfig(config)) out.push(`${c.name}: compute() did not take the fast path`);
      for (const [path, t] of [['fast', av.compute(config)], ['json', av._internal.computeViaJson(config)]]) {
        const shape = [];
        for (let x = t.attention; Array.isArray(x); x = x[0]) shape.push(x.length);
        if (JSON.stringify(shape) !== JSON.stringify(c.shape)) out.push(`${c.name} ${path}: shape ${shape}, want ${c.shape}`);
        if (JSON.stringify(t.attention.flat(Infinity)) !== JSON.stringify([c.attention].flat(Infinity))) out.push(`${c.name} ${path}: the weights changed`);
        if (t.tokens.length !== c.shape[2] || t.key_tokens.length !== c.shape[3]) out.push(`${c.name} ${path}: tokens`);
        for (const [key, want] of Object.entries(c.summary)) {
          t.summary[key].flat().forEach((x, k) => {
            const y = want.flat()[k];
            if (!(Math.abs(x - y) <= 1e-12 * Math.max(Math.abs(y), 1))) out.push(`${c.name} ${path} summary.${key}[${k}]: ${x}, want ${y}`);
          });
        }
      }
    }
    return out;
  }, cases);
  assert.deepEqual(bad, []);
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



test('a lone surrogate in a config is the text "\ufffd" where it stands, in Python\'s words, not malformed JSON', async () => {
  const got = await page.evaluate(() => [
    { embeddings: [[1, '\ud800']] }, { embeddings: [[1]], '\udc00x': 1 }, { embeddings: [[1]], scoring: 'a\\ud800' },
  ].map((c) => { try { av.compute(c); return null; } catch (e) { return e.message; } }));
  assert.equal(got[0], 'embeddings row 0, column 1 is the text "\ufffd", not a number');
  assert.match(got[1], /^unknown config field "\ufffdx"/);
  // An escaped backslash before "ud800" is text, not an escape: it reaches the core as written.
  assert.match(got[2], /got the text "a\\\\ud800"/);
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

// compute() has a fast path (clean matrices sent flat, the trace read from WASM memory) and the JSON path it
// takes for anything else; both must give the same trace, bit for bit, and the same messages.
function installSame() {
  /** The first difference between two traces (numbers compared with Object.is: -0 ≠ 0, NaN = NaN), or null. */
  window.firstDiff = (a, b, path = '') => {
    if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b) ? null : `${path}: ${a} ≠ ${b}`;
    if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array vs not`;
    if (a && typeof a === 'object') {
      const ka = Object.keys(a), kb = Object.keys(b);
      if (ka.join() !== kb.join()) return `${path}: keys ${ka} ≠ ${kb}`;
      for (const k of ka) { const d = firstDiff(a[k], b[k], `${path}.${k}`); if (d) return d; }
      return null;
    }
    return a === b ? null : `${path}: ${a} ≠ ${b}`;
  };
  /** compute(config) both ways: {fast, trace or message from each path, diff}. */
  window.bothPaths = (config) => {
    const run = (fn) => { try { return { trace: fn(config) }; } catch (e) { return { message: e instanceof Error ? e.message : `not an Error: ${e}` }; } };
    const pub = run(av.compute), json = run(av._internal.computeViaJson);
    const diff = pub.message !== undefined || json.message !== undefined
      ? (pub.message === json.message ? null : `messages: ${pub.message} ≠ ${json.message}`)
      : firstDiff(pub.trace, json.trace);
    return { fast: av._internal.flatConfig(config) !== undefined, message: pub.message ?? null, diff };
  };
}

test('the flat fast path gives the JSON path\'s trace bit for bit: random shapes and values, self and cross', async () => {
  await page.evaluate(installSame);
  const results = await page.evaluate(() => {
    let s = 12345; // mulberry32
    const rand = () => { s = (s + 0x6d2b79f5) | 0; let t = Math.imul(s ^ (s >>> 15), 1 | s); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
    const pick = (xs) => xs[Math.floor(rand() * xs.length)];
    // Values JSON writes in every way: integers, -0, subnormals, 2**60, 1e21, long fractions, big and tiny.
    const special = [0, -0, 1, -3, 5e-324, -2.2250738585072014e-308, 1e-310, 2 ** 60, -(2 ** 53) - 2, 1e21, 123456789.123456789, 1 / 3, 1e100, -7.5e-200];
    const value = () => (rand() < 0.3 ? pick(special) : (rand() - 0.5) * 10 ** Math.floor(rand() * 8 - 4));
    const matrix = (r, c) => Array.from({ length: r }, () => Array.from({ length: c }, value));
    const configs = [];
    for (let i = 0; i < 60; i++) {
      const n = pick([1, 2, 3, 7, 33]), d = pick([1, 2, 5, 17]), dk = pick([1, 3, 8]), dv = pick([1, 4, 9]);
      const c = { embeddings: matrix(n, d) };
      if (i % 3) Object.assign(c, { w_q: matrix(d, dk), w_k: matrix(d, dk), w_v: matrix(d, dv) });
      if (i % 4 === 1) c.scale = pick(['none', 'sqrt_dk', 2.5, 1e-3]);
      if (i % 5 === 2) c.query = n - 1;
      if (i % 6 === 3) c.tokens = Array.from({ length: n }, (_, j) => `t${j}`);
      if (i % 7 === 4) c.mechanism = 'self';
      configs.push(c);
    }
    for (let i = 0; i < 30; i++) {
      const d = pick([1, 3, 16]), m = pick([1, 2, 11]);
      const c = { decoder_state: matrix(1, d)[0], annotations: matrix(m, d) };
      if (i % 2) c.mechanism = 'cross';
      if (i % 3 === 1) c.scale = pick(['none', 'sqrt_dk', 4]);
      if (i % 4 === 2) c.tokens = Array.from({ length: m }, (_, j) => `h${j}`);
      configs.push(c);
    }
    configs.push(...Object.values(av.presets), { embeddings: [[-0, 0], [0, -0]] }, { embeddings: [[1e200, 1], [1, 1e200]] });
    const rs = new av.RandomState(0);
    configs.push({ embeddings: rs.randn(300, 64), w_q: rs.randn(64, 48), w_k: rs.randn(64, 48), w_v: rs.randn(64, 80) });
    return configs.map((c) => bothPaths(c));
  });
  assert.ok(results.every((r) => r.fast), 'every config here is clean: compute() takes the flat path');
  const computed = results.filter((r) => r.message === null).length;
  assert.ok(computed >= 80, `most configs compute (${computed})`);
  for (const [i, r] of results.entries()) assert.equal(r.diff, null, `config ${i}`);
});

test('the flat fast path: every bad config gives the JSON path\'s message, and the module keeps working', async () => {
  await page.evaluate(installSame);
  const { cases } = fixture('malformed-configs.json');
  const results = await page.evaluate((fixtures) => {
    const e = [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], w = [[2, 0, 2], [2, 0, 0], [2, 1, 2]];
    const deep = (k) => { let a = ['x']; for (let i = 0; i < k; i++) a = [a]; return a; };
    const cyclic = { embeddings: e }; cyclic.self = cyclic;
    const throwing = { embeddings: e }; Object.defineProperty(throwing, 'query', { enumerable: true, get() { throw new Error('no query'); } });
    const rows = (r, c, x = 1) => Array.from({ length: r }, () => Array(c).fill(x));
    // [config, the path compute() takes, whether the core refuses it]
    const extra = [
      // Clean inputs (the flat path) that the core refuses: shapes, limits, the rest of the config, overflow.
      ...[
        { embeddings: e, w_q: [[1, 2, 3], [4, 5, 6]], w_k: w, w_v: w }, { embeddings: e, w_q: w, w_k: [[1, 2], [3, 4], [5, 6]], w_v: w },
        { embeddings: e, w_q: w }, { embeddings: e, w_q: w, w_k: w }, { embeddings: rows(4097, 1) }, { embeddings: rows(2, 1025) },
        { embeddings: rows(1, 5000) }, { decoder_state: Array(1025).fill(1), annotations: rows(1, 1025) },
        { decoder_state: [1, 2, 3], annotations: [[1, 2]] }, { decoder_state: [1, 2], annotations: rows(2, 2), embeddings: e },
        { embeddings: e, decoder_state: [1] }, { mechanism: 'cross', embeddings: e }, { mechanism: 'self', annotations: rows(2, 2) },
        { mechanism: 'cross', decoder_state: [1, 2] }, { mechanism: 'cross', annotations: rows(2, 2) }, { mechanism: 'other', embeddings: e },
        { embeddings: e, tokens: ['a'] }, { embeddings: e, tokens: [1, 2, null, 4] }, { embeddings: e, query: 4 },
        { embeddings: e, query: -1 }, { embeddings: e, query: 1.5 }, { embeddings: e, query: NaN }, { embeddings: e, scale: 0 },
        { embeddings: e, scale: Infinity }, { embeddings: e, scale: 'big' }, { embeddings: e, embedings: e },
        { embeddings: rows(2, 2, 1e200) }, { embeddings: e, w_q: rows(3, 3, 1e160), w_k: rows(3, 3, 1e160), w_v: w },
        { decoder_state: [1e300, 1e300], annotations: rows(2, 2, 1e300) },
        JSON.parse('{"__proto__": {"query": 1}, "embeddings": [[1, 2]]}'),
        // the core cannot read the rest (nested past serde's limit): the JSON path, whose message places it in the whole config
        { embeddings: e, tokens: deep(200) },
      ].map((c) => [c, true, true]),
      [{ embeddings: e, query: -0 }, true, false], [Object.assign(Object.create(null), { embeddings: [[1, 2]] }), true, false],
      // Not clean (the JSON path): holes, typed arrays, Number objects, getters, cycles, toJSON, undefined.
      ...[{ embeddings: [[1, , 3]] }, { embeddings: [[1, 2], , [3, 4]] }, { embeddings: [new Float64Array([1, 2])] },
        { embeddings: new Float64Array(2) }, cyclic, throwing, { embeddings: e, toJSON() { return { embeddings: 1 }; } },
        { embeddings: undefined }, { embeddings: [[1, 2], [3]] }, { embeddings: [[1, 'NaN']] }, { embeddings: [[Infinity]] },
        { embeddings: [Object.assign([1, 2], { toJSON: () => 'x' })] }].map((c) => [c, false, true]),
      [{ embeddings: [[new Number(1)]] }, false, false], [{ embeddings: e, w_q: undefined, w_k: undefined, w_v: undefined }, false, false],
      [{ embeddings: Object.assign([[1, 2]], { toJSON: () => [[3]] }) }, false, false],
    ];
    const run = (c) => ({ ...bothPaths(c), after: av.compute(av.presets['seed-000']).query.context[0] });
    return { fixtures: fixtures.map(run), extra: extra.map(([c, fast, refused]) => ({ ...run(c), want: { fast, refused } })) };
  }, cases.map((c) => c.config));
  for (const [i, r] of [...results.fixtures, ...results.extra].entries()) {
    assert.equal(r.diff, null, `case ${i}`);
    assert.equal(r.after, 0.9852202489021356, `case ${i}: module unusable afterwards`);
  }
  for (const [i, r] of results.extra.entries()) {
    assert.deepEqual({ fast: r.fast, refused: r.message !== null }, r.want, `extra case ${i}: ${r.message}`);
  }
  assert.match(results.extra[30].message, /is nested more than 128 lists or objects deep/);
});

test('the flat fast path frees what it holds: WASM memory does not grow over repeated calls', async () => {
  const mb = await page.evaluate(async () => {
    const memory = (await (await import('/www/pkg/attention_viz.js')).default()).memory;
    const rs = new av.RandomState(1);
    const config = { embeddings: rs.randn(200, 32), w_q: rs.randn(32, 32), w_k: rs.randn(32, 32), w_v: rs.randn(32, 32) };
    for (let i = 0; i < 3; i++) av.compute(config);
    const before = memory.buffer.byteLength;
    for (let i = 0; i < 40; i++) av.compute(config);
    for (let i = 0; i < 40; i++) { try { av.compute({ ...config, tokens: [] }); } catch { /* refused */ } }
    return [before, memory.buffer.byteLength];
  });
  assert.equal(mb[1], mb[0]);
});

test('no errors reached the console: computing, refusing, drawing and hovering figures on a page of its own', async () => {
  // Its own page and its own actions (those of the tests above that may reach the console), so it says the same
  // whichever tests ran before it, or none.
  const own = await site.page('tests/fixtures/blank.html');
  const { cases } = fixture('malformed-configs.json');
  const refused = await own.evaluate(async (configs) => {
    const av = await import('/www/attention-viz.js');
    await av.ready;
    for (const p of Object.values(av.presets)) { av.compute(p); av._internal.computeViaJson(p); }
    let n = 0;
    const cyclic = { embeddings: [[1]] }; cyclic.self = cyclic;
    for (const c of [...configs, { embeddings: [[1, NaN]] }, { embeddings: [[1e400, 0]] }, cyclic, undefined, 'not json', { embeddings: [[1e200, 1], [1, 1e200]] }]) {
      try { av.compute(c); } catch { n++; } // refused with an Error, which says it: nothing for the console
    }
    new av.RandomState(42).randn(3, 3);
    const windowed = document.createElement('attention-viz');
    windowed.id = 'windowed';
    windowed.setAttribute('views', 'weights');
    windowed.config = { embeddings: [[1, 0], [0, 1], [1, 1], [0, 2], [2, 1]], window: [1, 0], sinks: 1, valid_lens: [5, 5, 5, 5, 3] };
    const broken = document.createElement('attention-viz');
    broken.id = 'breakdown';
    broken.setAttribute('views', 'breakdown');
    broken.config = { embeddings: [[1, 0], [0, 1], [1, 1], [0, 2], [2, 1]], window: [1, 0], sinks: 1, query: 4 };
    document.body.append(windowed, broken);
    return n;
  }, cases.map((c) => c.config));
  assert.equal(refused, cases.length + 6, 'every malformed config was refused (with an Error)');
  await own.waitForFunction(() => document.getElementById('windowed').shadowRoot?.querySelector('canvas[data-view="weights"]')?.width > 0
    && /word_5/.test(document.getElementById('breakdown').shadowRoot?.textContent));
  // The mouse over every cell of the weights (masked, sinks, beyond the valid length), each with its tooltip, then away.
  await own.evaluate(pageHelpers);
  for (let i = 0; i < 5; i++) {
    for (let j = 0; j < 5; j++) {
      const at = await own.evaluate(([i, j]) => T.cellPoint(document.getElementById('windowed'), 'weights', i, j), [i, j]);
      await own.mouse.move(at.x, at.y);
      await own.waitForFunction(([i, j]) => {
        const t = document.getElementById('windowed').shadowRoot.querySelector('.tip');
        return !t.hidden && t.textContent.startsWith(`weights[${i}][${j}]`);
      }, [i, j]);
    }
  }
  await own.mouse.move(0, 0);
  await own.waitForFunction(() => document.getElementById('windowed').shadowRoot.querySelector('.tip').hidden);
  await done(own);
});
