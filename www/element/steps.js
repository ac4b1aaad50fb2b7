// Owns the "steps" panel: one query's attention as one connected strip, the form the documents take before the
// matrix form — q_i · k_j → ÷ √d_k → exp(· − max) → ÷ Σ → weights → Σ_j w_j·v_j — so that a score of 10 becoming
// a weight of 0.749 can be followed step by step. Every number is the core's (the trace's query.* fields); this
// module only lays them out. With several heads it walks the followed head; the score is the scoring's (q·W_a·kᵀ,
// v_a·tanh(…), cos), the divisor includes the temperature, and a masked key's path reads −∞ → 0 with the reason.
// Self-attention only; shown when the `views` attribute names "steps".
import { el, clip, sub, fmt, vec as vector, ScrollHint, Patcher, tag } from './dom.js';
import { divideLabel, temperature, hasMask, maskReason, fullyMasked, num } from './breakdown.js';

const MAX_KEYS = 16;
const MAX_TERMS = 6;

const vec = (v) => vector(v, MAX_TERMS);

export class Steps {
  constructor(host) {
    this.host = host;
    this.root = el('div', { class: 'steps', hidden: true });
    this.hint = new ScrollHint();
    this.patcher = new Patcher(this.root);
  }

  /** The trace fields `render` reads, for the host's snapshot request (none when the panel is not shown). */
  traceFields(cfg) {
    if (!this.wanted()) return [];
    return ['query.scores', 'query.scaled', 'query.exp', 'query.sum', 'query.weights', 'query.masked', 'query.terms', 'query.context',
      `heads.${cfg.head ?? 0}.q#q`];
  }

  /** Whether the panel is asked for (and makes sense: one query against keys). */
  wanted() {
    const panels = this.host._state.panels;
    return Boolean(panels?.has('steps')) && this.host._state.config.mechanism === 'self';
  }

  render() {
    const { host } = this;
    this.root.hidden = !this.wanted();
    if (this.root.hidden) return;
    const cfg = host._state.config;
    const i = cfg.query;
    const q = `q${sub(i)}`;
    const scores = host._state.row('query.scores');
    const scaled = host._state.row('query.scaled');
    const exp = host._state.row('query.exp');
    const [sum] = host._state.row('query.sum');
    const weights = host._state.row('query.weights');
    const masked = host._state.row('query.masked');
    const masking = hasMask(cfg);
    const heads = cfg.heads ?? 1;
    const h = cfg.head ?? 0;
    const divide = divideLabel(cfg) ?? 'no scaling';
    const score = {
      general: `score ${q}·W_a·k_jᵀ`, additive: `score v_a·tanh(${q}·W_a + k_j·U_a)`, cosine: `score cos(${q}, k_j)`,
    }[cfg.scoring] ?? `score ${q}·k_j`;
    // Each row reads across as one key's path, an arrow between steps; the operation is written over its arrow.
    // The arrows are drawing, not data: hidden from screen readers, which read the named columns.
    const op = (text) => tag('th', { class: 'op', scope: 'col', 'aria-hidden': 'true' }, tag('span', { class: 'op-name', text }));
    const arrow = () => tag('td', { class: 'arrow', 'aria-hidden': 'true', text: '→' });
    const col = (what) => tag('th', { scope: 'col', class: what === 'mask' ? 'mask' : null, text: what });
    const head = tag('tr', {}, col('key j'), ...(masking ? [col('mask')] : []), col(score), op(divide), col('scaled'), op('exp(· − max)'), col('exp'),
      op('÷ Σ'), col('weight'), op('× v_j'), col('w_j·v_j'));
    const n = scores.length;
    const body = [];
    for (let j = 0; j < Math.min(n, MAX_KEYS); j++) {
      // The weight's bar is the weight itself (0…1) as a width: the one step a reader should see at a glance.
      const bar = tag('span', { class: 'bar', 'aria-hidden': 'true', style: `width: ${Math.max(0, Math.min(1, weights[j])) * 100}%` });
      const code = masked[j] ?? 0;
      const why = maskReason(cfg, i, j, code);
      body.push(tag('tr', { 'data-key': String(j), ...(code ? { 'data-masked': String(code) } : {}) },
        tag('th', { scope: 'row', title: cfg.tokens[j], text: `${j}: ${clip(cfg.tokens[j])}` }),
        ...(masking ? [tag('td', { class: why ? 'mask masked' : 'mask', text: why ?? 'attended' })] : []),
        tag('td', { text: fmt(scores[j]) }), arrow(),
        tag('td', { text: num(scaled[j]) }), arrow(),
        tag('td', { text: fmt(exp[j]) }), arrow(),
        tag('td', { class: 'weight' }, bar, tag('span', { class: 'value', text: fmt(weights[j]) })), arrow(),
        tag('td', { class: 'vec', text: vec(host._state.row('query.terms', j)) })));
    }
    const columns = masking ? 11 : 10;
    // The weights sum to 1, but for a query whose every key is masked: then masked_row says what it gets.
    const count = masked.filter((c) => c).length;
    const weightSum = n > 0 && count === n ? { uniform: '1', nan: 'nan' }[cfg.masked_row] ?? '0' : '1';
    if (n > MAX_KEYS) body.push(tag('tr', {}, tag('td', { colspan: String(columns), text: `… ${n - MAX_KEYS} more keys (the breakdown lists ${Math.min(n, 32)})` })));
    const blank = () => tag('td', { 'aria-hidden': 'true' });
    const foot = tag('tr', { class: 'sum' }, tag('th', { scope: 'row', text: 'Σ_j' }), ...(masking ? [blank()] : []), blank(), blank(), blank(), blank(),
      tag('td', { 'data-sum': 'exp', text: fmt(sum) }), blank(), tag('td', { text: weightSum }), blank(),
      tag('td', { class: 'vec', 'data-sum': 'context', text: `z${sub(i)} = ${vec(host._state.row('query.context'))}` }));
    // The title stays outside the sideways-scrolling box: on a phone it wraps instead of scrolling away.
    const ofHead = heads > 1 ? `, head ${h} of ${heads}` : '';
    const title = tag('p', { class: 'steps-title', id: 'steps-title',
      text: `One word's attention, step by step: query ${i} (${clip(cfg.tokens[i])})${ofHead}, ${q} = ${vec(host._state.row(`heads.${h}.q`, i))}` });
    // What changes the path, said once under the title: the temperature, masked keys, a query with no key left.
    const notes = [];
    const T = temperature(cfg);
    if (T !== null) notes.push(tag('p', { class: 'note', 'data-note': 'temperature', text: `T = ${fmt(T)} (temperature): the scores are divided by T too.` }));
    if (masking && count) {
      notes.push(tag('p', { class: 'note', 'data-note': 'mask', text: `${count} of ${n} keys masked: scaled −∞, so exp 0 and weight 0.` }));
      if (count === n) notes.push(tag('p', { class: 'note', 'data-note': 'masked-row', text: fullyMasked(cfg, n, `query ${i}`) }));
    }
    const table = tag('table', { 'aria-labelledby': 'steps-title' }, tag('thead', {}, head), tag('tbody', {}, ...body), tag('tfoot', {}, foot));
    const wrap = tag('div', { class: 'wrap', tabindex: '0', role: 'group', 'aria-label': 'steps table' }, table);
    // Usually only numbers changed (an edit): the table's nodes stay and take the new text.
    if (!this.patcher.render([title, ...notes, wrap, this.hint.root])) this.hint.watch(wrap.node);
  }
}
