// Owns the single-query breakdown under the heatmaps: for the followed query (self) or the decoder state (cross),
// each key's score with its dot product written out, the scaled score, the weight (and the naive one), w_j·v_j,
// and the context. It reads only the few trace rows it shows (host._row): copying the whole trace per edit is slow.
import { el, clip, sub, fmt, factor, vec as vector, ScrollHint } from './dom.js';

const MAX_ROWS = 32;

/** "÷ √3", "÷ 2.5", or null without scaling: the divisor as the config names it (the core did the dividing). */
export function scaleLabel(cfg) {
  if (typeof cfg.scale === 'number') return `÷ ${fmt(cfg.scale)}`;
  if (cfg.scale !== 'sqrt_dk') return null;
  const d = cfg.mechanism === 'cross' ? cfg.decoder_state.length : (cfg.w_q ?? cfg.embeddings)[0].length;
  return `÷ √${d}`;
}

export class Breakdown {
  constructor(host) {
    this.host = host;
    this.root = el('details', { class: 'breakdown', open: true });
    this.hint = new ScrollHint();
  }

  render() {
    const { host } = this;
    const cfg = host._cfg();
    const vec = (v) => vector(v, 8);
    const rows = [];
    let title;
    if (cfg.mechanism === 'self') {
      const i = cfg.query;
      const q = host._row('q', i);
      const scores = host._row('query.scores');
      const scaled = host._row('query.scaled');
      const weights = host._row('query.weights');
      title = `Single-query breakdown: query ${i} (${clip(cfg.tokens[i])}), q${sub(i)} = ${vec(q)}`;
      const exp = host._row('query.exp');
      const [sum] = host._row('query.sum');
      const naive = host._showNaive ? host._row('naive_weights', i) : null;
      // The softmax in its two steps (the exp column and its sum), so 10 → 0.749 can be followed by hand.
      const divide = scaleLabel(cfg);
      const head = ['key', 'score', divide ? `scaled = score ${divide}` : 'scaled (no scaling)', 'exp(scaled − max)', 'weight = exp ÷ Σ',
        ...(naive ? ['naive'] : []), `w_j·v_j`];
      rows.push(el('tr', {}, ...head.map((h) => el('th', { scope: 'col', text: h }))));
      scores.slice(0, MAX_ROWS).forEach((s, j) => {
        rows.push(el('tr', {},
          el('th', { scope: 'row', title: cfg.tokens[j], text: `${j}: ${clip(cfg.tokens[j])}` }),
          el('td', { class: 'formula', text: this.scoreFormula(i, j) }),
          el('td', { text: fmt(scaled[j]) }),
          el('td', { text: fmt(exp[j]) }),
          el('td', { text: fmt(weights[j]) }),
          ...(naive ? [el('td', { class: Number.isNaN(naive[j]) ? 'nan' : '', text: fmt(naive[j]) })] : []),
          el('td', { text: vec(host._row('query.terms', j)) })));
      });
      if (scores.length > MAX_ROWS) rows.push(el('tr', {}, el('td', { colspan: String(head.length), text: `… ${scores.length - MAX_ROWS} more keys` })));
      rows.push(el('tr', { class: 'sum' }, el('th', { scope: 'row', text: 'Σ' }), el('td', { class: 'formula', colspan: '2', text: 'Σ_j exp(scaled_j − max)' }),
        el('td', { text: fmt(sum) }), el('td', { colspan: String(head.length - 4) })));
      rows.push(el('tr', { class: 'sum' }, el('th', { scope: 'row', text: 'context' }),
        el('td', { class: 'formula', colspan: String(head.length - 2), text: `z${sub(i)} = Σ_j w_j·v_j` }), el('td', { text: vec(host._row('query.context')) })));
    } else {
      title = `Breakdown: decoder state h = ${vec(cfg.decoder_state)}`;
      const naive = host._showNaive ? host._row('naive_weights') : null;
      const m = host._shape('applied')[1];
      const applied = host._field('applied').data;
      const head = ['annotation', 'score', 'weight', ...(naive ? ['naive'] : []), 'w_j·a_j'];
      rows.push(el('tr', {}, ...head.map((h) => el('th', { scope: 'col', text: h }))));
      const weights = host._row('weights');
      weights.slice(0, MAX_ROWS).forEach((w, j) => {
        const column = Array.from({ length: applied.length / m }, (_, r) => applied[r * m + j]);
        rows.push(el('tr', {},
          el('th', { scope: 'row', title: cfg.tokens[j], text: `${j}: ${clip(cfg.tokens[j])}` }),
          el('td', { class: 'formula', text: this.scoreFormula(0, j) }),
          el('td', { text: fmt(w) }),
          ...(naive ? [el('td', { class: Number.isNaN(naive[j]) ? 'nan' : '', text: fmt(naive[j]) })] : []),
          el('td', { text: vec(column) })));
      });
      if (weights.length > MAX_ROWS) rows.push(el('tr', {}, el('td', { colspan: String(head.length), text: `… ${weights.length - MAX_ROWS} more annotations` })));
      rows.push(el('tr', { class: 'sum' }, el('th', { scope: 'row', text: 'context' }),
        el('td', { class: 'formula', colspan: String(head.length - 2), text: 'c = Σ_j w_j·a_j' }), el('td', { text: vec(host._row('context')) })));
    }
    // The table scrolls sideways in narrow figures: focusable, so the keyboard can scroll it too. A named group,
    // not a region: a page of figures would have several landmarks of the same name.
    const wrap = el('div', { class: 'wrap', tabindex: '0', role: 'group', 'aria-label': 'breakdown table' }, el('table', {}, el('tbody', {}, ...rows)));
    this.root.replaceChildren(el('summary', { text: title }), wrap, this.hint.watch(wrap));
  }

  /** `q₀·k₂ = 2·2 + 0·4 + 2·3 = 10` (self) or `h·a₂ = …` (cross); the tooltip of a score shows it too. */
  scoreFormula(i, j) {
    const { host } = this;
    const cfg = host._cfg();
    const MAX_TERMS = 6;
    let a, b, name;
    if (cfg.mechanism === 'self') { a = host._row('q', i); b = host._row('k', j); name = `q${sub(i)}·k${sub(j)}`; } else {
      a = cfg.decoder_state; b = cfg.annotations[j]; name = `h·a${sub(j)}`;
    }
    const terms = a.slice(0, MAX_TERMS).map((x, k) => `${factor(x)}·${factor(b[k])}`).join(' + ');
    const more = a.length > MAX_TERMS ? ` + … (${a.length} terms)` : '';
    const score = cfg.mechanism === 'self' ? host._at('scores', i, j) : host._at('scores', 0, j);
    return `${name} = ${terms}${more} = ${fmt(score)}`;
  }
}
