// Owns the order of first loads when a page has several figures. The first figure is built and painted alone, so a
// page of figures shows its first heatmaps as soon as one is ready instead of when all are. The others then load in
// batches, one batch per frame: as many as fit in a few milliseconds (at least one), figures on or near the screen
// first — one figure per frame made a page of 11 figures wait 11 frames, each with its own style, layout and paint of
// the whole page. Once no figure on or near the screen waits, the figures far off-screen (showing their picture
// meanwhile, where they have one: www/first.js) load in the page's idle time, or as they near the viewport: the
// figures the reader sees are drawn first, without the others' work between them. Every queued load runs; only the
// order, the grouping and the timing change.

/** Milliseconds of loads per frame once the first figure is on screen: a batch stops when it has used this much. */
const BUDGET_MS = 12;

/** [{load, host}] in the order queued; `near` holds the hosts on or within a screen of the viewport. */
const loads = [];
const near = new Set();
let loading = false;
let first = true;
let watcher = null;
/** A batch is scheduled: 'frame' (after the next frame) or 'idle' (the page's idle time, or a figure nearing the screen). */
let scheduled = null;

/** Longest wait for idle time before a batch of off-screen figures loads anyway (a page that is never idle). */
const IDLE_WAIT_MS = 1000;

/** A load that should not wait for idle time: its figure is near the screen (or it has none, or nothing can tell). */
const urgent = ({ host }) => !host || !watcher || near.has(host);

/** Runs `load` now if nothing is loading, else in a later batch; `host` (the element) lets figures on screen go first. */
export function queueLoad(load, host = null) {
  if (host && typeof IntersectionObserver === 'function') {
    // Seen after the next frame at the earliest: the figure that loads at once is the first queued.
    watcher ??= new IntersectionObserver((entries) => {
      for (const e of entries) {
        if (e.isIntersecting) near.add(e.target); else near.delete(e.target);
      }
      // A waiting figure came near the screen: its batch need not wait for idle time.
      if (scheduled === 'idle' && loads.some(urgent)) schedule('frame');
    }, { rootMargin: '100% 0px' });
    watcher.observe(host);
  }
  loads.push({ load, host });
  if (!loading) nextBatch();
}

/** The next load: the first queued whose figure is near the screen, else the first that should not wait, else the first. */
function take() {
  let i = loads.findIndex(({ host }) => host && near.has(host));
  if (i < 0) i = loads.findIndex(urgent);
  if (i < 0) i = 0;
  const [{ load, host }] = loads.splice(i, 1);
  if (host) { watcher?.unobserve(host); near.delete(host); }
  return load;
}

/** The next batch: after this frame is painted (a task after the next animation frame), or in the page's idle time. */
function schedule(when) {
  scheduled = when;
  const run = () => { if (scheduled === when) { scheduled = null; nextBatch(); } };
  if (when === 'frame' || typeof requestIdleCallback !== 'function') requestAnimationFrame(() => setTimeout(run, 0));
  else requestIdleCallback(run, { timeout: IDLE_WAIT_MS });
}

function nextBatch() {
  loading = loads.length > 0;
  if (!loading) return;
  const start = performance.now();
  const idle = !first && !loads.some(urgent);
  do {
    const load = take();
    // A load that throws is reported as uncaught, and the others still run.
    try { load(); } catch (e) { queueMicrotask(() => { throw e; }); }
  } while (!first && loads.length && (idle || loads.some(urgent)) && performance.now() - start < BUDGET_MS);
  first = false;
  // Until the next batch runs, a new load waits for it (figures connected in one task are batched, never run alone).
  schedule(!loads.length || loads.some(urgent) ? 'frame' : 'idle');
}
