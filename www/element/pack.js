// Owns the rows of a narrow figure's heatmaps: which of them share a row, and the size each is drawn at. Two small
// heatmaps whose natural widths add up to a little more than a phone's width share it, each a little narrower, and a
// heatmap is drawn shorter (less room above and below its numbers, to the pixel), both only where the core's layout writes the
// numbers at the same size as at the natural size (`numbersFont`) and keeps each cell a touch target (`cellRect`):
// height saved is never paid for in legibility nor in what a finger can hit. A heatmap alone on its row with room to
// spare has its status line beside it rather than under it. Wide figures keep their natural sizes.

import { TOUCH_TARGET } from './facts.js';

/** How much shorter than its natural height a narrow figure's heatmap may be drawn, at most. */
const SHORTEST = 0.7;

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
 * natural size (packRows' widths; the least height down to SHORTEST of the natural one where it `keeps` its look).
 */
export function packSizes(views, avail, gap, look) {
  const widths = packRows(views, avail, gap, look);
  const out = new Map();
  for (const item of views) {
    if (!item) continue;
    const [view, [pw, ph]] = item;
    const w = widths.get(view) ?? Math.min(pw, avail);
    const h = shortest(view, w, ph, look);
    if (h < ph || widths.has(view)) out.set(view, [w, h]);
  }
  return out;
}

/** The least height, down to SHORTEST of `ph`, at which `view` drawn `w` wide `keeps` its look at `w` × `ph`: a search
 *  by halves (a taller canvas never has smaller cells nor numbers), to the pixel, that only ever returns a height it
 *  checked (or `ph`). */
function shortest(view, w, ph, look) {
  let lo = Math.round(ph * SHORTEST);
  if (keeps(view, [w, lo], [w, ph], look)) return lo;
  let hi = ph;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (keeps(view, [w, mid], [w, ph], look)) hi = mid; else lo = mid;
  }
  return hi;
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

/** The least room, CSS px, beside a heatmap for the line that says what an edit changed (two lines of the core's
 *  longest words, "unchanged to 12 digits", at 12 px), with its gap. */
export const STATUS_ROOM = 96;

/**
 * The heatmaps of a narrow figure whose status line goes beside them instead of under them: those alone on their row
 * (flex-wrap's rows of `items` [view, w] in their order, a null a full-width block) with STATUS_ROOM to spare. A
 * Set of views. Widths are fixed between rebuilds, so an edit never moves a line from beside to under.
 */
export function besides(items, avail, gap) {
  const out = new Set();
  let row = [];
  let used = 0;
  const close = () => { if (row.length === 1 && avail - used >= STATUS_ROOM) out.add(row[0]); row = []; used = 0; };
  for (const item of items) {
    if (!item) { close(); continue; }
    const [view, w] = item;
    if (row.length && used + gap + w > avail) close();
    used += (row.length ? gap : 0) + w;
    row.push(view);
  }
  close();
  return out;
}
