// Owns the order of first loads when a page has several figures. The first figure is built and painted alone, so a
// page of figures shows its first heatmaps as soon as one is ready instead of when all are. The others then load in
// batches, one batch per frame: as many as fit in a few milliseconds (at least one), figures on or near the screen
// first — one figure per frame made a page of 11 figures wait 11 frames, each with its own style, layout and paint of
// the whole page. Every queued load runs; only the order and the grouping change.

/** Milliseconds of loads per frame once the first figure is on screen: a batch stops when it has used this much. */
const BUDGET_MS = 12;

/** [{load, host}] in the order queued; `near` holds the hosts on or within a screen of the viewport. */
const loads = [];
const near = new Set();
let loading = false;
let first = true;
let watcher = null;

/** Runs `load` now if nothing is loading, else in a later batch; `host` (the element) lets figures on screen go first. */
export function queueLoad(load, host = null) {
  if (host && typeof IntersectionObserver === 'function') {
    // Seen after the next frame at the earliest: the figure that loads at once is the first queued.
    watcher ??= new IntersectionObserver((entries) => {
      for (const e of entries) {
        if (e.isIntersecting) near.add(e.target); else near.delete(e.target);
      }
    }, { rootMargin: '100% 0px' });
    watcher.observe(host);
  }
  loads.push({ load, host });
  if (!loading) nextBatch();
}

/** The next load: the first queued whose figure is near the screen, else the first queued. */
function take() {
  let i = loads.findIndex(({ host }) => host && near.has(host));
  if (i < 0) i = 0;
  const [{ load, host }] = loads.splice(i, 1);
  if (host) { watcher?.unobserve(host); near.delete(host); }
  return load;
}

function nextBatch() {
  loading = loads.length > 0;
  if (!loading) return;
  const start = performance.now();
  do {
    const load = take();
    // A load that throws is reported as uncaught, and the others still run.
    try { load(); } catch (e) { queueMicrotask(() => { throw e; }); }
  } while (!first && loads.length && performance.now() - start < BUDGET_MS);
  first = false;
  // After this frame is painted (a task after the next animation frame), load the next batch.
  requestAnimationFrame(() => setTimeout(nextBatch, 0));
}
