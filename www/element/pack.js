// Owns the rows of a narrow figure's heatmaps: which of them share a row, and the size each is drawn at. Two small
// heatmaps whose natural widths add up to a little more than a phone's width share it, each a little narrower, and a
// heatmap is drawn shorter (less room above and below its numbers), both only where the core's layout writes their
// numbers at the same size as at the natural size (`numbersFont`): height saved is never paid for in legibility.
// Wide figures keep every heatmap at its natural size.

/** How much shorter than its natural height a narrow figure's heatmap may be drawn, at most. */
const SHORTER = 0.78;

/**
 * The sizes of `views` ([view, [w, h]]) in a narrow figure: a Map of view → [w, h] for those drawn smaller than their
 * natural size (packRows' widths; a height down to SHORTER of the natural one where the numbers keep their size).
 */
export function packSizes(views, avail, gap, font) {
  const widths = packRows(views, avail, gap, font);
  const out = new Map();
  for (const item of views) {
    if (!item) continue;
    const [view, [pw, ph]] = item;
    const w = widths.get(view) ?? Math.min(pw, avail);
    const size = font(view, w, ph);
    const h = size > 0 ? [SHORTER, 0.85, 0.92].map((f) => Math.round(ph * f)).find((h) => font(view, w, h) >= size) : undefined;
    if (h !== undefined || widths.has(view)) out.set(view, [w, h ?? ph]);
  }
  return out;
}

/**
 * The widths of `views` ([view, [w, h]] in their order on the page) laid out in rows of `avail` CSS px with `gap`
 * between them: a Map of view → width for those drawn narrower than their natural width to share a row. `font(view,
 * w, h)` is the core's font size for the view's numbers on a w × h canvas. A null in `views` ends a row (a full-width
 * block between two heatmaps).
 */
export function packRows(views, avail, gap, font) {
  const out = new Map();
  let row = [];
  const used = (items) => items.reduce((s, [, [w]]) => s + w, 0) + gap * Math.max(0, items.length - 1);
  for (const item of views) {
    if (!item) { row = []; continue; }
    const next = [...row, item];
    if (used(next) <= avail) { row = next; continue; }
    const shrunk = row.length ? fit(next, avail, gap, font) : null;
    if (shrunk) {
      for (const [view, w] of shrunk) out.set(view, w);
      row = [];
    } else {
      row = [item];
    }
  }
  return out;
}

/** The widths that put `items` on one row of `avail` px, each shrunk by the same factor, or null when a heatmap's
 *  numbers would be written smaller than at its natural width (or one would lose more than a fifth of it). */
function fit(items, avail, gap, font) {
  const natural = items.reduce((s, [, [w]]) => s + w, 0);
  const factor = (avail - gap * (items.length - 1)) / natural;
  if (factor < 0.8) return null;
  const widths = items.map(([view, [w, h]]) => [view, Math.floor(w * factor), w, h]);
  return widths.every(([view, w, pw, h]) => font(view, w, h) >= font(view, pw, h)) ? widths.map(([v, w]) => [v, w]) : null;
}
