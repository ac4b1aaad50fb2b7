// The audit's inputs: random valid configs of every kind the core takes (self-attention with every optional field,
// cross-attention, a model's weights), and hostile variants of them — a field set to a hostile value (targeted), or a
// random mutation anywhere in the config. Deterministic: the same seed gives the same inputs.

export function rng(seed) {
  // mulberry32: small, fast, good enough to spread cases.
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (xs) => xs[Math.floor(next() * xs.length)];
  const chance = (p) => next() < p;
  // Small dyadic-ish numbers: exact in float64, like the seeds' inputs, with a few wider ones.
  const num = () => (chance(0.8) ? int(-8, 8) / pick([1, 2, 4, 8]) : (next() - 0.5) * pick([1, 10, 100]));
  const matrix = (r, c) => Array.from({ length: r }, () => Array.from({ length: c }, num));
  const vector = (c) => Array.from({ length: c }, num);
  return { next, int, pick, chance, num, matrix, vector };
}

/** A random valid self-attention config: heads, GQA, W_O, masks, positions, window, decode, tiles, scorings. */
export function selfConfig(r, fields = {}) {
  const n = r.int(1, 7);
  const dModel = r.int(1, 6);
  const c = { embeddings: r.matrix(n, dModel) };
  if (r.chance(0.15)) return { ...c, ...simpleOptions(r, n) }; // Q = K = V = X
  const heads = r.pick([1, 1, 2, 2, 3, 4]);
  const kv = r.pick([...divisors(heads)]);
  const scoring = heads === 1 ? r.pick(['dot', 'dot', 'dot', 'general', 'additive', 'cosine']) : r.pick(['dot', 'dot', 'cosine']);
  const rope = scoring === 'dot' && r.chance(0.25);
  const dk = rope ? 2 * r.int(1, 3) : r.int(1, 4);
  const dv = r.int(1, 4);
  c.w_q = r.matrix(dModel, heads * dk);
  c.w_k = r.matrix(dModel, kv * dk);
  c.w_v = r.matrix(dModel, kv * dv);
  if (scoring !== 'dot' || kv !== heads) {
    // general/additive/cosine and GQA need equal K and V widths per head only as the core defines them.
  }
  if (heads > 1) c.heads = heads;
  if (kv !== heads) c.kv_heads = kv;
  if (heads > 1 && r.chance(0.5)) c.head = r.int(0, heads - 1);
  if (r.chance(0.4)) c.w_o = r.matrix(heads * dv, r.int(1, 5));
  if (scoring !== 'dot') {
    c.scoring = scoring;
    if (scoring === 'general') c.w_a = r.matrix(dk, dk);
    if (scoring === 'additive') {
      const da = r.int(1, 4);
      c.w_a = r.matrix(dk, da);
      c.u_a = r.matrix(dk, da);
      c.v_a = r.vector(da);
    }
  }
  if (rope) {
    c.position = { kind: 'rope' };
    if (r.chance(0.5)) c.position.base = r.pick([2, 100, 10000, 500000, 1e7]);
    if (r.chance(0.5)) c.position.pairs = r.pick(['interleaved', 'halves']);
    if (r.chance(0.3)) c.position.offset = r.pick([0, 1, 7, 1000, 2 ** 32 + 5, 2 ** 40]);
  } else if (scoring === 'dot' && r.chance(0.3)) {
    if (r.chance(0.5)) {
      c.position = { kind: 'sinusoidal' };
      if (r.chance(0.5)) c.position.base = r.pick([2, 100, 10000]);
      if (r.chance(0.3)) c.position.offset = r.pick([1, 7, 1000, 2 ** 32 + 5]);
    } else {
      c.position = { kind: 'alibi' };
      if (r.chance(0.5)) c.position.slopes = Array.from({ length: heads }, () => r.pick([0.5, 0.25, 1, 0.125, 2]));
    }
  }
  if (rope && r.chance(0.4)) {
    // A real layer's RoPE: part of each head turning, the model's own frequencies, a scaled cos and sin.
    const rd = 2 * r.int(1, dk / 2);
    if (rd !== dk || r.chance(0.3)) c.position.rotary_dim = rd;
    if (r.chance(0.5)) c.position.frequencies = Array.from({ length: rd / 2 }, () => r.pick([1, 0.5, 0.1, 0.01, 1e-4, 3]));
    if (r.chance(0.3)) c.position.attention_factor = r.pick([0.5, 1, 1.2, 2]);
  }
  if (r.chance(0.25)) c.b_q = r.vector(heads * dk);
  if (r.chance(0.25)) c.b_k = r.vector(kv * dk);
  if (r.chance(0.25)) c.b_v = r.vector(kv * dv);
  if (c.w_o && r.chance(0.3)) c.b_o = r.vector(c.w_o[0].length);
  if (r.chance(0.15)) c.q_norm = { weight: r.vector(dk), eps: r.pick([1e-6, 1e-5, 0.5]) };
  if (r.chance(0.15)) c.k_norm = { weight: r.vector(dk), eps: r.pick([1e-6, 1e-5, 0.5]) };
  if (r.chance(0.2)) c.softcap = r.pick([0.5, 1, 5, 50]);
  Object.assign(c, simpleOptions(r, n));
  if (scoring === 'dot') {
    if (r.chance(0.25)) c.window = [r.int(0, n), r.int(0, n)];
    if (c.window && r.chance(0.5)) c.sinks = r.int(0, n);
    if (r.chance(0.3)) c.tiles = [r.int(1, n + 1), r.int(1, n + 1)];
    if (c.mask === 'causal' && r.chance(0.4)) c.decode_step = r.int(0, n - 1);
  }
  if (c.decode_step !== undefined && c.masked_row === 'uniform') delete c.masked_row; // refused by design
  return Object.assign(c, fields);
}

function simpleOptions(r, n) {
  const o = {};
  if (r.chance(0.3)) o.mask = r.pick(['causal', 'none']);
  else if (r.chance(0.1)) o.mask = Array.from({ length: n }, () => Array.from({ length: n }, () => (r.chance(0.7) ? 1 : 0)));
  if (r.chance(0.15)) o.valid_lens = Array.from({ length: n }, () => r.int(0, n));
  if (r.chance(0.2)) o.masked_row = r.pick(['zero', 'uniform', 'nan']);
  if (r.chance(0.2)) o.temperature = r.pick([0.05, 0.5, 2, 10]);
  if (r.chance(0.15)) o.scale = r.pick(['none', 'sqrt_dk', 3, 0.5]);
  if (r.chance(0.3)) o.query = r.int(0, n - 1);
  if (r.chance(0.2)) o.tokens = Array.from({ length: n }, (_, i) => `t${i}`);
  return o;
}

function* divisors(h) {
  for (let d = 1; d <= h; d++) if (h % d === 0) yield d;
}

export function crossConfig(r) {
  const m = r.int(1, 7);
  const d = r.int(1, 6);
  const c = { decoder_state: r.vector(d), annotations: r.matrix(m, d) };
  const scoring = r.pick(['dot', 'dot', 'general', 'additive', 'cosine']);
  if (scoring !== 'dot') c.scoring = scoring;
  if (scoring === 'general') c.w_a = r.matrix(d, d);
  if (scoring === 'additive') {
    const da = r.int(1, 4);
    Object.assign(c, { w_a: r.matrix(d, da), u_a: r.matrix(d, da), v_a: r.vector(da) });
  }
  if (r.chance(0.2)) c.mask = Array.from({ length: m }, () => (r.chance(0.7) ? 1 : 0));
  if (r.chance(0.2)) c.valid_lens = [r.int(0, m)];
  if (r.chance(0.2)) c.masked_row = r.pick(['zero', 'uniform', 'nan']);
  if (r.chance(0.2)) c.temperature = r.pick([0.5, 2]);
  return c;
}

export function weightsConfig(r) {
  const [L, H, n] = [r.int(1, 3), r.int(1, 3), r.int(1, 5)];
  const row = () => {
    const x = Array.from({ length: n }, () => r.next());
    const s = x.reduce((a, b) => a + b, 0);
    return x.map((v) => v / s);
  };
  const attention = Array.from({ length: L }, () => Array.from({ length: H }, () => Array.from({ length: n }, row)));
  const c = { attention };
  if (r.chance(0.5)) c.layer = r.int(0, L - 1);
  if (r.chance(0.5)) c.head = r.int(0, H - 1);
  if (r.chance(0.3)) c.tokens = Array.from({ length: n }, (_, i) => `w${i}`);
  return c;
}

export function validConfig(r) {
  const k = r.next();
  return k < 0.75 ? selfConfig(r) : k < 0.9 ? crossConfig(r) : weightsConfig(r);
}

// Values no field should take, each a different way to be wrong: types, non-finite, huge, negative, fractional,
// text that looks like a number, markup, prototypes, deep nesting and long lists.
export const HOSTILE = [
  null, true, false, 0, -0, -1, 0.5, 1.5, -2.5, 2 ** 31, 2 ** 32 + 5, 2 ** 53 + 2, 1e308, -1e308, 5e-324,
  NaN, Infinity, -Infinity, '', ' ', '1', '1e3', 'NaN', 'Infinity', '0x10', '١', 'sqrt_dk', 'causal', 'none',
  '<img src=x onerror="globalThis.__xss=1">', '"}]{', '\u0000', '\ud800', 'a'.repeat(10_000),
  [], [[]], [null], [1], [1, 2], [[1, 2], [3]], [[1, 'x']], [[NaN]], [[Infinity, 1]], [[1e308, 1e308]],
  {}, { kind: 'rope' }, { kind: 'x' }, { __proto__: null }, { constructor: 1 }, JSON.parse('{"__proto__": {"x": 1}}'),
  Array.from({ length: 5000 }, () => 1), Array.from({ length: 4097 }, (_, i) => i),
];

/** A deep structure (nesting `depth`): parsers' recursion limits. */
export const deep = (depth) => {
  let v = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

const UNKNOWN = ['embedding', 'W_Q', 'Heads', 'positions', 'kv', 'softmax', '__proto__', 'constructor', 'toString', ''];

/** One random mutation of a config (a fresh copy): a value replaced at a random path, a key removed or added, a row
 * made ragged, a number turned into text, a list grown or emptied. */
export function mutate(r, config) {
  const c = structuredClone(config);
  const paths = [];
  const walk = (v, path) => {
    paths.push(path);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v && typeof v === 'object') for (const k of Object.keys(v)) walk(v[k], [...path, k]);
  };
  walk(c, []);
  const path = r.pick(paths.slice(1).length ? paths.slice(1) : paths);
  const parent = path.slice(0, -1).reduce((v, k) => v[k], c);
  const key = path[path.length - 1];
  const op = r.int(0, 9);
  if (key === undefined) return r.pick(HOSTILE);
  switch (op) {
    case 0: case 1: case 2:
      parent[key] = r.pick(HOSTILE);
      break;
    case 3:
      if (Array.isArray(parent)) parent.splice(key, 1);
      else delete parent[key];
      break;
    case 4:
      if (typeof parent[key] === 'number') parent[key] = String(parent[key]);
      else parent[key] = r.pick(HOSTILE);
      break;
    case 5:
      if (Array.isArray(parent[key])) parent[key].push(r.chance(0.5) ? r.num() : r.pick(HOSTILE));
      else parent[key] = [parent[key]];
      break;
    case 6:
      if (typeof parent[key] === 'number') parent[key] = r.pick([parent[key] * 1e300, -parent[key], parent[key] + 0.5, 2 ** 40, -(2 ** 31)]);
      else parent[key] = deep(r.pick([10, 100, 1000]));
      break;
    case 7:
      c[r.pick(UNKNOWN)] = r.pick(HOSTILE);
      break;
    case 8:
      if (Array.isArray(parent[key])) parent[key] = [];
      else parent[key] = r.pick(HOSTILE);
      break;
    default:
      parent[key] = structuredClone(r.pick(paths).reduce((v, k) => v[k], config));
  }
  return c;
}
