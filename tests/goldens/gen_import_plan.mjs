// Writes tests/fixtures/import-plan.json: what the element's JS import planner (www/element/import-plan.js) answers
// for a table of imports, which tests/import.rs checks the core's `import` module against word for word. Each case
// runs the element's own path in Node: `readFiles` (the files' text read by www/arrays.js, routed by name or to the
// grid), `replaceAll`, the dialog's texts when shapes disagree, then `apply` (`fixFields` with the public
// `RandomState`), with the DOM and the figure's `Viz` stood in for. Needs www/pkg (`make build`); run from the
// crate's root: `node tests/goldens/gen_import_plan.mjs`.
import { writeFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const av = await import(new URL('www/attention-viz.js', root));
await av.ready;
const { Work, planImport } = await import(new URL('www/element/import-plan.js', root));

// ---- the table -----------------------------------------------------------------------------------------------

const m = (r, c, f = (i, j) => i + 2 * j + 1) => Array.from({ length: r }, (_, i) => Array.from({ length: c }, (_, j) => f(i, j)));
const v = (n, f = (i) => i + 1) => Array.from({ length: n }, (_, i) => f(i));
const configs = {
  plain: { embeddings: m(3, 2) },
  proj: { embeddings: m(4, 3), w_q: m(3, 2), w_k: m(3, 2, () => 1), w_v: m(3, 2), tokens: ['a', 'b', 'c', 'd'] },
  heads: { embeddings: m(4, 3), w_q: m(3, 4), w_k: m(3, 4), w_v: m(3, 4), heads: 2, w_o: m(4, 3), tokens: ['a', 'b', 'c', 'd'] },
  general: { embeddings: m(4, 3), w_q: m(3, 2), w_k: m(3, 2), w_v: m(3, 2), scoring: 'general', w_a: m(2, 2), query: 3 },
  general_plain: { embeddings: m(3, 2), scoring: 'general', w_a: m(2, 2) },
  additive: { embeddings: m(3, 4), w_q: m(4, 2), w_k: m(4, 2), w_v: m(4, 3), scoring: 'additive', w_a: m(2, 5), u_a: m(2, 5), v_a: v(5), w_o: m(3, 2) },
  cosine: { embeddings: m(3, 2), scoring: 'cosine', w_o: m(2, 4) },
  masked: { embeddings: m(4, 2), mask: [[1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 1, 1], [1, 1, 1, 0]], valid_lens: [4, 3, 2, 1], query: 3, tokens: ['w', 'x', 'y', 'z'] },
  causal: { embeddings: m(3, 2), mask: 'causal', query: 2 },
  wide_out: { embeddings: m(2, 3), w_o: m(3, 132) },
  gqa: { embeddings: m(4, 3), w_q: m(3, 8), w_k: m(3, 4), w_v: m(3, 4), heads: 4, kv_heads: 2, w_o: m(8, 3) },
  cross: { decoder_state: v(3), annotations: m(4, 3) },
  cross_additive: { decoder_state: [1, 2, 3], annotations: m(4, 3), scoring: 'additive', w_a: m(3, 3), u_a: m(3, 3), v_a: [1, 2, 3], tokens: ['a', 'b', 'c', 'd'] },
  cross_general: { decoder_state: v(2), annotations: m(3, 2), scoring: 'general', w_a: m(2, 2), mask: [1, 0, 1] },
  weights: { mechanism: 'weights', attention: [[0.5, 0.5], [1, 0]] },
};

// A found array: `[member, array]` under a file's name, `[member, array, true]` a member of a JSON object of arrays.
const file = (member, array) => ({ member, array, named: false });
const member = (name, array) => ({ member: name, array, named: true });
const cases = [];
const add = (config, target, found, source = found.map((f) => f.member).join(', ')) => cases.push({ config, target, source, found });

// Paste or drop one array on a grid: same shape, more or fewer tokens, another width.
add('plain', 'embeddings', [file('the pasted array', m(3, 2, () => 7))]);
add('plain', 'embeddings', [file('x.npy', m(4, 2))]);
add('plain', 'embeddings', [file('x.npy', m(5, 2))]);
add('plain', 'embeddings', [file('x.npy', m(7, 2))]);
add('plain', 'embeddings', [file('x.npy', m(1, 2))]);
add('plain', 'embeddings', [file('x.npy', m(3, 5))]);
add('proj', 'embeddings', [file('e.csv', m(4, 5))]);
add('proj', 'embeddings', [file('e.csv', m(6, 5))]);
add('proj', 'w_v', [file('w_v.csv', m(3, 3))]);
add('proj', 'w_q', [file('q.txt', m(3, 5))]);
add('proj', 'w_q', [file('q.txt', m(5, 2))]);
add('masked', 'embeddings', [file('e.npy', m(2, 2))]);
add('masked', 'embeddings', [file('e.npy', m(6, 3))]);
add('causal', 'embeddings', [file('e.npy', m(1, 2))]);
add('cosine', 'embeddings', [file('e.npy', m(3, 6))]);
add('wide_out', 'embeddings', [file('e.npy', m(1, 1000))]);
add('wide_out', 'w_o', [file('o.npy', m(3, 7))]);
add('heads', 'w_q', [file('q.npy', m(3, 3))]);
add('heads', 'w_v', [file('v.npy', m(3, 6))]);
add('heads', 'w_v', [file('v.npy', m(3, 3))]);
add('heads', 'embeddings', [file('e.npy', m(5, 3))]);
add('general', 'w_a', [file('a.npy', m(2, 3))]);
add('general', 'w_a', [file('a.npy', m(3, 3))]);
add('general', 'w_q', [file('q.npy', m(3, 4))]);
add('general', 'embeddings', [file('e.npy', m(2, 3))]);
add('general', 'embeddings', [file('e.npy', m(2, 4))]);
add('general_plain', 'embeddings', [file('e.npy', m(3, 4))]);
add('general_plain', 'w_a', [file('a.npy', m(5, 5))]);
add('additive', 'w_q', [file('q.npy', m(4, 6))]);
add('additive', 'v_a', [file('va.npy', [1, 2])]);
add('additive', 'v_a', [file('va.npy', m(1, 3))]);
add('additive', 'v_a', [file('va.npy', m(4, 1))]);
add('additive', 'embeddings', [file('e.npy', m(3, 3))]);
add('gqa', 'embeddings', [file('e.npy', m(4, 3))]);
add('cross', 'decoder_state', [file('h.npy', v(5))]);
add('cross', 'decoder_state', [file('h.npy', [v(3)])]);
add('cross', 'annotations', [file('a.npy', m(6, 3))]);
add('cross', 'annotations', [file('a.npy', m(2, 5))]);
add('cross_additive', 'v_a', [file('va.npy', [1, 2, 3, 4, 5])]);
add('cross_additive', 'decoder_state', [file('h.npy', [[1, 2, 3, 4]])]);
add('cross_additive', 'annotations', [file('a.npy', [1, 2, 3])]);
add('cross_additive', 'decoder_state', [file('h.npy', [1, NaN, 3])]);
add('cross_general', 'annotations', [file('a.npy', m(5, 2))]);
add('cross_general', 'annotations', [file('a.npy', m(2, 4))]);
add('cross_general', 'decoder_state', [file('h.npy', v(4))]);

// Arrays no input takes.
add('plain', 'embeddings', [file('x.npy', [[[1, 2]], [[3, 4]]])]);
add('plain', 'embeddings', [file('x.npy', 5)]);
add('plain', 'embeddings', [file('x.npy', [1, 2, 3])]);
add('plain', 'embeddings', [file('x.npy', [])]);
add('plain', 'embeddings', [file('x.npy', [[], []])]);
add('plain', 'embeddings', [file('x.npy', [[1, 2], [3, Infinity]])]);
add('cross', 'decoder_state', [file('h.npy', m(2, 2))]);
add('cross', 'decoder_state', [file('h.npy', 3)]);
add('cross', 'decoder_state', [file('h.npy', [[[1, 2]]])]);
add('cross', 'decoder_state', [file('h.npy', [[1], [2], [-Infinity]])]);
add('cross', 'decoder_state', [file('h.npy', [[]])]);

// Arrays named after inputs: a .npz (or JSON object) of them, files named after them, both at once.
add('proj', null, [member('embeddings', m(5, 4)), member('W_Q', m(4, 2)), member('w_k', m(4, 2)), member('W_V', m(4, 2)), member('foo', [1]), member('bar', [2])], 'model.npz');
add('proj', 'embeddings', [member('W_Q', m(3, 3))], 'one.npz');
add('proj', 'embeddings', [member('queries', m(4, 3))], 'one.npz');
add('proj', null, [member('queries', m(4, 3))], 'one.npz');
add('proj', null, [file('W_Q.npy', m(3, 4)), file('w-k.csv', m(3, 4)), file(' W_V .txt', m(3, 4))]);
add('proj', null, [file('W_Q.npy', m(3, 4)), file('w_k.npy', m(3, 4)), file('w_v.npy', m(3, 4)), file('w_q.csv', m(3, 2))]);
add('proj', 'w_q', [file('notes.txt', m(3, 2)), file('other.txt', m(3, 2))]);
add('proj', null, [file('notes.txt', m(3, 2))]);
add('proj', '', [file('w_v.npy', m(3, 2))]);
add('proj', null, [member('embeddings', m(3, 4)), member('w_q', m(5, 2))], 'two.npz');
add('proj', null, [member('embeddings', m(4, 3)), member('w_q', m(3, 2)), member('w_k', m(3, 3)), member('w_v', m(3, 2))], 'two.npz');
add('cross', null, [file('Decoder-State.csv', v(3)), file('annotations.npy', m(2, 3))]);
add('cross', null, [file('decoder state.csv', v(4)), file('annotations.npy', m(2, 3))]);
add('cross_additive', null, [member('w_a', m(3, 4)), member('v_a', v(5))], 'add.npz');

// Inputs this figure cannot take.
add('plain', 'w_q', [file('q.npy', m(2, 2))]);
add('plain', null, [member('w_q', m(2, 3)), member('w_k', m(2, 3)), member('w_v', m(2, 4))], 'qkv.npz');
add('plain', null, [member('w_a', m(2, 2)), member('u_a', m(2, 2))], 'a.npz');
add('plain', null, [member('embeddings', m(3, 2)), member('decoder_state', v(2)), member('v_a', v(2)), member('zzz', v(2))], 'mixed.npz');
add('cosine', 'v_a', [file('v.npy', v(2))]);
add('general', 'u_a', [file('u.npy', m(2, 2))]);
add('cross', 'embeddings', [file('e.npy', m(2, 3))]);
add('cross', null, [member('w_o', m(3, 3)), member('w_k', m(3, 3))], 'self.npz');
add('weights', 'embeddings', [file('e.npy', m(2, 2))]);

// planImport alone, with names that are no input (passed over).
const plans = [
  ['proj', { embeddings: m(4, 3), foo: m(1, 1) }],
  ['heads', { w_o: m(4, 5) }],
  ['general', { w_q: m(3, 4), w_k: m(3, 4), w_v: m(3, 4) }],
  ['cross_additive', { annotations: m(2, 3), w_a: m(3, 3) }],
];

// ---- running the element's path -------------------------------------------------------------------------------

/** A number as www/arrays.js reads it back: NumPy's spelling of NaN and the infinities. */
const numberText = (x) => (Number.isNaN(x) ? 'nan' : x === Infinity ? 'inf' : x === -Infinity ? '-inf' : String(x));
const arrayText = (a) => (Array.isArray(a) ? `[${a.map(arrayText).join(', ')}]` : numberText(a));
/** A shape and row-major values, as the fixture holds an array (NaN and ±∞ as strings). */
function flat(a) {
  const shape = [];
  for (let x = a; Array.isArray(x); x = x[0]) shape.push(x.length);
  const values = [a].flat(Infinity).map((x) => (Number.isFinite(x) ? x : String(x)));
  return { shape, values };
}

/** Stand-ins for the DOM nodes the dialog is built of: only their texts are read. */
globalThis.document = {
  createElement: (tag) => ({
    tag, children: [], textContent: '', setAttribute() {}, addEventListener() {}, focus() {},
    append(...c) { this.children.push(...c); },
  }),
};

/** Files whose text www/arrays.js reads: one per array under a file's name, one JSON object per file of members. */
function filesOf(found, source) {
  const files = [];
  let object = null;
  for (const f of found) {
    if (f.named) {
      if (!object) files.push(object = { name: source, members: [] });
      object.members.push(`"${f.member}": ${arrayText(f.array)}`);
    } else {
      files.push({ name: f.member, text: arrayText(f.array) });
      object = null;
    }
  }
  return files.map((f) => {
    const text = f.text ?? `{${f.members.join(', ')}}`;
    return { name: f.name, arrayBuffer: async () => new TextEncoder().encode(text).buffer };
  });
}

async function run(c) {
  const config = av.normalizeConfig(configs[c.config]);
  const seen = { dialog: null, fields: null, say: null, error: false };
  const work = Object.create(Work.prototype);
  Object.assign(work, {
    pending: null,
    host: {
      _state: { config },
      _apply: (fn) => { fn(); return true; },
      _viz: { setFields: (json) => { seen.fields = JSON.parse(json); } },
      dispatchEvent() {},
    },
    api: { RandomState: av.RandomState },
    say(text, { error = false } = {}) { if (text) Object.assign(seen, { say: text, error }); },
    close() {},
    returnPoint: () => () => {},
    place(panel) {
      const [title, what, fix, buttons] = panel.children;
      seen.dialog = { title: title.textContent, what: what.textContent, fix: fix.textContent, resize: buttons.children[0].textContent };
    },
    // The reader presses Resize at once.
    ask(plan, job) { Work.prototype.ask.call(this, plan, job); this.apply(job); },
  });
  const files = filesOf(c.found, c.source);
  await work.readFiles(files, c.target);
  return { source: files.map((f) => f.name).join(', '), ...seen };
}

const out = { configs, cases: [], plans: [] };
for (const c of cases) {
  const seen = await run(c);
  out.cases.push({ ...c, found: c.found.map((f) => ({ ...f, array: flat(f.array) })), ...seen });
}
for (const [config, incoming] of plans) {
  const p = planImport(av.normalizeConfig(configs[config]), incoming);
  const brief = p.error ? { error: p.error } : {
    values: Object.entries(p.values).map(([name, x]) => [name, flat(x).shape]), resize: p.resize.map((r) => [r.name, r.shape]),
    disagree: p.disagree, tokens: p.tokens,
  };
  out.plans.push({ config, incoming: Object.entries(incoming).map(([name, a]) => [name, flat(a)]), ...brief });
}
const path = new URL('tests/fixtures/import-plan.json', root);
/** JSON with a list of numbers or of short texts on one line. */
const text = (x, indent = '') => {
  const inner = `${indent} `;
  if (Array.isArray(x)) {
    if (x.every((y) => typeof y === 'number' || (typeof y === 'string' && y.length < 20))) return JSON.stringify(x).replaceAll(',', ', ');
    return `[\n${x.map((y) => inner + text(y, inner)).join(',\n')}\n${indent}]`;
  }
  if (x && typeof x === 'object') return `{\n${Object.entries(x).map(([k, y]) => `${inner}${JSON.stringify(k)}: ${text(y, inner)}`).join(',\n')}\n${indent}}`;
  return JSON.stringify(x);
};
writeFileSync(path, `${text(out)}\n`);
console.log(`${out.cases.length} cases and ${out.plans.length} plans written to ${path.pathname}`);
