// Owns the result peek: on a narrow screen the input being edited and the weights are a screen or more apart, so
// a scrub would show no effect. While a cell of a narrow figure has the focus and is on screen, a copy of the result heatmap (the
// weights, else the context) stays pinned to the bottom of the viewport and follows every repaint. It copies the
// pixels the figure already drew: no second render, and it always shows what the figure shows.
import { el } from './dom.js';

/** The heatmap the peek mirrors, in order of preference. */
const RESULTS = ['weights', 'context', 'scores'];
/** The element's width at and below which cause and effect do not fit on one screen (the narrow layout's width). */
export const NARROW = 520;

export class Peek {
  constructor(port) {
    this.port = port;
    this.canvas = el('canvas', { 'aria-hidden': 'true' });
    this.label = el('span', { class: 'peek-label' });
    this.root = el('div', { class: 'peek', hidden: true, 'aria-hidden': 'true' }, this.label, this.canvas);
    this.active = false;
    // Whether the edited cell is on screen: a page scrolled on (to the next chapter, say) with the cell still focused
    // takes the copy away, so it never covers another figure. Until the observer's first answer: it is (it was
    // just focused).
    this.cell = null;
    this.cellSeen = true;
    this.seen = typeof IntersectionObserver === 'function' ? new IntersectionObserver((entries) => {
      this.cellSeen = entries[entries.length - 1].isIntersecting;
      this.update();
    }) : null;
  }

  /** Follows whether `cell` (the focused one, or null) is on screen. */
  follow(cell) {
    if (cell === this.cell) return;
    if (this.cell) this.seen?.unobserve(this.cell);
    this.cell = cell;
    this.cellSeen = true;
    if (cell) this.seen?.observe(cell);
  }

  /** The figure's canvas to mirror, or null when none of the results is shown. */
  source() {
    for (const view of RESULTS) {
      const c = this.port.tell('canvas', view);
      if (c) return c;
    }
    return null;
  }

  /** Follows the keyboard focus of the input grids (`inputs` is their root). */
  watch(inputs) {
    inputs.addEventListener('focusin', (e) => {
      if (!e.target.matches?.('input.cell')) return;
      clearTimeout(this.timer);
      this.active = true;
      this.follow(e.target);
      this.update();
    });
    // Moving from one cell to the next is a focusout then a focusin: wait a moment before hiding.
    inputs.addEventListener('focusout', () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => { this.active = false; this.follow(null); this.update(); }, 150);
    });
  }

  /** After every repaint: shows, hides or refreshes the copy. */
  update() {
    const src = this.active && this.cellSeen && (this.port.state.width ?? Infinity) <= NARROW ? this.source() : null;
    const show = Boolean(src && src.width && src.height);
    if (this.root.hidden === !show && !show) return;
    this.root.hidden = !show;
    if (!show) return;
    if (this.canvas.width !== src.width || this.canvas.height !== src.height) {
      this.canvas.width = src.width;
      this.canvas.height = src.height;
    }
    this.canvas.style.width = src.style.width;
    const ctx = this.canvas.getContext('2d');
    ctx.drawImage(src, 0, 0);
    // The outlines are on the heatmap's overlay (figures.js): the followed query's row shows in the copy too.
    const overlay = this.port.tell('overlay', src.dataset.view);
    if (overlay?.width === src.width && overlay.height === src.height) ctx.drawImage(overlay, 0, 0);
    this.label.textContent = `${src.dataset.view} (live)`;
  }
}
