// Owns an import's work, imported on demand (importer.js: the first import, the first paste of a whole array, or a
// grid's first focus; a figure nobody imports into never needs it): reading the files, planning the import
// against the other inputs (`planImport`, `fitArray`, `fixFields`), the shape-mismatch alertdialog (resize with
// `np.random.seed(42)` + `rand` values, or cancel) and applying it (one `setFields` through host._apply). Its methods
// (`Work`'s) are the Importer's: importer.js puts them on its prototype when this module arrives.
import { el, rememberFocus } from './dom.js';
// Import… exists only once the core is ready.
import { defaultToken } from '../core.js';
import { IMPORT_TITLES, title } from './importer.js';

/** The seed of the random values that fill resized matrices: np.random.seed(42), then one rand(…) per matrix. */
export const IMPORT_SEED = 42;

export { IMPORT_TITLES };
/** Every input matrix in the grids' reading order: the order resized matrices draw their random values in. */
export const INPUT_ORDER = ['embeddings', 'w_q', 'w_k', 'w_v', 'decoder_state', 'annotations', 'w_a', 'u_a', 'v_a', 'w_o'];
const VECTORS = new Set(['decoder_state', 'v_a']);
const PLURAL = new Set(['embeddings', 'annotations']);

const shapeText = (shape) => shape.join(' × ');
/** "embeddings are 10 × 64", "W_Q is 3 × 3", "v_a has 4 values". */
const described = (name, shape) => (shape.length === 1 ? `${title(name)} has ${shape[0]} values`
  : `${title(name)} ${PLURAL.has(name) ? 'are' : 'is'} ${shapeText(shape)}`);
/** "W_K, W_V need" / "W_K needs" / "embeddings need". */
const needs = (names) => `${names.map(title).join(', ')} ${names.length > 1 || PLURAL.has(names[0]) ? 'need' : 'needs'}`;
const list = (names) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`);

/** What each shape symbol is called in messages. */
const SYMBOL_NAMES = { n: 'tokens', D: 'd_model', K: 'd_k', V: 'd_v', O: 'd_out', A: 'd_a' };

/**
 * The shape of every input of a config as symbols (a vector has one): n tokens, D input width, K and V the widths
 * of W_Q/W_K and W_V (all heads side by side), O the output width of W_O, A the width of additive scoring. Without
 * projections the queries and keys are the inputs themselves, so what is shaped by K or V is shaped by D.
 */
function layoutOf(cfg, projections) {
  const general = cfg.scoring === 'general';
  if (cfg.mechanism !== 'self' && cfg.mechanism !== 'cross') return {}; // a model's weights: no input matrices
  if (cfg.mechanism === 'cross') {
    return { decoder_state: ['D'], annotations: ['n', 'D'], w_a: general ? ['D', 'D'] : ['D', 'A'], u_a: ['D', 'A'], v_a: ['A'] };
  }
  const [k, v] = projections ? ['K', 'V'] : ['D', 'D'];
  return {
    embeddings: ['n', 'D'],
    ...(projections ? { w_q: ['D', 'K'], w_k: ['D', 'K'], w_v: ['D', 'V'] } : {}),
    w_o: [v, 'O'], w_a: general ? [k, k] : [k, 'A'], u_a: [k, 'A'], v_a: ['A'],
  };
}

/** The shape of an input of a config: [rows, columns], or [length] for a vector; undefined when it has none. */
function shapeIn(cfg, name) {
  const x = cfg[name];
  if (x === undefined || x === null) return undefined;
  return VECTORS.has(name) ? [x.length] : [x.length, x[0].length];
}

/** Nested arrays' shape, or a message: [] for a number, [3] for a list, [2, 3] for rows… Ragged rows are refused. */
function arrayShape(a, at = 'the array') {
  if (!Array.isArray(a)) return [];
  if (!a.length) return [0];
  const inner = arrayShape(a[0], `${at}[0]`);
  if (typeof inner === 'string') return inner;
  for (let i = 1; i < a.length; i++) {
    const s = arrayShape(a[i], `${at}[${i}]`);
    if (typeof s === 'string') return s;
    if (s.join() !== inner.join()) {
      return `its rows differ in shape: row 0 has ${inner.length ? shapeText(inner) : 'one number'}, row ${i} has ${s.length ? shapeText(s) : 'one number'}`;
    }
  }
  return [a.length, ...inner];
}

/** The value a number of an imported array becomes: booleans and 64-bit integers too; null for anything else. */
function toNumber(x) {
  if (typeof x === 'number') return x;
  if (typeof x === 'boolean') return x ? 1 : 0;
  if (typeof x === 'bigint') return Number(x);
  return null;
}

/**
 * An imported array as input `name` takes it: `{value, shape}` (a vector as a list, a matrix as rows of finite
 * numbers), or `{error}` saying why not. A vector also takes one row or one column.
 */
export function fitArray(name, array) {
  const what = title(name);
  const shape = arrayShape(array);
  if (typeof shape === 'string') return { error: `${what} cannot take this array: ${shape}` };
  if (shape.includes(0)) return { error: `${what} cannot take an empty array (shape ${shape.join(' × ') || '()'})` };
  const d = shape.length;
  let rows;
  if (VECTORS.has(name)) {
    if (d === 1) rows = [array];
    else if (d === 2 && (shape[0] === 1 || shape[1] === 1)) rows = [array.flat()];
    else return { error: `${what} is a vector: it needs a 1-d array (or one row), got ${d === 0 ? 'a single number' : `a ${d}-d array (${shapeText(shape)})`}` };
  } else if (d === 2) {
    rows = array;
  } else if (d === 1) {
    return { error: `${needs([name])} a 2-d array (rows × columns), got a 1-d array of ${shape[0]} values: reshape it, e.g. x.reshape(1, -1) for one row` };
  } else {
    return { error: `${needs([name])} a 2-d array (rows × columns), got ${d === 0 ? 'a single number' : `a ${d}-d array (${shapeText(shape)})`}` };
  }
  const out = rows.map((row) => row.map(toNumber));
  for (let i = 0; i < out.length; i++) {
    for (let j = 0; j < out[i].length; j++) {
      const x = out[i][j];
      if (x === null || !Number.isFinite(x)) {
        const at = VECTORS.has(name) ? `value ${j}` : `row ${i}, column ${j}`;
        return { error: `${what} ${at} is ${x === null ? `not a number (${typeof rows[i][j]})` : x}: every value must be a finite number` };
      }
    }
  }
  return VECTORS.has(name) ? { value: out[0], shape: [out[0].length] } : { value: out, shape: [out.length, out[0].length] };
}

/** Why a figure cannot take input `name` (null when it can, maybe together with others: `names`). */
function notHere(cfg, name, names) {
  const self = cfg.mechanism === 'self';
  if (!self && cfg.mechanism !== 'cross') return 'this figure shows given attention weights';
  const mech = self ? 'self-attention' : 'encoder–decoder (cross) attention';
  if (!self && ['embeddings', 'w_q', 'w_k', 'w_v', 'w_o'].includes(name)) return `this figure is ${mech}`;
  if (self && (name === 'decoder_state' || name === 'annotations')) return `this figure is ${mech}`;
  if (['w_q', 'w_k', 'w_v'].includes(name) && cfg.w_q === undefined && !['w_q', 'w_k', 'w_v'].every((w) => names.includes(w))) {
    return 'W_Q, W_K and W_V go together';
  }
  const scoring = cfg.scoring ?? 'dot';
  if (name === 'w_a' && cfg.w_a === undefined) return `this figure's scoring is ${scoring} (W_a belongs to general or additive)`;
  if ((name === 'u_a' || name === 'v_a') && cfg[name] === undefined) return `this figure's scoring is ${scoring} (${title(name)} belongs to additive)`;
  return null;
}

/** The name of a row added at index `i`: the core's default (word_1…, h_1…). */
const newToken = (cfg, i) => defaultToken(cfg.mechanism === 'self', i);

/**
 * The fields that keep tokens, mask, valid lengths and the followed query consistent with `n` rows (the core
 * refuses a config whose token count disagrees): kept names and entries for the rows that stay, and for new rows
 * default names, mask entries that allow them (as + token does) and valid lengths of all keys.
 */
function tokenFields(cfg, n) {
  const old = cfg.tokens.length;
  const fields = { tokens: Array.from({ length: n }, (_, i) => (i < old ? cfg.tokens[i] : newToken(cfg, i))) };
  const self = cfg.mechanism === 'self';
  const fit = (row, fill) => Array.from({ length: n }, (_, j) => (j < row.length ? row[j] : fill));
  if (Array.isArray(cfg.mask)) {
    if (!self) fields.mask = fit(cfg.mask, 1);
    else fields.mask = Array.from({ length: n }, (_, i) => (i < old ? fit(cfg.mask[i], 1) : new Array(n).fill(1)));
  }
  if (self && Array.isArray(cfg.valid_lens)) fields.valid_lens = Array.from({ length: n }, (_, i) => (i < old ? cfg.valid_lens[i] : n));
  if (self && cfg.query >= n) fields.query = n - 1;
  return fields;
}

/**
 * What importing `incoming` ({name: array}) into a config takes. `{error}`: it cannot be done (a message saying
 * exactly why); otherwise `{values, resize, disagree, tokens}`: the imported inputs ({name: value}), the other
 * inputs that must change shape for them ([{name, shape}] in reading order), one sentence per disagreement
 * ("embeddings are 10 × 64 but W_Q is 3 × 3: W_Q, W_K, W_V need 64 rows"), and the token count before and after.
 * Pure: the random values are drawn by `fixFields`.
 */
export function planImport(cfg, incoming) {
  const names = INPUT_ORDER.filter((m) => m in incoming);
  const values = {};
  const shapes = {};
  for (const name of names) {
    const fitted = fitArray(name, incoming[name]);
    if (fitted.error) return { error: fitted.error };
    values[name] = fitted.value;
    shapes[name] = fitted.shape;
  }
  const hadProjections = cfg.mechanism === 'self' && cfg.w_q !== undefined;
  const projections = hadProjections || (cfg.mechanism === 'self' && names.includes('w_q'));
  const layout = layoutOf(cfg, projections);
  const before = layoutOf(cfg, hadProjections);
  // The symbols' values now, read from the inputs the config has.
  const current = {};
  for (const name of INPUT_ORDER) {
    const shape = shapeIn(cfg, name);
    if (shape && before[name]) before[name].forEach((s, a) => { current[s] ??= shape[a]; });
  }
  // The symbols the imported arrays fix; two imported arrays that disagree cannot both be right.
  const bound = {};
  const boundBy = {};
  for (const name of names) {
    const syms = layout[name];
    for (let a = 0; a < syms.length; a++) {
      const s = syms[a];
      const size = shapes[name][a];
      if (bound[s] === undefined) { bound[s] = size; boundBy[s] = name; continue; }
      if (bound[s] === size) continue;
      if (boundBy[s] === name) {
        return { error: `${described(name, shapes[name])} but its rows and columns are both ${SYMBOL_NAMES[s]} here (${cfg.scoring} scoring): it must be square` };
      }
      return { error: `${described(boundBy[s], shapes[boundBy[s]])} but ${described(name, shapes[name])}: ${needs([name])} ${bound[s]} ${a === 0 ? 'rows' : 'columns'}` };
    }
  }
  const value = (s) => bound[s] ?? current[s];
  const heads = cfg.heads ?? 1;
  if (heads > 1) {
    for (const s of ['K', 'V']) {
      if (bound[s] !== undefined && bound[s] % heads) {
        return { error: `${described(boundBy[s], shapes[boundBy[s]])} but ${heads} heads split its ${bound[s]} columns evenly: it needs a multiple of ${heads} columns` };
      }
    }
  }
  // Every other input whose shape no longer agrees is resized; each disagreement is said once per symbol.
  const resize = [];
  const affected = {}; // symbol → [{name, kind}]
  for (const name of INPUT_ORDER) {
    if (name in values || !cfg[name] || !layout[name]) continue;
    const have = shapeIn(cfg, name);
    const want = layout[name].map(value);
    if (want.every((x, a) => x === have[a])) continue;
    resize.push({ name, shape: want });
    const syms = layout[name];
    for (const s of new Set(syms)) {
      if (syms.every((t, a) => t !== s || want[a] === have[a])) continue;
      const kind = syms.length === 1 ? 'values' : syms[0] === syms[1] ? 'rows and columns' : syms[0] === s ? 'rows' : 'columns';
      (affected[s] ||= []).push({ name, kind });
    }
  }
  const disagree = Object.entries(affected).map(([s, hit]) => {
    const kinds = [...new Set(hit.map((h) => h.kind))];
    const groups = kinds.map((kind) => `${needs(hit.filter((h) => h.kind === kind).map((h) => h.name))} ${value(s)} ${kind}`);
    const first = hit[0].name;
    const src = boundBy[s];
    return `${src ? `${described(src, shapes[src])} but ` : ''}${described(first, shapeIn(cfg, first))}: ${groups.join('; ')}`;
  });
  const rowsOf = cfg.mechanism === 'self' ? 'embeddings' : 'annotations';
  const n = rowsOf in values ? values[rowsOf].length : cfg.tokens.length;
  return { values, resize, disagree, tokens: [cfg.tokens.length, n] };
}

/**
 * The fields to send for a plan: the imported values, the resized inputs filled with NumPy's legacy generator —
 * np.random.seed(42), then np.random.rand(rows, cols) (rand(d) for a vector) for each resized input in reading
 * order (embeddings, W_Q, W_K, W_V, decoder state, annotations, W_a, U_a, v_a, W_O) — and the token fields.
 */
export function fixFields(cfg, plan, RandomState) {
  const fields = { ...plan.values };
  if (plan.resize.length) {
    const rs = new RandomState(IMPORT_SEED);
    for (const { name, shape } of plan.resize) fields[name] = rs.rand(...shape);
  }
  if (plan.tokens[1] !== plan.tokens[0]) Object.assign(fields, tokenFields(cfg, plan.tokens[1]));
  return fields;
}

/** Is this byte content a .npz (a zip), a .npy, or text? Read from the bytes: a file's name may say anything. */
function kindOf(bytes) {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return 'npz';
  if (bytes[0] === 0x93 && String.fromCharCode(...bytes.subarray(1, 6)) === 'NUMPY') return 'npy';
  return 'text';
}

/** A file's or a .npz member's name as an input's name: `W_Q.npy` → `w_q`. */
const asInput = (name) => name.replace(/\.[A-Za-z0-9]+$/, '').trim().toLowerCase().replace(/[\s-]+/g, '_');


/** The Importer's methods that do an import (`this` is the Importer: importer.js puts them on its prototype). */
export class Work {
  // ---- reading files ---------------------------------------------------------------------------

  /**
   * Reads `files` and imports them: into grid `target` (a single array), or every matrix a .npz (or the files'
   * own names: w_q.npy) names. Nothing changes until every file has been read.
   */
  async readFiles(files, target, returnTo = null) {
    this.say('', { near: target });
    const found = []; // {member, array, npz}: every array of every file
    const source = files.map((f) => f.name).join(', ');
    try {
      // Loaded on the first import: a figure nobody imports into never needs the parsers.
      const { parseArray, parseArrays, loadInflate } = await import('../arrays.js');
      await loadInflate(); // a compressed .npz's inflater
      for (const file of files) {
        const bytes = new Uint8Array(await file.arrayBuffer());
        const kind = kindOf(bytes);
        try {
          const text = kind === 'text' ? new TextDecoder().decode(bytes) : null;
          // A .npz, or a JSON object of arrays ({"embeddings": […], "w_q": […]}), names its arrays.
          if (kind === 'npz' || text?.trimStart().startsWith('{')) {
            for (const [member, array] of Object.entries(parseArrays(text ?? bytes))) found.push({ member, array, npz: true });
          } else found.push({ member: file.name, array: parseArray(text ?? bytes), npz: false });
        } catch (e) {
          throw new Error(`${file.name}: ${e?.message ?? e}`);
        }
      }
    } catch (e) {
      this.refuse(`${e?.message ?? e}; nothing was imported`, target);
      return;
    }
    // One array goes to the grid it was dropped on (or picked for), whatever its file is called; a .npz member
    // named after an input goes to that input. Otherwise arrays go where their names say.
    const only = found.length === 1 ? found[0] : null;
    let incoming = {};
    const ignored = [];
    if (target && only && !(only.npz && INPUT_ORDER.includes(asInput(only.member)))) incoming = { [target]: only.array };
    else {
      for (const { member, array } of found) {
        const name = asInput(member);
        if (INPUT_ORDER.includes(name)) incoming[name] = array; else ignored.push(member);
      }
      if (!Object.keys(incoming).length) {
        const why = target ? `drop one array on ${title(target)}, or a .npz of arrays named after the inputs`
          : 'drop a file on the grid it is for, or a .npz of arrays named after the inputs';
        this.refuse(`${source}: no array named after an input of this figure (${this.names().join(', ')}); ${why}`, target);
        return;
      }
    }
    this.replaceAll(incoming, { target, source, ignored, returnTo });
  }

  /** The inputs of this figure, by the names a .npz or a file uses for them. */
  names() { return INPUT_ORDER.filter((m) => this.host._state.config[m] !== undefined); }

  /** A whole array pasted into the first cell of `matrix` (inputs.js): the same path as a file. */
  replaceNow(matrix, array, { source = 'the pasted array', returnTo = null } = {}) {
    this.say('', { near: matrix });
    this.replaceAll({ [matrix]: array }, { target: matrix, source, ignored: [], returnTo });
  }

  /**
   * Imports `incoming` ({input name: array}): at once when the other inputs agree, else through the dialog.
   * Inputs this figure cannot take are listed as ignored, with the reason.
   */
  replaceAll(incoming, { target, source, ignored, returnTo }) {
    const cfg = this.host._state.config;
    const names = Object.keys(incoming);
    const skipped = [...ignored];
    const usable = {};
    for (const name of names) {
      const why = notHere(cfg, name, names);
      if (why) skipped.push(`${name} (${why})`); else usable[name] = incoming[name];
    }
    if (!Object.keys(usable).length) {
      this.refuse(`${source}: nothing this figure takes; ignored: ${skipped.join(', ')}`, target);
      return;
    }
    const plan = planImport(cfg, usable);
    if (plan.error) { this.refuse(`${source}: ${plan.error}; nothing was imported`, target); return; }
    const job = { incoming: usable, target, source, ignored: skipped, returnTo };
    if (plan.resize.length) this.ask(plan, job);
    else this.apply(job);
  }

  // ---- the dialog ------------------------------------------------------------------------------

  /** The inline alertdialog: what disagrees, the fix (resize with seeded random values), or Cancel. */
  ask(plan, job) {
    // A dialog already open gives way; the focus it was to give back is this one's to give back.
    const open = this.pending;
    const refocus = open?.panel.contains(job.returnTo) ? open.refocus : this.returnPoint(job);
    this.close({ refocus: false });
    const resized = plan.resize.map((r) => title(r.name));
    const shapes = plan.resize.map((r) => `${title(r.name)} ${shapeText(r.shape)}`).join(', ');
    const into = Object.keys(job.incoming).map(title);
    const fix = el('button', { type: 'button', 'data-action': 'import-resize', text: `Resize ${resized.join(', ')}` });
    const cancel = el('button', { type: 'button', 'data-action': 'import-cancel', text: 'Cancel' });
    const panel = el('div', { class: 'import-dialog', role: 'alertdialog', 'aria-labelledby': 'import-title', 'aria-describedby': 'import-what import-fix' },
      el('p', { class: 'import-title', id: 'import-title', text: `Import ${list(into)}: the shapes disagree` }),
      el('p', { id: 'import-what', text: `${plan.disagree.join('. ')}.` }),
      el('p', { class: 'import-fix', id: 'import-fix',
        text: `Resize makes ${shapes}, of random values in [0, 1): np.random.seed(${IMPORT_SEED}), then np.random.rand(rows, columns) for each, in this order.`
          + `${plan.tokens[0] !== plan.tokens[1] ? ` ${this.tokenNote(plan)}` : ''}` }),
      el('div', { class: 'import-buttons' }, fix, cancel));
    fix.addEventListener('click', () => { this.close(); this.apply(job); });
    cancel.addEventListener('click', () => this.close());
    panel.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      this.close();
    });
    this.pending = { panel, refocus };
    this.place(panel, job.target);
    fix.focus();
    panel.scrollIntoView?.({ block: 'nearest' });
  }

  /**
   * Where the keyboard goes when the dialog closes: the control of this figure that had it (the Import… button that
   * opened the picker, the cell pasted into), else — a file dropped from outside, while the page had the focus — the
   * Import… button of the grid the array was for.
   */
  returnPoint(job) {
    const root = this.host.shadowRoot;
    if (job.returnTo && root.contains(job.returnTo)) return this.focusReturn(job.returnTo);
    const name = job.target ?? Object.keys(job.incoming)[0];
    return () => root.querySelector(`button[data-action="import"][data-matrix="${name}"]`)?.focus({ preventScroll: true });
  }

  /** Gives the focus back to `node` (or, after a rebuild, to its replacement) when the dialog closes. */
  focusReturn(node) {
    const inside = node && this.host.shadowRoot.contains(node);
    const again = inside ? rememberFocusOf(this.host.shadowRoot, node) : () => {};
    return () => {
      if (node?.isConnected && typeof node.focus === 'function') node.focus({ preventScroll: true });
      else again();
    };
  }

  /** Closes the dialog; the focus goes back where it was. */
  close({ refocus = true } = {}) {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    const hadFocus = p.panel.contains(this.host.shadowRoot.activeElement);
    p.panel.remove();
    if (this.root.childElementCount === 1) this.root.hidden = true;
    if (refocus && hadFocus) p.refocus();
  }

  // ---- applying --------------------------------------------------------------------------------

  /**
   * One setFields with the imported inputs, the resized ones and the token fields, planned again against the
   * config as it is now (the reader may have typed while the dialog was open). Rust validates it; a refusal keeps
   * the figure and says why beside the grid.
   */
  apply({ incoming, target, source, ignored }) {
    const { host } = this;
    const cfg = host._state.config;
    const plan = planImport(cfg, incoming);
    if (plan.error) { this.refuse(`${source}: ${plan.error}; nothing was imported`, target); return; }
    let fields;
    try { fields = fixFields(cfg, plan, this.api.RandomState); } catch (e) { this.refuse(`${source}: ${e?.message ?? e}; nothing was imported`, target); return; }
    let refused = null;
    const ok = host._apply(() => {
      try { host._edit({ fields }); } catch (e) { refused = e; throw e; }
    }, { rebuild: true });
    if (!ok) {
      // _apply has said it in the status line and fired `error`; say it where the reader is looking too.
      this.say(`${source}: ${refused?.message ?? 'refused'}; nothing was imported`, { near: target, error: true });
      return;
    }
    const done = Object.entries(plan.values).map(([name, v]) => `${title(name)} (${shapeText(VECTORS.has(name) ? [v.length] : [v.length, v[0].length])})`);
    const parts = [`Imported ${list(done)} from ${source}${ignored.length ? `; ignored: ${ignored.join(', ')}` : ''}.`];
    if (plan.resize.length) parts.push(`Resized ${plan.resize.map((r) => `${title(r.name)} to ${shapeText(r.shape)}`).join(', ')} with np.random.seed(${IMPORT_SEED}) rand values.`);
    if (plan.tokens[0] !== plan.tokens[1]) parts.push(this.tokenNote(plan));
    this.say(parts.join(' '), { near: target });
  }

  tokenNote({ tokens: [from, to] }) {
    const cfg = this.host._state.config;
    if (to < from) return `${from - to} token${from - to > 1 ? 's' : ''} removed (${from} → ${to}).`;
    const added = to - from <= 2 ? [from, to - 1].slice(0, to - from).map((i) => newToken(cfg, i)).join(', ')
      : `${newToken(cfg, from)} … ${newToken(cfg, to - 1)}`;
    return `${to - from} token${to - from > 1 ? 's' : ''} added (${added}).`;
  }

  // ---- messages --------------------------------------------------------------------------------

  /** A refusal: said beside the grid (or above the grids) and as an `error` event; nothing changed. */
  refuse(message, target) {
    this.say(message, { near: target, error: true });
    this.host.dispatchEvent(new CustomEvent('error', { detail: { message } }));
  }
}


/** rememberFocus (dom.js) for a node that has the focus or had it: its replacement after a rebuild. */
function rememberFocusOf(root, node) {
  if (root.activeElement === node) return rememberFocus(root);
  return () => {};
}
