// Owns the heatmaps: one canvas per stage view (and the naive-softmax lesson above them), their sizes and repaints,
// the outlines (kind 0 the followed query's row, solid; 1 what a hovered weight links together, dashed; 2 the
// keyboard cursor's cell) and the legend that says what they mean, hit-testing through the core, the tooltip (on
// hover, on a tap, and beside the keyboard cursor), and the weights as a control (a click or a tap follows that
// query; the keyboard's cursor, with Enter or Space, too: reader.js). While a drag scrubs an input, every heatmap
// keeps the palette it had when the drag began; once an edit ends, the canvases are measured again.
import { el, clip } from './dom.js';
import { Reader } from './reader.js';

/** Views the inputs already show as cells: drawn as heatmaps only in a read-only figure. */
export const INPUT_VIEWS = new Set(['embeddings', 'w_q', 'w_k', 'w_v']);
const WEIGHT_VIEWS = ['scores', 'scaled', 'weights', 'naive_weights'];
/** Outline kinds of `Viz.render`'s highlights. */
const SELECTED = 0;
const LINK = 1;
const CURSOR = 2;
/** Typed edits end this long after the last one: then the canvases are measured again (scrubs: at the release). */
const SETTLE_MS = 300;

/** x as the tooltip adds it to the figure's text: at most 6 significant digits. */
const precise = (x) => (Number.isFinite(x) ? String(Number(x.toPrecision(6))) : String(x));

export class Figures {
  constructor(host, api) {
    this.host = host;
    this.api = api;
    this.canvases = new Map();
    this.sizes = new Map(); // view → [w, h]: kept between rebuilds and edits, so an edit never reflows the page
    this.palettes = null; // view → palette name, while a scrub lasts
    this.hover = null; // {view, cell} under the mouse, or tapped
    this.tipOf = null; // what the tooltip shows: 'hover', 'touch' or 'cursor'
    this.tipTarget = null; // and for which cell: {view, cell}
    this.frame = 0;
    this.settleTimer = 0;
    this.seen = null; // the state last painted
    this.reader = new Reader(host, this);
    this.lesson = el('p', { class: 'lesson', hidden: true });
    this.legend = el('p', {
      class: 'legend', hidden: true,
      title: 'On a focused heatmap, the arrow keys move a cursor cell (a thick outline) and read it out; on the score and weight heatmaps, '
        + 'Enter or Space follow the cursor\'s query row; Escape hides the cursor.',
    },
      el('span', { class: 'key selected' }, el('span', { class: 'swatch', 'aria-hidden': 'true' }), 'solid: the followed query'),
      el('span', { class: 'sep', 'aria-hidden': 'true', text: ' · ' }),
      el('span', { class: 'key link' }, el('span', { class: 'swatch', 'aria-hidden': 'true' }), 'dashed: what the hovered weight links'));
    this.root = el('div', { class: 'stages' });
    this.tip = el('div', { class: 'tip', hidden: true, role: 'tooltip' });
    this.root.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    this.root.addEventListener('pointermove', (e) => this.onPointerMove(e));
    this.root.addEventListener('pointerleave', (e) => { if (e.pointerType !== 'touch') this.setHover(null); });
    this.root.addEventListener('keydown', (e) => this.onKey(e));
    this.root.addEventListener('focusout', (e) => {
      // Not when a rebuild replaces the canvas: the focus comes back to its replacement (dom.js rememberFocus).
      if (e.target.isConnected && e.target.dataset?.view && this.reader.cursor?.view === e.target.dataset.view) this.reader.hide();
    });
    // A tap anywhere but on a heatmap hides a tapped cell's tooltip.
    this.onOutside = (e) => {
      if (!e.composedPath().some((n) => n.localName === 'canvas' && this.root.contains(n))) this.setHover(null);
    };
  }

  /** The heatmaps to show: the `views` attribute's, else every stage (and the inputs in a read-only figure). */
  views() {
    const { host } = this;
    const panels = host._panels();
    const all = host._viz.views();
    // Names that are no panel are said by the host (_attributeProblems) until `views` changes; a later status
    // message (an edit's) never hides them.
    this.unknown = panels ? [...panels].filter((p) => !this.known().includes(p)) : [];
    if (panels) return all.filter((v) => panels.has(v));
    return all.filter((v) => (!INPUT_VIEWS.has(v) || !host.editable) && (host._showNaive || v !== 'naive_weights'));
  }

  /** Every name `views` may hold for this figure. */
  known() { return [...this.host._viz.views(), 'inputs', 'steps', 'breakdown', 'controls']; }

  isWeightView(view) { return WEIGHT_VIEWS.includes(view); }

  build() {
    const { host, reader } = this;
    this.canvases.clear();
    this.sizes = new Map();
    clearTimeout(this.settleTimer);
    reader.reset();
    this.hover = null;
    this.hideTip();
    const self = host._cfg().mechanism === 'self';
    const figs = this.views().map((view) => {
      const canvas = el('canvas', { 'data-view': view, tabindex: '0', role: 'img' });
      if (WEIGHT_VIEWS.includes(view) && self) canvas.classList.add('pickable');
      this.canvases.set(view, canvas);
      // The canvas's text alternative right after it: a hidden table of its numbers (reader.js).
      return el('figure', { class: 'stage', 'data-view': view }, canvas, reader.holder(view, canvas));
    });
    // Its numbers may be gone (− token): the cursor goes too.
    const c = reader.cursor;
    if (c && (!this.canvases.has(c.view) || !reader.text(c.view, ...c.cell))) reader.cursor = null;
    this.legend.hidden = !(self && [...this.canvases.keys()].some((v) => WEIGHT_VIEWS.includes(v)));
    this.root.replaceChildren(...figs, this.legend, ...reader.nodes());
    this.lesson.hidden = !host._showNaive;
    this.lesson.textContent = 'Naive softmax computes exp(x) / Σ exp(x) directly: exp overflows to infinity once a score passes about 709.78, '
      + 'and inf / inf is NaN (grey cells). The stable softmax subtracts the row maximum first, so every exponent is ≤ 0 and the weights stay finite.';
  }

  /** A repaint on the next frame (hover, resize, colour scheme): many events, one paint. */
  scheduleRepaint() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.host._repaint({ silent: true }); });
  }

  /** A view's natural size for the current numbers and fmt, [w, h] in CSS pixels. */
  measure(view) {
    const { host, api } = this;
    try {
      return Array.from(api.callCore(() => host._viz.preferredSize(view, host._fmtSpec())));
    } catch {
      return this.sizes.get(view) ?? [300, 200];
    }
  }

  /** Redraws every heatmap whose inputs changed since it was last drawn. */
  paint() {
    const { host, api } = this;
    const viz = host._viz;
    // On paper the heatmaps are drawn at print resolution (host._printScale), else they print soft.
    const dpr = (window.devicePixelRatio || 1) * host._printScale;
    const dark = host._darkMode();
    const fmt = host._fmtSpec();
    // The host's content box minus the .av padding (12 px a side; 8 px in narrow containers).
    const width = host._width ?? 600;
    const pad = width <= 520 ? 16 : 24;
    const avail = Math.max(120, width - pad - 2);
    const highlights = this.highlights();
    for (const [view, canvas] of this.canvases) {
      // Sizes are fixed between rebuilds and while edits go on, so a drag never reflows the page (see settle).
      if (!this.sizes.has(view)) this.sizes.set(view, this.measure(view));
      const [pw, ph] = this.sizes.get(view);
      const w = Math.min(pw, avail);
      const h = host.height ?? ph;
      const cw = Math.round(w * dpr);
      const ch = Math.round(h * dpr);
      // While a scrub lasts, each view keeps the palette it had when it began (signs may change mid-drag).
      const palette = this.palettes?.get(view) ?? host.palette ?? undefined;
      // A canvas whose inputs are all unchanged (a hover that moves another view's
      // outline, a resize that keeps its size) is not redrawn.
      const key = `${host._version}|${cw}x${ch}|${dark}|${palette}|${fmt}|${host.contrast}|${highlights[view] || ''}`;
      if (canvas.dataset.painted === key) continue;
      if (canvas.width !== cw || canvas.height !== ch) {
        canvas.width = cw; canvas.height = ch;
        canvas.style.width = `${w}px`; canvas.style.height = `${h}px`;
      }
      api.callCore(() => viz.render(view, canvas, dpr, dark, palette, highlights[view] || [], true, fmt, host.contrast));
      canvas.dataset.painted = key;
    }
    // The text alternatives: made at once for new canvases; after an edit, once edits stop.
    if (this.reader.key === null) {
      this.seen = host._version;
      this.reader.sync();
    } else if (host._version !== this.seen) {
      this.seen = host._version;
      // A shown tooltip says the new value (and drops "click: follow" once followed), where it is.
      if (!this.tip.hidden && this.tipTarget) {
        const text = this.tipText(this.tipTarget);
        if (this.tip.textContent !== text) this.tip.textContent = text;
      }
      clearTimeout(this.settleTimer);
      if (!this.palettes) this.settleTimer = setTimeout(() => this.settle(true), SETTLE_MS);
    }
  }

  /**
   * An edit has ended (SETTLE_MS after the last typed one, or a scrub's release): each canvas is measured again —
   * wider numbers get wider cells instead of smaller digits — and the text alternatives follow the numbers.
   * Returns whether a size changed; `repaint`: then repaint at once.
   */
  settle(repaint = false) {
    clearTimeout(this.settleTimer);
    this.settleTimer = 0;
    if (!this.host._viz) return false;
    let resized = false;
    for (const view of this.canvases.keys()) {
      const size = this.measure(view);
      const old = this.sizes.get(view);
      if (!old || old[0] !== size[0] || old[1] !== size[1]) { this.sizes.set(view, size); resized = true; }
    }
    if (!this.reader.fresh()) this.reader.sync();
    if (resized && repaint) this.host._repaint({ silent: true });
    return resized;
  }

  /** A scrub began (inputs.js: the pointer moved past its threshold): every heatmap keeps the palette it has now. */
  scrubStart() {
    const { host } = this;
    this.palettes = new Map();
    for (const view of this.canvases.keys()) {
      try { this.palettes.set(view, host._viz.paletteOf(view, host.palette ?? undefined)); } catch { /* its own palette */ }
    }
    clearTimeout(this.settleTimer);
  }

  /** The scrub ended: the palettes follow the values again, and the canvases are measured again. */
  scrubEnd() {
    if (!this.palettes) return;
    this.palettes = null;
    this.settle();
    this.host._repaint({ silent: true });
  }

  /** Outlines as `Viz.render` takes them: [kind, r0, c0, r1, c1, …] per view. */
  highlights() {
    const { host, hover } = this;
    const cursor = this.reader.cursor;
    const out = {};
    const add = (view, kind, r0, c0, r1, c1) => { (out[view] ||= []).push(kind, r0, c0, r1, c1); };
    const cfg = host._cfg();
    const cols = (name) => host._shape(name)[1];
    // What a weight (hovered, tapped or under the cursor) links together.
    const links = ({ view, cell: [i, j] }) => {
      if (cfg.mechanism === 'self') {
        if (!WEIGHT_VIEWS.includes(view)) return;
        for (const v of WEIGHT_VIEWS) add(v, LINK, i, j, i + 1, j + 1);
        add('q', LINK, i, 0, i + 1, cols('q'));
        add('k', LINK, j, 0, j + 1, cols('k'));
        add('v', LINK, j, 0, j + 1, cols('v'));
        add('context', LINK, i, 0, i + 1, cols('context'));
      } else if ([...WEIGHT_VIEWS, 'annotations', 'applied'].includes(view)) {
        const d = host._shape('applied')[0];
        for (const v of WEIGHT_VIEWS) add(v, LINK, 0, j, 1, j + 1);
        add('annotations', LINK, 0, j, d, j + 1);
        add('applied', LINK, 0, j, d, j + 1);
      }
    };
    if (cfg.mechanism === 'self') {
      const qi = cfg.query;
      for (const v of WEIGHT_VIEWS) add(v, SELECTED, qi, 0, qi + 1, cfg.tokens.length);
    }
    if (hover) links(hover);
    if (cursor) {
      links(cursor);
      const [i, j] = cursor.cell;
      add(cursor.view, CURSOR, i, j, i + 1, j + 1);
    }
    return out;
  }

  // ---- where the cells are ------------------------------------------------------------------------------

  /** How a canvas is shown: its client rectangle, device pixels per client pixel, its drawing scale. */
  frameOf(canvas) {
    const rect = canvas.getBoundingClientRect();
    return {
      rect,
      sx: canvas.width / rect.width,
      sy: canvas.height / rect.height,
      dpr: canvas.width / (parseFloat(canvas.style.width) || rect.width),
    };
  }

  /** The [row, column] of the cell at device pixel (x, y) of a canvas, as the core laid it out, or null. */
  cellAtPx(canvas, f, x, y) {
    const { host } = this;
    const hit = host._viz.cellAt(canvas.dataset.view, canvas.width, canvas.height, f.dpr, x, y, host._fmtSpec());
    return hit ? [hit[0], hit[1]] : null;
  }

  /** The [row, column] of the heatmap cell under a pointer event, or null. */
  hit(canvas, e) {
    const f = this.frameOf(canvas);
    return this.cellAtPx(canvas, f, (e.clientX - f.rect.left) * f.sx, (e.clientY - f.rect.top) * f.sy);
  }

  /** Cell [i, j] of a canvas as a client rectangle, where the core laid it out; null outside the grid. */
  cellRect(canvas, i, j) {
    const f = this.frameOf(canvas);
    if (!f.rect.width || !f.rect.height) return null;
    const { host } = this;
    const r = host._viz.cellRect(canvas.dataset.view, canvas.width, canvas.height, f.dpr, i, j, host._fmtSpec());
    if (!r) return null;
    const [x0, y0, x1, y1] = r;
    return { left: f.rect.left + x0 / f.sx, right: f.rect.left + x1 / f.sx, top: f.rect.top + y0 / f.sy, bottom: f.rect.top + y1 / f.sy };
  }

  // ---- events ---------------------------------------------------------------------------------------------

  /** Follows query `q`: the breakdown, the outlines and the query menu. */
  follow(q) {
    const { host } = this;
    const ok = host._apply(() => host._viz.setQuery(q));
    host._toolbar.showQuery(q);
    return ok;
  }

  onPointerDown(e) {
    const canvas = e.target.closest?.('canvas[data-view]');
    const touch = e.pointerType === 'touch';
    if (!canvas || !(touch || canvas.classList.contains('pickable'))) return;
    const hit = this.hit(canvas, e);
    if (hit && canvas.classList.contains('pickable')) this.follow(hit[0]);
    // A finger has no hover: a tap shows the tapped cell's tooltip (and outlines) until a tap elsewhere.
    if (touch) {
      this.setHover(hit ? { view: canvas.dataset.view, cell: hit } : null, { x: e.clientX, y: e.clientY }, 'touch');
    }
  }

  onPointerMove(e) {
    if (e.pointerType === 'touch') return;
    const canvas = e.target.closest?.('canvas[data-view]');
    if (!canvas) return;
    const hit = this.hit(canvas, e);
    this.setHover(hit ? { view: canvas.dataset.view, cell: hit } : null, { x: e.clientX, y: e.clientY }, 'hover');
  }

  onKey(e) {
    const canvas = e.target.closest?.('canvas[data-view]');
    if (canvas) this.reader.onKey(e, canvas);
  }

  /** The cell under the pointer (or tapped), `point` where it is; null: none (then the cursor's tooltip, if any). */
  setHover(hover, point = null, kind = 'hover') {
    const same = JSON.stringify(hover) === JSON.stringify(this.hover);
    this.hover = hover;
    if (hover) {
      if (!same || this.tipOf !== kind || this.tip.hidden) this.showTip(hover, point, kind);
    } else if (this.tipOf === 'hover' || this.tipOf === 'touch') {
      this.hideTip();
      if (this.reader.cursor) this.showCursor({ repaint: false });
    }
    if (!same) this.scheduleRepaint();
  }

  /** After the keyboard cursor moved, appeared or went: its tooltip, and its outline at once. */
  showCursor({ repaint = true } = {}) {
    const c = this.reader.cursor;
    if (c) this.showTip(c, null, 'cursor');
    else if (this.tipOf === 'cursor') this.hideTip();
    if (repaint) this.host._repaint({ silent: true });
  }

  /** The tooltip of a cell, placed beside the cell: above it (its row stays in view), or below when there is no room. */
  showTip(target, point, kind) {
    const { tip } = this;
    const canvas = this.canvases.get(target.view);
    if (!canvas) return;
    const text = this.tipText(target);
    if (tip.textContent !== text) tip.textContent = text;
    tip.hidden = false;
    this.tipOf = kind;
    this.tipTarget = target;
    if (kind === 'touch') document.addEventListener('pointerdown', this.onOutside, true);
    else document.removeEventListener('pointerdown', this.onOutside, true);
    const cell = this.cellRect(canvas, ...target.cell)
      ?? (point ? { left: point.x, right: point.x, top: point.y - 16, bottom: point.y + 16 } : canvas.getBoundingClientRect());
    const gap = 6;
    const { offsetWidth: w, offsetHeight: h } = tip;
    let top = cell.top - gap - h;
    if (top < 2) top = cell.bottom + gap;
    const left = Math.max(2, Math.min(cell.left, document.documentElement.clientWidth - w - 2));
    tip.style.left = `${Math.round(left)}px`;
    tip.style.top = `${Math.round(top)}px`;
  }

  hideTip() {
    this.tip.hidden = true;
    this.tipOf = null;
    document.removeEventListener('pointerdown', this.onOutside, true);
  }

  /** `weights[1][3] = 0.045 (0.0451737)`: the number as the figure writes it, and to 6 significant digits. */
  tipText({ view, cell: [i, j] }) {
    const { host } = this;
    const cfg = host._cfg();
    const c = this.reader.text(view, i, j);
    if (!c) return `${view}[${i}][${j}]`;
    const more = precise(c.full);
    let text = `${view}[${i}][${j}] = ${c.value}${more === c.value || Number.isNaN(c.full) ? '' : ` (${more})`}`;
    if (view === 'scores') text += `\n${host._breakdown.scoreFormula(cfg.mechanism === 'self' ? i : 0, j)}`;
    if (WEIGHT_VIEWS.includes(view) && cfg.mechanism === 'self') {
      text += `\nquery ${clip(c.row)} → key ${clip(c.col)}`;
      if (this.canvases.get(view)?.classList.contains('pickable') && i !== cfg.query) text += ` (click or Enter: follow query ${i})`;
    }
    return text;
  }
}
