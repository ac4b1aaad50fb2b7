// The <attention-viz> custom element: one attention computation whose every
// input is editable and whose every stage is a live heatmap.
//
// JS here only wires the page: each edit goes to the Rust `Viz` (which owns
// the state and validates it), and on success every canvas is repainted by
// Rust in the same call stack — the same frame — before `change` fires.
// A rejected edit changes nothing in Rust; the cell is marked and the last
// valid figure stays on screen.

const STYLE = `
:host { display: block; --av-bg: #ffffff; --av-fg: #1f2328; --av-muted: #59636e; --av-border: #d0d7de;
  --av-panel: #f6f8fa; --av-accent: #0969da; --av-invalid: #cf222e; --av-invalid-bg: #ffebe9;
  color: var(--av-fg); background: var(--av-bg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  border: 1px solid var(--av-border); border-radius: 8px; container-type: inline-size; }
@media (prefers-color-scheme: dark) {
  :host { --av-bg: #161b22; --av-fg: #e6edf3; --av-muted: #9198a1; --av-border: #3d444d; --av-panel: #0d1117;
    --av-accent: #58a6ff; --av-invalid: #ff7b72; --av-invalid-bg: #3c1618; }
}
:host([hidden]) { display: none; }
[hidden] { display: none !important; }
* { box-sizing: border-box; }
.av { padding: 12px; display: grid; grid-template-columns: minmax(0, 1fr); gap: 12px; }
.toolbar { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: center; }
.group { display: inline-flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.group > span.label { color: var(--av-muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
button, select, input { font: inherit; color: inherit; }
select { max-width: 100%; }
button, select { background: var(--av-panel); border: 1px solid var(--av-border); border-radius: 6px; padding: 4px 10px; min-height: 32px; cursor: pointer; }
button:hover { border-color: var(--av-accent); }
input.num, input.seed { width: 5.5em; padding: 4px 6px; min-height: 32px; border: 1px solid var(--av-border); border-radius: 6px; background: var(--av-bg); }
:focus-visible { outline: 2px solid var(--av-accent); outline-offset: 2px; }
details.menu { font-size: 13px; }
details.menu summary { cursor: pointer; color: var(--av-muted); width: max-content; }
details.menu .group { margin-top: 6px; }
.status textarea { width: 100%; font: 12px ui-monospace, monospace; }
.status { min-height: 1.45em; color: var(--av-muted); font-size: 13px; }
.status.error { color: var(--av-invalid); }
.status:empty { display: none; }
.inputs { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
fieldset.matrix { border: 1px solid var(--av-border); border-radius: 6px; padding: 6px 8px 8px; margin: 0; max-width: 100%; overflow-x: auto; }
fieldset.matrix legend { padding: 0 4px; font-weight: 600; font-size: 13px; }
table.grid { border-collapse: separate; border-spacing: 2px; }
table.grid th { font-weight: 400; color: var(--av-muted); font-size: 12px; padding: 0 4px; text-align: right; white-space: nowrap; }
table.grid td { padding: 0; }
input.cell { width: 4.6em; padding: 3px 4px; text-align: right; border: 1px solid var(--av-border); border-radius: 4px;
  background: var(--av-bg); font-variant-numeric: tabular-nums; cursor: ew-resize; touch-action: pan-y; }
input.cell:focus { cursor: text; }
input.cell.scrubbing { border-color: var(--av-accent); background: var(--av-panel); }
input.cell[aria-invalid="true"] { border-color: var(--av-invalid); background: var(--av-invalid-bg); }
.window { display: flex; flex-wrap: wrap; gap: 4px 8px; align-items: center; font-size: 12px; color: var(--av-muted); margin-bottom: 4px; }
.window button { min-height: 26px; padding: 0 8px; }
.window button:disabled { opacity: .4; cursor: default; }
input.token { width: 6.5em; padding: 3px 4px; border: 1px dashed var(--av-border); border-radius: 4px; background: transparent; text-align: right; }
.cell-msg { color: var(--av-invalid); font-size: 12px; min-height: 0; margin-top: 4px; max-width: 40ch; }
.cell-msg:empty { display: none; }
.stages { display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-start; }
/* Off-screen inputs and breakdown skip the browser's layout and paint on every edit (their size is remembered).
   Not the heatmaps: they are what a reader watches, and full-page captures should show them. */
fieldset.matrix, details.breakdown { content-visibility: auto; contain-intrinsic-size: auto 300px; }
figure.stage { margin: 0; max-width: 100%; }
figure.stage canvas { display: block; max-width: 100%; touch-action: manipulation; border-radius: 4px; }
figure.stage canvas.pickable { cursor: pointer; }
.tip { position: fixed; pointer-events: none; background: var(--av-fg); color: var(--av-bg); font-size: 12px; padding: 3px 7px;
  border-radius: 4px; white-space: pre; z-index: 10; font-variant-numeric: tabular-nums; }
.tip[hidden] { display: none; }
details.breakdown { border: 1px solid var(--av-border); border-radius: 6px; padding: 6px 10px; }
details.breakdown summary { cursor: pointer; font-weight: 600; overflow-wrap: anywhere; }
.breakdown table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 13px; margin-top: 6px; }
.breakdown th, .breakdown td { padding: 3px 8px; border-bottom: 1px solid var(--av-border); text-align: right; white-space: nowrap; }
.breakdown th { color: var(--av-muted); font-weight: 400; }
.breakdown td.formula { text-align: left; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
.breakdown tr.sum td { font-weight: 600; border-bottom: none; }
.breakdown .wrap { overflow-x: auto; }
.lesson { font-size: 13px; color: var(--av-muted); max-width: 70ch; }
.nan { color: var(--av-invalid); font-weight: 600; }
@container (max-width: 520px) {
  .av { padding: 8px; gap: 10px; }
  input.cell { width: 4em; }
  .toolbar { gap: 6px 10px; }
}
`;

/**
 * The editable cells of a matrix are a window of at most this many rows and
 * columns, moved with the arrows beside it. Every rendered input costs the
 * browser paint and compositing work on each frame the page changes: 20 000
 * inputs (n = 128, d = 64) made one edit take ~200 ms to reach the screen.
 */
const WINDOW_ROWS = 16;
const WINDOW_COLS = 16;
/** The rows of an input matrix of a config (the decoder state is one row). */
const matrixRows = (cfg, name) => (name === 'decoder_state' ? [cfg.decoder_state] : cfg[name]);
const SUBSCRIPT = '₀₁₂₃₄₅₆₇₈₉';
const sub = (i) => String(i).split('').map((d) => SUBSCRIPT[d]).join('');
const INPUT_VIEWS = new Set(['embeddings', 'w_q', 'w_k', 'w_v']);
const INPUT_TITLES = {
  embeddings: 'embeddings X', w_q: 'W_Q', w_k: 'W_K', w_v: 'W_V', decoder_state: 'decoder state h', annotations: 'annotations a_j',
};

/** A token name as labels show it: at most 24 characters (the full name goes in a title). */
const clip = (t) => (t.length > 24 ? `${t.slice(0, 23)}…` : t);

/** A number as the breakdown shows it: integers whole, others to 4 significant digits. */
function fmt(x) {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (Number.isInteger(x) && Math.abs(x) < 1e15) return String(x);
  const s = Math.abs(x) >= 1e-3 && Math.abs(x) < 1e6 ? String(Number(x.toPrecision(4))) : x.toExponential(2);
  return s;
}

/** Parses what the user typed in a cell: a finite number, or a message saying why not. */
export function parseCell(text) {
  const t = String(text).trim().replace(/\u2212/g, '-');
  if (t === '') return { error: 'empty: type a number' };
  if (/^[+-]?nan$/i.test(t)) return { error: 'NaN is not allowed: every value must be a finite number' };
  if (/^[+-]?(inf|infinity)$/i.test(t)) return { error: `${t} is not allowed: every value must be a finite number` };
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) {
    const shown = t.length > 24 ? `${t.slice(0, 23)}…` : t;
    return { error: `“${shown}” is not a number` };
  }
  const x = Number(t);
  if (!Number.isFinite(x)) return { error: `${t} is too large for float64 (the largest is about 1.8e308)` };
  return { value: x };
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/**
 * First loads of several elements on one page, one per frame: the first figure
 * is built and painted before the next is started, so a page of figures shows
 * its first heatmaps as soon as one is ready instead of when all are.
 */
const loads = [];
let loading = false;
function queueLoad(load) {
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

let sheet;
/** One constructed stylesheet shared by every element, or null where unsupported. */
function sharedSheet() {
  if (sheet === undefined) {
    try {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(STYLE);
    } catch {
      sheet = null;
    }
  }
  return sheet;
}

/** base64url of the UTF-8 text, as the share links carry it. */
function encodeState(json) {
  const bytes = new TextEncoder().encode(json);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function decodeState(text) {
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function defineElement(api) {
  if (customElements.get('attention-viz')) return;

  class AttentionViz extends HTMLElement {
    static get observedAttributes() { return ['preset', 'config', 'views', 'editable', 'height', 'palette', 'persist']; }

    constructor() {
      super();
      this._viz = null;
      this._traceCache = null;
      this._invalid = new Map(); // "matrix:row:col" → text the user typed
      this._hover = null;
      this._showNaive = false;
      this._initial = null;
      this._canvases = new Map();
      this._sizes = new Map();
      this._windows = new Map(); // matrix → [row, column] of its window of input cells
      this._built = false;
      this._frame = 0;
      this.attachShadow({ mode: 'open' });
    }

    connectedCallback() {
      // Properties set before the element was defined shadow our accessors: re-set them through them.
      for (const prop of ['config', 'views', 'editable', 'height', 'palette']) {
        if (Object.prototype.hasOwnProperty.call(this, prop)) {
          const value = this[prop];
          delete this[prop];
          this[prop] = value;
        }
      }
      if (!this._dark) {
        this._dark = window.matchMedia('(prefers-color-scheme: dark)');
        this._onScheme = () => this._repaint({ silent: true });
        // The width is read here, not in _repaint: reading layout during an edit would force a reflow of every input.
        this._resize = new ResizeObserver((entries) => {
          const width = entries[entries.length - 1].contentRect.width;
          if (width !== this._width) { this._width = width; this._scheduleRepaint(); }
        });
      }
      this._dark.addEventListener('change', this._onScheme);
      this._resize.observe(this);
      if (!this._onHide) {
        this._onHide = () => { if (this._saveTimer) this._saveNow(); }; // only a pending save
        window.addEventListener('pagehide', this._onHide);
      }
      if (this._built) return; // moved within the page: the figure and its edits are kept
      this._built = true;
      this._skeleton();
      api.ready.then(() => queueLoad(() => this._built && this._load()), (e) => this._status(`Could not load the WebAssembly core: ${e.message}`, true));
    }

    disconnectedCallback() {
      this._resize?.disconnect();
      this._dark?.removeEventListener('change', this._onScheme);
      // A move (frameworks, notebooks) reconnects in the same task and keeps everything;
      // only an element still detached afterwards lets go of its WASM state.
      queueMicrotask(() => {
        if (this.isConnected || !this._built) return;
        this._built = false;
        if (this._viz) { this._viz.free(); this._viz = null; }
        this._invalidate();
        this.shadowRoot.replaceChildren();
      });
    }

    attributeChangedCallback(name, old, value) {
      if (old === value || !this._viz) return;
      if (name === 'preset' || name === 'config') this._load();
      else if (name !== 'persist') this._rebuild();
    }

    // ---- public API -------------------------------------------------------

    /** The current config (a plain object with every default filled in). */
    get config() { return this._viz ? JSON.parse(this._viz.configJson()) : null; }

    /** The config as the element reads it internally: parsed once per state, never mutated. */
    _cfg() {
      if (!this._cfgCache) this._cfgCache = JSON.parse(this._viz.configJson());
      return this._cfgCache;
    }

    /** Forget everything derived from the Rust state (after any successful mutation). */
    _invalidate({ keepConfig = false } = {}) {
      this._version = (this._version ?? 0) + 1; // the state changed: every canvas is stale
      this._traceCache = null;
      this._rawCache = null;
      if (!keepConfig) this._cfgCache = null;
    }

    /**
     * One field of the trace as the core returns it ({shape, data: Float64Array}), fetched
     * on first use after each change: the breakdown and the tooltip need a few small fields,
     * and copying the whole trace (~10 MB at n = 512) on every edit cost ~20 ms.
     */
    _field(name) {
      const cache = (this._rawCache ||= new Map());
      if (!cache.has(name)) cache.set(name, this._viz.field(name) ?? null);
      return cache.get(name);
    }

    _shape(name) { return this._field(name).shape; }

    /** Row i of a matrix field (or the whole vector) as a plain array. */
    _row(name, i = 0) {
      const cached = this._rawCache?.get(name);
      if (cached) {
        const { shape, data } = cached;
        return Array.from(shape.length === 1 ? data : data.subarray(i * shape[1], (i + 1) * shape[1]));
      }
      // Only the row crosses from Rust: the breakdown reads ~70 rows of n × d fields per edit.
      return Array.from(this._viz.row(name, i) ?? []);
    }

    /** Element (i, j) of a matrix field; for a vector, element j (or i when j is null). */
    _at(name, i, j) {
      const { shape, data } = this._field(name);
      if (shape.length === 1) return data[j ?? i];
      return data[i * shape[1] + j];
    }

    /** Replaces the config; an invalid one fires `error` and keeps the figure. */
    set config(value) {
      if (!this._viz) { this._pending = value; return; }
      if (value && typeof value === 'object' && 'v' in value && 'config' in value) {
        // A state from toJSON(): restore it whole, through the share-link validator.
        let text;
        try { text = encodeState(api.configJson(value)); } catch (e) { return this._fail(e.message); }
        this._apply(() => { this._showNaive = this._viz.setShareState(text); }, { rebuild: true, initial: true });
        return;
      }
      this._apply(() => api.setConfig(this._viz, value), { rebuild: true, initial: true });
    }

    /** The trace of the current config (see `compute()`), read-only. */
    get trace() {
      if (!this._viz) return null;
      if (!this._traceCache) this._traceCache = api.toTrace(this._viz.trace());
      return this._traceCache;
    }

    /** Which panels show: heatmap view names, plus "inputs", "breakdown", "controls" (attribute `views`). */
    get views() { return this.getAttribute('views'); }
    set views(v) { if (v === null || v === undefined) this.removeAttribute('views'); else this.setAttribute('views', Array.isArray(v) ? v.join(',') : String(v)); }

    /** `false` makes a read-only figure: no controls, inputs drawn as heatmaps (attribute `editable`). */
    get editable() { return this.getAttribute('editable') !== 'false'; }
    set editable(v) { this.setAttribute('editable', v ? 'true' : 'false'); }

    /** Height of each heatmap in CSS pixels, or null for its natural size (attribute `height`). */
    get height() { const h = Number(this.getAttribute('height')); return Number.isFinite(h) && h > 0 ? h : null; }
    set height(v) { if (v === null || v === undefined) this.removeAttribute('height'); else this.setAttribute('height', String(v)); }

    /** One palette for every heatmap (attribute `palette`): rocket, vlag, diverging, purple, orange, blue, #rrggbb… */
    get palette() { return this.getAttribute('palette'); }
    set palette(v) { if (v === null || v === undefined) this.removeAttribute('palette'); else this.setAttribute('palette', String(v)); }

    /** Keep the user's edits in localStorage and bring them back on reload (attribute `persist`). */
    get persist() { return this.hasAttribute('persist') && this.getAttribute('persist') !== 'false'; }
    set persist(v) { if (v) this.setAttribute('persist', ''); else this.removeAttribute('persist'); }

    _storageKey() { return `attention-viz:${location.pathname}:${this._shareKey()}`; }

    /** localStorage, or null when the browser refuses it (disabled, sandboxed, private mode). */
    _storage() {
      try {
        return window.localStorage;
      } catch {
        return null;
      }
    }

    _storageProblem() {
      if (this._warnedStorage) return;
      this._warnedStorage = true;
      this._status('Your edits cannot be saved in this browser (storage is full or turned off); they last until you leave the page.', true);
    }

    /** Saves the state a moment after the last edit (not on every scrub step). */
    _scheduleSave() {
      if (!this.persist) return;
      clearTimeout(this._saveTimer);
      this._saveTimer = setTimeout(() => this._saveNow(), 250);
    }

    _saveNow() {
      clearTimeout(this._saveTimer);
      this._saveTimer = null;
      if (!this.persist || !this._viz) return;
      const storage = this._storage();
      try {
        if (!storage) throw new Error('no storage');
        storage.setItem(this._storageKey(), this._viz.shareState(this._showNaive));
      } catch {
        this._storageProblem();
      }
    }

    _forgetSaved() {
      clearTimeout(this._saveTimer);
      this._saveTimer = null;
      if (!this.persist) return;
      try { this._storage()?.removeItem(this._storageKey()); } catch { /* nothing saved */ }
    }

    /** A standalone SVG string of one heatmap, drawn by the same Rust code as the canvas. */
    toSVG(view) {
      return api.callCore(() => this._viz.toSvg(String(view), this.palette ?? undefined));
    }

    /**
     * A PNG Blob at device resolution: of one heatmap (`view`), or of the whole
     * figure (every visible heatmap) when `view` is omitted.
     */
    async toPNG(view) {
      const canvas = view === undefined ? this._composite() : this._offscreen(String(view));
      return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'));
    }

    /** The whole state as JSON: `{v, config, naive, random}`; `.config = state` restores it. */
    toJSON() { return JSON.parse(decodeState(this._viz.shareState(this._showNaive))); }

    /** "Copy as NumPy": a self-contained Python snippet that recomputes this figure. */
    toNumPy() { return this._viz.toNumPy(); }

    /** A link to this page that restores this figure exactly (its state in the URL fragment). */
    shareURL() {
      // Other parts of the fragment (a page anchor, other figures' states) are kept as they are.
      const key = encodeURIComponent(this._shareKey());
      const parts = location.hash.slice(1).split('&').filter((p) => p && p.split('=')[0] !== key);
      parts.push(`${key}=${this._viz.shareState(this._showNaive)}`);
      return `${location.href.split('#')[0]}#${parts.join('&')}`;
    }

    _shareKey() {
      if (this.id) return this.id;
      const all = [...document.querySelectorAll('attention-viz')];
      return `attention-viz-${Math.max(0, all.indexOf(this))}`;
    }

    _offscreen(view) {
      if (!this._viz.views().includes(view)) throw new Error(`there is no view "${view}" here; views are ${this._viz.views().join(', ')}`);
      const dpr = window.devicePixelRatio || 1;
      const [w, h] = this._viz.preferredSize(view);
      const canvas = document.createElement('canvas');
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round((this.height ?? h) * dpr);
      api.callCore(() => this._viz.render(view, canvas, dpr, false, this.palette ?? undefined, [], true));
      return canvas;
    }

    _composite() {
      const figs = [...this._canvases.values()];
      const gap = 10 * (window.devicePixelRatio || 1);
      const host = this._stages.getBoundingClientRect();
      const dpr = window.devicePixelRatio || 1;
      let width = 1; let height = 1;
      const placed = figs.map((c) => {
        const r = c.getBoundingClientRect();
        const x = Math.round((r.left - host.left) * dpr);
        const y = Math.round((r.top - host.top) * dpr);
        width = Math.max(width, x + c.width); height = Math.max(height, y + c.height);
        return { c, x, y };
      });
      const out = document.createElement('canvas');
      out.width = width + gap; out.height = height + gap;
      const ctx = out.getContext('2d');
      ctx.fillStyle = getComputedStyle(this).getPropertyValue('--av-bg').trim() || '#ffffff';
      ctx.fillRect(0, 0, out.width, out.height);
      for (const { c, x, y } of placed) ctx.drawImage(c, x, y);
      return out;
    }

    // ---- loading ----------------------------------------------------------

    _initialConfig() {
      const attr = this.getAttribute('config');
      if (attr !== null) {
        try { return { config: JSON.parse(attr), source: 'config attribute' }; } catch (e) {
          return { error: `The config attribute is not valid JSON: ${e.message}` };
        }
      }
      const script = this.querySelector('script[type="application/json"]');
      if (script) {
        try { return { config: JSON.parse(script.textContent), source: 'inline JSON' }; } catch (e) {
          return { error: `The inline <script type="application/json"> is not valid JSON: ${e.message}` };
        }
      }
      const preset = this.getAttribute('preset') || 'seed-001';
      if (!api.presets[preset]) return { error: `Unknown preset "${preset}": use ${Object.keys(api.presets).join(', ')}` };
      return { config: api.presets[preset], source: `preset ${preset}` };
    }

    _load() {
      let { config, error } = this._initialConfig();
      let viz = null;
      if (config !== undefined) {
        try { viz = api.callCore(() => api.newViz(config)); } catch (e) { error = e.message; }
      }
      if (!viz) {
        // Keep what is on screen; with nothing yet, show the preset (or seed-001) under the message.
        let instead = 'the last valid figure';
        if (!this._viz) {
          const name = api.presets[this.getAttribute('preset')] ? this.getAttribute('preset') : 'seed-001';
          viz = api.callCore(() => api.newViz(api.presets[name]));
          config = api.presets[name];
          instead = `preset ${name}`;
        }
        this._fail(`${error} — showing ${instead} instead.`);
      }
      if (viz) {
        if (this._viz) this._viz.free();
        this._viz = viz;
        this._invalidate();
        this._initial = config;
        this._invalid.clear();
      }
      // A share link in the URL applies once, on the first load; later preset/config changes win.
      const shared = this._shareApplied ? null : new URLSearchParams(location.hash.slice(1)).get(this._shareKey());
      this._shareApplied = true;
      if (shared) {
        try {
          this._showNaive = api.callCore(() => this._viz.setShareState(shared));
          this._invalidate();
        } catch (e) {
          error = e.message;
          this._fail(`${e.message} — showing the original figure instead.`);
        }
      }
      if (!shared && !error && this.persist) {
        let saved = null;
        const storage = this._storage();
        try { saved = storage ? storage.getItem(this._storageKey()) : null; } catch { this._storageProblem(); }
        if (saved) {
          try {
            this._showNaive = api.callCore(() => this._viz.setShareState(saved));
            this._invalidate();
          } catch (e) {
            error = e.message;
            this._forgetSaved();
            this._fail(`Your saved edits could not be restored (${e.message}) — showing the original figure.`);
          }
        }
      }
      // A refused source leaves the figure as it was: no `change` for it.
      this._rebuild({ silent: !viz });
      if (!error && !this._warnedStorage) this._status('');
      if (this._pending !== undefined) { const p = this._pending; this._pending = undefined; this.config = p; }
    }

    // ---- edits --------------------------------------------------------------

    /** Runs one Rust mutation; on success recompute → repaint → `change`. */
    _apply(mutate, { rebuild = false, cell = null, initial = false, value = null } = {}) {
      try {
        api.callCore(mutate);
      } catch (e) {
        if (e.message.startsWith('attention-viz internal error')) this._recover();
        if (cell) this._markInvalid(cell, e.message);
        else this._fail(e.message);
        return false;
      }
      // A one-value edit patches the parsed config instead of re-reading all of it from Rust.
      if (value && this._cfgCache) {
        const [m, r, c, x] = value;
        if (m === 'decoder_state') this._cfgCache.decoder_state[c] = x; else this._cfgCache[m][r][c] = x;
      }
      this._invalidate({ keepConfig: Boolean(value) });
      // A new document (config set by the page, Reset) is not a user edit: nothing to keep.
      if (initial) { this._initial = this.config; this._forgetSaved(); } else this._scheduleSave();
      if (cell) this._clearInvalid(cell);
      else this._status('');
      if (rebuild) this._rebuild();
      else this._repaint();
      return true;
    }

    /** After a Rust panic the Viz object may stay locked: rebuild it from the last config we read. */
    _recover() {
      const last = this._cfgCache || this._initial;
      try {
        const viz = api.callCore(() => api.newViz(last));
        try { this._viz.free(); } catch { /* the old object may be unusable */ }
        this._viz = viz;
        this._invalidate();
      } catch { /* keep the old one; the message already says what happened */ }
    }

    _fail(message) {
      this._status(message, true);
      this.dispatchEvent(new CustomEvent('error', { detail: { message } }));
    }

    _status(text, isError = false) {
      // Unchanged text is not rewritten: any DOM write makes the next canvas font lookup restyle the page.
      if (!this._statusEl || (this._statusEl.textContent === text && this._statusEl.classList.contains('error') === isError)) return;
      this._statusEl.textContent = text;
      this._statusEl.classList.toggle('error', isError);
    }

    _cellKey(cell) { return `${cell.dataset.matrix}:${cell.dataset.row}:${cell.dataset.col}`; }

    _markInvalid(cell, message) {
      this._invalid.set(this._cellKey(cell), { text: cell.value, message });
      this._showInvalid(cell, message);
      const where = `${cell.dataset.matrix}[${cell.dataset.row}][${cell.dataset.col}]`;
      this.dispatchEvent(new CustomEvent('error', { detail: { message: `${where}: ${message}` } }));
    }

    _showInvalid(cell, message) {
      cell.setAttribute('aria-invalid', 'true');
      const msg = cell.closest('fieldset').querySelector('.cell-msg');
      const where = `${cell.dataset.matrix}[${cell.dataset.row}][${cell.dataset.col}]`;
      msg.textContent = `${where}: ${message}. The figure shows the last valid values.`;
      cell.setAttribute('aria-describedby', msg.id);
    }

    _clearInvalid(cell) {
      this._invalid.delete(this._cellKey(cell));
      if (!cell.hasAttribute('aria-invalid')) return;
      cell.removeAttribute('aria-invalid');
      const fs = cell.closest('fieldset');
      if (!fs.querySelector('input[aria-invalid="true"]')) fs.querySelector('.cell-msg').textContent = '';
    }

    _setCell(cell, text) {
      const parsed = parseCell(text);
      if (parsed.error) { this._markInvalid(cell, parsed.error); return; }
      const { matrix, row, col } = cell.dataset;
      this._apply(() => this._viz.setValue(matrix, Number(row), Number(col), parsed.value), { cell, value: [matrix, Number(row), Number(col), parsed.value] });
    }

    // ---- DOM ----------------------------------------------------------------

    _skeleton() {
      const root = this.shadowRoot;
      // A constructed stylesheet needs no 'unsafe-inline' under a Content-Security-Policy.
      const style = sharedSheet() ? null : el('style', { text: STYLE });
      if (!style) root.adoptedStyleSheets = [sharedSheet()];
      this._statusEl = el('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
      this._toolbar = el('div', { class: 'toolbar' });
      this._inputs = el('div', { class: 'inputs' });
      this._lesson = el('p', { class: 'lesson', hidden: true });
      this._stages = el('div', { class: 'stages' });
      this._breakdown = el('details', { class: 'breakdown', open: true });
      this._tip = el('div', { class: 'tip', hidden: true, role: 'tooltip' });
      this._menu = this._buildMenu();
      root.replaceChildren(...(style ? [style] : []), el('div', { class: 'av', part: 'container' },
        this._toolbar, this._menu, this._statusEl, this._inputs, this._lesson, this._stages, this._breakdown), this._tip);
      root.addEventListener('input', (e) => this._onInput(e));
      root.addEventListener('change', (e) => this._onChange(e));
      root.addEventListener('keydown', (e) => this._onKey(e));
      root.addEventListener('pointerdown', (e) => this._onPointerDown(e));
      root.addEventListener('pointermove', (e) => this._onPointerMove(e));
      root.addEventListener('pointerup', (e) => this._onPointerUp(e));
      root.addEventListener('pointercancel', (e) => this._onPointerUp(e));
      root.addEventListener('wheel', (e) => this._onWheel(e), { passive: false });
      root.addEventListener('paste', (e) => this._onPaste(e));
      this._inputs.addEventListener('click', (e) => { const b = e.target.closest?.('button[data-window]'); if (b) this._moveWindow(b); });
      this._stages.addEventListener('pointerleave', () => this._setHover(null));
    }

    _rebuild({ silent = false } = {}) {
      const panels = this._panels();
      const show = (name) => (panels ? panels.has(name) : true);
      this._toolbar.hidden = !this.editable || !show('controls');
      this._menu.hidden = panels ? !show('controls') : false;
      this._inputs.hidden = !this.editable || !show('inputs');
      this._breakdown.hidden = !show('breakdown');
      this._buildToolbar();
      this._buildInputs();
      this._buildStages();
      this._repaint({ silent });
    }

    _isSelf() { return this._cfg().mechanism === 'self'; }

    _buildToolbar() {
      const cfg = this._cfg();
      const self = cfg.mechanism === 'self';
      const hasProj = self && cfg.w_q !== undefined;
      const scaleKind = typeof cfg.scale === 'number' ? 'custom' : cfg.scale;
      const tb = [];
      const scale = el('select', { 'data-control': 'scale', 'aria-label': 'Scaling of the scores' },
        el('option', { value: 'sqrt_dk', text: self && hasProj ? '÷ √d_k' : '÷ √d' }),
        el('option', { value: 'none', text: 'none' }),
        el('option', { value: 'custom', text: 'custom ÷' }));
      scale.value = scaleKind;
      const custom = el('input', { class: 'num', type: 'text', inputmode: 'decimal', 'data-control': 'scale-value',
        'aria-label': 'Custom divisor of the scores', value: typeof cfg.scale === 'number' ? String(cfg.scale) : '1', hidden: scaleKind !== 'custom' });
      tb.push(el('div', { class: 'group' }, el('span', { class: 'label', text: 'scale' }), scale, custom));
      if (self) {
        const q = el('select', { 'data-control': 'query', 'aria-label': 'Query followed by the breakdown' },
          ...cfg.tokens.map((t, i) => el('option', { value: String(i), title: t, text: `${i}: ${clip(t)}` })));
        q.value = String(cfg.query);
        tb.push(el('div', { class: 'group' }, el('span', { class: 'label', text: 'query' }), q));
      }
      const dist = el('select', { 'data-control': 'dist', 'aria-label': 'Distribution' },
        el('option', { value: 'randint', text: 'randint(high)' }), el('option', { value: 'rand', text: 'rand' }),
        el('option', { value: 'randn', text: 'randn' }));
      dist.value = this._dist || 'randint';
      const high = el('input', { class: 'num', type: 'text', inputmode: 'numeric', 'data-control': 'high', 'aria-label': 'randint high', value: this._high || '3', hidden: dist.value !== 'randint' });
      const seed = el('input', { class: 'seed', type: 'text', inputmode: 'numeric', 'data-control': 'seed', 'aria-label': 'Random seed', value: this._seed || '42' });
      const targets = this._viz.randomTargets().map((t) => INPUT_TITLES[t] || t).join(', ');
      tb.push(el('div', { class: 'group' }, el('span', { class: 'label', text: 'seed' }), seed, dist, high,
        el('button', { type: 'button', 'data-action': 'randomize', title: `np.random.seed(seed), then one call per matrix: ${targets}`, text: 'Randomize' })));
      tb.push(el('div', { class: 'group' },
        el('button', { type: 'button', 'data-action': 'add-token', text: '+ token' }),
        el('button', { type: 'button', 'data-action': 'remove-token', text: '− token' }),
        el('button', { type: 'button', 'data-action': 'add-dim', text: '+ dim' }),
        el('button', { type: 'button', 'data-action': 'remove-dim', text: '− dim' })));
      const naive = el('input', { type: 'checkbox', 'data-control': 'naive' });
      naive.checked = this._showNaive;
      tb.push(el('div', { class: 'group' },
        el('label', {}, naive, ' naive softmax'),
        el('button', { type: 'button', 'data-action': 'reset', text: this.persist ? 'Reset to the document' : 'Reset', title: 'Back to the original numbers (forgets saved edits)' })));
      this._toolbar.replaceChildren(...tb);
      for (const b of this._toolbar.querySelectorAll('button')) b.addEventListener('click', () => this._action(b.dataset.action));
    }

    _buildMenu() {
      const svgView = el('select', { 'data-control': 'export-view', 'aria-label': 'Heatmap to export' });
      const refresh = () => {
        if (!this._viz) return;
        const keep = svgView.value;
        svgView.replaceChildren(el('option', { value: '', text: 'whole figure' }), ...this._viz.views().map((v) => el('option', { value: v, text: v })));
        svgView.value = this._viz.views().includes(keep) ? keep : '';
      };
      const button = (action, text, title) => el('button', { type: 'button', 'data-action': action, title, text, onclick: () => this._export(action, svgView.value) });
      const menu = el('details', { class: 'menu' }, el('summary', { text: 'Share & export' }),
        el('div', { class: 'group' },
          button('copy-link', 'Copy link', 'A link that restores this exact figure'),
          svgView,
          button('png', 'PNG', 'Download a PNG (device resolution)'),
          button('svg', 'SVG', 'Download an SVG of one heatmap'),
          button('json', 'JSON', 'Download the state as JSON'),
          button('numpy', 'Copy as NumPy', 'A Python snippet that recomputes these numbers with NumPy/SciPy')));
      menu.addEventListener('toggle', refresh);
      return menu;
    }

    async _export(action, view) {
      const name = (this.id || 'attention-viz') + (view ? `-${view}` : '');
      try {
        switch (action) {
          case 'copy-link': {
            const url = this.shareURL();
            history.replaceState(null, '', url);
            await this._copy(url, 'Link copied: it restores this exact figure.');
            return;
          }
          case 'png': return download(await this.toPNG(view || undefined), `${name}.png`);
          case 'svg': {
            if (!view) { this._status('Pick one heatmap to export as SVG.', true); return; }
            return download(new Blob([this.toSVG(view)], { type: 'image/svg+xml' }), `${name}.svg`);
          }
          case 'json': return download(new Blob([JSON.stringify(this.toJSON(), null, 1)], { type: 'application/json' }), `${name}.json`);
          case 'numpy': return this._copy(this.toNumPy(), 'NumPy code copied: paste it into a notebook to get these numbers.');
          default:
        }
      } catch (e) { this._fail(e.message); }
      return undefined;
    }

    async _copy(text, done) {
      try {
        await navigator.clipboard.writeText(text);
        this._status(done);
      } catch {
        // No clipboard (insecure context, permissions): show the text to copy by hand.
        const area = el('textarea', { rows: '4', cols: '60', readonly: true, 'aria-label': 'Text to copy' });
        area.value = text;
        this._statusEl.replaceChildren('Copy this by hand: ', area);
        area.select();
      }
    }

    _action(name) {
      const v = this._viz;
      const cfg = this._cfg();
      const n = cfg.tokens.length;
      switch (name) {
        case 'randomize': {
          const seed = parseCell(this._control('seed').value);
          const high = parseCell(this._control('high').value);
          const dist = this._control('dist').value;
          if (seed.error) return this._fail(`seed: ${seed.error}`);
          if (dist === 'randint' && high.error) return this._fail(`high: ${high.error}`);
          this._seed = String(seed.value); this._dist = dist; this._high = String(high.value ?? 3);
          this._apply(() => v.randomize(seed.value, dist, high.value ?? 3), { rebuild: true });
          this._lastRandom = { seed: seed.value, dist, high: high.value ?? 3 };
          return;
        }
        case 'add-token': return this._apply(() => v.insertToken(n, `${cfg.mechanism === 'self' ? 'word' : 'h'}_${n + 1}`), { rebuild: true });
        case 'remove-token': return this._apply(() => v.removeToken(n - 1), { rebuild: true });
        case 'add-dim': return this._apply(() => v.insertDim(this._dims(cfg)), { rebuild: true });
        case 'remove-dim': return this._apply(() => v.removeDim(this._dims(cfg) - 1), { rebuild: true });
        case 'reset':
          this._showNaive = false;
          return this._apply(() => api.setConfig(v, this._initial), { rebuild: true, initial: true });
        default:
      }
    }

    _dims(cfg) { return cfg.mechanism === 'self' ? cfg.embeddings[0].length : cfg.decoder_state.length; }

    _control(name) { return this._toolbar.querySelector(`[data-control="${name}"]`); }

    _buildInputs() {
      const cfg = this._cfg();
      const matrices = cfg.mechanism === 'self'
        ? ['embeddings', ...(cfg.w_q ? ['w_q', 'w_k', 'w_v'] : [])]
        : ['decoder_state', 'annotations'];
      const sets = matrices.map((name) => {
        const rows = matrixRows(cfg, name);
        const tokenRows = name === 'embeddings' || name === 'annotations';
        const [r0, c0] = this._windowAt(name, rows.length, rows[0].length);
        const r1 = Math.min(rows.length, r0 + WINDOW_ROWS);
        const c1 = Math.min(rows[0].length, c0 + WINDOW_COLS);
        const cols = [];
        for (let j = c0; j < c1; j++) cols.push(j);
        const head = el('tr', {}, el('th'), ...cols.map((j) => el('th', { scope: 'col', text: String(j) })));
        const body = rows.slice(r0, r1).map((row, k) => {
          const i = r0 + k;
          const label = tokenRows
            ? el('input', { class: 'token', type: 'text', 'data-token': String(i), value: cfg.tokens[i], 'aria-label': `name of token ${i}`, spellcheck: 'false' })
            : document.createTextNode(name === 'decoder_state' ? 'h' : String(i));
          return el('tr', {}, el('th', { scope: 'row' }, label), ...cols.map((j) => {
            const x = row[j];
            const key = `${name}:${i}:${j}`;
            const typed = this._invalid.get(key)?.text;
            const input = el('input', {
              class: 'cell', type: 'text', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false',
              'data-matrix': name, 'data-row': String(i), 'data-col': String(j),
              'aria-label': `${name} row ${i} column ${j}`, value: typed ?? String(x),
            });
            if (typed !== undefined) input.setAttribute('aria-invalid', 'true');
            return el('td', {}, input);
          }));
        });
        const move = (label, dr, dc, on) => el('button', { type: 'button', 'data-window': `${name}:${dr}:${dc}`, 'aria-label': label, text: on, disabled: (dr < 0 && r0 === 0) || (dr > 0 && r1 === rows.length) || (dc < 0 && c0 === 0) || (dc > 0 && c1 === rows[0].length) });
        const nav = [];
        if (rows.length > WINDOW_ROWS) nav.push(el('span', { text: `rows ${r0}–${r1 - 1} of ${rows.length}` }), move('previous rows', -1, 0, '▲'), move('next rows', 1, 0, '▼'));
        if (rows[0].length > WINDOW_COLS) nav.push(el('span', { text: `columns ${c0}–${c1 - 1} of ${rows[0].length}` }), move('previous columns', 0, -1, '◀'), move('next columns', 0, 1, '▶'));
        const shape = name === 'decoder_state' ? `${rows[0].length}` : `${rows.length} × ${rows[0].length}`;
        const msgId = `msg-${name}`;
        return el('fieldset', { class: 'matrix', 'data-name': name },
          el('legend', { text: `${INPUT_TITLES[name]} (${shape})` }),
          nav.length ? el('div', { class: 'window', 'data-window-of': name }, ...nav) : null,
          el('table', { class: 'grid' }, el('thead', {}, head), el('tbody', {}, ...body)),
          el('div', { class: 'cell-msg', id: msgId, role: 'alert' }));
      });
      // Invalid cells that no longer exist (shape edits) are forgotten; those outside the window are kept.
      for (const k of [...this._invalid.keys()]) {
        const [m, r, c] = k.split(':');
        const rows = matrixRows(cfg, m);
        if (!rows?.[Number(r)] || rows[Number(r)][Number(c)] === undefined) this._invalid.delete(k);
      }
      this._inputs.replaceChildren(...sets);
      for (const [key, { message }] of this._invalid) {
        const [m, r, c] = key.split(':');
        const cell = this._inputs.querySelector(`input.cell[data-matrix="${m}"][data-row="${r}"][data-col="${c}"]`);
        if (cell) this._showInvalid(cell, message);
      }
    }

    /** The top-left cell of a matrix's window of input cells, kept inside its shape. */
    _windowAt(name, rows, cols) {
      const [r, c] = this._windows.get(name) ?? [0, 0];
      const at = [Math.max(0, Math.min(r, rows - WINDOW_ROWS)), Math.max(0, Math.min(c, cols - WINDOW_COLS))];
      this._windows.set(name, at);
      return at;
    }

    /** Moves a window a page at a time (▲▼◀▶) and shows the cells there. */
    _moveWindow(button) {
      const [name, dr, dc] = button.dataset.window.split(':');
      const [r, c] = this._windows.get(name) ?? [0, 0];
      this._windows.set(name, [r + Number(dr) * WINDOW_ROWS, c + Number(dc) * WINDOW_COLS]);
      this._buildInputs();
      // Keep the keyboard where it was; at the last page that button is disabled: the window's first cell instead.
      (this._inputs.querySelector(`button[data-window="${button.dataset.window}"]:not([disabled])`)
        ?? this._inputs.querySelector(`input.cell[data-matrix="${name}"]`))?.focus();
    }

    /** The `views` attribute as a set, or null for "everything". */
    _panels() {
      const attr = this.getAttribute('views');
      if (!attr) return null;
      return new Set(attr.split(',').map((v) => v.trim()).filter(Boolean));
    }

    _stageViews() {
      const panels = this._panels();
      const all = this._viz.views();
      if (panels) {
        const unknown = [...panels].filter((p) => !all.includes(p) && !['inputs', 'breakdown', 'controls'].includes(p));
        if (unknown.length) this._status(`views: no panel ${unknown.map((u) => `"${u}"`).join(', ')} here; panels are ${all.join(', ')}, inputs, breakdown, controls`, true);
        return all.filter((v) => panels.has(v));
      }
      return all.filter((v) => (!INPUT_VIEWS.has(v) || !this.editable) && (this._showNaive || v !== 'naive_weights'));
    }

    _buildStages() {
      this._canvases.clear();
      this._sizes = new Map();
      const figs = this._stageViews().map((view) => {
        const canvas = el('canvas', { 'data-view': view, tabindex: '0', role: 'img' });
        if (['scores', 'scaled', 'weights', 'naive_weights'].includes(view) && this._isSelf()) canvas.classList.add('pickable');
        this._canvases.set(view, canvas);
        return el('figure', { class: 'stage', 'data-view': view }, canvas);
      });
      this._stages.replaceChildren(...figs);
      this._lesson.hidden = !this._showNaive;
      this._lesson.textContent = 'Naive softmax computes exp(x) / Σ exp(x) directly: exp overflows to infinity once a score passes about 709.78, '
        + 'and inf / inf is NaN (grey cells). The stable softmax subtracts the row maximum first, so every exponent is ≤ 0 and the weights stay finite.';
    }

    // ---- drawing --------------------------------------------------------------

    _scheduleRepaint() {
      if (this._frame) return;
      this._frame = requestAnimationFrame(() => { this._frame = 0; this._repaint({ silent: true }); });
    }

    /** Redraws every heatmap and the breakdown from the Rust state; fires `change`. */
    _repaint({ silent = false } = {}) {
      if (!this._viz) return;
      const dpr = window.devicePixelRatio || 1;
      const dark = this._dark?.matches ?? false;
      // The host's content box minus the .av padding (12 px a side; 8 px in narrow containers).
      const pad = (this._width ?? 600) <= 520 ? 16 : 24;
      const avail = Math.max(120, (this._width ?? 600) - pad - 2);
      const highlights = this._highlights();
      for (const [view, canvas] of this._canvases) {
        // Sizes are fixed between rebuilds, so a drag never reflows the page.
        if (!this._sizes.has(view)) this._sizes.set(view, Array.from(this._viz.preferredSize(view)));
        const [pw, ph] = this._sizes.get(view);
        const w = Math.min(pw, avail);
        const h = this.height ?? ph;
        const cw = Math.round(w * dpr);
        const ch = Math.round(h * dpr);
        // A canvas whose inputs are all unchanged (a hover that moves another view's
        // outline, a resize that keeps its size) is not redrawn.
        const key = `${this._version}|${cw}x${ch}|${dark}|${this.palette}|${highlights[view] || ''}`;
        if (canvas.dataset.painted === key) continue;
        if (canvas.width !== cw || canvas.height !== ch) {
          canvas.width = cw; canvas.height = ch;
          canvas.style.width = `${w}px`; canvas.style.height = `${h}px`;
        }
        api.callCore(() => this._viz.render(view, canvas, dpr, dark, this.palette ?? undefined, highlights[view] || [], true));
        canvas.dataset.painted = key;
        canvas.setAttribute('aria-label', `${view} heatmap`);
      }
      const breakdownKey = `${this._version}|${this._showNaive}`;
      if (silent && this._breakdownKey === breakdownKey) return;
      this._breakdownKey = breakdownKey;
      this._renderBreakdown();
      if (!silent) {
        const self = this;
        this.dispatchEvent(new CustomEvent('change', {
          detail: { get config() { return self.config; }, get trace() { return self.trace; } },
        }));
      }
    }

    /** Outlines: the selected query row, and what the hovered weight links together. */
    _highlights() {
      const out = {};
      const add = (view, r0, c0, r1, c1) => { (out[view] ||= []).push(r0, c0, r1, c1); };
      const cfg = this._cfg();
      const cols = (name) => this._shape(name)[1];
      if (cfg.mechanism === 'self') {
        const n = cfg.tokens.length;
        const qi = cfg.query;
        for (const v of ['scores', 'scaled', 'weights', 'naive_weights']) add(v, qi, 0, qi + 1, n);
        if (this._hover && ['scores', 'scaled', 'weights', 'naive_weights'].includes(this._hover.view)) {
          const [i, j] = this._hover.cell;
          for (const v of ['scores', 'scaled', 'weights', 'naive_weights']) add(v, i, j, i + 1, j + 1);
          add('q', i, 0, i + 1, cols('q'));
          add('k', j, 0, j + 1, cols('k'));
          add('v', j, 0, j + 1, cols('v'));
          add('context', i, 0, i + 1, cols('context'));
        }
      } else if (this._hover && ['scores', 'scaled', 'weights', 'naive_weights', 'annotations', 'applied'].includes(this._hover.view)) {
        const j = this._hover.cell[1];
        const d = this._shape('applied')[0];
        for (const v of ['scores', 'scaled', 'weights', 'naive_weights']) add(v, 0, j, 1, j + 1);
        add('annotations', 0, j, d, j + 1);
        add('applied', 0, j, d, j + 1);
      }
      return out;
    }

    _renderBreakdown() {
      const cfg = this._cfg();
      const MAX_ROWS = 32;
      const MAX_TERMS = 8;
      const vec = (v) => `[${v.slice(0, MAX_TERMS).map(fmt).join(', ')}${v.length > MAX_TERMS ? ', …' : ''}]`;
      const rows = [];
      let title;
      if (cfg.mechanism === 'self') {
        const i = cfg.query;
        const q = this._row('q', i);
        const scores = this._row('query.scores');
        const scaled = this._row('query.scaled');
        const weights = this._row('query.weights');
        title = `Single-query breakdown: query ${i} (${clip(cfg.tokens[i])}), q${sub(i)} = ${vec(q)}`;
        const naive = this._showNaive ? this._row('naive_weights', i) : null;
        const head = ['key', 'score', 'scaled', 'weight', ...(naive ? ['naive'] : []), `w_j·v_j`];
        rows.push(el('tr', {}, ...head.map((h) => el('th', { scope: 'col', text: h }))));
        scores.slice(0, MAX_ROWS).forEach((s, j) => {
          rows.push(el('tr', {},
            el('th', { scope: 'row', title: cfg.tokens[j], text: `${j}: ${clip(cfg.tokens[j])}` }),
            el('td', { class: 'formula', text: this._scoreFormula(i, j) }),
            el('td', { text: fmt(scaled[j]) }),
            el('td', { text: fmt(weights[j]) }),
            ...(naive ? [el('td', { class: Number.isNaN(naive[j]) ? 'nan' : '', text: fmt(naive[j]) })] : []),
            el('td', { text: vec(this._row('query.terms', j)) })));
        });
        if (scores.length > MAX_ROWS) rows.push(el('tr', {}, el('td', { colspan: String(head.length), text: `… ${scores.length - MAX_ROWS} more keys` })));
        rows.push(el('tr', { class: 'sum' }, el('th', { scope: 'row', text: 'context' }),
          el('td', { class: 'formula', colspan: String(head.length - 2), text: `z${sub(i)} = Σ_j w_j·v_j` }), el('td', { text: vec(this._row('query.context')) })));
      } else {
        title = `Breakdown: decoder state h = ${vec(cfg.decoder_state)}`;
        const naive = this._showNaive ? this._row('naive_weights') : null;
        const m = this._shape('applied')[1];
        const applied = this._field('applied').data;
        const head = ['annotation', 'score', 'weight', ...(naive ? ['naive'] : []), 'w_j·a_j'];
        rows.push(el('tr', {}, ...head.map((h) => el('th', { scope: 'col', text: h }))));
        const weights = this._row('weights');
        weights.slice(0, MAX_ROWS).forEach((w, j) => {
          const column = Array.from({ length: applied.length / m }, (_, r) => applied[r * m + j]);
          rows.push(el('tr', {},
            el('th', { scope: 'row', title: cfg.tokens[j], text: `${j}: ${clip(cfg.tokens[j])}` }),
            el('td', { class: 'formula', text: this._scoreFormula(0, j) }),
            el('td', { text: fmt(w) }),
            ...(naive ? [el('td', { class: Number.isNaN(naive[j]) ? 'nan' : '', text: fmt(naive[j]) })] : []),
            el('td', { text: vec(column) })));
        });
        if (weights.length > MAX_ROWS) rows.push(el('tr', {}, el('td', { colspan: String(head.length), text: `… ${weights.length - MAX_ROWS} more annotations` })));
        rows.push(el('tr', { class: 'sum' }, el('th', { scope: 'row', text: 'context' }),
          el('td', { class: 'formula', colspan: String(head.length - 2), text: 'c = Σ_j w_j·a_j' }), el('td', { text: vec(this._row('context')) })));
      }
      this._breakdown.replaceChildren(el('summary', { text: title }), el('div', { class: 'wrap' }, el('table', {}, el('tbody', {}, ...rows))));
    }

    /** `q₀·k₂ = 2·2 + 0·4 + 2·3 = 10` (self) or `h·a₂ = …` (cross). */
    _scoreFormula(i, j) {
      const cfg = this._cfg();
      const MAX_TERMS = 6;
      let a, b, name;
      if (cfg.mechanism === 'self') { a = this._row('q', i); b = this._row('k', j); name = `q${sub(i)}·k${sub(j)}`; } else {
        a = cfg.decoder_state; b = cfg.annotations[j]; name = `h·a${sub(j)}`;
      }
      const terms = a.slice(0, MAX_TERMS).map((x, k) => `${fmt(x)}·${fmt(b[k])}`).join(' + ');
      const more = a.length > MAX_TERMS ? ` + … (${a.length} terms)` : '';
      const score = cfg.mechanism === 'self' ? this._at('scores', i, j) : this._at('scores', 0, j);
      return `${name} = ${terms}${more} = ${fmt(score)}`;
    }

    // ---- events ---------------------------------------------------------------

    _onInput(e) {
      const cell = e.target.closest?.('input.cell');
      if (cell) return this._setCell(cell, cell.value);
      const c = e.target.dataset?.control;
      if (c === 'scale-value') {
        const p = parseCell(e.target.value);
        if (p.error) return this._fail(`scale: ${p.error}`);
        this._apply(() => this._viz.setScale('custom', p.value));
      }
    }

    _onChange(e) {
      const t = e.target;
      if (t.dataset.token !== undefined) {
        if (t.value.trim() === '') { t.value = this._cfg().tokens[Number(t.dataset.token)]; return this._fail('A token needs a name; the old one is kept.'); }
        return this._apply(() => this._viz.renameToken(Number(t.dataset.token), t.value), { rebuild: true });
      }
      switch (t.dataset.control) {
        case 'scale': {
          this._control('scale-value').hidden = t.value !== 'custom';
          const p = parseCell(this._control('scale-value').value);
          return this._apply(() => this._viz.setScale(t.value, p.value ?? 1), { rebuild: false });
        }
        case 'query': return this._apply(() => this._viz.setQuery(Number(t.value)));
        case 'dist': this._control('high').hidden = t.value !== 'randint'; return undefined;
        case 'naive':
          this._showNaive = t.checked;
          this._buildStages();
          this._scheduleSave();
          return this._repaint({ silent: true });
        default: return undefined;
      }
    }

    /** The cell next to `cell`; past the edge of the window of cells, the window first moves one row or column. */
    _neighbour(cell, dr, dc) {
      const { matrix } = cell.dataset;
      const [r, c] = [Number(cell.dataset.row) + dr, Number(cell.dataset.col) + dc];
      const find = () => this.shadowRoot.querySelector(`input.cell[data-matrix="${matrix}"][data-row="${r}"][data-col="${c}"]`);
      const cfg = this._cfg();
      const rows = matrixRows(cfg, matrix);
      if (find() || !rows?.[r] || rows[r][c] === undefined) return find();
      const [r0, c0] = this._windows.get(matrix) ?? [0, 0];
      const shift = (at, x, size) => (x < at ? x : x >= at + size ? x - size + 1 : at);
      this._windows.set(matrix, [shift(r0, r, WINDOW_ROWS), shift(c0, c, WINDOW_COLS)]);
      this._buildInputs();
      return find();
    }

    /** 1 for a matrix of whole numbers, else 0.01 (read from the valid state, not from what is typed). */
    _step(cell) {
      const cfg = this._cfg();
      const m = cell.dataset.matrix;
      const rows = matrixRows(cfg, m);
      return rows.every((r) => r.every((x) => Number.isInteger(x))) ? 1 : 0.01;
    }

    _nudge(cell, steps, fine) {
      const p = parseCell(cell.value);
      if (p.error) return;
      const step = this._step(cell) * (fine ? 0.1 : 1);
      const decimals = Math.max(0, -Math.floor(Math.log10(step)));
      cell.value = String(Number((p.value + steps * step).toFixed(decimals)));
      this._setCell(cell, cell.value);
    }

    _onKey(e) {
      const cell = e.target.closest?.('input.cell');
      if (cell) {
        let target = null;
        if ((e.key === 'ArrowUp' || e.key === 'ArrowDown') && (e.altKey || e.metaKey)) {
          e.preventDefault();
          return this._nudge(cell, e.key === 'ArrowUp' ? 1 : -1, e.shiftKey);
        }
        if (e.key === 'ArrowUp') target = this._neighbour(cell, -1, 0);
        else if (e.key === 'ArrowDown' || (e.key === 'Enter' && !e.shiftKey)) target = this._neighbour(cell, 1, 0);
        else if (e.key === 'Enter' && e.shiftKey) target = this._neighbour(cell, -1, 0);
        else if (e.key === 'ArrowLeft' && cell.selectionStart === 0 && cell.selectionEnd === 0) target = this._neighbour(cell, 0, -1);
        else if (e.key === 'ArrowRight' && cell.selectionStart === cell.value.length) target = this._neighbour(cell, 0, 1);
        else if (e.key === 'Escape') { cell.value = String(this._currentValue(cell)); this._setCell(cell, cell.value); return undefined; }
        if (target || e.key === 'Enter' || e.key.startsWith('Arrow')) e.preventDefault();
        if (target) { target.focus(); target.select(); }
        return undefined;
      }
      const canvas = e.target.closest?.('canvas.pickable');
      if (canvas && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) {
        e.preventDefault();
        const cfg = this._cfg();
        const q = Math.min(cfg.tokens.length - 1, Math.max(0, cfg.query + (e.key === 'ArrowUp' ? -1 : 1)));
        this._apply(() => this._viz.setQuery(q), { rebuild: false });
        this._control('query').value = String(q);
        canvas.focus();
      }
      return undefined;
    }

    _currentValue(cell) {
      const cfg = this._cfg();
      const { matrix, row, col } = cell.dataset;
      return matrix === 'decoder_state' ? cfg.decoder_state[Number(col)] : cfg[matrix][Number(row)][Number(col)];
    }

    _onPointerDown(e) {
      const cell = e.target.closest?.('input.cell');
      if (cell && e.button === 0) {
        const p = parseCell(cell.value);
        this._scrub = { cell, x0: e.clientX, v0: p.error ? this._currentValue(cell) : p.value, id: e.pointerId, active: false };
        return;
      }
      const canvas = e.target.closest?.('canvas.pickable');
      if (canvas) {
        const hit = this._hit(canvas, e);
        if (hit) {
          this._apply(() => this._viz.setQuery(hit[0]));
          const q = this._control('query');
          if (q) q.value = String(hit[0]);
        }
      }
    }

    _onPointerMove(e) {
      const s = this._scrub;
      if (s && e.pointerId === s.id) {
        const dx = e.clientX - s.x0;
        if (!s.active && Math.abs(dx) > 4) {
          s.active = true;
          s.cell.setPointerCapture?.(e.pointerId);
          s.cell.classList.add('scrubbing');
          s.step = this._step(s.cell);
        }
        if (s.active) {
          e.preventDefault();
          const step = s.step * (e.shiftKey ? 0.1 : 1);
          const decimals = Math.max(0, -Math.floor(Math.log10(step)));
          const value = Number((s.v0 + Math.round(dx / 6) * step).toFixed(decimals));
          if (String(value) !== s.cell.value) {
            s.cell.value = String(value);
            this._setCell(s.cell, s.cell.value);
          }
        }
        return;
      }
      const canvas = e.target.closest?.('canvas');
      if (canvas && canvas.dataset.view) {
        const hit = this._hit(canvas, e);
        this._setHover(hit ? { view: canvas.dataset.view, cell: hit } : null, e);
      }
    }

    _onPointerUp(e) {
      const s = this._scrub;
      if (!s || e.pointerId !== s.id) return;
      this._scrub = null;
      if (s.active) {
        s.cell.classList.remove('scrubbing');
        s.cell.releasePointerCapture?.(e.pointerId);
        e.preventDefault();
      }
    }

    _onWheel(e) {
      const cell = e.target.closest?.('input.cell');
      if (!cell || !(e.altKey || e.metaKey)) return;
      e.preventDefault();
      this._nudge(cell, e.deltaY < 0 ? 1 : -1, e.shiftKey);
    }

    /** Pasting rows of numbers (tabs, commas or spaces; one row a line) fills cells from the target down and right. */
    _onPaste(e) {
      const cell = e.target.closest?.('input.cell');
      const text = e.clipboardData?.getData('text') ?? '';
      if (!cell || !/[\t,\n ]/.test(text.trim())) return;
      e.preventDefault();
      const rows = text.trim().split(/\r?\n/).map((line) => line.trim().replace(/^\[|\]$/g, '').split(/[\t, ]+/).filter((x) => x !== ''));
      if (!rows.some((r) => r.length)) return this._markInvalid(cell, 'the pasted text holds no numbers; nothing was pasted');
      const { matrix } = cell.dataset;
      const r0 = Number(cell.dataset.row);
      const c0 = Number(cell.dataset.col);
      const cfg = this.config;
      const target = matrixRows(cfg, matrix);
      for (const [i, row] of rows.entries()) {
        for (const [j, s] of row.entries()) {
          const p = parseCell(s.replace(/[\[\]]/g, ''));
          if (p.error) return this._markInvalid(cell, `pasted value row ${i}, column ${j}: ${p.error}; nothing was pasted`);
          if (!target[r0 + i] || target[r0 + i][c0 + j] === undefined) {
            return this._markInvalid(cell, `the pasted block (${rows.length} × ${rows.reduce((m, r) => Math.max(m, r.length), 0)}) does not fit in ${matrix} from here; nothing was pasted`);
          }
          target[r0 + i][c0 + j] = p.value;
        }
      }
      if (matrix === 'decoder_state') cfg.decoder_state = target[0];
      this._apply(() => api.setConfig(this._viz, cfg), { rebuild: true });
      return undefined;
    }

    _hit(canvas, e) {
      const rect = canvas.getBoundingClientRect();
      const sx = canvas.width / rect.width;
      const sy = canvas.height / rect.height;
      const dpr = canvas.width / (parseFloat(canvas.style.width) || rect.width);
      const hit = this._viz.cellAt(canvas.dataset.view, canvas.width, canvas.height, dpr, (e.clientX - rect.left) * sx, (e.clientY - rect.top) * sy);
      return hit ? [hit[0], hit[1]] : null;
    }

    _setHover(hover, e) {
      const same = JSON.stringify(hover) === JSON.stringify(this._hover);
      this._hover = hover;
      if (!hover) { this._tip.hidden = true; } else if (e) {
        this._tip.textContent = this._tipText(hover);
        this._tip.hidden = false;
        this._tip.style.left = `${Math.min(e.clientX + 12, window.innerWidth - 260)}px`;
        this._tip.style.top = `${e.clientY + 14}px`;
      }
      if (!same) this._scheduleRepaint();
    }

    _tipText({ view, cell: [i, j] }) {
      const cfg = this._cfg();
      const value = (() => {
        if (view === 'decoder_state') return cfg.decoder_state[i];
        if (view === 'annotations') return cfg.annotations[j][i];
        if (INPUT_VIEWS.has(view)) return cfg[view][i][j];
        if (!this._field(view)) return NaN;
        // Cross-attention vectors: the context is drawn as a column, the others as a row.
        return this._at(view, i, view === 'context' && cfg.mechanism === 'cross' ? null : j);
      })();
      let text = `${view}[${i}][${j}] = ${Number.isNaN(value) ? 'nan' : String(value)}`;
      if (view === 'scores') text += `\n${this._scoreFormula(cfg.mechanism === 'self' ? i : 0, j)}`;
      if (view === 'weights' && cfg.mechanism === 'self') text += `\nquery ${clip(cfg.tokens[i])} → key ${clip(cfg.tokens[j])} (click: follow query ${i})`;
      return text;
    }
  }

  customElements.define('attention-viz', AttentionViz);
}
