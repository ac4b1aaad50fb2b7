// Owns the "model" panel of a model's attention (mechanism "weights"): the grid of every layer × head (one raster from
// the core's modelGrid, labels drawn here, and an overlay canvas for everything that changes on hover: the selected
// head, the keyboard cursor, the top heads of the ranking and the hovered token's row in every head), picking a head
// (click, tap, or arrow keys + Enter on the focused grid), the ranking of heads by a per-head summary, the note when
// the selected head's rows do not sum to 1, the token-to-token line view beside the selected head's heatmap (figures.js
// draws that heatmap as view "attention"), and the panel's exports (the grid as PNG, the lines as SVG or PNG).
// The grid raster is made again only when what it shows changes (the state, the theme, the size): a hover redraws the
// overlay only, which is a few rectangles, so the grid stays fast at n = 512. Every word the panel shows of the heads —
// the caption, each head's summaries, the ranking and its order, the legend, the labels — is the core's (src/heads.rs,
// asked as `modelPanel` with the panel's own state: the summary ranked by, the order, the cursor, the hovered head).
import { el } from './dom.js';
import { download } from './share.js';
import { THEME } from './facts.js';
import { MUTED } from './style.js';

/** Label strips of the grid canvas (CSS px): the layer numbers on the left, the head numbers on top. */
const LABEL_W = 26;
const LABEL_H = 16;
/** Thumbnail bounds (CSS px): below MIN the grid scrolls sideways inside the panel; the grid is at most ~MAX_H high. */
const MIN_THUMB = 18;
const MAX_THUMB = 96;
const MAX_H = 600;
/** The colours the grid and its overlay draw with: the heatmaps' theme (the core's), the stylesheet's muted labels. */
const COLORS = Object.fromEntries(['light', 'dark'].map((k) => [k, {
  accent: THEME[k].accent, link: THEME[k].link, bg: THEME[k].background, fg: THEME[k].text, muted: MUTED[k] }]));

const toBlob = (canvas) => new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'));

export class Model {
  constructor(port, api) {
    this.port = port;
    this.api = api;
    this.shape = null; // [layers, heads, n, m] of the figure, or null (another mechanism)
    this.geo = null; // the grid's layout in device pixels, for hit tests and the overlay
    this.cursor = null; // [layer, head] of the keyboard cursor while the grid has the focus
    this.over = null; // [layer, head] under the pointer
    this.pointerToken = null; // {kind: 'row' | 'col', index} from the heatmap's labels or cells, or the line view
    this.metric = 'entropy';
    this.low = true;
    this.all = false;
    this.keys = {}; // what each canvas / list last showed

    this.canvas = el('canvas', { class: 'model-grid', tabindex: '0', role: 'img', 'data-control': 'model-grid', 'aria-describedby': 'av-model-keys' });
    this.overlay = el('canvas', { class: 'model-overlay', 'aria-hidden': 'true' });
    this.scroll = el('div', { class: 'model-scroll' }, el('div', { class: 'model-stack' }, this.canvas, this.overlay));
    this.caption = el('p', { class: 'model-caption', id: 'av-model-caption' });
    this.readout = el('p', { class: 'model-readout' });
    this.live = el('div', { class: 'sr-only', 'aria-live': 'polite', 'aria-atomic': 'true' });
    this.help = el('p', { id: 'av-model-keys', class: 'sr-only',
      text: 'Arrow keys move a cursor over the heads and read each one\'s summaries; Enter or Space select that head; Home and End go to the first and last head of the layer.' });
    this.legend = el('p', { class: 'model-legend' });

    // Its choices are the core's (the first model figure's words fill it).
    this.metricMenu = el('select', { 'data-control': 'model-metric', 'aria-label': 'Rank the heads by' });
    this.metricMenu.addEventListener('change', () => {
      this.metric = this.metricMenu.value;
      this.low = this.words().metrics.find((m) => m.value === this.metric).low;
      this.paintRank(true);
      this.paintOverlay();
    });
    this.orderButton = el('button', { type: 'button', 'data-action': 'model-order' });
    this.orderButton.addEventListener('click', () => { this.low = !this.low; this.paintRank(true); this.paintOverlay(); });
    this.allButton = el('button', { type: 'button', 'data-action': 'model-all' });
    this.allButton.addEventListener('click', () => { this.all = !this.all; this.paintRank(true); });
    this.table = el('table', { class: 'model-rank-table' });
    this.table.addEventListener('click', (e) => {
      const b = e.target.closest?.('button[data-layer]');
      if (b) this.select(Number(b.dataset.layer), Number(b.dataset.head));
    });
    this.rank = el('div', { class: 'model-rank' },
      el('div', { class: 'group' }, el('span', { class: 'label', text: 'find heads by' }), this.metricMenu, this.orderButton),
      el('div', { class: 'model-rank-wrap' }, this.table), this.allButton);

    const exportButton = (action, text, title) => el('button', { type: 'button', 'data-action': action, text, title, onclick: () => this.export(action) });
    this.exports = el('div', { class: 'group model-export' }, el('span', { class: 'label', text: 'export' }),
      exportButton('model-grid-png', 'Grid PNG', 'Download every layer × head as a PNG, with its labels'),
      exportButton('model-lines-svg', 'Lines SVG', 'Download the selected head\'s line view as an SVG'),
      exportButton('model-lines-png', 'Lines PNG', 'Download the selected head\'s line view as a PNG'));
    this.note = el('p', { class: 'model-note', role: 'note', hidden: true });

    this.root = el('div', { class: 'model', hidden: true, role: 'group', 'aria-label': 'Every layer and head' },
      this.caption,
      el('div', { class: 'model-body' }, el('div', { class: 'model-gridbox' }, this.scroll, this.legend, this.readout), this.rank),
      this.exports, this.help, this.live, this.note);

    // The line view sits in the heatmaps' row, right after the selected head's heatmap (figures.js owns that row).
    this.lines = el('canvas', { class: 'model-lines-canvas', role: 'img' });
    this.linesNote = el('p', { class: 'model-lines-note', hidden: true });
    this.linesFig = el('figure', { class: 'stage model-lines' }, this.lines, this.linesNote);

    this.canvas.addEventListener('pointermove', (e) => this.onGridMove(e));
    this.canvas.addEventListener('pointerleave', () => this.setOver(null));
    this.canvas.addEventListener('click', (e) => this.onGridClick(e));
    this.canvas.addEventListener('keydown', (e) => this.onGridKey(e));
    // A click focuses the grid too, but the cursor is for the keyboard: it shows on a keyboard focus only.
    this.canvas.addEventListener('pointerdown', () => { this.byPointer = true; });
    this.canvas.addEventListener('focus', () => {
      if (!this.byPointer) { this.cursor ??= this.selected(); this.moved(false); }
      this.byPointer = false;
    });
    this.canvas.addEventListener('blur', () => { this.cursor = null; this.paintOverlay(); this.paintReadout(); });
    this.lines.addEventListener('pointermove', (e) => this.onLinesMove(e));
    // A finger has no hover: a tap on a token focuses it, a second tap lets go (a touch's pointerleave follows every tap).
    this.lines.addEventListener('pointerdown', (e) => { if (e.pointerType === 'touch') this.onLinesMove(e, true); });
    this.lines.addEventListener('pointerleave', (e) => { if (e.pointerType !== 'touch') this.setToken(null); });
    // The heatmap's token rows and columns (its labels too): figures.js hit-tests cells only.
    port.tell('figuresRoot').addEventListener('pointermove', (e) => this.onHeatmapMove(e));
    port.tell('figuresRoot').addEventListener('pointerleave', () => { if (this.pointerToken?.from === 'heatmap') this.setToken(null); });
  }

  /** Whether this figure is a model's weights. */
  active() { return this.port.live && this.port.state.facts.mechanism === 'weights'; }

  /** [layer, head] shown in full. */
  selected() { const c = this.port.state.facts; return [c.layer ?? 0, c.head ?? 0]; }

  /** After every rebuild: shows or hides the panel and puts the line view beside the heatmap. */
  build() {
    const { port } = this;
    if (!this.active()) {
      this.root.hidden = true;
      this.linesFig.remove();
      this.shape = null;
      return;
    }
    const panels = port.state.panels;
    this.root.hidden = Boolean(panels) && !panels.has('model');
    this.shape = port.ask({ kind: 'modelShape' });
    const [layers, heads] = this.shape;
    if (this.cursor && (this.cursor[0] >= layers || this.cursor[1] >= heads)) this.cursor = null;
    this.over = null;
    this.pointerToken = null;
    this.keys = {};
    // The stack only changes with a new config (a rebuild), never when a head is picked: the grid and the
    // ranking are keyed on this, not on every state change.
    this.stackKey = (this.stackKey ?? 0) + 1;
    if (!this.metricMenu.options.length) {
      this.metricMenu.replaceChildren(...this.words().metrics.map((m) => el('option', { value: m.value, text: m.label })));
    }
    this.placeLines();
  }

  /**
   * The panel's words for its state now (src/heads.rs `panel`): the caption, the sentences of the shown, hovered and
   * cursor heads, the legend, the marked heads, the line view's label (the ranking table is asked by paintRank).
   * Asked again when the state changes.
   */
  words() {
    const view = this.view();
    const key = `${this.port.state.version}|${JSON.stringify(view)}`;
    if (this.said?.key !== key) this.said = { key, words: this.port.ask({ kind: 'modelPanel', ...view }) };
    return this.said.words;
  }

  /** The panel's own state, as the core reads it (src/heads.rs `View`). */
  view() {
    const token = this.token();
    return { metric: this.metric, low: this.low, all: this.all, cursor: this.cursor, over: this.over, token: token && { kind: token.kind, index: token.index } };
  }

  /** The line view goes right after the heatmap "attention" (or last in the heatmaps' row when it is not shown). */
  placeLines() {
    if (this.root.hidden) { this.linesFig.remove(); return; }
    const figs = this.port.tell('figuresRoot');
    const heat = figs.querySelector(':scope > figure.stage[data-view="attention"]');
    if (heat) { if (heat.nextElementSibling !== this.linesFig) heat.after(this.linesFig); } else if (this.linesFig.parentNode !== figs) {
      figs.prepend(this.linesFig);
    }
  }

  /** After every repaint: each part is redrawn only when what it shows changed. */
  paint() {
    if (!this.shape || !this.active()) return;
    if (!this.linesFig.isConnected && !this.root.hidden) this.placeLines(); // the heatmaps' row was rebuilt
    if (this.root.hidden) return;
    try {
      this.paintGrid();
      this.paintRank();
      this.paintNote();
      this.paintOverlay();
      this.paintLines();
      this.paintReadout();
    } catch (e) {
      // A drawing the core refused (a canvas too large for the browser): said once, the rest of the figure stays.
      if (this.failed !== e.message) { this.failed = e.message; this.port.fail(`The model panel could not be drawn: ${e.message}`); }
    }
  }

  // ---- the grid ---------------------------------------------------------------------------------------------------

  /** The thumbnail size (CSS px) for the panel's width: as many heads as fit a row, not too tall for many layers. */
  thumbSize() {
    const [layers, heads] = this.shape;
    const width = this.port.state.width ?? 600;
    const avail = Math.max(120, width - (width <= 520 ? 16 : 24) - 2);
    const gap = this.gap();
    const byWidth = Math.floor((avail - LABEL_W - gap * (heads - 1)) / heads);
    const byHeight = Math.floor((MAX_H - gap * (layers - 1)) / layers);
    return Math.max(MIN_THUMB, Math.min(MAX_THUMB, byWidth, Math.max(MIN_THUMB + 6, byHeight)));
  }

  gap() { return (this.port.state.width ?? 600) <= 520 ? 3 : 4; }

  paintGrid() {
    const { port, canvas } = this;
    const dpr = port.state.dpr;
    const dark = port.state.dark;
    const thumb = this.thumbSize();
    const key = `${this.stackKey}|${thumb}|${dpr}|${dark}|${port.state.palette}`;
    if (this.keys.grid === key) return;
    this.keys.grid = key;
    this.keys.overlay = null;
    const t0 = performance.now();
    this.geo = this.drawGrid(canvas, thumb, this.gap(), dpr, dark);
    this.gridMs = performance.now() - t0;
    const [w, h] = [canvas.width / dpr, canvas.height / dpr];
    for (const c of [canvas, this.overlay]) { c.style.width = `${w}px`; c.style.height = `${h}px`; }
    this.overlay.width = canvas.width;
    this.overlay.height = canvas.height;
    this.caption.textContent = this.words().caption;
  }

  /** Draws the grid with its labels on `canvas` at `dpr`; returns its layout in device pixels. */
  drawGrid(canvas, thumb, gap, dpr, dark) {
    const { port, api } = this;
    const [layers, heads] = this.shape;
    const lw = Math.round(LABEL_W * dpr);
    const lh = Math.round(LABEL_H * dpr);
    // The core may draw smaller thumbnails than asked (its raster bounds, for thousands of heads): its sizes place them.
    const grid = api.callCore(() => port.ask({ kind: 'modelGrid', thumb: Math.max(4, Math.round(thumb * dpr)), gap: Math.round(gap * dpr), dark, palette: port.state.palette ?? undefined }));
    const { thumb: t, gap: g } = grid;
    canvas.width = lw + grid.width;
    canvas.height = lh + grid.height;
    const ctx = canvas.getContext('2d');
    const colors = COLORS[dark ? 'dark' : 'light'];
    ctx.fillStyle = colors.bg;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.putImageData(new ImageData(grid.data, grid.width, grid.height), lw, lh);
    ctx.fillStyle = colors.muted;
    ctx.font = `${Math.round(11 * dpr)}px system-ui, -apple-system, "Segoe UI", sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    // Only every k-th number when the thumbnails are narrower than the numbers.
    const every = (size) => Math.max(1, Math.ceil((18 * dpr) / size));
    const kh = every(t + g);
    for (let h = 0; h < heads; h += kh) ctx.fillText(String(h), lw + h * (t + g) + t / 2, lh / 2);
    ctx.textAlign = 'right';
    const kl = every(t + g) > 1 && (t + g) < 14 * dpr ? every(t + g) : 1;
    for (let l = 0; l < layers; l += kl) ctx.fillText(String(l), lw - 6 * dpr, lh + l * (t + g) + t / 2);
    return { t, g, lw, lh, dpr, layers, heads };
  }

  /** Device-pixel rectangle of head (l, h): [x, y, size]. */
  thumbAt(l, h) {
    const { t, g, lw, lh } = this.geo;
    return [lw + h * (t + g), lh + l * (t + g), t];
  }

  /** The [layer, head] under a pointer event, or null. */
  hitGrid(e) {
    if (!this.geo) return null;
    const r = this.canvas.getBoundingClientRect();
    if (!r.width) return null;
    const x = ((e.clientX - r.left) * this.canvas.width) / r.width;
    const y = ((e.clientY - r.top) * this.canvas.height) / r.height;
    const { t, g, lw, lh, layers, heads } = this.geo;
    // A point in a gap belongs to the head before it: the gaps are too thin to be a target of their own.
    const h = Math.floor((x - lw) / (t + g));
    const l = Math.floor((y - lh) / (t + g));
    return x >= lw && y >= lh && h < heads && l < layers ? [l, h] : null;
  }

  onGridMove(e) {
    if (e.pointerType === 'touch') return;
    this.setOver(this.hitGrid(e));
  }

  setOver(over) {
    if (JSON.stringify(over) === JSON.stringify(this.over)) return;
    this.over = over;
    this.canvas.style.cursor = over ? 'pointer' : '';
    this.paintOverlay();
    this.paintReadout();
  }

  onGridClick(e) {
    const hit = this.hitGrid(e);
    if (!hit) return;
    if (this.cursor) this.cursor = hit;
    this.select(...hit);
  }

  onGridKey(e) {
    if (e.altKey || e.ctrlKey || e.metaKey || !this.shape) return;
    const [layers, heads] = this.shape;
    const [l, h] = this.cursor ?? this.selected();
    const moves = { ArrowUp: [l - 1, h], ArrowDown: [l + 1, h], ArrowLeft: [l, h - 1], ArrowRight: [l, h + 1], Home: [l, 0], End: [l, heads - 1] };
    if (moves[e.key]) {
      e.preventDefault();
      const [nl, nh] = moves[e.key];
      this.cursor = [Math.max(0, Math.min(layers - 1, nl)), Math.max(0, Math.min(heads - 1, nh))];
      this.moved(true);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.cursor = [l, h];
      this.select(l, h);
    }
  }

  /** The keyboard cursor moved (or the grid got the focus): outlined, read out when `say`. */
  moved(say) {
    this.paintOverlay();
    this.paintReadout();
    this.labelGrid();
    if (say && this.cursor) this.say(this.words().cursor);
    if (this.cursor) this.reveal(...this.cursor);
  }

  /** Scrolls the grid's box sideways so that head (l, h) is in view (many heads on a narrow screen). */
  reveal(l, h) {
    const { scroll } = this;
    const [x, , t] = this.thumbAt(l, h);
    const { dpr } = this.geo;
    const left = x / dpr;
    const right = (x + t) / dpr + 6;
    if (left - LABEL_W < scroll.scrollLeft) scroll.scrollLeft = Math.max(0, left - LABEL_W - 6);
    else if (right > scroll.scrollLeft + scroll.clientWidth) scroll.scrollLeft = right - scroll.clientWidth;
  }

  /** Shows head (l, h) in full: the heatmap, the line view, the outline (the usual edit path: repaint, `change`). */
  select(l, h) {
    const [sl, sh] = this.selected();
    if (l === sl && h === sh) { this.say(this.words().shown); return; }
    const { port } = this;
    if (port.dispatch(() => port.edit({ selectHead: [l, h] }))) this.say(this.words().selected);
  }

  say(text) { this.live.textContent = text; }

  /** The grid's accessible name: what it is, which head is shown, where the cursor is. */
  labelGrid() {
    const text = this.words().label;
    if (this.canvas.getAttribute('aria-label') !== text) this.canvas.setAttribute('aria-label', text);
  }

  /** The line under the grid: the hovered (else the cursor's, else the shown) head's summaries. */
  paintReadout() {
    if (!this.shape) return;
    const text = this.words().readout;
    if (this.readout.textContent !== text) this.readout.textContent = text;
    this.labelGrid();
  }

  // ---- the overlay: selection, cursor, ranking marks, the hovered token's row -------------------------------------

  /** The token the figure points at: from the pointer (heatmap labels or cells, line view), a tap, or the heatmap's keyboard cursor. */
  token() {
    if (this.pointerToken) return this.pointerToken;
    const cell = this.port.tell('pointedCell', 'attention');
    return cell ? { kind: 'row', index: cell[0] } : null;
  }

  setToken(token) {
    if (JSON.stringify(token) === JSON.stringify(this.pointerToken)) return;
    this.pointerToken = token;
    this.paintOverlay();
    this.paintLines();
    this.port.tell('scheduleRepaint'); // the heatmap outlines the token's row too (figures.js highlights)
  }

  paintOverlay() {
    if (!this.geo || !this.shape) return;
    const { overlay, port } = this;
    const token = this.token();
    const words = this.words();
    const ranked = words.marked;
    const key = `${this.keys.grid}|${this.selected()}|${this.cursor}|${this.over}|${JSON.stringify(token)}|${ranked.map((r) => r.join(':'))}`;
    if (this.keys.overlay === key) return;
    this.keys.overlay = key;
    const ctx = overlay.getContext('2d');
    ctx.clearRect(0, 0, overlay.width, overlay.height);
    const { dpr, layers, heads } = this.geo;
    const colors = COLORS[port.state.dark ? 'dark' : 'light'];
    const [, , n, m] = this.shape;
    if (token) {
      // One band per thumbnail, where that token's row (or column) falls: at least 2 device pixels, visible at n = 512.
      const count = token.kind === 'row' ? n : m;
      ctx.fillStyle = colors.accent;
      ctx.globalAlpha = 0.55;
      for (let l = 0; l < layers; l++) {
        for (let h = 0; h < heads; h++) {
          const [x, y, t] = this.thumbAt(l, h);
          const a = Math.floor((token.index * t) / count);
          const b = Math.max(a + Math.max(2, Math.round(dpr)), Math.floor(((token.index + 1) * t) / count));
          if (token.kind === 'row') ctx.fillRect(x, y + a, t, b - a); else ctx.fillRect(x + a, y, b - a, t);
        }
      }
      ctx.globalAlpha = 1;
    }
    const box = (l, h, color, width, dash) => {
      const [x, y, t] = this.thumbAt(l, h);
      ctx.strokeStyle = color;
      ctx.lineWidth = width;
      ctx.setLineDash(dash);
      ctx.strokeRect(x - width / 2, y - width / 2, t + width, t + width);
      ctx.setLineDash([]);
    };
    // The ranking's top heads: a numbered badge in the corner.
    const r = Math.max(5, Math.min(8, this.geo.t / 4 / dpr)) * dpr;
    ctx.font = `600 ${Math.round(r * 1.3)}px system-ui, -apple-system, "Segoe UI", sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ranked.forEach(([l, h], k) => {
      const [x, y, t] = this.thumbAt(l, h);
      const cx = x + t - r - dpr;
      const cy = y + r + dpr;
      ctx.beginPath();
      ctx.arc(cx, cy, r, 0, 2 * Math.PI);
      ctx.fillStyle = colors.bg;
      ctx.fill();
      ctx.lineWidth = dpr;
      ctx.strokeStyle = colors.fg;
      ctx.stroke();
      ctx.fillStyle = colors.fg;
      ctx.fillText(String(k + 1), cx, cy + 0.5 * dpr);
    });
    if (this.over) box(...this.over, colors.muted, Math.max(1, Math.round(dpr)), []);
    const [sl, sh] = this.selected();
    box(sl, sh, colors.accent, Math.round(2 * dpr) + (this.geo.g >= 4 * dpr ? dpr : 0), []);
    if (this.cursor) box(...this.cursor, colors.link, Math.round(2 * dpr), [Math.round(4 * dpr), Math.round(3 * dpr)]);
    this.legend.textContent = words.legend;
  }

  // ---- the ranking ---------------------------------------------------------------------------------------------------

  paintRank(force = false) {
    if (!this.shape) return;
    const [layers, heads] = this.shape;
    const total = layers * heads;
    this.rank.hidden = total < 2;
    if (total < 2) return;
    const key = `${this.port.state.version}|${this.metric}|${this.low}|${this.all}`;
    if (!force && this.keys.rank === key) return;
    this.keys.rank = key;
    const { rank } = this.port.ask({ kind: 'modelPanel', ...this.view(), rank: true });
    this.metricMenu.value = this.metric;
    this.orderButton.textContent = rank.order;
    this.orderButton.setAttribute('aria-label', rank.order_label);
    this.allButton.hidden = rank.more_off;
    this.allButton.textContent = rank.more;
    const body = rank.rows.map((r) => {
      const pick = el('button', { type: 'button', class: 'model-pick', 'data-layer': String(r.layer), 'data-head': String(r.head),
        'aria-current': r.current ? 'true' : null, text: r.text });
      return el('tr', { class: r.current ? 'current' : null }, el('td', { class: 'rank', text: String(r.rank) }), el('td', {}, pick),
        el('td', { class: 'value', text: r.value }));
    });
    const focused = this.port.shadow.activeElement;
    const refocus = focused?.classList?.contains('model-pick') ? [focused.dataset.layer, focused.dataset.head] : null;
    this.table.replaceChildren(
      el('caption', { text: rank.caption }),
      el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: '#' }), el('th', { scope: 'col', text: 'head' }), el('th', { scope: 'col', text: rank.name }))),
      el('tbody', {}, ...body));
    // The list is rebuilt on every selection: the keyboard stays on the same head's button.
    if (refocus) this.table.querySelector(`button[data-layer="${refocus[0]}"][data-head="${refocus[1]}"]`)?.focus({ preventScroll: true });
  }

  /** Above the heatmap: the shown head's rows do not sum to 1. */
  paintNote() {
    const [l, h] = this.selected();
    const text = this.port.ask({ kind: 'rowSumNote', layer: l, head: h }) ?? '';
    if (this.note.textContent !== text) this.note.textContent = text;
    this.note.hidden = !text;
  }

  // ---- the line view -----------------------------------------------------------------------------------------------

  paintLines() {
    if (!this.shape || !this.linesFig.isConnected) return;
    const { port, lines } = this;
    const size = port.ask({ kind: 'linesSize' });
    const n = this.shape[2];
    const words = this.words().lines;
    if (!size) {
      lines.hidden = true;
      this.linesNote.hidden = false;
      this.linesNote.textContent = words.note;
      return;
    }
    lines.hidden = false;
    this.linesNote.hidden = true;
    const dpr = port.state.dpr;
    const dark = port.state.dark;
    const token = this.token();
    const focus = token?.kind === 'row' && token.index < n ? token.index : undefined;
    const key = `${port.state.version}|${dpr}|${dark}|${focus}`;
    if (this.keys.lines === key) return;
    this.keys.lines = key;
    const [w, hh] = size;
    lines.width = Math.round(w * dpr);
    lines.height = Math.round(hh * dpr);
    lines.style.width = `${w}px`; // its height follows (style.js: height auto), also when a narrow panel shrinks it
    port.draw(lines, { kind: 'lines', dpr, dark, focus });
    lines.setAttribute('aria-label', words.label);
  }

  onLinesMove(e, tap = false) {
    if ((e.pointerType === 'touch' && !tap) || !this.shape) return;
    const r = this.lines.getBoundingClientRect();
    const css = r.height ? this.lines.height / this.port.state.dpr / r.height : 1;
    const left = e.clientX - r.left < r.width / 2;
    const i = this.port.ask({ kind: 'lineAt', y: (e.clientY - r.top) * css, left });
    const token = i !== undefined ? { kind: left ? 'row' : 'col', index: i, from: 'lines' } : null;
    this.setToken(tap && JSON.stringify(token) === JSON.stringify(this.pointerToken) ? null : token);
  }

  /** A pointer over the heatmap: the row of a cell or a row label, the column of a column label. */
  onHeatmapMove(e) {
    if (e.pointerType === 'touch' || !this.shape || this.root.hidden) return;
    const canvas = e.target.closest?.('canvas[data-view="attention"]');
    if (!canvas) { if (this.pointerToken?.from === 'heatmap') this.setToken(null); return; }
    const { port } = this;
    const f = port.tell('frameOf', canvas);
    const [, , n, m] = this.shape;
    let a; let b;
    try {
      const cell = (i, j) => port.ask({ kind: 'cellRect', view: 'attention', width: canvas.width, height: canvas.height, dpr: f.dpr, i, j, fmt: port.state.fmt });
      a = cell(0, 0);
      b = cell(n - 1, m - 1);
    } catch { return; }
    if (!a || !b) return;
    const x = (e.clientX - f.rect.left) * f.sx;
    const y = (e.clientY - f.rect.top) * f.sy;
    let token = null;
    if (y >= a[1] && y < b[3] && x < b[2]) token = { kind: 'row', index: Math.min(n - 1, Math.floor(((y - a[1]) * n) / (b[3] - a[1]))), from: 'heatmap' };
    else if (x >= a[0] && x < b[2]) token = { kind: 'col', index: Math.min(m - 1, Math.floor(((x - a[0]) * m) / (b[2] - a[0]))), from: 'heatmap' };
    this.setToken(token);
  }

  // ---- exports -----------------------------------------------------------------------------------------------------

  async export(action) {
    const { port } = this;
    const [l, h] = this.selected();
    const base = `${port.state.fileName}-layer${l}-head${h}`;
    try {
      let blob;
      let name;
      if (action === 'model-grid-png') {
        const canvas = document.createElement('canvas');
        this.drawGrid(canvas, this.thumbSize(), this.gap(), window.devicePixelRatio || 1, false);
        blob = await toBlob(canvas);
        name = `${port.state.fileName}-grid.png`;
      } else {
        if (!port.ask({ kind: 'linesSize' })) { port.fail(this.words().lines.note); return; }
        if (action === 'model-lines-svg') {
          blob = new Blob([port.ask({ kind: 'linesSvg', dark: false })], { type: 'image/svg+xml' });
          name = `${base}-lines.svg`;
        } else {
          const dpr = window.devicePixelRatio || 1;
          const [w, hh] = port.ask({ kind: 'linesSize' });
          const canvas = document.createElement('canvas');
          canvas.width = Math.round(w * dpr);
          canvas.height = Math.round(hh * dpr);
          port.draw(canvas, { kind: 'lines', dpr, dark: false });
          blob = await toBlob(canvas);
          name = `${base}-lines.png`;
        }
      }
      download(blob, name);
      port.say(`Downloaded ${name}.`);
    } catch (e) { port.fail(e.message); }
  }
}
