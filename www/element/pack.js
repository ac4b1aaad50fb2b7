// Owns the rows of a narrow figure's heatmaps: which of them share a row, and the size each is drawn at. Two small
// heatmaps whose natural widths add up to a little more than a phone's width share it, each a little narrower, and a
// heatmap is drawn shorter (less room above and below its numbers), both only where the core's layout writes the
// numbers at the same size as at the natural size (`numbersFont`) and keeps each cell a touch target (`cellRect`):
// height saved is never paid for in legibility nor in what a finger can hit. Wide figures keep their natural sizes.

import { TOUCH_TARGET } from './facts.js';

/** How much shorter than its natural height a narrow figure's heatmap may be drawn, at most, and the steps tried. */
const SHORTER = [0.7, 0.78, 0.85, 0.92];

/**
 * Whether a heatmap drawn at `size` keeps what it has at its natural size `natural`: its numbers' font (nothing when
 * it writes none) and cells at least TOUCH_TARGET px a side (or as large as they were). `look(view, [w, h])` is the
 * core's `{font, cell: [w, h]}` for the view on a w × h canvas.
 */
export function keeps(view, size, natural, look) {
  const at = look(view, size);
  const was = look(view, natural);
  const side = (c) => Math.min(c[0], c[1]);
  return at.font >= was.font && side(at.cell) >= Math.min(TOUCH_TARGET, side(was.cell));
}

/**
 * The sizes of `views` ([view, [w, h]]) in a narrow figure: a Map of view → [w, h] for those drawn smaller than their
 * natural size (packRows' widths; a height down to SHORTER of the natural one where the heatmap `keeps` its look).
 */
export function packSizes(views, avail, gap, look) {
  const widths = packRows(views, avail, gap, look);
  const out = new Map();
  for (const item of views) {
    if (!item) continue;
    const [view, [pw, ph]] = item;
    const w = widths.get(view) ?? Math.min(pw, avail);
    const h = SHORTER.map((f) => Math.round(ph * f)).find((h) => keeps(view, [w, h], [w, ph], look));
    if (h !== undefined || widths.has(view)) out.set(view, [w, h ?? ph]);
  }
  return out;
}

/**
 * The widths of `views` ([view, [w, h]] in their order on the page) laid out in rows of `avail` CSS px with `gap`
 * between them: a Map of view → width for those drawn narrower than their natural width to share a row, where each
 * `keeps` its look. A null in `views` ends a row (a full-width block between two heatmaps).
 */
export function packRows(views, avail, gap, look) {
  const out = new Map();
  let row = [];
  const used = (items) => items.reduce((s, [, [w]]) => s + w, 0) + gap * Math.max(0, items.length - 1);
  for (const item of views) {
    if (!item) { row = []; continue; }
    const next = [...row, item];
    if (used(next) <= avail) { row = next; continue; }
    const shrunk = row.length ? fit(next, avail, gap, look) : null;
    if (shrunk) {
      for (const [view, w] of shrunk) out.set(view, w);
      row = [];
    } else {
      row = [item];
    }
  }
  return out;
}

/** The widths that put `items` on one row of `avail` px, each shrunk by the same factor, or null when one would not
 *  keep its look (or would lose more than a fifth of its width). */
function fit(items, avail, gap, look) {
  const natural = items.reduce((s, [, [w]]) => s + w, 0);
  const factor = (avail - gap * (items.length - 1)) / natural;
  if (factor < 0.8) return null;
  const widths = items.map(([view, [w, h]]) => [view, Math.floor(w * factor), w, h]);
  return widths.every(([view, w, pw, h]) => keeps(view, [w, h], [pw, h], look)) ? widths.map(([v, w]) => [v, w]) : null;
}
