// Owns the order of first loads when a page has several figures: one per frame, so the first figure is built and
// painted before the next starts, and a page of figures shows its first heatmaps as soon as one is ready instead of
// when all are.

const loads = [];
let loading = false;

/** Runs `load` now if nothing is loading, else after the frames of the loads queued before it. */
export function queueLoad(load) {
  loads.push(load);
  if (!loading) nextLoad();
}

function nextLoad() {
  const load = loads.shift();
  loading = Boolean(load);
  if (!load) return;
  load();
  // After this frame is painted (a task after the next animation frame), load the next.
  requestAnimationFrame(() => setTimeout(nextLoad, 0));
}
