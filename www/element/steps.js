// Owns the "steps" panel: one query's attention as one connected strip, the form the documents take before the
// matrix form — q_i · k_j → ÷ √d_k → exp(· − max) → ÷ Σ → weights → Σ_j w_j·v_j — so that a score of 10 becoming
// a weight of 0.749 can be followed step by step. Every number is the core's (the trace's query.* fields); this
// module only lays them out. Self-attention only; shown when the `views` attribute names "steps".
import { el, clip, sub, fmt, vec as vector, ScrollHint } from './dom.js';
import { scaleLabel } from './breakdown.js';

const MAX_KEYS = 16;
const MAX_TERMS = 6;

const vec = (v) => vector(v, MAX_TERMS);

export class Steps {
  constructor(host) {
    this.host = host;
    this.root = el('div', { class: 'steps', hidden: true });
    this.hint = new ScrollHint();
  }

  /** Whether the panel is asked for (and makes sense: one query against keys). */
  wanted() {
    const panels = this.host._panels();
    return Boolean(panels?.has('steps')) && this.host._cfg().mechanism === 'self';
  }

  render() {
    const { host } = this;
    this.root.hidden = !this.wanted();
    if (this.root.hidden) return;
    const cfg = host._cfg();
    const i = cfg.query;
    const q = `q${sub(i)}`;
    const scores = host._row('query.scores');
    const scaled = host._row('query.scaled');
    const exp = host._row('query.exp');
    const [sum] = host._row('query.sum');
    const weights = host._row('query.weights');
    const divide = scaleLabel(cfg) ?? 'no scaling';
    // Each row reads across as one key's path, an arrow between steps; the operation is written over its arrow.
    // The arrows are drawing, not data: hidden from screen readers, which read the named columns.
    const op = (text) => el('th', { class: 'op', scope: 'col', 'aria-hidden': 'true' }, el('span', { class: 'op-name', text }));
    const arrow = () => el('td', { class: 'arrow', 'aria-hidden': 'true', text: '→' });
    const col = (what) => el('th', { scope: 'col', text: what });
    const head = el('tr', {}, col('key j'), col(`score ${q}·k_j`), op(divide), col('scaled'), op('exp(· − max)'), col('exp'),
      op('÷ Σ'), col('weight'), op('× v_j'), col('w_j·v_j'));
    const n = scores.length;
    const body = [];
    for (let j = 0; j < Math.min(n, MAX_KEYS); j++) {
      // The weight's bar is the weight itself (0…1) as a width: the one step a reader should see at a glance.
      const bar = el('span', { class: 'bar', 'aria-hidden': 'true' });
      bar.style.width = `${Math.max(0, Math.min(1, weights[j])) * 100}%`;
      body.push(el('tr', { 'data-key': String(j) },
        el('th', { scope: 'row', title: cfg.tokens[j], text: `${j}: ${clip(cfg.tokens[j])}` }),
        el('td', { text: fmt(scores[j]) }), arrow(),
        el('td', { text: fmt(scaled[j]) }), arrow(),
        el('td', { text: fmt(exp[j]) }), arrow(),
        el('td', { class: 'weight' }, bar, el('span', { class: 'value', text: fmt(weights[j]) })), arrow(),
        el('td', { class: 'vec', text: vec(host._row('query.terms', j)) })));
    }
    if (n > MAX_KEYS) body.push(el('tr', {}, el('td', { colspan: '10', text: `… ${n - MAX_KEYS} more keys (the breakdown lists ${Math.min(n, 32)})` })));
    const blank = () => el('td', { 'aria-hidden': 'true' });
    const foot = el('tr', { class: 'sum' }, el('th', { scope: 'row', text: 'Σ_j' }), blank(), blank(), blank(), blank(),
      el('td', { 'data-sum': 'exp', text: fmt(sum) }), blank(), el('td', { text: '1' }), blank(),
      el('td', { class: 'vec', 'data-sum': 'context', text: `z${sub(i)} = ${vec(host._row('query.context'))}` }));
    // The title stays outside the sideways-scrolling box: on a phone it wraps instead of scrolling away.
    const title = el('p', { class: 'steps-title', id: 'steps-title', text: `One word's attention, step by step: query ${i} (${clip(cfg.tokens[i])}), ${q} = ${vec(host._row('q', i))}` });
    const table = el('table', { 'aria-labelledby': 'steps-title' }, el('thead', {}, head), el('tbody', {}, ...body), el('tfoot', {}, foot));
    const wrap = el('div', { class: 'wrap', tabindex: '0', role: 'group', 'aria-label': 'steps table' }, table);
    this.root.replaceChildren(title, wrap, this.hint.watch(wrap));
  }
}
