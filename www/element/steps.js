// Owns the "steps" panel: one query's attention as one connected strip, the form the documents take before the
// matrix form — q_i · k_j → ÷ √d_k → exp(· − max) → ÷ Σ → weights → Σ_j w_j·v_j — so that a score of 10 becoming
// a weight of 0.749 can be followed step by step. Every cell's text is the core's (src/tables.rs `steps`, the
// snapshot's `parts.steps`); this module lays it out. Self-attention only; shown when the `views` attribute names
// "steps".
import { el, ScrollHint, Patcher, tag } from './dom.js';
import { cellTag, rowTag, noteTags, columnLabels } from './breakdown.js';

export class Steps {
  constructor(port) {
    this.port = port;
    this.root = el('div', { class: 'steps', hidden: true });
    this.hint = new ScrollHint();
    this.patcher = new Patcher(this.root);
  }

  /** Whether the panel is asked for (the `views` attribute names it). */
  wanted() { return Boolean(this.port.state.panels?.has('steps')); }

  /** The part of the snapshot this strip renders (the element's request). */
  asked() { return this.wanted() ? ['steps'] : []; }

  render() {
    const model = this.wanted() ? this.port.state.parts.steps : null;
    // The core has no strip for a cross-attention figure or a model's weights: one query against keys only.
    this.root.hidden = !model;
    if (!model) return;
    // The title stays outside the sideways-scrolling box: on a phone it wraps instead of scrolling away.
    const title = tag('p', { class: 'steps-title', id: 'steps-title', text: model.title });
    const labels = columnLabels(model.head);
    const table = tag('table', { 'aria-labelledby': 'steps-title' }, tag('thead', {}, tag('tr', {}, ...model.head.map((c) => cellTag(c)))),
      tag('tbody', {}, ...model.body.map((r) => rowTag(r, labels))), tag('tfoot', {}, ...model.foot.map((r) => rowTag(r, labels))));
    const wrap = tag('div', { class: 'wrap', tabindex: '0', role: 'group', 'aria-label': 'steps table' }, table);
    // Usually only numbers changed (an edit): the table's nodes stay and take the new text.
    if (!this.patcher.render([title, ...noteTags(model.notes), wrap, this.hint.root])) this.hint.watch(wrap.node);
  }
}
