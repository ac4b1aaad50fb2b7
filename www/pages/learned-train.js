// The "Train from scratch" panel of the guided page's chapter 9 (index.html #learned), one per model: its buttons
// (Train from scratch, Pause/Resume, Cancel) with their disabled states and where the keyboard focus goes, the
// <progress> bar and its text, the loss curve (an SVG polyline, with the numbers as text beside it), and the line
// that says the held-out accuracy and the time taken. The training itself is `train()` (a Web Worker); this file
// hands the latest progress report's model to the chapter, which redraws its figures in a few short tasks (a redraw
// done in one task was 40 ms of main-thread CPU for induction, 60–300 ms of wall time on a loaded machine),
// one redraw at a time, so a fast worker never queues more redraws than the page can show.
import { train } from '../attention-viz.js';
import { el } from '../element/dom.js';

const SVG = 'http://www.w3.org/2000/svg';
/** The loss curve's drawing box (user units; the SVG scales to its box). */
const W = 320;
const H = 120;
const PAD = { left: 34, right: 8, top: 8, bottom: 20 };

const svg = (tag, attrs = {}) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};
const pct = (x) => `${Number((100 * x).toFixed(1))} %`;
const num = (x) => (x >= 0.01 ? x.toFixed(3) : x.toPrecision(2));
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
/**
 * The figures follow the training at most every MODEL_EVERY_MS, and never take more than 1 / MODEL_SHARE of the main
 * thread (the bar and the text follow every frame): redrawing the figures rebuilds an element, and the worker that
 * trains shares the machine's cores with this thread.
 */
const MODEL_EVERY_MS = 100;
const MODEL_SHARE = 5;

/** `fn` in a task of its own, after whatever the page has queued. */
const later = (fn) => setTimeout(fn, 0);

export class TrainPanel {
  /**
   * `root`: the empty container; `task`: "reversal" | "induction"; `steps`: how many to train; `title`: the model's
   * name in texts; `onModel(model, progress)`: a model to show while training, which may return an iterator: each
   * `next()` is one step of the redraw, run in a task of its own (none of them long), the next one only after it;
   * `onDone(model,
   * summary)`: the trained model; `onStop()`: training cancelled or failed (the chapter goes back to its model);
   * `onStart()`: training begins.
   */
  constructor(root, { task, steps, title, onModel, onDone, onStop, onStart = () => {} }) {
    Object.assign(this, { root, task, steps, title, onModel, onDone, onStop, onStart });
    this.job = null;
    this.points = [];
    /** Bumped whenever the figures are set otherwise (the end, a cancel): a redraw still running is dropped. */
    this.generation = 0;
    /** A redraw running (its steps in tasks of their own); `again`: show the latest model when it ends. */
    this.redraw = null;
    const id = `${task}-train`;
    this.trainButton = el('button', { type: 'button', 'data-action': 'train', text: 'Train from scratch', onclick: () => this.start() });
    this.pauseButton = el('button', { type: 'button', 'data-action': 'pause', text: 'Pause', disabled: true, onclick: () => this.togglePause() });
    this.cancelButton = el('button', { type: 'button', 'data-action': 'cancel', text: 'Cancel', disabled: true, onclick: () => this.cancel() });
    this.bar = el('progress', { max: String(steps), value: '0', id: `${id}-bar`, 'aria-labelledby': `${id}-label` });
    this.label = el('span', { id: `${id}-label`, text: `Training progress of the ${title} model` });
    this.status = el('p', { class: 'train-status', role: 'status', text: `Not started: the figures show the shipped model, trained with seed 0.` });
    this.curve = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'loss-curve', role: 'img', 'aria-label': 'Loss curve: no training yet' });
    this.line = svg('polyline', { class: 'loss-line', points: '', fill: 'none' });
    this.yTop = svg('text', { x: PAD.left - 4, y: PAD.top + 8, 'text-anchor': 'end', class: 'loss-tick' });
    this.xEnd = svg('text', { x: W - PAD.right, y: H - 4, 'text-anchor': 'end', class: 'loss-tick' });
    this.curve.append(
      svg('line', { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: H - PAD.bottom, class: 'loss-axis' }),
      svg('line', { x1: PAD.left, y1: H - PAD.bottom, x2: W - PAD.right, y2: H - PAD.bottom, class: 'loss-axis' }),
      Object.assign(svg('text', { x: PAD.left - 4, y: H - PAD.bottom, 'text-anchor': 'end', class: 'loss-tick' }), { textContent: '0' }),
      Object.assign(svg('text', { x: PAD.left, y: H - 4, class: 'loss-tick' }), { textContent: 'step 0' }),
      this.yTop, this.xEnd, this.line);
    this.numbers = el('p', { class: 'loss-numbers' });
    root.replaceChildren(
      el('div', { class: 'train-buttons' }, this.trainButton, this.pauseButton, this.cancelButton),
      el('div', { class: 'train-progress' }, this.label, this.bar),
      this.status,
      this.loss = el('figure', { class: 'loss', hidden: true }, this.curve, el('figcaption', {}, 'Training loss (mean cross-entropy of a batch)', this.numbers)));
  }

  /** Starts training from a fresh random model; the keyboard moves to Pause (Train is disabled). */
  start() {
    if (this.job) return;
    this.points = [];
    this.paused = false;
    this.started = performance.now();
    this.pausedFor = 0;
    this.latest = null;
    this.nextAt = -Infinity;
    this.bar.value = 0;
    this.loss.hidden = false;
    this.setButtons(true);
    this.pauseButton.focus();
    this.say(`Training the ${this.title} model from random weights…`);
    let job;
    try {
      job = train({ task: this.task, seed: this.seed(), steps: this.steps, every: 10, onProgress: (p) => this.progress(p) });
    } catch (e) {
      this.stop(`Training could not start: ${e.message}`);
      return;
    }
    this.job = job;
    this.onStart();
    job.then((model) => this.finish(job, model), (e) => this.failed(job, e));
  }

  /** A new seed each time, so "from scratch" is another start than the shipped model's seed 0. */
  seed() { return 1 + Math.floor(Math.random() * 1000); }

  progress(p) {
    if (!this.job) return;
    this.points.push([p.step, p.loss]);
    this.latest = p;
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      const q = this.latest;
      if (!q || !this.job) return;
      this.bar.value = q.step;
      this.drawCurve();
      this.say(this.progressText());
      // The figures in tasks of their own, after the next frame (showModel): in this frame's callback their redraw and
      // the frame's style, layout and paint of the page made one task of 60–120 ms (a Chromium trace).
      this.showModel();
    });
  }

  /**
   * The latest model to the chapter, unless the last one was shown too recently (`force`: now, or as soon as a redraw
   * running ends). The chapter's redraw runs step by step (see the constructor), each step in the task right after a
   * frame: the frame has laid the page out, so the panel's place is read at no cost before the step, and read again
   * after it (laying out what the step changed, which the next frame would have done): if the step changed the height
   * of anything above the panel (a verdict that rewraps), the page scrolls by as much, so the panel and the figure the
   * reader watches above it stay where they were, in every frame.
   */
  showModel(force = false) {
    if (this.redraw) {
      if (this.latest !== this.redraw.q) this.redraw.again ||= force ? 'force' : true;
      return;
    }
    if (!this.latest || (!force && performance.now() < this.nextAt)) return;
    const generation = this.generation;
    const q = this.latest;
    const redraw = this.redraw = { q, again: false, busy: 0 };
    let steps = null;
    /** Runs `fn` (which returns whether more steps follow) after the next frame, unless the figures were set otherwise meanwhile. */
    const run = (fn) => requestAnimationFrame(() => later(() => {
      if (generation !== this.generation) return;
      const t = performance.now();
      let more = false;
      try {
        const before = this.onScreen() ? this.root.getBoundingClientRect().top : null;
        more = fn();
        if (before !== null) {
          const moved = this.root.getBoundingClientRect().top - before;
          if (Math.abs(moved) >= 0.5) window.scrollBy(0, moved);
        }
      } finally {
        redraw.busy += performance.now() - t;
        if (!more) this.redraw = null;
      }
      if (more) { run(() => !steps.next().done); return; }
      // The next redraw waits as many times as long as this one's main-thread work took (its steps, not the waits
      // between them), so the figures never take more than 1 / MODEL_SHARE of the thread.
      this.nextAt = performance.now() + Math.max(MODEL_EVERY_MS, MODEL_SHARE * redraw.busy);
      if (redraw.again && this.job) this.showModel(redraw.again === 'force');
    }));
    run(() => {
      steps = this.onModel(q.model, q);
      return typeof steps?.next === 'function';
    });
  }

  /** The figures are about to be set otherwise (the end, a cancel): a redraw still running stops where it is. */
  drop() {
    this.generation++;
    this.redraw = null;
  }

  /** Whether any of the panel is in the viewport (a reader elsewhere on the page is not scrolled for it). */
  onScreen() {
    const r = this.root.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight;
  }

  togglePause() {
    if (!this.job) return;
    this.paused = !this.paused;
    if (this.paused) {
      this.job.pause();
      this.pausedAt = performance.now();
      this.showModel(true); // the figures show the step the bar says
    } else {
      this.job.resume();
      this.pausedFor += performance.now() - this.pausedAt;
    }
    this.pauseButton.textContent = this.paused ? 'Resume' : 'Pause';
    this.say(this.progressText());
  }

  /** "Step 120 of 1000 · loss 1.234 · held-out accuracy 45 %", or "Paused at step 120 of 1000 · …". */
  progressText() {
    const q = this.latest;
    const at = `${this.paused ? 'Paused at step' : 'Step'} ${q ? q.step : 0} of ${this.steps}`;
    return q ? `${at} · loss ${num(q.loss)} · held-out accuracy ${pct(q.accuracy)}` : `${at}.`;
  }

  cancel() {
    if (!this.job) return;
    const job = this.job;
    this.job = null;
    job.cancel();
    this.stop(`Cancelled at step ${this.latest ? this.latest.step : 0}: the figures show the model they showed before.`);
  }

  finish(job, model) {
    if (job !== this.job) return;
    this.job = null;
    this.drop();
    const ms = performance.now() - this.started - this.pausedFor;
    const q = this.latest;
    this.bar.value = this.steps;
    this.drawCurve();
    const accuracy = q?.accuracy; // train() reports it on held-out sequences, at the last step too
    const text = `Trained ${this.steps} steps in ${secs(ms)}${accuracy === undefined ? '' : `: held-out accuracy ${pct(accuracy)}`}. The figures and the input above now use this model.`;
    this.setButtons(false);
    this.say(text);
    this.onDone(model, { ms, accuracy });
  }

  failed(job, e) {
    if (job !== this.job) return; // a cancel: already handled
    this.job = null;
    this.stop(`Training stopped: ${e?.message ?? e}`);
  }

  /** Back to idle after a cancel or an error; the keyboard goes back to Train. */
  stop(text) {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = null;
    this.drop();
    this.setButtons(false);
    this.say(text);
    this.onStop();
  }

  /** Enables the buttons for `running`; a focused button that gets disabled hands the focus to the one now usable. */
  setButtons(running) {
    const hadFocus = [this.pauseButton, this.cancelButton].includes(document.activeElement);
    this.trainButton.disabled = running;
    this.pauseButton.disabled = !running;
    this.cancelButton.disabled = !running;
    this.pauseButton.textContent = 'Pause';
    if (!running && hadFocus) this.trainButton.focus();
  }

  say(text) { if (this.status.textContent !== text) this.status.textContent = text; }

  drawCurve() {
    const pts = this.points;
    if (!pts.length) return;
    const top = Math.max(...pts.map((p) => p[1]));
    const sx = (W - PAD.left - PAD.right) / this.steps;
    const sy = (H - PAD.top - PAD.bottom) / (top || 1);
    this.line.setAttribute('points', pts.map(([s, l]) => `${(PAD.left + s * sx).toFixed(1)},${(H - PAD.bottom - l * sy).toFixed(1)}`).join(' '));
    this.yTop.textContent = top.toFixed(2);
    this.xEnd.textContent = String(this.steps);
    const [s0, l0] = pts[0];
    const [s1, l1] = pts[pts.length - 1];
    this.curve.setAttribute('aria-label', `Loss curve: ${num(l0)} at step ${s0}, ${num(l1)} at step ${s1}`);
    // Every tenth of the run as text: the curve's numbers for a reader who cannot see it.
    const every = Math.max(1, Math.round(this.steps / 10));
    const shown = pts.filter(([s], i) => s % every === 0 || i === 0 || i === pts.length - 1);
    this.numbers.textContent = shown.map(([s, l]) => `step ${s}: ${num(l)}`).join(' · ');
  }
}
