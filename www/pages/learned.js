// The guided page's chapter 9, "Attention that learned" (index.html #learned): the two trained models' sections.
// Reversal: the digits input and its message, the output row (wrong digits marked), the head's weights, Reset, and
// behind the "Edit weights" disclosure the head as an editable <attention-viz>. Induction: the letters input, a new
// random sequence, the predicted next letters with the repeat's positions marked, both heads as a weights figure with
// their labels and what they do on this sequence, Reset, and behind "Edit weights" one head (layer 0's previous-token
// head or layer 1's induction head, picked) as an editable <attention-viz>. The heatmap and the prediction come first
// and the training panel right after them: the grids below it never move what the reader watches while a model trains. An editable head (HeadEditor) is chapter 2's self-attention of the layer's input X with the layer's W_Q, W_K,
// W_V, W_O, whose edits go back into a copy of the model, so the prediction breaks and recovers. Each section has a
// training panel (learned-train.js). Every number shown comes from compute() or train(); this file only moves them
// between the model, the page and the figures.
import { loadModels, compute, models, _taskExample } from '../attention-viz.js';
import { el } from '../element/dom.js';
import { queueLoad } from '../element/loads.js';
import { TrainPanel } from './learned-train.js';

const $ = (id) => document.getElementById(id);
const copy = (model) => structuredClone(model);

/**
 * A trained model as the page shows it: every parameter rounded to two decimals, so that its W_Q … W_O fit in the
 * element's cells (full float64s made each grid ~1000 px wide). The page computes with exactly these numbers; the
 * shipped reversal model, rounded, still reverses all 10⁶ six-digit inputs (checked with NumPy), and the shipped
 * induction model, rounded, predicts its letter at 99.8 % of the repeated positions of 2,000 random sequences.
 */
const rounded = (model) => ({ ...model, params: round2(model.params) });
/** Every number of nested objects and lists rounded to two decimals (a walk, not a JSON round trip: it runs per redraw while training).
 * `+ 0`: a weight in (−0.005, 0) rounds to −0, which the figures' configs hold as 0, as JSON writes it. */
const round2 = (v) => (typeof v === 'number' ? Math.round(v * 100) / 100 + 0 : Array.isArray(v) ? v.map(round2)
  : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, round2(x)])) : v);
/** A sum of two-decimal numbers without float64's tail (0.30000000000000004 → 0.3): within 2 ulps of it. */
const tidy = (x) => Number(x.toPrecision(15));
const MATRICES = ['w_q', 'w_k', 'w_v', 'w_o'];
/** An editable head's panels (behind the section's "Edit weights" disclosure): X, W_Q, W_K, W_V, W_O as editable grids, and the head's weights. */
const VIEWS = 'inputs,weights';
/**
 * How the chapter's figures write numbers (the element's `fmt`, seaborn's): two decimals, as the model's numbers are
 * kept. Layer 1's X (what layer 0 computed, not a parameter) shows rounded too; its whole value is each cell's title.
 */
const FMT = '.2f';
const NAMES = { w_q: 'W_Q', w_k: 'W_K', w_v: 'W_V', w_o: 'W_O', pos_emb: 'pos_emb', embeddings: 'X' };
/** A matrix's shape as the page writes it: "8 × 4". */
const shapeText = (m) => `${m.length} × ${m[0]?.length ?? 0}`;
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
/** How many numbers of two equal-shaped matrices differ. */
const differing = (a, b) => a.reduce((n, row, i) => n + row.filter((x, j) => x !== b[i][j]).length, 0);

/**
 * Symbols typed into an input, or a message: `chars` (each a string of one symbol) taken from text where spaces,
 * commas and brackets separate nothing ("314159", "3 1 4 1 5 9", "[3, 1, 4, 1, 5, 9]"); `ok(c)` says if it is allowed.
 */
function readSymbols(text, { ok, what, unit, min, max, example }) {
  const chars = [...text.replace(/[\s,;[\]()]/g, '')];
  if (!chars.length) return { error: `Type ${what} (for example ${example}).` };
  const bad = chars.findIndex((c) => !ok(c));
  if (bad >= 0) return { error: `“${chars[bad]}” (the ${ordinal(bad + 1)} character) is not allowed: type ${what}.` };
  if (chars.length < min || chars.length > max) {
    const need = min === max ? `exactly ${min}` : `${min} to ${max}`;
    return { error: `That is ${chars.length} ${unit}; the model reads ${need}. Type ${what}.` };
  }
  return { chars };
}

const ordinal = (n) => `${n}${['th', 'st', 'nd', 'rd'][(n % 100 > 10 && n % 100 < 14) || n % 10 > 3 ? 0 : n % 10]}`;

/** Marks `input` valid or not, with `message` in its describing line; returns whether it is valid. */
function mark(input, msg, error) {
  input.toggleAttribute('aria-invalid', Boolean(error));
  msg.classList.toggle('error', Boolean(error));
  msg.textContent = error ?? '';
  return !error;
}

/** A small table of rows [header, cells…]; a cell is text or {text, cls, say} (say: extra words for screen readers). */
function table(caption, rows) {
  return el('table', { class: 'learned-table' }, el('caption', { class: 'sr-only', text: caption }),
    el('tbody', {}, ...rows.map(([head, ...cells]) => el('tr', {}, el('th', { scope: 'row', text: head }),
      ...cells.map((c) => (typeof c === 'object'
        ? el('td', { class: c.cls, title: c.say }, c.text, c.say ? el('span', { class: 'sr-only', text: ` (${c.say})` }) : null)
        : el('td', { text: c })))))));
}

/**
 * One layer's head of a section's model as an editable <attention-viz>: X (the layer's input: tok_emb[id] + pos_emb in
 * layer 0, that plus layer 0's output, context · W_O, in layer 1), the layer's W_Q, W_K, W_V, W_O as grids and the
 * head's weights (one head of d: the element's default scale √d_k is the model's √(d/H); a causal model's mask is
 * "causal"). The learner's edits become the section's model: W_* as typed; row t of layer 0's X as pos_emb[t] =
 * X[t] − tok_emb[id], since X is that sum and the id is the input's. Layer 1's X is what layer 0 computed, not a
 * parameter: an edit there is not kept, and the note says so. An edit that changes a shape (an import resized the
 * grids) cannot go into the model: the section says the figure no longer shows it (`detach`). `section` gives `model`
 * (replaced by an edited copy), `trained`, `ids`, `trace` (of `model` on `ids`), `edited()` (recompute and show, after
 * an edit), `detach(why)`, `note` (the line beside Reset). `heatWhere`: where the head's weights alone go, first in
 * the section (the grids are behind a disclosure); it follows every edit.
 */
/** What a learner can change in an editor's grids, as one string. */
const held = (c) => JSON.stringify(['embeddings', 'tokens', ...MATRICES].map((k) => c[k]));

class HeadEditor {
  constructor(section, where, id, layer = 0, heatWhere = null) {
    Object.assign(this, { section, layer });
    const config = JSON.stringify(this.config());
    this.viz = el('attention-viz', { id, views: VIEWS, fmt: FMT, config });
    where.replaceChildren(this.viz);
    if (heatWhere) {
      this.heat = el('attention-viz', { id: heatWhere.dataset.figure, views: 'weights', fmt: FMT, config });
      heatWhere.replaceChildren(this.heat);
    }
    // The element fires `change` for configs set here too: only the learner's edits go back into the model.
    // A config set here may be applied later than the call that set it (the element waits for a part of its own on a
    // loaded machine), so a `change` is also told apart by what it holds: grids holding what they held are no edit.
    this.viz.addEventListener('change', (e) => {
      const now = held(e.detail.config);
      if (!this.setting && now !== this.filled) this.edited(e.detail.config);
      this.filled = now;
    });
    // The grids are behind a disclosure, mostly closed: filling their thousands of cells (150–700 ms of one task on a
    // loaded machine, at the end of every training and for every typed input) waits until it opens (`fill`).
    this.box = where.closest('details');
    this.pending = null;
    this.box?.addEventListener('toggle', () => { if (this.box.open && this.pending) this.fill(this.pending); });
  }

  /** The grids get `config` now, or when their disclosure opens if it is closed. */
  fill(config) {
    if (this.box && !this.box.open) { this.pending = config; return; }
    this.pending = null;
    this.filled = held(config);
    this.quietly(() => { this.viz.config = config; });
  }

  /** The element's config for the section's model, input and this editor's layer. */
  config() {
    const { model, ids, trace } = this.section;
    const p = model.params;
    const w = p.layers[this.layer];
    // The residual stream entering this layer, as the core's forward pass has it (its trace's `residual`): the
    // model's own numbers, layer 0's rounded by tidy() for the grids.
    const residual = trace.layers[this.layer].residual;
    const embeddings = this.layer === 0 ? residual.map((row) => row.map(tidy)) : residual;
    const tokens = ids.map((id) => model.tokens[id]);
    return { embeddings, tokens, w_q: w.w_q, w_k: w.w_k, w_v: w.w_v, w_o: w.w_o, ...(model.causal ? { mask: 'causal' } : {}) };
  }

  /**
   * Shows the section's current model and input: the heatmap always, the grids unless `grids` is false (while it
   * trains: their numbers would churn unreadably, and refilling hundreds of cells per redraw takes the main thread),
   * and then only once their disclosure is open (`fill`).
   */
  show({ grids = true } = {}) {
    const config = this.config();
    if (this.heat) this.quietly(() => { this.heat.config = config; });
    if (grids) this.fill(config);
  }

  /**
   * While a model trains the grids keep the numbers they had, in their place (nothing above the training panel or
   * below it changes size, so the page does not move), greyed and out of reach of the keyboard; `stale` says so.
   */
  freeze(frozen, stale) {
    this.viz.inert = frozen;
    this.viz.classList.toggle('learned-frozen', frozen);
    if (stale) stale.hidden = !frozen;
  }

  /** Changes the figure from here: its `change` events (fired in the same call stack) are not the learner's edits. */
  quietly(fn) {
    this.setting = true;
    try { fn(); } finally { this.setting = false; }
  }

  /** A learner's edit in the figure, into a copy of the model (see the class comment). */
  edited(cfg) {
    const { section } = this;
    const shown = this.config();
    // The heatmap shows what the grids hold, whatever happens to the model.
    if (this.heat) this.quietly(() => { this.heat.config = cfg; });
    const resized = ['embeddings', ...MATRICES].filter((m) => shapeText(cfg[m]) !== shapeText(shown[m]));
    if (resized.length || cfg.tokens.length !== shown.tokens.length) {
      const what = resized.length
        ? resized.map((m) => `${NAMES[m]} is ${shapeText(cfg[m])} (the model's: ${shapeText(shown[m])})`).join(', ')
        : `the grids have ${cfg.tokens.length} tokens (the model reads ${shown.tokens.length})`;
      section.detach(`The grids no longer fit the model: ${what}.`);
      return;
    }
    const model = copy(section.model);
    const p = model.params;
    let changed = false;
    for (const m of MATRICES) {
      if (!same(cfg[m], shown[m])) { p.layers[this.layer][m] = cfg[m]; changed = true; }
    }
    let refused = false;
    cfg.embeddings.forEach((row, t) => {
      if (same(row, shown.embeddings[t])) return;
      if (this.layer > 0) { refused = true; return; }
      p.pos_emb[t] = row.map((x, j) => tidy(x - p.tok_emb[section.ids[t]][j]));
      changed = true;
    });
    // The figure's own loads and the configs set here change nothing in the model: not an edit.
    if (changed) section.model = model;
    if (changed || refused || section.detached) section.edited();
    if (refused) {
      this.show();
      section.note.textContent = `Layer ${this.layer}'s X is what the layers before it computed, not one of the model's numbers, so that edit is not kept. ${section.note.textContent}`;
    }
  }
}

/**
 * The output when the model cannot give one (the grids no longer fit it, or it cannot run with these weights): the
 * input row, the output row empty, and why in red. Never the last good output, which would no longer be true.
 */
function noOutput(section, caption, inputRow, why, figures = 'The heatmap shows the head of the numbers in the grids, not the model\'s.') {
  section.out.replaceChildren(
    table(caption, [inputRow, [inputRow[0] === 'input' ? 'output' : 'next?', ...inputRow.slice(1).map(() => ({ text: '—', cls: 'wrong', say: 'no output' }))]]),
    el('p', { class: 'learned-verdict wrong', text: `No output: ${why} ${figures} Reset brings the trained weights back.` }));
}

/** Which of `model`'s matrices differ from `trained`'s, and by how many numbers: a sentence for the note beside Reset. */
function sayEdits(model, trained) {
  const p = model.params, q = trained.params;
  const layers = p.layers.length;
  const pairs = [
    ...p.layers.flatMap((l, i) => MATRICES.map((m) => [layers > 1 ? `${NAMES[m]} of layer ${i}` : NAMES[m], l[m], q.layers[i][m]])),
    [NAMES.pos_emb, p.pos_emb, q.pos_emb],
  ];
  const parts = pairs.map(([name, a, b]) => {
    const n = a.length === b.length && a[0].length === b[0].length ? differing(a, b) : a.length * a[0].length;
    return n ? `${name} (${n} ${n === 1 ? 'number' : 'numbers'})` : null;
  }).filter(Boolean);
  return parts.length ? `Edited: ${parts.join(', ')}. The output above is the edited model's.` : 'The weights equal the trained ones again.';
}

/** Reset: the section's trained model back, the note says so, the keyboard stays on the button. */
function wireReset(section, button) {
  button.addEventListener('click', () => {
    section.model = copy(section.trained);
    section.show();
    section.note.textContent = 'The trained weights are back.';
    button.focus();
  });
  button.disabled = false;
}

class Reversal {
  constructor() {
    this.trained = rounded(models.reversal);
    this.model = copy(this.trained);
    this.ids = [3, 1, 4, 1, 5, 9];
    this.input = $('reversal-digits');
    this.msg = $('reversal-digits-msg');
    this.out = $('reversal-output');
    this.note = $('reversal-edited');
    this.stale = $('reversal-stale');
    this.readInput();
    this.predict();
    this.editor = new HeadEditor(this, $('reversal-edit-figure'), 'learned-reversal-edit', 0, $('reversal-figure'));
    this.viz = this.editor.heat;
    this.input.addEventListener('input', () => { if (this.readInput()) this.show(); });
    wireReset(this, $('reversal-reset'));
    this.train = new TrainPanel($('reversal-train'), {
      task: 'reversal', steps: this.trained.trained?.steps ?? 1000, title: 'reversal',
      // While it trains the heatmap above the panel follows the model; the grids below it keep their numbers.
      onStart: () => { this.training = true; this.editor.freeze(true, this.stale); },
      onModel: (model) => this.follow(model),
      onDone: (model) => { this.trained = rounded(model); this.stopTraining(); },
      onStop: () => this.stopTraining(),
    });
  }

  /**
   * A model being trained, shown in steps (each `yield` ends a task: learned-train.js runs the next after a frame):
   * the prediction, then the heatmap. In one task they were 20–40 ms of main-thread work on a loaded machine.
   */
  * follow(model) {
    this.model = rounded(model);
    this.detached = null;
    this.predict();
    yield;
    this.editor.show({ grids: false });
  }

  stopTraining() {
    this.training = false;
    this.model = copy(this.trained);
    this.editor.freeze(false, this.stale);
    this.note.textContent = '';
    this.show();
  }

  /** The digits typed, or a message under the input (the figure keeps the last valid digits). */
  readInput() {
    const r = readSymbols(this.input.value, { ok: (c) => /^[0-9]$/.test(c), what: 'six digits, 0 to 9', unit: 'digits', min: 6, max: 6, example: '314159' });
    if (!mark(this.input, this.msg, r.error)) return false;
    this.ids = r.chars.map(Number);
    return true;
  }

  /** Shows the current model on the current digits: the prediction, then the figures (the grids unless training). */
  show() {
    this.detached = null;
    this.predict();
    this.editor.show({ grids: !this.training });
  }

  /** After a learner's edit in the figure (which already shows it): the prediction and the note. */
  edited() {
    this.detached = null;
    this.note.textContent = sayEdits(this.model, this.trained);
    this.predict();
  }

  /** The grids hold numbers the model cannot take (`why`): no output, and the note says so. */
  detach(why) {
    this.detached = why;
    this.note.textContent = why;
    noOutput(this, 'The reversal model on the typed digits', ['input', ...this.ids.map((d) => this.model.tokens[d])], why);
  }

  predict() {
    let trace;
    try {
      trace = compute({ mechanism: 'model', model: this.model, input: this.ids });
    } catch (e) {
      const why = `The model cannot run with these weights: ${e.message}`;
      this.note.textContent = why;
      noOutput(this, 'The reversal model on the typed digits', ['input', ...this.ids.map((d) => this.model.tokens[d])], why);
      return;
    }
    this.trace = trace;
    const want = [...this.ids].reverse();
    const names = this.model.tokens;
    const wrong = trace.prediction.filter((d, i) => d !== want[i]).length;
    this.out.replaceChildren(
      table('The reversal model on the typed digits', [
        ['position', ...this.ids.map((_, i) => String(i))],
        ['input', ...this.ids.map((d) => names[d])],
        ['output', ...trace.prediction.map((d, i) => (d === want[i] ? { text: names[d], cls: 'right' }
          : { text: names[d], cls: 'wrong', say: `wrong: should be ${names[want[i]]}` }))],
        ['confidence', ...trace.prediction.map((d, i) => trace.probabilities[i][d].toFixed(2))],
      ]),
      el('p', { class: wrong ? 'learned-verdict wrong' : 'learned-verdict', text: wrong
        ? `${wrong} of 6 outputs wrong: the output should read ${want.map((d) => names[d]).join(' ')}.`
        : `Output ${trace.prediction.map((d) => names[d]).join(' ')}: the input reversed.` }));
  }
}

class Induction {
  constructor() {
    this.trained = rounded(models.induction);
    this.model = copy(this.trained);
    this.names = this.trained.tokens;
    this.input = $('induction-letters');
    this.msg = $('induction-letters-msg');
    this.out = $('induction-output');
    this.heads = $('induction-heads');
    this.note = $('induction-edited');
    this.ids = [...'FKCHDLANGJHDLANO'].map((c) => this.names.indexOf(c)); // until the input says otherwise
    this.readInput();
    this.trace = this.run();
    // Layer 1's induction head is the one to see first; the grid shows both.
    this.viz = el('attention-viz', { id: 'learned-induction', config: JSON.stringify(this.figureConfig(this.trace, { layer: 1, head: 0 })) });
    $('induction-figure').replaceChildren(this.viz);
    this.editBox = $('induction-edit');
    this.stale = $('induction-stale');
    this.pick = this.editBox.querySelector('fieldset.learned-pick');
    const picked = this.editBox.querySelector('input[name="induction-edit-layer"]:checked');
    this.editor = new HeadEditor(this, $('induction-edit-figure'), 'learned-induction-edit', Number(picked?.value ?? 1));
    for (const radio of this.editBox.querySelectorAll('input[name="induction-edit-layer"]')) {
      radio.addEventListener('change', () => { if (radio.checked) { this.editor.layer = Number(radio.value); this.show(); } });
    }
    this.input.addEventListener('input', () => { if (this.readInput()) this.show(); });
    $('induction-random').addEventListener('click', () => {
      this.input.value = [..._taskExample('induction', Math.random() * 2 ** 32)].map((id) => this.names[id]).join('');
      if (this.readInput()) this.show();
    });
    wireReset(this, $('induction-reset'));
    this.train = new TrainPanel($('induction-train'), {
      task: 'induction', steps: this.trained.trained?.steps ?? 1500, title: 'induction',
      // While it trains the heads' grid above the panel follows the model; the editable head below it keeps its
      // numbers (its four 32 × 32 grids would churn unreadably, and redrawing them takes the main thread).
      // The layer picker waits too: it would pick a head the frozen grids do not show.
      onStart: () => { this.training = true; this.editor.freeze(true, this.stale); this.pick.disabled = true; },
      onModel: (model) => this.follow(model),
      onDone: (model) => { this.trained = rounded(model); this.stopTraining(); },
      onStop: () => this.stopTraining(),
    });
    this.describe(this.trace);
  }

  /**
   * A model being trained, shown in steps (each `yield` ends a task: learned-train.js runs the next after a frame):
   * the forward pass, the heads' grid, then the predictions and what each head does. In one task they were 40 ms of
   * main-thread CPU (a Chromium trace), 60–300 ms of wall time on a loaded machine.
   */
  * follow(model) {
    this.model = rounded(model);
    this.detached = null;
    let trace;
    try { trace = this.run(); } catch (e) {
      this.refresh(); // says why, as any other model that cannot run
      return;
    }
    yield;
    this.trace = trace;
    this.showHeads(trace);
    yield;
    this.describe(trace);
  }

  stopTraining() {
    this.training = false;
    this.editor.freeze(false, this.stale);
    this.pick.disabled = false;
    this.model = copy(this.trained);
    this.note.textContent = '';
    this.show();
  }

  readInput() {
    const letters = this.names.join('');
    const r = readSymbols(this.input.value.toUpperCase(), {
      ok: (c) => letters.includes(c), unit: 'letters', what: `1 to 16 letters from ${this.names[0]} to ${this.names.at(-1)}`, min: 1, max: 16, example: 'FKCHDLANGJHDLANO',
    });
    if (!mark(this.input, this.msg, r.error)) return false;
    this.ids = r.chars.map((c) => letters.indexOf(c));
    return true;
  }

  run() { return compute({ mechanism: 'model', model: this.model, input: this.ids }); }

  /** Every head of every layer as a weights figure (layers × heads × n × n), the picked head kept. */
  figureConfig(trace, keep = {}) {
    return { attention: trace.layers.map((l) => l.heads.map((h) => h.weights)), tokens: trace.tokens, ...keep };
  }

  /** The current model on the current letters: the heads' grid, the predictions, the editable head (unless training). */
  show() {
    this.detached = null;
    this.refresh();
    if (!this.training) this.editor.show();
  }

  /** After a learner's edit in the editable head (which already shows it): everything else, and the note. */
  edited() {
    this.detached = null;
    this.note.textContent = sayEdits(this.model, this.trained);
    this.refresh();
  }

  /** The editable head's grids hold numbers the model cannot take (`why`): no prediction, and the note says so. */
  detach(why) {
    this.detached = why;
    this.note.textContent = why;
    noOutput(this, 'The induction model on the typed letters', ['letter', ...this.ids.map((id) => this.names[id])], why,
      'The edited head shows the numbers in its grids; the heads\' grid above shows the model as it was.');
  }

  refresh() {
    let trace;
    try { trace = this.run(); } catch (e) {
      const why = `The model cannot run with these weights: ${e.message}`;
      this.note.textContent = why;
      noOutput(this, 'The induction model on the typed letters', ['letter', ...this.ids.map((id) => this.names[id])], why);
      return;
    }
    this.trace = trace;
    this.showHeads(trace);
    this.describe(trace);
  }

  /** The heads' grid of `trace`, the head the reader picked kept. */
  showHeads(trace) {
    const { layer = 0, head = 0 } = this.viz.config ?? {};
    this.viz.config = this.figureConfig(trace, { layer, head });
  }

  /**
   * The predictions, with the positions where the sequence repeats marked: where the current letter came earlier, the
   * induction answer is the letter that followed it then.
   */
  describe(trace) {
    const ids = this.ids;
    const names = this.names;
    // Where the letters repeat, whether each prediction copies, and what each head does there: the core's measures
    // (the trace's `repeats`, src/learn/model.rs `Repeats`).
    const { earlier, next, copies, scored, copied: right, previous, first_run: firstRun0, copy } = trace.repeats;
    const cells = trace.prediction.map((p, i) => (copies[i] === null ? { text: names[p], cls: 'free' }
      : { text: names[p], cls: copies[i] ? 'right' : 'wrong', say: `repeat: ${names[ids[earlier[i]]]} was followed by ${names[next[i]]}` }));
    this.out.replaceChildren(
      table('The induction model on the typed letters', [
        ['position', ...ids.map((_, i) => String(i))],
        ['letter', ...ids.map((id) => names[id])],
        ['next?', ...cells],
      ]),
      el('p', { class: scored && right < scored ? 'learned-verdict wrong' : 'learned-verdict', text: scored
        ? `At the ${scored} positions whose letter came earlier, ${right} ${right === 1 ? 'prediction copies' : 'predictions copy'} what followed it then (marked); elsewhere the next letter cannot be known, and the model guesses.`
        : 'No letter repeats, so the next letter cannot be known anywhere: the model only guesses. Repeat a few letters to see it copy.' }));
    // What each head does on this sequence: its mean weights where its pattern is defined (layer 0 on the previous
    // letter, everywhere and at the first run's letters; layer 1 on the letter after the earlier occurrence).
    const two = (x) => (x === null ? null : x.toFixed(2));
    const prev = two(previous[0][0]);
    const firstRun = two(firstRun0[0][0]);
    const ind = two(copy[1][0]);
    this.heads.querySelector('[data-role="previous"]').textContent = prev === null ? 'one letter: no previous token.'
      : `on this sequence ${prev} of each position's weight, on average, is on the letter just before it${firstRun === null ? '' : ` (${firstRun} at the letters that come again later)`}. For the shipped model the trainer measured 0.81 at the first run's positions but only 0.52 over all positions: it is a previous-token head where the induction head needs one, and spreads its weight over other letters elsewhere.`;
    this.heads.querySelector('[data-role="induction"]').textContent = ind === null ? 'no letter repeats, so it has nothing to find.'
      : `on this sequence ${ind} of the weight of each repeated letter, on average, is on the letter after its earlier occurrence — the one it copies.`;
  }
}

// Once the shipped models are there (loadModels(): index.html preloads their file) and the figures queued before it
// have drawn (element/loads.js): building both sections costs ~100 ms, which must not hold back the first figure.
loadModels().then(() => new Promise((ok) => queueLoad(ok))).then(() => {
  // A section that cannot start (a build without the trained models) says so where its figure would be.
  const start = (Section, where) => {
    try { return new Section(); } catch (e) {
      $(where).replaceChildren(el('p', { class: 'learned-msg error', text: `This section could not start: ${e.message}` }));
      return null;
    }
  };
  const reversal = start(Reversal, 'reversal-figure');
  const induction = start(Induction, 'induction-figure');
  // For tests and the curious: the chapter's state.
  window.learnedChapter = { reversal, induction };
}, () => { /* the element says why the core did not load */ });
