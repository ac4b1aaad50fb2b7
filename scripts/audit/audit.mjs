// A hostile audit of the core through its public JS API (`compute`, from the built dist/), in Node:
//   targeted — every config field set to every value of gen.mjs's HOSTILE, on several valid configs;
//   random   — random mutations of random valid configs;
//   valid    — random valid configs, whose traces NumPy recomputes (numpy_ref.py) to count wrong numbers.
// Each input ends one way: accepted, refused with a message, or a failure by kind — panic (a RuntimeError from the
// WASM or "internal error"), crash (the module unusable after it), freeze (over 1 s), unclear (a message empty, over
// 500 characters or naming an internal: "undefined", "[object", "RuntimeError"), wrong (NumPy disagrees).
// Every accepted config is recomputed by NumPy; a sample of all inputs is replayed through Python (python_replay.py),
// which must give the same outcome, the same words and the same bits.
// Usage: node scripts/audit/audit.mjs [--random N] [--valid N] [--out DIR]   (needs `make dist`; NumPy in .venv)
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { rng, validConfig, selfConfig, crossConfig, weightsConfig, mutate, HOSTILE, deep } from './gen.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const RANDOM = Number(arg('random', 80000));
const VALID = Number(arg('valid', 2500));
const OUT = arg('out', '/tmp/audit');
const REPLAY = Number(arg('replay', 3000));
mkdirSync(OUT, { recursive: true });

const av = await import(join(root, 'dist', 'attention-viz.js'));
await av.ready;

const src = readFileSync(join(root, 'src', 'config.rs'), 'utf8');
const FIELDS = [...src.match(/pub const FIELDS: &\[&str\] = &\[([^\]]*)\]/)[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]);
const SUBFIELDS = {
  position: ['kind', 'base', 'pairs', 'offset', 'slopes', 'rotary_dim', 'frequencies', 'attention_factor'],
  q_norm: ['weight', 'eps'],
  k_norm: ['weight', 'eps'],
};

// JSON with NaN, ±Infinity and −0 kept (Python's json reads these tokens), so a replay sends the same values.
export const toJSON = (v) =>
  JSON.stringify(v, (k, x) => (typeof x === 'number' && (!Number.isFinite(x) || Object.is(x, -0)) ? `@@${Object.is(x, -0) ? '-0.0' : x}@@` : x))
    .replace(/"@@(NaN|Infinity|-Infinity|-0\.0)@@"/g, '$1');

const counts = {};
const failures = [];
const accepted = [];
const replay = [];
const kinds = ['accepted', 'refused', 'panic', 'crash', 'freeze', 'unclear', 'wrong', 'xss'];
const bump = (surface, kind) => {
  counts[surface] ??= Object.fromEntries(kinds.map((k) => [k, 0]).concat([['inputs', 0]]));
  counts[surface][kind]++;
};
const INTERNAL = /undefined|\[object|RuntimeError|unreachable|internal error|panicked|is not valid JSON/; // an object given is never "not valid JSON"

function probe() {
  const t = av.compute({ embeddings: [[1, 0], [0, 1]] });
  return t.weights[0][0] > 0.66 && t.weights[0][0] < 0.67;
}

function run(surface, config, meta) {
  bump(surface, 'inputs');
  const t0 = performance.now();
  let trace = null;
  let error = null;
  try {
    trace = av.compute(config);
  } catch (e) {
    error = e;
  }
  const ms = performance.now() - t0;
  const record = { surface, meta, ms };
  let kind;
  if (error) {
    const message = String(error?.message ?? error);
    record.message = message;
    if (error instanceof WebAssembly.RuntimeError || /internal error|panicked|unreachable/.test(message)) kind = 'panic';
    else if (!message || message.length > 500 || INTERNAL.test(message)) kind = 'unclear';
    else kind = 'refused';
  } else kind = 'accepted';
  if (ms > 1000) {
    bump(surface, 'freeze');
    failures.push({ ...record, kind: 'freeze', config: short(config) });
  }
  bump(surface, kind);
  if (kind === 'panic' || kind === 'unclear') failures.push({ ...record, kind, config: short(config) });
  if (kind === 'panic' && !safeProbe()) {
    bump(surface, 'crash');
    failures.push({ ...record, kind: 'crash', config: short(config) });
    finish();
    process.exit(1);
  }
  if (kind === 'accepted' && small(config)) accepted.push({ surface, config, trace: extract(trace) });
  return { kind, message: record.message, trace };
}

const safeProbe = () => {
  try {
    return probe();
  } catch {
    return false;
  }
};

const short = (c) => {
  const s = toJSON(c);
  return s.length > 2000 ? s.slice(0, 2000) + `… (${s.length} chars)` : s;
};
const small = (c) => {
  try {
    return toJSON(c).length < 20000;
  } catch {
    return false;
  }
};

// What NumPy checks: each head's weights and context, the output, the decode row, the flash tiles' last o / l.
function extract(t) {
  const out = { mechanism: t.mechanism };
  if (t.mechanism === 'weights') return { ...out, attention: t.attention };
  if (t.mechanism === 'cross') return { ...out, weights: t.weights, context: t.context, scores: t.scores };
  out.heads = t.heads
    ? t.heads.map((h) => ({ weights: h.weights, context: h.context, scores: h.scores, capped: h.capped }))
    : [{ weights: t.weights, context: t.context, scores: t.scores, capped: t.capped }];
  for (const k of ['q', 'k', 'v', 'output', 'pe']) if (t[k]) out[k] = t[k];
  if (t.decode) out.decode = { weights: t.decode.weights, context: t.decode.context };
  if (t.flash) out.flash = t.flash.steps.map((s) => ({ q_block: s.q_block, k_block: s.k_block, l: s.l, o: s.o }));
  return out;
}

function finish() {
  writeFileSync(join(OUT, 'accepted.jsonl'), accepted.map((a) => toJSON(a)).join('\n') + '\n');
  writeFileSync(join(OUT, 'replay.jsonl'), replay.map((a) => toJSON(a)).join('\n') + '\n');
  writeFileSync(join(OUT, 'node.json'), JSON.stringify({ counts, failures: failures.slice(0, 500) }, null, 1));
}

const r = rng(20261207);
const bases = [
  selfConfig(rng(1), {}),
  { ...selfConfig(rng(2)), mask: 'causal' },
  av.presets['seed-003'] ?? selfConfig(rng(3)),
  crossConfig(rng(4)),
  weightsConfig(rng(5)),
];
// A config using every self-attention field at once (where they combine).
bases.push({
  embeddings: [[1, 0, 2, 1], [0, 1, 1, 0], [2, 1, 0, 1], [1, 1, 1, 1]],
  w_q: [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]],
  w_k: [[1, 0], [0, 1], [1, 1], [0, 0]],
  w_v: [[1, 2], [0, 1], [1, 0], [2, 1]],
  heads: 2, kv_heads: 1, w_o: [[1, 0], [0, 1], [1, 1], [0, 2]], mask: 'causal',
  position: { kind: 'rope', pairs: 'halves', base: 10000 }, window: [2, 0], sinks: 1, decode_step: 3, tiles: [2, 2],
});

// targeted: each field (and each sub-field) of each base set to each hostile value, and to deep nesting.
let targeted = 0;
const values = [...HOSTILE, deep(200), deep(5000)];
for (const base of bases) {
  const fields = [...FIELDS, 'b_q', 'b_k', 'b_v', 'b_o', 'q_norm', 'k_norm', 'softcap'];
  for (const f of fields) {
    for (const v of values) {
      run('node targeted', { ...base, [f]: v }, { field: f });
      targeted++;
    }
    for (const [sub, keys] of Object.entries(SUBFIELDS)) {
      if (f !== sub) continue;
      const inner = sub === 'position' ? { kind: 'rope' } : { weight: [1, 1], eps: 1e-6 };
      for (const key of keys) for (const v of values) run('node targeted', { ...base, [sub]: { ...inner, [key]: v } }, { field: `${sub}.${key}` });
    }
  }
}

// random: mutations of random valid configs, 1–3 at a time.
for (let i = 0; i < RANDOM; i++) {
  let c = validConfig(r);
  const times = r.int(1, 3);
  for (let j = 0; j < times; j++) c = mutate(r, c);
  const res = run('node random', c, { i });
  if (replay.length < REPLAY && r.chance(REPLAY / RANDOM * 1.5)) replay.push({ config: c, outcome: res.kind, message: res.message ?? null, bits: res.trace ? bits(res.trace) : null });
}

// valid: random valid configs (also through Python).
for (let i = 0; i < VALID; i++) {
  const c = validConfig(r);
  const res = run('node valid', c, { i });
  if (replay.length < REPLAY + VALID / 5 && i % 5 === 0) replay.push({ config: c, outcome: res.kind, message: res.message ?? null, bits: res.trace ? bits(res.trace) : null });
}

function bits(t) {
  // The weights and context as exact texts (JSON's shortest round-trip digits): equal texts are equal bits.
  const e = extract(t);
  return toJSON(e.mechanism === 'weights' ? e.attention : [e.heads ?? e.weights, e.context ?? null, e.output ?? null]);
}

finish();
console.log(`node: ${targeted} targeted, ${RANDOM} random, ${VALID} valid; accepted for NumPy: ${accepted.length}`);
console.log(JSON.stringify(counts, null, 1));
