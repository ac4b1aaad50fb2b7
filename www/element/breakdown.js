// Owns the single-query breakdown under the heatmaps: for the followed query (self) or the decoder state (cross),
// each key's score with its formula written out, the scaled score, the softmax in its two steps, the weight (and the
// naive one), w_j·v_j and the context, with notes on what the config changes. Every cell's text is the core's
// (src/tables.rs `breakdown`, the snapshot's `parts.breakdown`); this module lays the table out, and `cellTag` /
// `rowTag` lay out any table of that model (steps.js too).
import { el, ScrollHint, Patcher, tag } from './dom.js';
import { NARROW } from './peek.js';

/** A cell of the core's table model as a node description: `th` (with its scope) or `td`, an operation over an arrow
 * (`op`), the weight's bar (`bar`, percent). */
export function cellTag(c, label = null) {
  const attrs = { scope: c.th ?? null, class: c.op ? 'op' : c.class ?? null, title: c.title ?? null,
    colspan: c.colspan === undefined ? null : String(c.colspan), 'aria-hidden': c.hidden || c.op ? 'true' : null,
    'data-sum': c.sum ?? null, 'data-label': label };
  if (c.op) return tag('th', attrs, tag('span', { class: 'op-name', text: c.text }));
  if (c.bar !== undefined) {
    return tag('td', attrs, tag('span', { class: 'bar', 'aria-hidden': 'true', style: `width: ${c.bar}%` }), tag('span', { class: 'value', text: c.text }));
  }
  return tag(c.th ? 'th' : 'td', { ...attrs, text: c.text });
}

/** A row of the core's table model: its key (`data-key`) and why that key is masked (`data-masked`); `labels`: each
 * column's name (`columnLabels`), given to its cells. */
export const rowTag = (r, labels = []) => {
  let col = 0;
  const cells = r.cells.map((c, k) => {
    const label = k === 0 ? null : labels[col] || null; // the first cell names the row
    col += c.colspan ?? 1;
    return cellTag(c, label);
  });
  return tag('tr', { 'data-key': r.key === undefined ? null : String(r.key), 'data-masked': r.masked ? String(r.masked) : null,
    class: r.class ?? null }, ...cells);
};

/**
 * The name of each column of a table whose head row is `head` (the core's cells; a colspan names every column it
 * spans). A narrow figure lays each row out as a card that wraps (style.js), every value under its column's name:
 * the results then show without sideways scrolling.
 */
export const columnLabels = (head) => head.flatMap((c) => Array(c.colspan ?? 1).fill(c.text ?? ''));

/** The notes above a table: one paragraph each, named by `data-note`. */
export const noteTags = (notes) => notes.map((n) => tag('p', { class: 'note', 'data-note': n.name, text: n.text }));

export class Breakdown {
  constructor(port) {
    this.port = port;
    this.root = el('details', { class: 'breakdown', open: true });
    // Whether it starts open is decided once, when the figure's width is first known: closed in a narrow figure,
    // where its cards are a screen or more between the inputs and the next figure (its summary says what it holds).
    this.placed = false;
    this.hint = new ScrollHint();
    this.patcher = new Patcher(this.root);
  }

  /** Opens or closes the table for the figure's width, once: the first time it is known (not 0: a hidden figure's). */
  place(width) {
    if (this.placed || !width) return;
    this.placed = true;
    this.root.open = width > NARROW;
  }

  /** The part of the snapshot this table renders (the element's request, index.js `_request`). */
  asked() { return this.root.hidden ? [] : [this.port.state.naive ? 'breakdown:naive' : 'breakdown']; }

  render() {
    const model = this.port.state.parts.breakdown;
    if (!model) return;
    this.place(this.port.state.width);
    const notes = noteTags(model.notes);
    // The table scrolls sideways in narrow figures: focusable, so the keyboard can scroll it too. A named group,
    // not a region: a page of figures would have several landmarks of the same name.
    const labels = columnLabels(model.head);
    const rows = [tag('tr', { class: 'head' }, ...model.head.map((c) => cellTag(c))), ...model.body.map((r) => rowTag(r, labels)),
      ...model.foot.map((r) => rowTag(r, labels))];
    const wrap = tag('div', { class: 'wrap', tabindex: '0', role: 'group', 'aria-label': 'breakdown table' }, tag('table', {}, tag('tbody', {}, ...rows)));
    const noteBox = notes.length ? tag('div', { class: 'notes' }, ...notes) : null;
    // Usually only numbers changed (an edit): the table's nodes stay and take the new text.
    if (!this.patcher.render([tag('summary', { text: model.title }), noteBox ?? '', wrap, this.hint.root])) this.hint.watch(wrap.node);
  }
}
