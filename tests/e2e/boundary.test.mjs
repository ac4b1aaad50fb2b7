// The public JS API's boundary (www/attention-viz.js): every entry point — compute, normalizeConfig,
// renderSVG, RandomState and its methods — answers hostile arguments (huge shapes, non-strings, Symbols,
// BigInts, Proxies whose traps throw, toJSON that throws a non-Error) with an `Error` carrying a clear
// message: never a raw non-Error value, a WASM trap, a hang or gigabytes of WASM memory. A bounded,
// deterministic fuzz of the whole API ends the file and reports its numbers (`node --test` diagnostics).
// How long the answers take (a refusal at once, 131 072 values) is `make bench`'s (bench/hostile.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, fixture, WAIT } from './harness.mjs';

const MAX_RANDOM = 2 ** 17;
const MB = 2 ** 20;
const seeds = fixture('seed-values.json');

let site, page;

async function freshPage() {
  const p = await site.page('tests/fixtures/blank.html');
  await p.evaluate(async () => {
    window.av = await import('/www/attention-viz.js');
    await window.av.ready;
    // The WASM instance's exports (init() returns them once initialised).
    window.wasmBytes = async () => (await (await import('/www/pkg/attention_viz.js')).default()).memory.buffer.byteLength;
    /** Runs `fn`: {ok, value} or {error: message, kind: 'Error' | a description of what was thrown}. */
    window.attempt = (fn) => {
      try {
        const value = fn();
        return { ok: true, value };
      } catch (e) {
        if (!(e instanceof Error)) {
          let text; try { text = String(e); } catch { text = '?'; }
          return { kind: `not an Error (${typeof e}: ${text.slice(0, 80)})` };
        }
        if (e instanceof WebAssembly.RuntimeError) return { kind: `trap: ${e.message}` };
        if (/unreachable|memory access out of bounds|capacity overflow/i.test(e.message)) return { kind: `trap text: ${e.message}` };
        if (typeof e.message !== 'string' || e.message.length === 0) return { kind: 'Error without a message' };
        return { kind: 'Error', error: e.message };
      }
    };
  });
  return p;
}

before(async () => {
  site = await open();
  page = await freshPage();
});
after(async () => {
  await hugePage?.close();
  await site.close();
});

/**
 * Evaluates `fn` in a page, failing if it has not answered after `ms`: a hang, not a slow machine (the limits are
 * the harness's WAIT, or a multiple of it for the fuzz's 6 000 calls: minutes for calls that take milliseconds).
 */
async function within(p, ms, fn, arg) {
  let timer;
  const limit = new Promise((_, no) => { timer = setTimeout(() => no(new Error(`no answer within ${ms} ms`)), ms); });
  try {
    return await Promise.race([p.evaluate(fn, arg), limit]);
  } finally {
    clearTimeout(timer);
  }
}

// ---- 1. RandomState and huge shapes ------------------------------------------------------------------

const HUGE = [
  ['rand(65536, 65537)', 'rand(65536, 65537) asks for 4295032832 values; at most 131072 are supported'],
  ['randn(1.2e8)', 'randn(120000000) asks for 120000000 values; at most 131072 are supported'],
  ['rand(5e8)', 'rand(500000000) asks for 500000000 values; at most 131072 are supported'],
  ['randint(3, null, [3, 2**31 + 1])', 'randint(3, null, [3, 2147483649]) asks for 6442450947 values; at most 131072 are supported'],
  ['rand(2**32)', 'rand(4294967296) asks for 4294967296 values; at most 131072 are supported'],
  ['rand(2**32 + 3)', 'rand(4294967299) asks for 4294967299 values; at most 131072 are supported'],
  ['randn(2**16, 2**16, 2**16)', 'randn(65536, 65536, 65536) asks for 281474976710656 values; at most 131072 are supported'],
  ['randint(0, 10, 2**17 + 1)', 'randint(0, 10, 131073) asks for 131073 values; at most 131072 are supported'],
  ['rand([2**8, 2**9 + 1])', 'rand([256, 513]) asks for 131328 values; at most 131072 are supported'],
];

// One page of their own for the huge shapes (a crashed or hung tab must not take the other tests with it).
let hugePage;
for (const [call, message] of HUGE) {
  test(`RandomState: ${call} throws "${message.slice(0, 40)}…" and grows no memory`, async () => {
    hugePage ??= await freshPage();
    const r = await within(hugePage, WAIT, async (call) => {
      const before = await wasmBytes();
      const rs = new av.RandomState(1);
      const got = attempt(() => new Function('rs', `return rs.${call};`)(rs));
      return { ...got, value: undefined, before, after: await wasmBytes(), next: rs.rand(3) };
    }, call);
    assert.equal(r.kind, 'Error', `${call}: ${r.kind ?? 'returned'}`);
    assert.equal(r.error, message);
    assert.ok(r.after <= r.before + 4 * MB, `${call}: WASM memory ${r.before / MB} MB → ${r.after / MB} MB`);
    assert.equal(r.next.length, 3, 'the RandomState works afterwards');
  });
}

test(`RandomState: ${MAX_RANDOM} values (the bound) answer in NumPy's order, without growing WASM memory`, async (t) => {
  const p = await freshPage();
  try {
    const r = await within(p, WAIT, async () => {
      const before = await wasmBytes();
      const out = {};
      for (const [name, call] of [['rand', (rs) => rs.rand(2 ** 17)], ['randn', (rs) => rs.randn(2 ** 8, 2 ** 9)],
        ['randint', (rs) => rs.randint(0, 1000, [2 ** 8, 2 ** 9])]]) {
        const rs = new av.RandomState(42);
        const flat = call(rs).flat();
        // The values straddling the Rust side's fill chunks equal the one-by-one stream.
        const probe = new av.RandomState(42);
        const first = name === 'rand' ? probe.rand(70000) : name === 'randn' ? probe.randn(70000) : probe.randint(0, 1000, 70000);
        out[name] = { length: flat.length, prefixSame: first.every((x, i) => Object.is(x, flat[i])) };
      }
      return { out, before, after: await wasmBytes() };
    });
    for (const [name, { length, prefixSame }] of Object.entries(r.out)) {
      assert.equal(length, MAX_RANDOM, name);
      assert.ok(prefixSame, `${name}: the first 70 000 values equal a separate call's`);
    }
    t.diagnostic(`WASM memory ${r.before / MB} MB → ${r.after / MB} MB`);
    assert.ok(r.after <= 64 * MB, `WASM memory after ${MAX_RANDOM}-value calls: ${r.after / MB} MB`);
  } finally {
    await p.close();
  }
});

test('RandomStateCore (the Rust side) refuses counts past the bound and non-integer counts on its own', async () => {
  const r = await page.evaluate(async () => {
    const { RandomStateCore } = await import('/www/pkg/attention_viz.js');
    const rs = new RandomStateCore(1);
    const ask = (kind, count, bounds = {}) => attempt(() => rs.call({ kind, count, ...bounds }));
    return [
      ask('rand', 2 ** 17 + 1), ask('randn', 2 ** 32), ask('randint', 2 ** 40, { low: 0, high: 3 }),
      ask('rand', -1), ask('rand', 1.5), ask('rand', NaN),
    ].map(({ kind, error }) => ({ kind, error }));
  });
  for (const x of r.slice(0, 3)) {
    assert.equal(x.kind, 'Error');
    assert.match(x.error, /asks for \d+ values; at most 131072 are supported/);
  }
  for (const x of r.slice(3)) {
    assert.equal(x.kind, 'Error');
    assert.match(x.error, /count must be a non-negative integer/);
  }
});

test('RandomState: bad shape entries, seeds and bounds throw an Error that says what was given', async () => {
  const r = await page.evaluate(() => {
    const rs = new av.RandomState(0);
    const calls = {
      'rand(1.5)': () => rs.rand(1.5), 'rand(-1)': () => rs.rand(-1), 'rand(NaN)': () => rs.rand(NaN),
      'rand(Symbol)': () => rs.rand(Symbol('s')), 'randn({})': () => rs.randn({}), 'randn(2n)': () => rs.randn(2n),
      'rand("3")': () => rs.rand('3'), 'rand(2, null)': () => rs.rand(2, null), 'rand(Infinity)': () => rs.rand(Infinity),
      'randint(3, null, [2, Symbol])': () => rs.randint(3, null, [2, Symbol('x')]), 'randint(3, null, 1.5)': () => rs.randint(3, null, 1.5),
      'randint(3, null, {length: 2**30})': () => rs.randint(3, null, { length: 2 ** 30 }),
      'randint(Symbol)': () => rs.randint(Symbol('low')), 'randint(3n)': () => rs.randint(3n), 'randint({})': () => rs.randint({}),
      'randint(0, "5")': () => rs.randint(0, '5'), 'randint(NaN)': () => rs.randint(NaN), 'randint(0, 1.5)': () => rs.randint(0, 1.5),
      'randint(5, 5)': () => rs.randint(5, 5),
      'new RandomState(Symbol)': () => new av.RandomState(Symbol('seed')), 'new RandomState(1n)': () => new av.RandomState(1n),
      'new RandomState({})': () => new av.RandomState({}), 'new RandomState(-1)': () => new av.RandomState(-1),
      'new RandomState(2**32)': () => new av.RandomState(2 ** 32), 'new RandomState("42")': () => new av.RandomState('42'),
      'seed(Symbol)': () => rs.seed(Symbol('s')), 'seed(1.5)': () => rs.seed(1.5),
      'seed({valueOf() { throw 7 }})': () => rs.seed({ valueOf() { throw 7; } }),
      'rand(sparse array of 2**30)': () => rs.rand(new Array(2 ** 30)),
      'rand(array of 100 dims)': () => rs.rand(Array(100).fill(1)),
      'rand(2**30, 0)': () => rs.rand(2 ** 30, 0),
    };
    const out = {};
    for (const [name, fn] of Object.entries(calls)) out[name] = attempt(fn);
    out.after = rs.randint(3, null, [2, 2]);
    return out;
  });
  const after = r.after;
  delete r.after;
  for (const [name, x] of Object.entries(r)) {
    assert.equal(x.kind, 'Error', `${name}: ${x.kind ?? 'returned ' + JSON.stringify(x.value)}`);
  }
  assert.equal(r['rand(Symbol)'].error, 'rand: dimensions must be non-negative integers, got symbol Symbol(s)');
  assert.equal(r['randn(2n)'].error, 'randn: dimensions must be non-negative integers, got bigint 2n');
  assert.equal(r['rand(1.5)'].error, 'rand: dimensions must be non-negative integers, got 1.5');
  assert.equal(r['rand("3")'].error, 'rand: dimensions must be non-negative integers, got the string "3"');
  assert.match(r['randint(3, null, {length: 2**30})'].error, /^size: .*got an object/);
  assert.match(r['randint(Symbol)'].error, /low must be an integer.*got symbol Symbol\(low\)/);
  assert.match(r['randint(0, "5")'].error, /high must be an integer.*got the string "5"/);
  assert.equal(r['randint(5, 5)'].error, 'low >= high');
  assert.match(r['new RandomState(1n)'].error, /^seed must be an integer between 0 and 2\*\*32 - 1, got bigint 1n/);
  assert.match(r['seed({valueOf() { throw 7 }})'].error, /^seed must be an integer .*got an object/);
  assert.match(r['rand(sparse array of 2**30)'].error, /^rand: at most 32 dimensions are supported, got 1073741824/);
  assert.match(r['rand(2**30, 0)'].error, /^rand\(1073741824, 0\) builds 1073741824 arrays; at most 131072 are supported/);
  assert.equal(after.length, 2);
});

test('RandomState: shapes read through a throwing Proxy become "could not be read" Errors', async () => {
  const r = await page.evaluate(() => {
    const rs = new av.RandomState(0);
    const trap = (thrown) => new Proxy([2, 3], { get() { throw thrown; } });
    return [Symbol('boom'), 7, undefined, { toString() { throw 1; } }, new Error('trap error')]
      .map((thrown) => [attempt(() => rs.rand(trap(thrown))), attempt(() => rs.randint(3, null, trap(thrown)))]).flat();
  });
  // [rand(shape), randint(3, null, size)] for each thrown value: each names its own argument.
  for (const [i, x] of r.entries()) {
    assert.equal(x.kind, 'Error');
    assert.match(x.error, i % 2 === 0 ? /^rand: shape could not be read: / : /^size: shape could not be read: /, `call ${i}`);
  }
});

// ---- 2. renderSVG and argument types -----------------------------------------------------------------

test('renderSVG: a non-string view, palette or fmt throws an Error naming the argument and its type, WASM untouched', async () => {
  const p = await freshPage();
  try {
    const r = await within(p, WAIT, async () => {
      const before = await wasmBytes();
      const cfg = av.presets['seed-001'];
      const bad = [5, true, {}, { length: 2 ** 30 }, [], Symbol('p'), 3n, () => 'viridis', NaN];
      const out = [];
      for (const x of bad) {
        out.push(['palette', attempt(() => av.renderSVG(cfg, 'weights', x))]);
        out.push(['fmt', attempt(() => av.renderSVG(cfg, 'weights', undefined, x))]);
        out.push(['view', attempt(() => av.renderSVG(cfg, x))]);
      }
      out.push(['palette', attempt(() => av.renderSVG(cfg, 'weights', 'x'.repeat(1e6)))]);
      const fine = [av.renderSVG(cfg, 'weights', null, null), av.renderSVG(cfg, 'weights', undefined, '.3f'), av.renderSVG(cfg, 'q', 'rocket')];
      return { out, before, after: await wasmBytes(), fine: fine.map((s) => s.startsWith('<svg')) };
    });
    for (const [arg, x] of r.out.slice(0, -1)) {
      assert.equal(x.kind, 'Error', `${arg}: ${x.kind ?? 'returned'}`);
      assert.match(x.error, new RegExp(`^renderSVG: ${arg} must be a string`), x.error);
    }
    assert.match(r.out[0][1].error, /^renderSVG: palette must be a string \(a colormap name\) or undefined, got 5$/);
    assert.match(r.out[9][1].error, /got an object$/);
    assert.match(r.out.at(-1)[1].error, /palette is 1000000 characters long; at most \d+ are supported/);
    assert.deepEqual(r.fine, [true, true, true]);
    assert.ok(r.after <= r.before + 4 * MB, `WASM memory ${r.before / MB} MB → ${r.after / MB} MB`);
  } finally {
    await p.close();
  }
});

// ---- 3. hostile configs ------------------------------------------------------------------------------

test('compute, normalizeConfig and renderSVG: a config that throws while being read gives "config could not be read: …"', async () => {
  const r = await page.evaluate(() => {
    const thrownValues = [undefined, null, 7, 'plain text', Symbol('sym'), { no: 'message' }, { toString() { throw 1; } },
      new Error('an Error'), 'x'.repeat(1000)];
    const configs = [];
    for (const thrown of thrownValues) {
      configs.push(['toJSON', { toJSON() { throw thrown; } }]);
      configs.push(['getter', Object.defineProperty({ embeddings: [[1]] }, 'query', { enumerable: true, get() { throw thrown; } })]);
      for (const t of ['get', 'ownKeys', 'getOwnPropertyDescriptor']) { // the traps JSON.stringify and compute() use
        configs.push([`Proxy ${t}`, new Proxy({ embeddings: [[1, 2]] }, { [t]() { throw thrown; } })]);
      }
      configs.push(['Proxy row', { embeddings: new Proxy([[1, 2]], { get() { throw thrown; } }) }]);
    }
    const entry = { compute: av.compute, normalizeConfig: av.normalizeConfig, renderSVG: (c) => av.renderSVG(c, 'weights') };
    const out = [];
    for (const [name, c] of configs) for (const [fn, f] of Object.entries(entry)) out.push({ name, fn, ...attempt(() => f(c)), value: undefined });
    return out;
  });
  assert.ok(r.length >= 130);
  for (const x of r) {
    assert.equal(x.kind, 'Error', `${x.fn}(${x.name}): ${x.kind}`);
    assert.match(x.error, /^config could not be read/, `${x.fn}(${x.name}): ${x.error}`);
    assert.ok(!/: undefined$/.test(x.error) || x.error.endsWith('threw undefined'), `${x.fn}(${x.name}): ${x.error}`);
    assert.ok(x.error.length <= 260, `${x.fn}(${x.name}): message of ${x.error.length} characters`);
  }
  const texts = new Set(r.map((x) => x.error));
  assert.ok([...texts].some((m) => m.includes('Symbol(sym)')), 'a thrown Symbol is shown');
  assert.ok([...texts].some((m) => m.includes('an Error')), 'a thrown Error gives its message');
});

test('compute, normalizeConfig: a config of the wrong type says which type', async () => {
  const r = await page.evaluate(() => [Symbol('c'), 3n, () => 1, undefined].map((c) => [attempt(() => av.compute(c)), attempt(() => av.normalizeConfig(c))]).flat());
  for (const x of r) assert.equal(x.kind, 'Error');
  assert.equal(r[0].error, 'config must be an object, got symbol');
  assert.equal(r[2].error, 'config must be an object, got bigint');
  assert.equal(r[6].error, 'config must be an object, got undefined');
});

// A list longer than any a config holds outside its matrices (the core's MAX_LIST, facts.js LONG_LIST), in a field
// whose value is one number, two, a word or a short list: none of its items is read (a Proxy counts the reads of its
// elements: JSON.stringify and the core's parser would read all of a million `sinks` only to refuse them), and each
// entry point says what the core says of the list itself (its JSON parsed whole, without the module: the reference).
test('a list no field can hold (sinks, window, tiles, position, slopes, decode_step, kv_heads, valid_lens, tokens…) is refused unread, in the core\'s words for it', async () => {
  const r = await page.evaluate(async () => {
    const core = await import('/www/core.js');
    const N = 50_000;
    let reads = 0;
    const long = () => new Proxy(Array.from({ length: N }, (_, i) => i % 3), {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const seed = () => structuredClone(av.presets['seed-001']);
    const cross = () => structuredClone(av.presets['seed-003']);
    const weights = () => ({ attention: [[0.5, 0.5], [1, 0]] });
    const cases = {
      sinks: () => ({ ...seed(), sinks: long() }),
      window: () => ({ ...seed(), window: long() }),
      'window[0]': () => ({ ...seed(), window: [long(), 0] }),
      tiles: () => ({ ...seed(), tiles: long() }),
      position: () => ({ ...seed(), position: long() }),
      'position.slopes': () => ({ ...seed(), position: { kind: 'alibi', slopes: long() } }),
      decode_step: () => ({ ...seed(), mask: 'causal', decode_step: long() }),
      kv_heads: () => ({ ...seed(), kv_heads: long() }),
      valid_lens: () => ({ ...seed(), valid_lens: long() }),
      'valid_lens[1]': () => ({ ...seed(), valid_lens: [1, long(), 1, 1] }),
      tokens: () => ({ ...seed(), tokens: long() }),
      query: () => ({ ...seed(), query: long() }),
      temperature: () => ({ ...seed(), temperature: long() }),
      mask: () => ({ ...seed(), mask: long() }),
      'mask row 2': () => ({ ...seed(), mask: [[1, 1, 1, 1], [1, 1, 1, 1], long(), [1, 1, 1, 1]] }),
      'cross mask': () => ({ ...cross(), mask: long() }),
      'weights key_tokens': () => ({ ...weights(), key_tokens: long() }),
      'an unknown field': () => ({ ...seed(), sink: long() }),
    };
    const entries = {
      compute: (c) => av.compute(c),
      'compute typed': (c) => av.compute(c, { arrays: 'typed' }),
      'compute, JSON path': (c) => av._internal.computeViaJson(c),
      normalizeConfig: (c) => av.normalizeConfig(c),
      renderSVG: (c) => av.renderSVG(c, 'weights'),
    };
    const out = [];
    for (const [name, make] of Object.entries(cases)) {
      let want;
      try { core.call({ kind: 'compute', config_json: JSON.stringify(make()) }); } catch (e) { want = e.message; }
      reads = 0;
      for (const [fn, f] of Object.entries(entries)) out.push({ name, fn, want, ...attempt(() => f(make())), value: undefined });
      out.push({ name, fn: 'the items read', reads });
    }
    return out;
  });
  assert.equal(r.length, 18 * 6);
  for (const x of r) {
    if (x.fn === 'the items read') { assert.equal(x.reads, 0, `${x.name}: ${x.reads} items read`); continue; }
    assert.equal(x.kind, 'Error', `${x.fn}(${x.name}): ${x.kind}`);
    assert.ok(x.want, `${x.name}: the core refuses the list itself`);
    assert.equal(x.error, x.want, `${x.fn}(${x.name})`);
  }
  const said = (name) => r.find((x) => x.name === name).want;
  assert.equal(said('sinks'), 'sinks must be a whole number ≥ 0 (keys 0 … sinks − 1 are always attended), got a list of 50000 items');
  assert.match(said('window'), /^window has 50000 values; it must be \[left, right\]/);
  assert.match(said('window[0]'), /^window\[0\] \(left\) is a list of 50000 items/);
  assert.match(said('tokens'), /^tokens has 50000 names but embeddings has 4 rows/);
  assert.match(said('mask row 2'), /^mask row 2 has 50000 values, expected 4/);
  assert.match(said('an unknown field'), /^unknown config field "sink"/);
});

// ---- 5. a bounded fuzz of the whole API --------------------------------------------------------------

test('fuzz: 6 000 calls of every entry point with hostile arguments — only Errors with messages, module intact', async (t) => {
  const p = await freshPage();
  try {
    const r = await within(p, WAIT * 2, async () => {
      const before = await wasmBytes();
      let s = 20240611; // mulberry32: the same calls every run
      const rand = () => { s = (s + 0x6d2b79f5) | 0; let x = Math.imul(s ^ (s >>> 15), 1 | s); x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x; return ((x ^ (x >>> 14)) >>> 0) / 4294967296; };
      const pick = (xs) => xs[Math.floor(rand() * xs.length)];
      const throwers = [undefined, null, 0, 'text', Symbol('t'), {}, new Error('e'), { toString() { throw 2; } }];
      const hostile = () => {
        switch (Math.floor(rand() * 20)) {
          case 0: return pick([0, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 31 + 1, 2 ** 32, 2 ** 53 + 2, 1e308, -0, 65537, 1.2e8, 5e8]);
          case 1: return pick([true, false, null, undefined]);
          case 2: return { length: pick([2 ** 30, 2 ** 32, -1, NaN]) };
          case 3: return new Proxy({}, { [pick(['get', 'ownKeys', 'getPrototypeOf', 'has', 'getOwnPropertyDescriptor'])]() { throw pick(throwers); } });
          case 4: return new Proxy([1, 2], { get() { throw pick(throwers); } });
          case 5: return Symbol(pick(['a', 'b', '']));
          case 6: return pick([0n, 3n, 2n ** 64n, -1n]);
          case 7: return pick(['', 'weights', 'viridis', '.3f', 'x'.repeat(pick([10, 1e5, 1e6])), '\u0000', 'embeddings']);
          case 8: return pick([[], [1, 2], [2 ** 16, 2 ** 16 + 1], [3, 2 ** 31 + 1], new Array(2 ** 28), [Symbol('d')], [1n], [NaN, 2]]);
          case 9: return { toJSON() { throw pick(throwers); } };
          case 10: return { valueOf() { throw pick(throwers); }, toString() { throw pick(throwers); } };
          case 11: return () => pick(throwers);
          case 12: return { embeddings: pick([[[1, 2]], { length: 2 ** 30 }, [[Symbol('v')]], [[1n]], new Proxy([[1]], { get() { throw 1; } }), [[NaN, 1]]]) };
          case 13: return Object.defineProperty({ embeddings: [[1, 0], [0, 1]] }, 'tokens', { enumerable: true, get() { throw pick(throwers); } });
          case 14: return JSON.parse(JSON.stringify(av.presets[pick(Object.keys(av.presets))]));
          case 15: return { ...av.presets['seed-002'], query: hostile() };
          case 16: return pick([new Date(0), /re/, new Map(), new Uint8Array(4), Object.create(null)]);
          case 17: return pick([2, 3, 4, 100, 1000]);
          case 18: return pick([[2, 2], [3], 5, [0, 7], [1, 2, 3]]);
          default: return pick(['weights', 'q', 'scores', 'applied', 'rocket', undefined]);
        }
      };
      const entries = [
        ['compute', () => av.compute(hostile())],
        ['normalizeConfig', () => av.normalizeConfig(hostile())],
        ['renderSVG', () => av.renderSVG(rand() < 0.5 ? av.presets['seed-001'] : hostile(), hostile(), hostile(), hostile())],
        ['new RandomState', () => new av.RandomState(hostile())],
        ['seed', (rs) => rs.seed(hostile())],
        ['randint', (rs) => rs.randint(hostile(), hostile(), hostile())],
        ['randint(n, null, size)', (rs) => rs.randint(pick([3, 10]), null, hostile())],
        ['rand', (rs) => rs.rand(...Array.from({ length: pick([0, 1, 1, 2, 3]) }, hostile))],
        ['randn', (rs) => rs.randn(...Array.from({ length: pick([0, 1, 1, 2, 3]) }, hostile))],
      ];
      const failures = {};
      const byEntry = {};
      let calls = 0;
      const rs = new av.RandomState(7);
      for (let i = 0; i < 6000; i++) {
        const [name, call] = entries[i % entries.length];
        const got = attempt(() => call(rs));
        calls++;
        byEntry[name] = byEntry[name] || { returned: 0, errors: 0 };
        if (got.ok) byEntry[name].returned++;
        else if (got.kind === 'Error') byEntry[name].errors++;
        else (failures[got.kind] = failures[got.kind] || []).push(name);
      }
      const weights = av.compute(av.presets['seed-001']).weights;
      const rsAfter = new av.RandomState(42).randint(3, null, [3, 3]);
      return { calls, failures, byEntry, before, after: await wasmBytes(), weights, rsAfter };
    });
    t.diagnostic(`calls: ${r.calls}; by entry point: ${JSON.stringify(r.byEntry)}`);
    t.diagnostic(`failures by kind: ${JSON.stringify(Object.fromEntries(Object.entries(r.failures).map(([k, v]) => [k, v.length])))}`);
    t.diagnostic(`WASM memory before ${r.before / MB} MB, after ${r.after / MB} MB`);
    assert.equal(r.calls, 6000);
    assert.deepEqual(r.failures, {});
    const close = (got, want) => want.forEach((w, i) => (Array.isArray(w) ? close(got[i], w) : assert.ok(Math.abs(got[i] - w) <= 1e-12 * Math.abs(w), `${got[i]} ≠ ${w}`)));
    close(r.weights, seeds.seed_000_001.weights);
    assert.deepEqual(r.rsAfter, [[2, 0, 2], [2, 0, 0], [2, 1, 2]]);
    assert.ok(r.after < 64 * MB, `WASM memory after the fuzz: ${r.after / MB} MB`);
  } finally {
    await p.close();
  }
});

// ---- 4. what the docs claim about randn ----------------------------------------------------------------

test('docs: randint and rand are bit for bit, randn within 1 ulp (README, .d.ts, embed.html)', async () => {
  const { readFileSync } = await import('node:fs');
  const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
  for (const path of ['README.md', 'www/attention-viz.d.ts', 'www/embed.html']) {
    const text = read(path);
    assert.ok(!/RandomState(<\/code>)?,? bit for bit/.test(text), `${path} still says RandomState is bit for bit as a whole`);
    assert.match(text, /randn[\s\S]{0,80}within 1 ulp/, `${path} says what holds for randn`);
  }
});
