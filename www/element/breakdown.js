// Owns the single-query breakdown under the heatmaps: for the followed query (self) or the decoder state (cross),
// each key's score with its formula written out with the numbers (q·k, q·W_a·kᵀ, v_a·tanh(q·W_a + k·U_a) with the
// hidden features, or the cosine with its norms), the scaled score (÷ scale ÷ temperature; −∞ where the key is masked,
// with the reason), the weight (and the naive one), w_j·v_j, and the context; with several heads, the followed head's.
// Notes above the table say what the config changes: the head, the scoring, the temperature, the masks, and what a
// query whose every key is masked gets (masked_row). It reads only the few trace rows it shows (traceFields: they
// come with the edit's snapshot, no call of their own): copying the whole trace per edit is slow. Every number is the
// core's; this module only writes them out.
import { el, clip, sub, fmt, factor, vec as vector, ScrollHint, Patcher, tag } from './dom.js';
import { MASKED_BY } from './facts.js';

const MAX_ROWS = 32;
const MAX_TERMS = 6;

/** A number as the breakdown writes it, −∞ for a masked score. */
export const num = (x) => (x === -Infinity ? '−∞' : fmt(x));

/** The per-head width of the keys: √ of it is the default scale. */
function keyWidth(cfg) {
  if (cfg.mechanism === 'cross') return cfg.decoder_state.length;
  return (cfg.w_q ?? cfg.embeddings)[0].length / (cfg.heads ?? 1);
}

/** "÷ √3", "÷ 2.5", or null without scaling: the divisor as the config names it (the core did the dividing). */
export function scaleLabel(cfg) {
  if (typeof cfg.scale === 'number') return `÷ ${fmt(cfg.scale)}`;
  if (cfg.scale !== 'sqrt_dk') return null;
  return `÷ √${keyWidth(cfg)}`;
}

/** The temperature, when it is not 1 (scaled = scores / scale / T). */
export const temperature = (cfg) => (cfg.temperature !== undefined && cfg.temperature !== 1 ? cfg.temperature : null);

/** "÷ √3 ÷ T", "÷ T", "÷ √3", or null: every divisor of the scores, as the breakdown and the steps head them. */
export function divideLabel(cfg) {
  const parts = [scaleLabel(cfg), temperature(cfg) === null ? null : '÷ T'].filter(Boolean);
  return parts.length ? parts.join(' ') : null;
}

/** Whether the config masks anything (a mask or valid lengths): then −∞ appears in the scaled scores. */
export const hasMask = (cfg) => (cfg.mask !== undefined && cfg.mask !== 'none') || Array.isArray(cfg.valid_lens) || Array.isArray(cfg.window);

/**
 * `code` in words: "masked: causal mask", "masked: beyond valid length 2", … joined by "and"; null when key j is
 * attended. The code is the core's (its bits MASKED_BY): the trace's `query.masked` for the followed query, a cell's
 * `masked` (the core's cellText) for any other.
 */
export function maskReason(cfg, i, j, code) {
  if (!code) return null;
  const why = [];
  if (code & MASKED_BY.mask) {
    if (cfg.mask === 'causal') why.push('causal mask');
    else why.push(Array.isArray(cfg.mask?.[0]) ? `mask[${i}][${j}] = 0` : `mask[${j}] = 0`);
  }
  if (code & MASKED_BY.valid_lens) why.push(`beyond valid length ${cfg.valid_lens[i]}`);
  if (code & MASKED_BY.window) why.push(`outside the window [${cfg.window?.[0]}, ${cfg.window?.[1]}]`);
  return `masked: ${why.join(' and ')}`;
}

/** What a query whose every key is masked gets, per `masked_row`, in words. */
export function fullyMasked(cfg, m, who) {
  const row = cfg.masked_row ?? 'zero';
  if (row === 'uniform') {
    return `Every key is masked for ${who}: its scaled scores are all −∞, so masked_row "uniform" gives each of the ${m} keys the weight 1/${m} = ${fmt(1 / m)} (d2l's masked_softmax, which fills with −1e6).`;
  }
  if (row === 'nan') {
    return `Every key is masked for ${who}: softmax of all −∞ is 0 / 0, so masked_row "nan" leaves its weights and context NaN (the literal mathematics).`;
  }
  return `Every key is masked for ${who}: its scaled scores are all −∞, so masked_row "zero" gives it weights 0 and a context of 0 (as PyTorch ≥ 2.5's scaled_dot_product_attention).`;
}

/** The scoring function in words and as a formula (self: q, k; cross: h, a_j). */
export function scoringNote(cfg) {
  const self = cfg.mechanism === 'self';
  const [q, k] = self ? ['q', 'k'] : ['h', 'a_j'];
  switch (cfg.scoring ?? 'dot') {
    case 'general': return `Scores: general (Luong 2015), score = ${q}·W_a·${k}ᵀ (W_a is its own panel).`;
    case 'additive': return `Scores: additive (Bahdanau 2015), score = v_a·tanh(${q}·W_a + ${k}·U_a): the hidden column is tanh(…) for each key.`;
    case 'cosine': return `Scores: cosine, score = ${q}·${k} / max(‖${q}‖·‖${k}‖, 1e-8), always between −1 and 1.`;
    default: return null;
  }
}

/** Left-aligned columns (words and vectors) are headed on the left too. */
const columnClass = (heading) => (heading === 'mask' ? 'mask' : heading.startsWith('hidden') ? 'vec' : null);

export class Breakdown {
  constructor(host) {
    this.host = host;
    this.root = el('details', { class: 'breakdown', open: true });
    this.hint = new ScrollHint();
    this.patcher = new Patcher(this.root);
  }

  /**
   * The trace fields `render` and `scoreFormula` read, for the host's snapshot request (index.js `_request`):
   * `name#i` is row i alone.
   */
  traceFields(cfg, naive) {
    const additive = cfg.scoring === 'additive' ? ['query.features'] : [];
    if (cfg.mechanism === 'self') {
      const h = `heads.${cfg.head ?? 0}`;
      return ['query.masked', 'query.scores', 'query.scaled', 'query.weights', 'query.exp', 'query.sum', 'query.terms', 'query.context',
        `${h}.q#q`, `${h}.k`, `${h}.scores#q`, ...(naive && (cfg.heads ?? 1) === 1 ? ['naive_weights#q'] : []), ...additive];
    }
    return ['query.masked', 'applied', 'scores', 'scaled', 'weights', 'context', ...(naive ? ['naive_weights'] : []), ...additive];
  }

  /** The trace field of the followed head's `stage` (heads.{h}.q, …: present for one head too). */
  headField(stage) {
    return `heads.${this.host._state.config.head ?? 0}.${stage}`;
  }

  render() {
    const { host } = this;
    const cfg = host._state.config;
    const vec = (v) => vector(v, 8);
    const rows = [];
    const notes = [];
    const note = (name, text) => { if (text) notes.push(tag('p', { class: 'note', 'data-note': name, text })); };
    const heads = cfg.heads ?? 1;
    const additive = cfg.scoring === 'additive';
    const masking = hasMask(cfg);
    const T = temperature(cfg);
    const divide = divideLabel(cfg);
    const scaledHead = divide ? `scaled = score ${divide}` : 'scaled (no scaling)';
    const features = additive ? host._state.field('query.features') : null;
    const featureRow = (j) => (features ? vec(host._state.row('query.features', j)) : '');
    const masked = host._state.row('query.masked');
    const maskCell = (i, j) => {
      const why = maskReason(cfg, i, j, masked[j] ?? 0);
      return tag('td', { class: why ? 'mask masked' : 'mask', text: why ?? 'attended' });
    };
    let title;
    if (cfg.mechanism === 'self') {
      const i = cfg.query;
      const h = cfg.head ?? 0;
      const q = host._state.row(this.headField('q'), i);
      const scores = host._state.row('query.scores');
      const scaled = host._state.row('query.scaled');
      const weights = host._state.row('query.weights');
      const ofHead = heads > 1 ? `, head ${h} of ${heads}` : '';
      title = `Single-query breakdown: query ${i} (${clip(cfg.tokens[i])})${ofHead}, q${sub(i)} = ${vec(q)}`;
      if (heads > 1) {
        const dk = keyWidth(cfg);
        note('head', `Head ${h} of ${heads}: its own columns ${h * dk}…${(h + 1) * dk - 1} of Q and K (d_k = ${dk}) and its slice of V; `
          + 'its context is one block of the concatenated context. A click or Enter on another head\'s weights follows that head.');
      }
      const exp = host._state.row('query.exp');
      const [sum] = host._state.row('query.sum');
      // The naive softmax is one head's lesson: with several heads there is no naive_weights field.
      const naive = host._state.naive && heads === 1 ? host._state.row('naive_weights', i) : null;
      // The softmax in its two steps (the exp column and its sum), so 10 → 0.749 can be followed by hand.
      const head = ['key', ...(masking ? ['mask'] : []), ...(additive ? ['hidden = tanh(q·W_a + k_j·U_a)'] : []), 'score', scaledHead,
        'exp(scaled − max)', 'weight = exp ÷ Σ', ...(naive ? ['naive'] : []), `w_j·v_j`];
      rows.push(tag('tr', {}, ...head.map((t) => tag('th', { scope: 'col', class: columnClass(t), text: t }))));
      scores.slice(0, MAX_ROWS).forEach((s, j) => {
        const code = masked[j] ?? 0;
        rows.push(tag('tr', { 'data-key': String(j), ...(code ? { 'data-masked': String(code) } : {}) },
          tag('th', { scope: 'row', title: cfg.tokens[j], text: `${j}: ${clip(cfg.tokens[j])}` }),
          ...(masking ? [maskCell(i, j)] : []),
          ...(additive ? [tag('td', { class: 'vec', text: featureRow(j) })] : []),
          tag('td', { class: 'formula', text: this.scoreFormula(i, j) }),
          tag('td', { text: num(scaled[j]) }),
          tag('td', { text: fmt(exp[j]) }),
          tag('td', { class: Number.isNaN(weights[j]) ? 'nan' : '', text: fmt(weights[j]) }),
          ...(naive ? [tag('td', { class: Number.isNaN(naive[j]) ? 'nan' : '', text: fmt(naive[j]) })] : []),
          tag('td', { text: vec(host._state.row('query.terms', j)) })));
      });
      // The Σ of the exp column sits under it: the columns after "key" and before "exp", then those after it.
      const after = naive ? 3 : 2;
      const before = head.length - 2 - after;
      if (scores.length > MAX_ROWS) rows.push(tag('tr', {}, tag('td', { colspan: String(head.length), text: `… ${scores.length - MAX_ROWS} more keys` })));
      rows.push(tag('tr', { class: 'sum' }, tag('th', { scope: 'row', text: 'Σ' }), tag('td', { class: 'formula', colspan: String(before), text: 'Σ_j exp(scaled_j − max)' }),
        tag('td', { text: fmt(sum) }), tag('td', { colspan: String(after) })));
      rows.push(tag('tr', { class: 'sum' }, tag('th', { scope: 'row', text: 'context' }),
        tag('td', { class: 'formula', colspan: String(head.length - 2), text: `z${sub(i)}${heads > 1 ? ` (head ${h})` : ''} = Σ_j w_j·v_j` }),
        tag('td', { text: vec(host._state.row('query.context')) })));
      this.notes(cfg, note, T, masked, scores.length, `query ${i} (${clip(cfg.tokens[i])})`);
    } else {
      title = `Breakdown: decoder state h = ${vec(cfg.decoder_state)}`;
      const naive = host._state.naive ? host._state.row('naive_weights') : null;
      const m = host._state.shape('applied')[1];
      const applied = host._state.field('applied').data;
      // The scaled column only where it tells something the document's figure did not have.
      const showScaled = masking || T !== null;
      const scaled = showScaled ? host._state.row('scaled') : null;
      const head = ['annotation', ...(masking ? ['mask'] : []), ...(additive ? ['hidden = tanh(h·W_a + a_j·U_a)'] : []), 'score',
        ...(showScaled ? [scaledHead] : []), 'weight', ...(naive ? ['naive'] : []), 'w_j·a_j'];
      rows.push(tag('tr', {}, ...head.map((t) => tag('th', { scope: 'col', class: columnClass(t), text: t }))));
      const weights = host._state.row('weights');
      weights.slice(0, MAX_ROWS).forEach((w, j) => {
        const column = Array.from({ length: applied.length / m }, (_, r) => applied[r * m + j]);
        const code = masked[j] ?? 0;
        rows.push(tag('tr', { 'data-key': String(j), ...(code ? { 'data-masked': String(code) } : {}) },
          tag('th', { scope: 'row', title: cfg.tokens[j], text: `${j}: ${clip(cfg.tokens[j])}` }),
          ...(masking ? [maskCell(0, j)] : []),
          ...(additive ? [tag('td', { class: 'vec', text: featureRow(j) })] : []),
          tag('td', { class: 'formula', text: this.scoreFormula(0, j) }),
          ...(showScaled ? [tag('td', { text: num(scaled[j]) })] : []),
          tag('td', { class: Number.isNaN(w) ? 'nan' : '', text: fmt(w) }),
          ...(naive ? [tag('td', { class: Number.isNaN(naive[j]) ? 'nan' : '', text: fmt(naive[j]) })] : []),
          tag('td', { text: vec(column) })));
      });
      if (weights.length > MAX_ROWS) rows.push(tag('tr', {}, tag('td', { colspan: String(head.length), text: `… ${weights.length - MAX_ROWS} more annotations` })));
      rows.push(tag('tr', { class: 'sum' }, tag('th', { scope: 'row', text: 'context' }),
        tag('td', { class: 'formula', colspan: String(head.length - 2), text: 'c = Σ_j w_j·a_j' }), tag('td', { text: vec(host._state.row('context')) })));
      this.notes(cfg, note, T, masked, weights.length, 'the decoder state');
    }
    // The table scrolls sideways in narrow figures: focusable, so the keyboard can scroll it too. A named group,
    // not a region: a page of figures would have several landmarks of the same name.
    const wrap = tag('div', { class: 'wrap', tabindex: '0', role: 'group', 'aria-label': 'breakdown table' }, tag('table', {}, tag('tbody', {}, ...rows)));
    const noteBox = notes.length ? tag('div', { class: 'notes' }, ...notes) : null;
    // Usually only numbers changed (an edit): the table's nodes stay and take the new text.
    if (!this.patcher.render([tag('summary', { text: title }), noteBox ?? '', wrap, this.hint.root])) this.hint.watch(wrap.node);
  }

  /** The notes every mechanism shares: the scoring, the temperature, the masked keys, a fully masked query. */
  notes(cfg, note, T, masked, m, who) {
    note('scoring', scoringNote(cfg));
    if (T !== null) {
      const hot = T < 1 ? 'below 1 sharpens the weights towards the largest score' : 'above 1 flattens the weights towards uniform';
      note('temperature', `Temperature T = ${fmt(T)}: scaled = score ${scaleLabel(cfg) ?? ''} ÷ T; a T ${hot}.`.replace('  ', ' '));
    }
    if (hasMask(cfg)) {
      const count = masked.filter((c) => c).length;
      const what = [cfg.mask === 'causal' ? 'a causal mask (no key after the query)' : cfg.mask !== undefined && cfg.mask !== 'none' ? 'a mask (1 = may attend)' : null,
        Array.isArray(cfg.valid_lens) ? `valid lengths [${cfg.valid_lens.join(', ')}]` : null,
        Array.isArray(cfg.window) ? `a window [${cfg.window.join(', ')}]${!cfg.sinks ? '' : cfg.sinks === 1 ? ' and a sink, key 0' : ` and sinks, keys 0 … ${cfg.sinks - 1}`}` : null,
      ].filter(Boolean).join(' and ');
      note('mask', `Masking by ${what}: ${count} of ${m} keys masked for ${who}; a masked key's scaled score is −∞, so its weight is 0.`);
      if (m > 0 && count === m) note('masked-row', fullyMasked(cfg, m, who));
    }
  }

  /**
   * The score of query i (0: the decoder state) against key j with its formula written out, as the tooltip of a score
   * shows it too: `q₀·k₂ = 2·2 + 0·4 + 2·3 = 10` (dot), `q₀·W_a·k₂ᵀ = [2, 0, 2]·W_a·[2, 4, 3]ᵀ = 10` (general),
   * `v_a·tanh(q₀·W_a + k₂·U_a) = 1·0.76 + (-1)·(-0.2) = 0.96` (additive: the hidden features, for the followed query),
   * `q₀·k₂ / max(‖q₀‖·‖k₂‖, 1e-8) = (…) / (√(…)·√(…)) = 0.69` (cosine: the norms written out).
   */
  scoreFormula(i, j) {
    const { host } = this;
    const cfg = host._state.config;
    let a, b, qn, kn, score;
    if (cfg.mechanism === 'self') {
      a = host._state.row(this.headField('q'), i);
      b = host._state.row(this.headField('k'), j);
      [qn, kn] = [`q${sub(i)}`, `k${sub(j)}`];
      score = host._state.at(this.headField('scores'), i, j);
    } else {
      a = cfg.decoder_state;
      b = cfg.annotations[j];
      [qn, kn] = ['h', `a${sub(j)}`];
      score = host._state.at('scores', 0, j);
    }
    const more = (n) => (n > MAX_TERMS ? ` + … (${n} terms)` : '');
    const dot = (x, y) => `${x.slice(0, MAX_TERMS).map((v, k) => `${factor(v)}·${factor(y[k])}`).join(' + ')}${more(x.length)}`;
    const scoring = cfg.scoring ?? 'dot';
    if (scoring === 'general') return `${qn}·W_a·${kn}ᵀ = ${vector(a, MAX_TERMS)}·W_a·${vector(b, MAX_TERMS)}ᵀ = ${fmt(score)}`;
    if (scoring === 'additive') {
      const name = `v_a·tanh(${qn}·W_a + ${kn}·U_a)`;
      // The hidden features are the trace's for the followed query (every key) only.
      const followed = cfg.mechanism === 'cross' || i === cfg.query;
      if (!followed || !cfg.v_a) return `${name} = ${fmt(score)}`;
      return `${name} = ${dot(cfg.v_a, host._state.row('query.features', j))} = ${fmt(score)}`;
    }
    if (scoring === 'cosine') {
      const norm = (x) => `√(${x.slice(0, MAX_TERMS).map((v) => `${factor(v)}²`).join(' + ')}${more(x.length)})`;
      return `${qn}·${kn} / max(‖${qn}‖·‖${kn}‖, 1e-8) = (${dot(a, b)}) / (${norm(a)}·${norm(b)}) = ${fmt(score)}`;
    }
    return `${qn}·${kn} = ${dot(a, b)} = ${fmt(score)}`;
  }
}
