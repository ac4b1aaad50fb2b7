// Owns what a screen reader and a keyboard get of the heatmaps, which are canvases: each heatmap's text alternative
// (a visually hidden table of its numbers as the figure writes them, from the core's `describe`, rebuilt only when
// the state or the fmt changes), the keyboard cell cursor (arrow keys on a focused heatmap; Enter or Space follow
// the cursor's query row on the weights, or that head on a head's weights; Escape hides it), and the polite live
// region that reads out each move.
// The figures part (figures.js) draws the cursor's outline and its tooltip.
import { el } from './dom.js';

/** What the arrow keys do to the cursor: [rows, columns]. */
const MOVES = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

/** "heads.2.weights" → 2: a head's small multiple (figures.js); null for any other view. */
export const headOf = (view) => { const m = /^heads\.(\d+)\.weights$/.exec(view); return m ? Number(m[1]) : null; };

/** A header cell never names nothing: an empty label reads as its index. */
const label = (text, k) => (String(text).trim() ? String(text) : String(k));

/**
 * One heatmap as a table, from the core's `describe`: caption = its title, header cells = its labels, data cells =
 * its numbers; the note (a large grid's cut) after it. The steppers' heatmaps (steppers.js) use it too.
 */
export function numbersTable(d) {
  const head = el('tr', {}, el('td'), ...d.colLabels.map((c, j) => el('th', { scope: 'col', text: label(c, j) })));
  const body = d.cells.map((row, i) => el('tr', {}, el('th', { scope: 'row', text: label(d.rowLabels[i], i) }),
    ...row.map((x) => el('td', { text: x }))));
  return el('table', {}, el('caption', { text: d.title }), el('thead', {}, head), el('tbody', {}, ...body));
}

export class Reader {
  /** `figures`: the heatmaps part (its canvases, outlines, tooltip, and `follow(q)`). */
  constructor(port, figures) {
    this.port = port;
    this.figures = figures;
    this.cursor = null; // {view, cell: [i, j]}
    this.texts = new Map(); // view → {node, text: JSON of what it shows}
    this.key = null; // the state and fmt the texts were built for
    // A polite live region: each cursor move is read once the reader is idle, never interrupting.
    this.live = el('div', { class: 'announce sr-only', 'aria-live': 'polite', 'aria-atomic': 'true' });
    // What the keys do, as each heatmap's description (ids are per shadow root, so two figures never clash).
    this.keys = el('p', { id: 'av-keys', class: 'sr-only', text: 'Arrow keys move a cursor over the cells and read each one; Escape hides it.' });
    this.keysPick = el('p', {
      id: 'av-keys-pick', class: 'sr-only',
      text: 'Arrow keys move a cursor over the cells and read each one; Enter or Space follow the cursor\'s query row; Escape hides the cursor.',
    });
    this.keysHead = el('p', {
      id: 'av-keys-head', class: 'sr-only',
      text: 'One head\'s weights: Enter, Space or a click follow this head in the stages and the breakdown; arrow keys move a cursor over the cells and read each one; Escape hides the cursor.',
    });
  }

  /** The hidden nodes every build puts back after the figures. */
  nodes() { return [this.live, this.keys, this.keysPick, this.keysHead]; }

  /** A new set of canvases: their texts are made on the next `sync`. */
  reset() {
    this.texts.clear();
    this.key = null;
    if (this.cursor && !this.figures.canvases.has(this.cursor.view)) this.cursor = null;
  }

  /** The (empty) text alternative of one heatmap, placed right after its canvas. */
  holder(view, canvas) {
    const keys = canvas.classList.contains('pickable') ? 'av-keys-pick' : headOf(view) !== null ? 'av-keys-head' : 'av-keys';
    canvas.setAttribute('aria-describedby', keys);
    const node = el('div', { class: 'sr-only', 'data-text-of': view });
    this.texts.set(view, { node, text: null });
    return node;
  }

  /** Whether the texts show the current state and fmt. */
  fresh() { return this.key === `${this.port.state.version}|${this.port.state.fmt}`; }

  /**
   * Rebuilds the text of every heatmap whose numbers changed (a table's nodes are replaced only when its
   * description did): the accessible name (the visible title) and the table.
   */
  sync() {
    const { port, figures } = this;
    const fmt = port.state.fmt;
    this.key = `${port.state.version}|${fmt}`;
    // Only the views whose drawing changed (the snapshot's keys), all described in one call.
    // A view's status after an edit ("unchanged") is in its text too, even where its drawing stays the same.
    const views = port.state.views;
    const keyOf = (view) => `${views.get(view)?.key ?? port.state.version}|${views.get(view)?.status ?? ''}|${fmt}`;
    const stale = [...figures.canvases.keys()].filter((view) => {
      const slot = this.texts.get(view);
      return slot && slot.key !== keyOf(view);
    });
    if (!stale.length) return;
    let described;
    try { described = port.ask({ kind: 'describeViews', views: stale, fmt }); } catch { return; }
    stale.forEach((view, k) => {
      const slot = this.texts.get(view);
      const canvas = figures.canvases.get(view);
      const d = described[k];
      if (!d) return; // a refused fmt: the status line says why
      slot.key = keyOf(view);
      const text = JSON.stringify(d);
      if (slot.text === text) return;
      slot.text = text;
      if (canvas.getAttribute('aria-label') !== d.title) canvas.setAttribute('aria-label', d.title);
      slot.node.replaceChildren(numbersTable(d), d.note ? el('p', { text: `Table: ${d.note}.` }) : null);
    });
  }


  // ---- the keyboard cursor -----------------------------------------------------------------------------

  /** Where a cursor starts on a heatmap: the followed query's row on the weights (a head's too), else the first cell. */
  start(view, pickable) {
    return pickable || headOf(view) !== null ? [this.port.state.facts.query, 0] : [0, 0];
  }

  /** A key on a focused heatmap; true when it was the cursor's. */
  onKey(e, canvas) {
    if (e.altKey || e.ctrlKey || e.metaKey) return false;
    const { view } = canvas.dataset;
    const pickable = canvas.classList.contains('pickable');
    const here = this.cursor?.view === view ? this.cursor.cell : null;
    const move = MOVES[e.key];
    if (move) {
      e.preventDefault();
      const [i, j] = here ?? this.start(view, pickable);
      const next = [i + move[0], j + move[1]];
      // Off the grid (cellText has nothing there): the cursor stays at the edge.
      this.place(view, this.text(view, ...next) ? next : [i, j]);
      return true;
    }
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      // A head's weights: Enter follows that head (the cursor, if any, stays on its cell).
      const head = headOf(view);
      if (head !== null && this.figures.followers.length && head !== this.figures.followedHead()) { this.figures.pickHead(head); return true; }
      if (!here) { this.place(view, this.start(view, pickable)); return true; }
      if (pickable && here[0] !== this.port.state.facts.query) {
        this.figures.follow(here[0]);
        canvas.focus();
        this.place(view, here);
      }
      return true;
    }
    if (e.key === 'Escape' && here) {
      e.preventDefault();
      this.hide();
      return true;
    }
    return false;
  }

  /** Puts the cursor on cell [i, j] of `view`: outlined, read out, its tooltip beside it. */
  place(view, cell) {
    this.cursor = { view, cell };
    const c = this.text(view, ...cell);
    if (c) this.say(this.phrase(view, c));
    this.figures.showCursor();
  }

  /** Hides the cursor (Escape, or the heatmap lost the focus). */
  hide() {
    if (!this.cursor) return;
    this.cursor = null;
    this.figures.showCursor();
  }

  /** The core's text of a cell, or null off the grid. */
  text(view, i, j) {
    if (i < 0 || j < 0) return null;
    try { return this.port.ask({ kind: 'cellText', view, i, j, fmt: this.port.state.fmt }) ?? null; } catch { return null; }
  }

  /** "weights, query word_2 → key word_1: 0.24" (self-attention's scores and weights), else "k, row word_1, column 2: 3". */
  phrase(view, c) {
    const self = this.port.state.facts.mechanism === 'self';
    const head = headOf(view);
    if (self && head !== null) return `head ${head} weights, query ${c.row} → key ${c.col}: ${c.value}`;
    if (self && this.figures.isWeightView(view)) return `${view}, query ${c.row} → key ${c.col}: ${c.value}`;
    return `${view}, row ${c.row}, column ${c.col}: ${c.value}`;
  }

  say(text) {
    if (this.live.textContent !== text) this.live.textContent = text;
  }
}
