// A read-only self-attention figure too costly for the page's main thread (up to 4,096 tokens). The core says
// which configs (`largeTakes`: over the page's cost bound, within the worker's); a Worker (www/compute-worker.js)
// computes them with the same core and sends each view back as its values and an image of them (one pixel per block
// of cells, the core's pooling, said in the caption). Here: a progress line while it works (the core's words), then
// per view a title, the image put on a canvas as it is, a colour bar with its ticks, the caption; hover and the
// keyboard cursor read the cell's value from the transferred Float64Array (no call into the worker, nothing
// recomputed), outlined on a canvas over the image. The editable, small path (figures.js) is untouched: the element
// hands a config here, and takes it back (`clear`) when another config comes.

import { el } from './dom.js';

/** The views a large figure can show, and those it shows when `views` names none of them. */
const STAGES = ['scores', 'scaled', 'weights', 'context'];
const DEFAULT_VIEWS = ['scores', 'weights', 'context'];
/** The largest side of a view's picture, in CSS pixels. */
const SIDE = 512;
/** A cursor or a hovered cell is outlined at least this wide (a cell of 4096 is an eighth of a pixel here). */
const MIN_OUTLINE = 5;

/** While a large figure shows: every part of the element but it, the status lines and the live region, hidden. */
const HIDE_OTHERS = '.av[data-large] > :not([data-role="large"]):not(.status):not(.sr-only) { display: none !important; }';

/** The rule above in the element's shadow root: a constructed sheet (no 'unsafe-inline' under a CSP), else a <style>. */
function hideOthers(root) {
  if (typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype && root.adoptedStyleSheets) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(HIDE_OTHERS);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  } else {
    root.append(el('style', { text: HIDE_OTHERS }));
  }
}

/** Numbers copied per task when a large config is flattened (~2 ms of a quiet laptop's main thread). */
const SLICE = 1 << 16;

/**
 * compute()'s flat form of a large config (`api.flatConfig`), its embeddings copied SLICE numbers per task (`between`):
 * 4096 × 64 in one go was most of a 124 ms task on a loaded machine. Undefined where compute() would send JSON
 * (a row of another length, a value that is not a finite number): the worker then reads the config itself.
 */
async function flatInSlices(api, config, between) {
  const rows = config.embeddings;
  if (rows instanceof api.Shaped) return api.flatConfig(config); // Python's bytes: already one typed array, copied at once
  const { embeddings, ...others } = config;
  const rest = api.flatConfig(others);
  if (!rest || !Array.isArray(rows) || rows.length === 0 || !Array.isArray(rows[0])) return undefined;
  const cols = rows[0].length;
  const data = new Float64Array(rows.length * cols + rest.data.length);
  let k = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (!Array.isArray(row) || row.length !== cols || cols === 0) return undefined;
    for (let j = 0; j < cols; j++) {
      const x = row[j];
      if (typeof x !== 'number' || x - x !== 0) return undefined; // NaN, ±Infinity: the JSON path names them
      data[k++] = x + 0;
    }
    if (k % SLICE < cols) await between();
  }
  data.set(rest.data, k);
  return { json: rest.json, names: ['embeddings', ...rest.names], shapes: [2, rows.length, cols, ...rest.shapes], data };
}

export class Large {
  constructor(host, api) {
    this.host = host;
    this.api = api;
    this.root = el('div', { class: 'large', 'data-role': 'large', hidden: true });
    this.tip = el('div', { class: 'tip', role: 'tooltip', 'data-role': 'large-tip', hidden: true });
    this.live = el('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
    this.worker = null;
    this.run = 0;
    this.config = null; // the config shown (the page's object), null when the element shows its small path
    this.views = []; // per view: {name, values, rows, cols, canvas, overlay, cursor, sent (the worker's view), …}
    this.tokens = [];
    this.drawn = false; // every view of this config is on the page: its exports and trace can be read
    this.scale = null;
  }

  get shown() { return this.config !== null; }

  /** The check `unpack` applies to a read config: the core's declared limits, unless this figure computes it. */
  check = (config) => {
    if (this.host.editable || !this.api.largeTakes(config)) this.api.checkDeclared(config);
  };

  /**
   * Shows `config` here when the core says a worker computes it for this read-only figure; false: the caller's. A
   * config it would take were the figure read-only is kept (`refused`: the small path refuses it) so that
   * editable="false" brings it back.
   */
  take(config) {
    let fits = false;
    try { fits = this.api.largeTakes(config); } catch { fits = false; }
    this.refused = fits && this.host.editable ? config : null;
    if (!fits || this.host.editable) {
      if (this.shown) this.clear();
      return false;
    }
    this.show(config);
    return true;
  }

  /**
   * The element's `editable`, `palette` or `views` changed while this figure shows (or `editable` while the small path
   * refuses a config kept in `refused`): its config again, through the element's setter. Read-only, another worker
   * computes it (the one running ended: `show` starts a new run, and a result of an older run is never drawn);
   * editable, the small path takes it and refuses it in the core's words. True when it did.
   */
  retake(name) {
    const config = this.shown ? this.config : name === 'editable' ? this.refused : null;
    if (!config) return false;
    // Nothing on the small path yet: the config is what the element shows, refused or not (not its preset).
    if (!this.host._viz) this.host._failed = true;
    this.host.config = config;
    return true;
  }

  /** Back to the small path: the worker (if any) ended, this figure's DOM gone, the element's own parts shown. */
  clear() {
    this.stop();
    this.config = null;
    this.views = [];
    this.drawn = false;
    this.root.replaceChildren();
    this.root.hidden = true;
    this.tip.hidden = true;
    delete this.root.parentNode?.dataset.large;
    if (this.host._viz) this.host._rebuild({ silent: true });
  }

  stop() {
    this.run++;
    this.worker?.terminate();
    this.worker = null;
  }

  /** The views `views` asks that a large figure has, else the default three. */
  wanted() {
    const attr = this.host.getAttribute('views');
    const asked = attr ? attr.split(/[\s,]+/).filter((v) => STAGES.includes(v)) : [];
    return asked.length ? [...new Set(asked)] : DEFAULT_VIEWS;
  }

  show(config) {
    this.stop();
    const run = this.run;
    this.config = config;
    this.views = [];
    this.drawn = false;
    this.tip.hidden = true;
    if (!this.root.parentNode) {
      const container = this.host.shadowRoot.querySelector('.av');
      container.append(this.root);
      this.host.shadowRoot.append(this.tip);
      container.append(this.live);
      hideOthers(this.host.shadowRoot);
    }
    // The element's other parts stay as they are, hidden by a rule while this attribute is there (their own `hidden`
    // flags are theirs: a rebuild sets them, and they are right again when a small config comes).
    this.root.parentNode.dataset.large = '';
    this.root.hidden = false;
    const progress = el('p', { class: 'status', 'data-role': 'progress', role: 'status', 'aria-live': 'polite',
      text: 'Starting a background worker for this figure…' });
    this.root.replaceChildren(progress);
    this.host._status('');
    // What the attributes ask that cannot be done (an unknown palette: the views' own), said as on a small figure.
    this.host._attributeProblems();
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    const side = this.side();
    const started = performance.now();
    const fail = (message) => {
      if (run !== this.run) return;
      this.stop();
      progress.remove();
      this.host._fail(message);
    };
    // A task of its own for the worker's start and the flattening (~10 ms a 4096 × 64 matrix): the caller's task
    // (an element connecting, a page setting its config) has its own work, and together they would pass 50 ms.
    const nextTask = () => new Promise((ok) => setTimeout(ok, 0));
    nextTask().then(() => this.api.computeWorker()).then(async ({ module, worker }) => {
      if (run !== this.run) { worker.terminate(); return; }
      this.worker = worker;
      worker.onerror = (e) => { e.preventDefault?.(); fail(`This figure is computed by a background worker, which could not run: ${e.message || 'its script was refused'}`); };
      worker.onmessage = ({ data }) => {
        if (run !== this.run) return;
        if (data.type === 'progress') progress.textContent = data.text;
        else if (data.type === 'error') fail(data.message);
        else if (data.type === 'done') {
          // Its memory goes with it (the views' buffers were transferred out), in a task of its own.
          const done = this.worker;
          this.worker = null;
          setTimeout(() => done.terminate(), 0);
          this.tokens = data.tokens;
          this.scale = data.scale;
          this.draw(data.views, side, async () => {
            // One view a task: receiving the message and putting three images would be one long task otherwise.
            await nextTask();
            return run === this.run;
          }).then((drawn) => {
            if (!drawn) return;
            progress.remove();
            this.drawn = true;
            this.took = performance.now() - started;
            this.host.dispatchEvent(new CustomEvent('change', { detail: { config, trace: null, large: true } }));
          });
        }
      };
      // Flat (one Float64Array, transferred) rather than a structured clone of n lists: ~10× less of the main thread,
      // and the embeddings copied a slice per task.
      const flat = await flatInSlices(this.api, config, nextTask);
      if (run !== this.run) { worker.terminate(); return; }
      worker.postMessage({ module, flat, config: flat ? null : config, views: this.wanted(), maxPx: Math.round(side * dpr),
        barPx: side, palette: this.host.getAttribute('palette') }, flat ? [flat.data.buffer] : []);
    }, (e) => fail(`This figure is computed by a background worker, which could not start: ${e?.message ?? e}`));
  }

  /** The picture's side: SIDE, or the figure's width less the colour bar on a narrow screen. */
  side() {
    const width = this.host.getBoundingClientRect().width || SIDE + 80;
    return Math.max(120, Math.min(SIDE, Math.floor(width - 80)));
  }

  /** Puts the views, each after `between()` (false: this figure was replaced meanwhile, stop); resolves to done. */
  async draw(views, side, between) {
    for (const v of views) {
      if (!(await between())) return false;
      // Tall and narrow (the context, n × d_v): as wide as its columns at the rows' scale, but readable.
      const h = side;
      const w = v.cols === v.rows ? side : Math.max(48, Math.min(side, Math.round((side * v.cols) / v.rows)));
      const canvas = el('canvas', { width: v.width, height: v.height, tabindex: '0', role: 'img', 'data-view': v.name,
        'aria-label': `${v.title}. ${v.caption}. Arrow keys move a cursor cell by cell, with Shift 64 cells.` });
      canvas.style.cssText = `width:${w}px;height:${h}px;image-rendering:pixelated;display:block;cursor:crosshair;touch-action:none`;
      if (v.bitmap) canvas.getContext('bitmaprenderer').transferFromImageBitmap(v.bitmap);
      else canvas.getContext('2d').putImageData(new ImageData(v.image, v.width, v.height), 0, 0);
      const dpr = Math.min(window.devicePixelRatio || 1, 2);
      const overlay = el('canvas', { width: Math.round(w * dpr), height: Math.round(h * dpr), 'aria-hidden': 'true' });
      overlay.style.cssText = `position:absolute;left:0;top:0;width:${w}px;height:${h}px;pointer-events:none`;
      const bar = el('canvas', { width: 1, height: v.bar.length / 4, 'aria-hidden': 'true' });
      bar.style.cssText = `width:14px;height:${h}px;display:block`;
      bar.getContext('2d').putImageData(new ImageData(v.bar, 1, v.bar.length / 4), 0, 0);
      const ticks = el('div', { 'aria-hidden': 'true' });
      ticks.style.cssText = `position:relative;height:${h}px;width:56px;font-size:10px`;
      for (const [at, label] of v.ticks) {
        const t = el('span', { text: `– ${label}` });
        t.style.cssText = `position:absolute;left:0;top:${Math.round((1 - at) * h) - 6}px;white-space:nowrap`;
        ticks.append(t);
      }
      if (v.offset) ticks.prepend(el('span', { text: v.offset }));
      const picture = el('div', {}, canvas, overlay);
      picture.style.cssText = 'position:relative';
      const row = el('div', {}, picture, bar, ticks);
      row.style.cssText = 'display:flex;gap:6px;align-items:flex-start';
      const figure = el('figure', { 'data-view': v.name }, el('figcaption', { class: 'title', text: v.title }), row,
        el('p', { class: 'caption', text: v.caption }));
      figure.style.cssText = 'margin:0 0 16px;font-size:13px';
      const view = { name: v.name, values: v.values, rows: v.rows, cols: v.cols, canvas, overlay, bar, figure,
        texts: [figure.querySelector('figcaption'), ...ticks.children, figure.querySelector('.caption')], sent: v,
        shown: [w, h], cursor: null };
      this.listen(view);
      this.views.push(view);
      this.root.append(figure);
      canvas.dataset.painted = '';
    }
    return true;
  }

  /** Row i's and column j's labels of a view: tokens, and the context's dimensions. */
  labels(view, i, j) {
    const col = view.cols === this.tokens.length && view.name !== 'context' ? this.tokens[j] : `dimension ${j}`;
    return [this.tokens[i] ?? `row ${i}`, col];
  }

  text(view, [i, j]) {
    const [row, col] = this.labels(view, i, j);
    return this.api.largeCellText(row, col, view.values[i * view.cols + j]);
  }

  /** The cell under a client point, or null off the picture. */
  cellAt(view, x, y) {
    const r = view.canvas.getBoundingClientRect();
    if (x < r.left || y < r.top || x >= r.right || y >= r.bottom) return null;
    const i = Math.min(view.rows - 1, Math.floor(((y - r.top) / r.height) * view.rows));
    const j = Math.min(view.cols - 1, Math.floor(((x - r.left) / r.width) * view.cols));
    return [i, j];
  }

  /** The outline of `cell` (at least MIN_OUTLINE CSS pixels) on the view's overlay, and its tooltip; null: none. */
  mark(view, cell, kind) {
    const { overlay } = view;
    const ctx = overlay.getContext('2d');
    ctx.clearRect(0, 0, overlay.width, overlay.height);
    if (!cell) {
      if (this.tipView === view) this.tip.hidden = true;
      return;
    }
    const r = view.canvas.getBoundingClientRect();
    const sx = overlay.width / r.width, sy = overlay.height / r.height;
    const cw = r.width / view.cols, ch = r.height / view.rows;
    const [i, j] = cell;
    const w = Math.max(cw, MIN_OUTLINE), h = Math.max(ch, MIN_OUTLINE);
    const x = (j + 0.5) * cw - w / 2, y = (i + 0.5) * ch - h / 2;
    ctx.lineWidth = 2 * sx;
    ctx.strokeStyle = kind === 'cursor' ? '#d62728' : '#111';
    ctx.strokeRect(x * sx, y * sy, w * sx, h * sy);
    ctx.strokeStyle = '#fff';
    ctx.lineWidth = 1 * sx;
    ctx.strokeRect((x - 1.5) * sx, (y - 1.5) * sy, (w + 3) * sx, (h + 3) * sy);
    const text = this.text(view, cell);
    if (this.tip.textContent !== text) this.tip.textContent = text;
    this.tip.hidden = false;
    this.tipView = view;
    const gap = 6;
    const { offsetWidth: tw, offsetHeight: th } = this.tip;
    let top = r.top + y - gap - th;
    if (top < 2) top = r.top + y + h + gap;
    const left = Math.max(2, Math.min(r.left + x, document.documentElement.clientWidth - tw - 2));
    this.tip.style.left = `${Math.round(left)}px`;
    this.tip.style.top = `${Math.round(top)}px`;
    return text;
  }

  /** An Error of the core's words for `what` (large.rs `largeMessage`), naming `view`. */
  refuse(what, view = '') {
    return new Error(this.api.largeMessage(what, view, this.views.map((v) => v.name)));
  }

  /** The shown view `name` once every view is drawn; else the core's message, thrown. */
  viewNamed(name) {
    if (!this.drawn) throw this.refuse('pending');
    const view = this.views.find((v) => v.name === name);
    if (!view) throw this.refuse('view', name);
    return view;
  }

  /**
   * toSVG(view): the core's SVG of what the view shows (picture::large_svg), its image and colour bar embedded as the
   * browser's PNGs of the page's canvases (the image's own pixels, through a 2D copy: it shows an ImageBitmap).
   */
  svg(name) {
    const { sent: v, shown, canvas, bar } = this.viewNamed(String(name));
    const copy = Object.assign(document.createElement('canvas'), { width: canvas.width, height: canvas.height });
    copy.getContext('2d').drawImage(canvas, 0, 0);
    return this.api.largeSvg(v.title, v.rows, v.cols, Uint32Array.from(v.block), v.pooling, copy.toDataURL('image/png'),
      bar.toDataURL('image/png'), Float64Array.from(v.ticks, (t) => t[0]), v.ticks.map((t) => t[1]), v.offset ?? '',
      Float64Array.from(shown));
  }

  /**
   * What toPNG() composites, as share.js's `composite` takes it (the small figure's PNG path): the images, their
   * overlays and colour bars stretched to their boxes, and the texts (titles, ticks, captions) where they show.
   * `name` undefined: every view.
   */
  parts(name) {
    if (!this.drawn) throw this.refuse('pending');
    const views = name === undefined ? this.views : [this.viewNamed(String(name))];
    return {
      origin: name === undefined ? this.root : views[0].figure,
      canvases: views.flatMap((v) => [{ canvas: v.canvas, overlay: v.overlay, fit: true, pixelated: true }, { canvas: v.bar, fit: true }]),
      texts: views.flatMap((v) => v.texts),
    };
  }

  /** The trace: the shown stages' arrays as sent (typed, shared with the figure) and the core's note on what it holds. */
  trace() {
    if (!this.drawn) return null;
    const trace = { mechanism: 'self', large: true, scale: this.scale, head: this.config?.head ?? 0, tokens: this.tokens,
      note: this.api.largeMessage('trace', '', this.views.map((v) => v.name)) };
    for (const v of this.views) trace[v.name] = { shape: [v.rows, v.cols], data: v.values };
    return trace;
  }

  listen(view) {
    const { canvas } = view;
    canvas.addEventListener('pointermove', (e) => {
      view.hover = this.cellAt(view, e.clientX, e.clientY);
      this.mark(view, view.hover ?? view.cursor, view.hover ? 'hover' : 'cursor');
    });
    canvas.addEventListener('pointerleave', () => {
      view.hover = null;
      this.mark(view, view.cursor, 'cursor');
    });
    canvas.addEventListener('focus', () => {
      view.cursor ??= [0, 0];
      this.live.textContent = this.mark(view, view.cursor, 'cursor');
    });
    canvas.addEventListener('blur', () => {
      view.cursor = null;
      this.mark(view, view.hover, 'hover');
    });
    canvas.addEventListener('keydown', (e) => {
      if (!view.cursor) return;
      const step = e.shiftKey ? 64 : 1;
      let [i, j] = view.cursor;
      if (e.key === 'ArrowUp') i -= step;
      else if (e.key === 'ArrowDown') i += step;
      else if (e.key === 'ArrowLeft') j -= step;
      else if (e.key === 'ArrowRight') j += step;
      else if (e.key === 'Home') j = 0;
      else if (e.key === 'End') j = view.cols - 1;
      else if (e.key === 'Escape') { this.tip.hidden = true; return; }
      else return;
      e.preventDefault();
      view.cursor = [Math.max(0, Math.min(view.rows - 1, i)), Math.max(0, Math.min(view.cols - 1, j))];
      this.live.textContent = this.mark(view, view.cursor, 'cursor');
    });
  }
}
