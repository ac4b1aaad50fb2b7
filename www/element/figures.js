// Owns the heatmaps: one canvas per stage view (and the naive-softmax lesson above them), their sizes and repaints,
// the outlines (the followed query's row, what a hovered weight links together), hit-testing through the core, the
// tooltip, and the weights as a control (a click or ↑/↓ on a focused heatmap follows that query).
import { el, clip } from './dom.js';

/** Views the inputs already show as cells: drawn as heatmaps only in a read-only figure. */
export const INPUT_VIEWS = new Set(['embeddings', 'w_q', 'w_k', 'w_v']);
const WEIGHT_VIEWS = ['scores', 'scaled', 'weights', 'naive_weights'];

export class Figures {
  constructor(host, api) {
    this.host = host;
    this.api = api;
    this.canvases = new Map();
    this.sizes = new Map();
    this.hover = null;
    this.frame = 0;
    this.lesson = el('p', { class: 'lesson', hidden: true });
    this.root = el('div', { class: 'stages' });
    this.tip = el('div', { class: 'tip', hidden: true, role: 'tooltip' });
    this.root.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    this.root.addEventListener('pointermove', (e) => this.onPointerMove(e));
    this.root.addEventListener('pointerleave', () => this.setHover(null));
    this.root.addEventListener('keydown', (e) => this.onKey(e));
  }

  /** The heatmaps to show: the `views` attribute's, else every stage (and the inputs in a read-only figure). */
  views() {
    const { host } = this;
    const panels = host._panels();
    const all = host._viz.views();
    if (panels) {
      const unknown = [...panels].filter((p) => !all.includes(p) && !['inputs', 'breakdown', 'controls', 'steps'].includes(p));
      if (unknown.length) host._status(`views: no panel ${unknown.map((u) => `"${u}"`).join(', ')} here; panels are ${all.join(', ')}, inputs, steps, breakdown, controls`, true);
      return all.filter((v) => panels.has(v));
    }
    return all.filter((v) => (!INPUT_VIEWS.has(v) || !host.editable) && (host._showNaive || v !== 'naive_weights'));
  }

  build() {
    const { host } = this;
    this.canvases.clear();
    this.sizes = new Map();
    const self = host._cfg().mechanism === 'self';
    const figs = this.views().map((view) => {
      const canvas = el('canvas', { 'data-view': view, tabindex: '0', role: 'img' });
      if (WEIGHT_VIEWS.includes(view) && self) canvas.classList.add('pickable');
      this.canvases.set(view, canvas);
      return el('figure', { class: 'stage', 'data-view': view }, canvas);
    });
    this.root.replaceChildren(...figs);
    this.lesson.hidden = !host._showNaive;
    this.lesson.textContent = 'Naive softmax computes exp(x) / Σ exp(x) directly: exp overflows to infinity once a score passes about 709.78, '
      + 'and inf / inf is NaN (grey cells). The stable softmax subtracts the row maximum first, so every exponent is ≤ 0 and the weights stay finite.';
  }

  /** A repaint on the next frame (hover, resize, colour scheme): many events, one paint. */
  scheduleRepaint() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.host._repaint({ silent: true }); });
  }

  /** Redraws every heatmap whose inputs changed since it was last drawn. */
  paint() {
    const { host, api } = this;
    const viz = host._viz;
    // On paper the heatmaps are drawn at print resolution (host._printScale), else they print soft.
    const dpr = (window.devicePixelRatio || 1) * host._printScale;
    const dark = host._darkMode();
    // The host's content box minus the .av padding (12 px a side; 8 px in narrow containers).
    const width = host._width ?? 600;
    const pad = width <= 520 ? 16 : 24;
    const avail = Math.max(120, width - pad - 2);
    const highlights = this.highlights();
    for (const [view, canvas] of this.canvases) {
      // Sizes are fixed between rebuilds, so a drag never reflows the page.
      if (!this.sizes.has(view)) this.sizes.set(view, Array.from(viz.preferredSize(view, host._fmtSpec())));
      const [pw, ph] = this.sizes.get(view);
      const w = Math.min(pw, avail);
      const h = host.height ?? ph;
      const cw = Math.round(w * dpr);
      const ch = Math.round(h * dpr);
      // A canvas whose inputs are all unchanged (a hover that moves another view's
      // outline, a resize that keeps its size) is not redrawn.
      const key = `${host._version}|${cw}x${ch}|${dark}|${host.palette}|${host._fmtSpec()}|${host.contrast}|${highlights[view] || ''}`;
      if (canvas.dataset.painted === key) continue;
      if (canvas.width !== cw || canvas.height !== ch) {
        canvas.width = cw; canvas.height = ch;
        canvas.style.width = `${w}px`; canvas.style.height = `${h}px`;
      }
      api.callCore(() => viz.render(view, canvas, dpr, dark, host.palette ?? undefined, highlights[view] || [], true, host._fmtSpec(), host.contrast));
      canvas.dataset.painted = key;
      canvas.setAttribute('aria-label', `${view} heatmap`);
    }
  }

  /** Outlines: the selected query row, and what the hovered weight links together. */
  highlights() {
    const { host, hover } = this;
    const out = {};
    // [kind, r0, c0, r1, c1]: kind 0 the followed query's row, 1 what the hovered weight links (drawn apart).
    const add = (view, r0, c0, r1, c1, kind = 1) => { (out[view] ||= []).push(kind, r0, c0, r1, c1); };
    const cfg = host._cfg();
    const cols = (name) => host._shape(name)[1];
    if (cfg.mechanism === 'self') {
      const n = cfg.tokens.length;
      const qi = cfg.query;
      for (const v of WEIGHT_VIEWS) add(v, qi, 0, qi + 1, n, 0);
      if (hover && WEIGHT_VIEWS.includes(hover.view)) {
        const [i, j] = hover.cell;
        for (const v of WEIGHT_VIEWS) add(v, i, j, i + 1, j + 1);
        add('q', i, 0, i + 1, cols('q'));
        add('k', j, 0, j + 1, cols('k'));
        add('v', j, 0, j + 1, cols('v'));
        add('context', i, 0, i + 1, cols('context'));
      }
    } else if (hover && [...WEIGHT_VIEWS, 'annotations', 'applied'].includes(hover.view)) {
      const j = hover.cell[1];
      const d = host._shape('applied')[0];
      for (const v of WEIGHT_VIEWS) add(v, 0, j, 1, j + 1);
      add('annotations', 0, j, d, j + 1);
      add('applied', 0, j, d, j + 1);
    }
    return out;
  }

  /** The [row, column] of the heatmap cell under the pointer, as the core laid it out, or null. */
  hit(canvas, e) {
    const rect = canvas.getBoundingClientRect();
    const sx = canvas.width / rect.width;
    const sy = canvas.height / rect.height;
    const dpr = canvas.width / (parseFloat(canvas.style.width) || rect.width);
    const hit = this.host._viz.cellAt(canvas.dataset.view, canvas.width, canvas.height, dpr, (e.clientX - rect.left) * sx, (e.clientY - rect.top) * sy, this.host._fmtSpec());
    return hit ? [hit[0], hit[1]] : null;
  }

  /** Follows query `q`: the breakdown, the outlines and the query menu. */
  follow(q) {
    const { host } = this;
    const ok = host._apply(() => host._viz.setQuery(q));
    host._toolbar.showQuery(q);
    return ok;
  }

  onPointerDown(e) {
    const canvas = e.target.closest?.('canvas.pickable');
    if (!canvas) return;
    const hit = this.hit(canvas, e);
    if (hit) this.follow(hit[0]);
  }

  onPointerMove(e) {
    const canvas = e.target.closest?.('canvas');
    if (canvas && canvas.dataset.view) {
      const hit = this.hit(canvas, e);
      this.setHover(hit ? { view: canvas.dataset.view, cell: hit } : null, e);
    }
  }

  onKey(e) {
    const canvas = e.target.closest?.('canvas.pickable');
    if (!canvas || (e.key !== 'ArrowUp' && e.key !== 'ArrowDown')) return;
    e.preventDefault();
    const cfg = this.host._cfg();
    this.follow(Math.min(cfg.tokens.length - 1, Math.max(0, cfg.query + (e.key === 'ArrowUp' ? -1 : 1))));
    canvas.focus();
  }

  setHover(hover, e) {
    const same = JSON.stringify(hover) === JSON.stringify(this.hover);
    this.hover = hover;
    const { tip } = this;
    if (!hover) { tip.hidden = true; } else if (e) {
      tip.textContent = this.tipText(hover);
      tip.hidden = false;
      tip.style.left = `${Math.min(e.clientX + 12, window.innerWidth - 260)}px`;
      tip.style.top = `${e.clientY + 14}px`;
    }
    if (!same) this.scheduleRepaint();
  }

  tipText({ view, cell: [i, j] }) {
    const { host } = this;
    const cfg = host._cfg();
    const value = (() => {
      if (view === 'decoder_state') return cfg.decoder_state[i];
      if (view === 'annotations') return cfg.annotations[j][i];
      if (INPUT_VIEWS.has(view)) return cfg[view][i][j];
      if (!host._field(view)) return NaN;
      // Cross-attention vectors: the context is drawn as a column, the others as a row.
      return host._at(view, i, view === 'context' && cfg.mechanism === 'cross' ? null : j);
    })();
    let text = `${view}[${i}][${j}] = ${Number.isNaN(value) ? 'nan' : String(value)}`;
    if (view === 'scores') text += `\n${host._breakdown.scoreFormula(cfg.mechanism === 'self' ? i : 0, j)}`;
    if (view === 'weights' && cfg.mechanism === 'self') text += `\nquery ${clip(cfg.tokens[i])} → key ${clip(cfg.tokens[j])} (click: follow query ${i})`;
    return text;
  }
}
