// Owns the rows of a narrow figure's heatmaps: which of them share a row, and the width each is drawn at then. Two
// small heatmaps whose natural widths add up to a little more than a phone's width share it, each a little narrower,
// when the core's layout writes their numbers at the same size as at their natural width (`numbersFont`): a row
// saved is never paid for in legibility. Wide figures keep every heatmap at its natural width.

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
