// The <attention-viz> custom element: one attention computation whose every
// input is editable and whose every stage is a live heatmap.
//
// JS here only wires the page: each edit goes to the Rust `Viz` (which owns
// the state and validates it), and on success the canvases whose drawing
// changed are repainted by Rust in the same call stack — the same frame —
// before `change` fires. A rejected edit changes nothing in Rust; the cell is
// marked and the last valid figure stays on screen.
//
// This module owns the element's lifecycle, its public API, loading, and the
// one mutation path (_apply). Each part of the figure is a class in its own
// module that owns its DOM and events (toolbar.js, inputs.js, figures.js,
// breakdown.js, variants.js, …). A part is given a Port (port.js), never the element: it reads `port.state`
// (state.js: the snapshot's facts and parts' models — the element keeps no config —, trace fields, views' sizes and
// keys, and the look), changes the figure by `port.dispatch` (→ _apply: a command for `Viz.edit` (src/web/command.rs:
// {value: [matrix, row, col, x]}, {query: i}, {fields: {…}}, {insertHead: true}…), one call with its snapshot; or a
// mutation making `port.edit`s, its snapshot asked once, on first use) → repaint → `change`; asks the core by
// `port.ask` (src/web/ask.rs: hit-testing, SVG, text, export) and draws by `port.draw`; and reaches another part
// only by name, `port.tell`, through the one table WIRING below. The element's own services — share.js, persist.js,
// large.js, theme.js — act for the element as a whole and take it whole.
// The parts: _toolbar, _variants (heads, mask, temperature, scoring: variants.js; `modern`: the position, kv and
// window panels, modern.js), _inputs, _importer, _figures, _breakdown, _steps, _peek, _model (a model's weights,
// mechanism "weights": model.js, imported when a figure first shows one: until then a stand-in, parts.js),
// _steppers (the decode and flash panels: steppers.js; their canvases' views join the snapshot request).
//
// The snapshot contract. The core answers an edit with everything the parts show that it may have changed, so a
// typed digit is one `Viz.edit` and one `Viz.draw` per changed canvas (tests/e2e/calls.test.mjs counts them):
//   request (_request)   views: the canvases' views (figures.js, the mask panel's, the steppers'); fmt; parts: what
//                        each built part shows (its `asked()`), and the grids' windows (inputs.js `gridWindows`).
//                        It depends only on the parts' structure.
//   snapshot             {version, request, views: Map view → {key, size: [w, h] natural CSS size for fmt, status:
//                        what the last edit changed in it, in the core's words}, shapes:
//                        every trace field's shape, used: the panels the config uses, parts: the facts and each
//                        asked part's model (src/shown.rs)}; an edit's has no sizes (its canvases keep theirs until
//                        it settles), `_snapshot({sizes: true})` asks the core's `snapshot`, which measures; the
//                        parts read it through `_state`. A view's `key` changes
//                        exactly when what it draws does (its numbers, labels, title): figures.js and variants.js
//                        repaint a canvas only when its key, size, theme, palette, fmt or outlines changed — the one
//                        place that decides a repaint; the settle timer measures once (one asked `snapshot`) and
//                        describes only the views whose key or status changed (reader.js: one `describeViews`).
//
// Lifecycle: an element taken out of the page keeps its Viz and edits (it may be put back, even much later) and
// holds no window listener meanwhile; the Viz is freed by the garbage collector with the element (wasm-bindgen's
// FinalizationRegistry). Links and saved edits: the reader's newest intent wins, never silently (www/embed.html#share).
import { el, rememberFocus } from './dom.js';
import { STYLE, sharedSheet } from './style.js';
import { queueLoad } from './loads.js';
import { Share } from './share.js';
import { Persist, shortHash } from './persist.js';
import { Toolbar } from './toolbar.js';
import { Variants } from './variants.js';
import { Inputs } from './inputs.js';
import { Figures } from './figures.js';
import { Breakdown } from './breakdown.js';
import { ThemeWatch } from './theme.js';
import { Steps } from './steps.js';
import { loaded, loadPart, idleModel, idleSteppers, PART_NAMES } from './parts.js';
import { Peek } from './peek.js';
import { fromText85 } from '../text85.js';
import { Importer } from './importer.js';
import { Large } from './large.js';
import { State } from './state.js';
import { Port } from './port.js';
import { MIN_HEIGHT, MAX_HEIGHT } from './facts.js';
import { call } from '../core.js';

export { parseCell } from './cells.js';

/** The first figure restored from a share link is scrolled into view: the reader followed the link to see it. */
let revealed = false;

/** What a figure showing the reader's saved edits says (with its Reset beside it). */
const SAVED_NOTICE = 'Showing your saved edits, not the document\'s numbers.';

/** A state from toJSON() (`{v, config, …}`) rather than a config; throws when the value cannot be read. */
function isState(value) {
  return Boolean(value && typeof value === 'object' && 'v' in value && 'config' in value);
}

/**
 * A config as Python's package writes it (python/attention_viz/_figure.py `packed`): a big numeric field may be
 * `{dtype: 'float64' | 'float32', shape, text85, deflate?}`, its values' little-endian bytes (with `deflate`: grouped
 * by byte place, then raw-deflated), read before anything reads the config into a `Shaped` (www/attention-viz.js):
 * its values in row-major order, which JSON writes as the nested arrays the field's JSON would hold and the core takes
 * as they are. float64: the numbers bit for bit; float32: each value's shortest decimal (the core's rule,
 * `shortestDecimals`, which Python's package applies too; Python sends float32 only when
 * every value of the JSON is one), so either way the figure gets the numbers the JSON held. Any other value is the
 * core's to judge, as it is.
 */
function unpack(config, check, { inflateRaw, isPacked, Shaped, shortestDecimals }) {
  if (!config || typeof config !== 'object' || Array.isArray(config)) return config;
  // The core's limits from the declared shapes first: an over-limit stack is refused before it is inflated and built.
  check?.(config);
  const out = { ...config };
  for (const [key, v] of Object.entries(config)) {
    // text85 (www/text85.js), or the base64 of outputs saved before it.
    const text = v && typeof v === 'object' ? v.text85 ?? v.base64 : undefined;
    if (typeof text !== 'string' || !Array.isArray(v.shape)) continue;
    const size = { float64: 8, float32: 4 }[v.dtype];
    if (!size) continue;
    // The packed form's own rule (www/attention-viz.js isPacked): a shape of whole numbers; [2.5, 4] would match 10
    // values' bytes and reach the core as [2, 4].
    if (!isPacked(v)) throw new Error(`${key}: its shape [${v.shape}] is not a list of whole numbers`);
    let bytes = typeof v.text85 === 'string' ? fromText85(text, key) : fromBase64(text);
    const count = v.shape.reduce((a, b) => a * b, 1);
    if (v.deflate === true) {
      let grouped;
      // fflate's own words ("invalid block type") say nothing of where: the field first.
      try { grouped = inflateRaw(bytes); } catch (e) { throw new Error(`${key}: its deflated bytes do not inflate: ${e.message}`); }
      if (grouped.length !== count * size) throw new Error(`${key}: ${grouped.length / size} values for shape [${v.shape}]`);
      bytes = ungroup(grouped, size, count);
    }
    if (count * size !== bytes.length) throw new Error(`${key}: ${bytes.length / size} values for shape [${v.shape}]`);
    const values = littleEndianFloats(bytes, size);
    // No nested arrays: the values go to the core as they are (`Shaped`, www/attention-viz.js).
    out[key] = new Shaped(v.shape.slice(), size === 8 ? values : shortestDecimals(values));
  }
  return out;
}

/** Bytes grouped by their place in each value (every value's byte 0, then every byte 1…) back in value order. Written
 * in order, a value at a time, reading the `size` groups side by side: a byte place at a time (a strided write across
 * the whole array per place) took 190 ms for a 12 × 12 × 128 float64 stack. */
function ungroup(grouped, size, count) {
  const bytes = new Uint8Array(grouped.length);
  if (size === 8) {
    const [g0, g1, g2, g3, g4, g5, g6, g7] = Array.from({ length: 8 }, (_, k) => grouped.subarray(k * count, (k + 1) * count));
    for (let i = 0, o = 0; i < count; i++, o += 8) {
      bytes[o] = g0[i]; bytes[o + 1] = g1[i]; bytes[o + 2] = g2[i]; bytes[o + 3] = g3[i];
      bytes[o + 4] = g4[i]; bytes[o + 5] = g5[i]; bytes[o + 6] = g6[i]; bytes[o + 7] = g7[i];
    }
  } else {
    const [g0, g1, g2, g3] = Array.from({ length: 4 }, (_, k) => grouped.subarray(k * count, (k + 1) * count));
    for (let i = 0, o = 0; i < count; i++, o += 4) {
      bytes[o] = g0[i]; bytes[o + 1] = g1[i]; bytes[o + 2] = g2[i]; bytes[o + 3] = g3[i];
    }
  }
  return bytes;
}

/** Base64 text's bytes: the platform's decoder where it has one, else atob's characters copied in a loop. */
function fromBase64(text) {
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(text);
  const chars = atob(text);
  const bytes = new Uint8Array(chars.length);
  for (let i = 0; i < chars.length; i++) bytes[i] = chars.charCodeAt(i);
  return bytes;
}

/** Little-endian float64 or float32 bytes as a typed array (a copy read through a DataView on a big-endian host). */
function littleEndianFloats(bytes, size) {
  const Type = size === 8 ? Float64Array : Float32Array;
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 && bytes.byteOffset % size === 0) {
    return new Type(bytes.buffer, bytes.byteOffset, bytes.length / size);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const out = new Type(bytes.length / size);
  for (let i = 0; i < out.length; i++) out[i] = size === 8 ? view.getFloat64(8 * i, true) : view.getFloat32(4 * i, true);
  return out;
}

/** The short hash of an author's config in the storage key (`persist`); '0' for a value JSON cannot write. */
function configHash(config) {
  try { return shortHash(JSON.stringify(config)); } catch { return '0'; }
}

/** Thrown by the methods that read the figure before it is loaded (or once it is gone). */
function notLoaded() { return new Error('the figure is not loaded yet'); }

/**
 * A trained model's config (`mechanism: "model"`, `{model, input}`) as the figure shows it: the weights config
 * of its forward pass (`attention`: every layer × head's weights, `tokens`: the input's names) and, for the caption,
 * the model's name and its prediction as token names. The Rust Viz knows no models, so `el.config` afterwards returns
 * this weights config (the host's `data-model` attribute names the model). Any other config: `{config}` as given.
 */
function fromModel(api, config) {
  let isModel = false;
  try { isModel = config !== null && typeof config === 'object' && config.mechanism === 'model'; } catch { /* the core reports a throwing config */ }
  if (!isModel) return { config };
  if (typeof api.compute !== 'function') throw new Error('mechanism "model": this build has no compute() for trained models');
  const trace = api.compute(config);
  const model = typeof config.model === 'string' ? api.models?.[config.model] : config.model;
  const names = Array.isArray(model?.tokens) ? model.tokens : null;
  return {
    config: { mechanism: 'weights', attention: trace.layers.map((l) => l.heads.map((h) => h.weights)), tokens: trace.tokens },
    model: { name: typeof config.model === 'string' ? config.model : (model?.task ?? 'model'), prediction: trace.prediction.map((id) => names?.[id] ?? String(id)) },
  };
}

/**
 * A promise of the shipped models when `config` names one (`mechanism: "model"`, `model: "reversal"`) and they are not
 * loaded yet: the figure waits for it (only such a figure fetches the models' file). Else null.
 */
function modelsNeeded(api, config) {
  try {
    if (config === null || typeof config !== 'object' || config.mechanism !== 'model' || typeof config.model !== 'string') return null;
  } catch { return null; } // a throwing config is the core's to report
  return typeof api.loadModels === 'function' && !api.modelsLoaded() ? api.loadModels() : null;
}

/** The import a config waits for before it is shown (a model's weights, or a shipped model's: fromModel), or null. */
function partsNeeded(config) {
  if (loaded.model && api.wholeLoaded()) return null;
  let weights = false;
  try {
    const c = isState(config) ? config.config : config; // a state from toJSON() holds its config
    weights = c !== null && typeof c === 'object' && (c.mechanism === 'weights' || c.mechanism === 'model');
  } catch { /* the core reports a throwing config */ }
  return weights ? Promise.all([loadPart('model'), api.loadWhole()]) : null;
}

/** The parts whose questions only the whole core answers (the model grid's, the steppers'): loaded with it. */
const WHOLE_PARTS = ['model', 'steppers'];
/** Whether part `name` is here to be used: imported, and the whole core loaded where it needs it. */
const partReady = (name) => Boolean(loaded[name]) && (!WHOLE_PARTS.includes(name) || api.wholeLoaded());

/** What the element says when a part's module could not be loaded. */
const partFailed = (e, name = 'model') => `This figure's ${PART_NAMES[name]} could not be loaded (${e?.message ?? e}): reload the page to try again.`;

function revealShared(host) {
  if (revealed) return;
  revealed = true;
  // After the figure has its size (figures are built and painted in this task), so the scroll lands on it.
  requestAnimationFrame(() => host.scrollIntoView({ block: 'start' }));
}

/** What the parts ask of each other (port.js `tell`), with the element (`h`) in between. */
const WIRING = {
  // toolbar: the naive-softmax lesson shown or hidden, a view choice kept with the saved edits (not an edit of the
  // core's state); `quiet`: only the flag, for Reset, which rebuilds everything after.
  naive(h, on, { quiet = false } = {}) {
    h._showNaive = on;
    if (quiet) return;
    h._figures.build();
    h._persist.schedule();
    h._repaint({ silent: true });
  },
  showQuery: (h, q) => h._toolbar.showQuery(q), // figures: a query picked on a heatmap, shown in the toolbar's menu
  scrubStart: (h) => h._figures.scrubStart(), // inputs: a drag on a cell starts (palettes held until the release)
  scrubEnd: (h) => h._figures.scrubEnd(),
  decorateGrids: (h, sets) => h._importer?.decorate(sets), // inputs: each grid built gets its Import… button
  // inputs: a whole array pasted into a grid's first cell, imported (true) when the importer is there
  importWhole(h, matrix, rows, options) {
    if (!h._importer) return false;
    h._importer.replace(matrix, rows, options);
    return true;
  },
  inputsRoot: (h) => h._inputs.root, // importer: the grids it decorates and takes files on
  figuresRoot: (h) => h._figures.root, // model: the heatmaps' box (its line view goes beside "attention")
  modelShape: (h) => h._model.shape, // figures: a model's stack [layers, heads, n, m], or null
  modelToken: (h) => h._model.token(), // figures: the token the model view points at (its row outlined)
  // figures: the tables that follow the picked head, named in the heads' caption
  tablesShown: (h) => ({ breakdown: !h._breakdown.root.hidden, steps: h._steps.wanted(), entropies: Boolean(h._variants.entropyEl) }),
  // model: the heatmap cell [i, j] under the pointer or the keyboard's cursor on `view`, or null
  pointedCell(h, view) {
    const f = h._figures;
    const at = f.hover?.view === view ? f.hover : f.reader.cursor?.view === view ? f.reader.cursor : null;
    return at?.cell ?? null;
  },
  scheduleRepaint: (h) => h._figures.scheduleRepaint(), // model: the token's row outlined on the heatmap too
  frameOf: (h, canvas) => h._figures.frameOf(canvas), // model: a heatmap canvas's frame (its dpr)
  canvas: (h, view) => h._figures.drawn(view), // peek: the result heatmap it mirrors on a phone (drawn even off screen)
  overlay: (h, view) => h._figures.overlays.get(view), // peek: that heatmap's outlines
};

/**
 * The element's states as CSS reads them, `:host(:state(name))` (style.js): its ElementInternals' CustomStateSet; in
 * a browser without one (Firefox before 126, Safari before 17.4) the attribute `data-av-name` instead.
 */
function customStates(host) {
  let states = null;
  try {
    states = host.attachInternals().states;
    states.add('probe');
    states.delete('probe');
  } catch { states = null; }
  return {
    set(name, on) {
      if (states) { if (on) states.add(name); else states.delete(name); } else host.toggleAttribute(`data-av-${name}`, on);
    },
  };
}

/** The core's API the element calls (www/attention-viz.js's internal one), given by `defineElement`. */
let api = null;
/** The public properties with a setter, read from the class once it is defined. */
let SETTERS = [];
/** HTMLElement where there is a DOM; elsewhere (Node, a server render importing the package) a stand-in, so that
 * importing the module defines nothing and throws nothing. */
const Base = globalThis.HTMLElement ?? class {};

class AttentionViz extends Base {
    static get observedAttributes() { return ['preset', 'config', 'views', 'editable', 'height', 'palette', 'persist', 'fmt', 'contrast', 'theme']; }

    constructor() {
      super();
      this._viz = null;
      /** Every edit of `_viz` since it was made, in order, as `Viz.edit` took them, while it is a figure core's
       * figure that may move (`_toWhole` replays them); else null. */
      this._log = null;
      this._traceCache = null;
      this._showNaive = false;
      this._initial = null;
      this._built = false;
      this._printScale = 1;
      this._persist = new Persist(this);
      this._state = new State(this); // what the parts read (state.js)
      this.attachShadow({ mode: 'open' });
      // The element's own states (dark, narrow) are custom states, `:state(dark)`, never attributes of its own node:
      // a framework hydrating the page (React, Next) compares the node's attributes with its server HTML.
      this._states = customStates(this);
    }

    connectedCallback() {
      // Properties set before the element was defined (a framework hydrating before this module ran) shadow our
      // accessors: re-set each through its setter, every public one (the usual _upgradeProperty).
      for (const prop of SETTERS) {
        if (Object.prototype.hasOwnProperty.call(this, prop)) {
          const value = this[prop];
          delete this[prop];
          this[prop] = value;
        }
      }
      if (!this._theme) {
        this._theme = new ThemeWatch(this, (dark) => this._states.set('dark', dark), () => this._repaint({ silent: true }));
        // The width is read here, not in _repaint: reading layout during an edit would force a reflow of every input.
        this._resize = new ResizeObserver((entries) => {
          const width = entries[entries.length - 1].contentRect.width;
          if (width !== this._width) { this._width = width; this._figures?.scheduleRepaint(); }
          // The stylesheet's narrow layout (style.js), as `@container (max-width: 520px)` on the host was.
          this._states.set('narrow', width <= 520);
          this._breakdown?.place(width);
        });
      }
      this._theme.start();
      if (!this._onPrint) {
        // beforeprint covers the browser's print dialog; the media query, print emulation (PDF tools, tests).
        // Both repaint at once, synchronously: the page is laid out for paper right after these handlers.
        this._print = window.matchMedia('print');
        this._onPrint = (e) => this._setPrinting(e.type === 'beforeprint' || (e.type === 'change' && e.matches));
      }
      this._print.addEventListener('change', this._onPrint);
      window.addEventListener('beforeprint', this._onPrint);
      window.addEventListener('afterprint', this._onPrint);
      this._resize.observe(this);
      // Removed in disconnectedCallback: a window listener would keep a removed element (and its WASM state) alive.
      this._onHide ||= () => this._persist.flush();
      window.addEventListener('pagehide', this._onHide);
      this._persist.start();
      if (this._built) return; // moved, or taken out and put back (frameworks, notebooks): the figure and its edits are kept
      this._built = true;
      this._skeleton();
      // A figure that restores a state (a share link, saved edits) needs the whole core at once (src/share.rs);
      // any other starts in the figure core and moves when a part needs the whole one (`_toWhole`).
      const core = this.persist || location.hash.includes('=') ? api.loadWhole() : api.ready;
      core.then(() => queueLoad(() => this._built && this._load(), this), (e) => { this._picture(true); this._status(`Could not load the WebAssembly core: ${e.message}`, true); });
      api.wholeArrived.then(() => this._toWhole());
    }

    disconnectedCallback() {
      this._resize?.disconnect();
      this._theme?.stop();
      this._print?.removeEventListener('change', this._onPrint);
      window.removeEventListener('beforeprint', this._onPrint);
      window.removeEventListener('afterprint', this._onPrint);
      window.removeEventListener('pagehide', this._onHide);
      this._persist.stop();
      // The element may come back at any time (frameworks and notebooks re-render by taking elements out and
      // putting them back, sometimes much later): the figure and the reader's edits are kept as they are. An edit
      // still waiting to be saved is saved now. Nothing outside the element refers to it any more, so once the page
      // drops it too, the garbage collector frees the Rust Viz (wasm-bindgen's FinalizationRegistry): no timer frees
      // the state of an element that may still be put back.
      this._persist.flush();
    }

    attributeChangedCallback(name, old, value) {
      if (old === value) return;
      // A large figure's config (large.js) is its own: these change what it draws, or (editable) which path takes it.
      if ((name === 'editable' || name === 'palette' || name === 'views') && this._large?.retake(name)) return;
      if (!this._viz) return;
      if (name === 'preset' || name === 'config') this._load();
      else if (name === 'theme') this._theme.refresh();
      else if (name === 'fmt') this._setFmt(value);
      else if (name !== 'persist') this._rebuild();
    }

    // ---- public API -------------------------------------------------------

    /** The current config (a plain object with every default filled in). */
    get config() { return this._large?.shown ? this._large.config : this._viz ? JSON.parse(this._ask({ kind: 'config' })) : null; }

    /** Replaces the config; an invalid one fires `error` and keeps the figure. */
    set config(value) {
      if (!this._viz) {
        this._pending = value;
        // The author's config failed and nothing is shown, or a large figure is: this one may do.
        if (this._failed || this._large?.shown) this._load();
        return;
      }
      // The reader's edit whose save is still waiting (persist's 250 ms) is saved first, under the config it was made
      // on: the saved edits this config brings back are then the newest ones (the same config shows that edit), and
      // another config never takes over the save of an edit it did not show.
      this._persist.flush();
      // A config naming a shipped model waits for the models' file; a later config replaces it meanwhile.
      // So does one showing a model's weights, for model.js (partsNeeded). A failed import keeps the figure and says so.
      // The newest config wins: each wait is its own token (two configs may wait for the same promise).
      const wait = modelsNeeded(api, value) || partsNeeded(value);
      const token = wait ? {} : null;
      this._modelsWait = token;
      if (wait) {
        wait.then(() => { if (this._modelsWait === token) { this._modelsWait = null; this.config = value; } },
          (e) => { if (this._modelsWait === token) { this._modelsWait = null; this._fail(partFailed(e)); } });
        return;
      }
      if (this._large.take(value)) return;
      if (!this._usable()) { this._renew(value); return; }
      // Whatever the value does when it is read (a throwing Proxy or getter), the figure stays and `error` says why.
      let state;
      try { state = isState(value); } catch (e) {
        this._fail(`The config could not be read: ${e?.message ?? e}`);
        return;
      }
      // The page's config is the figure's starting config, as an attribute is: the reader's saved edits of it are
      // keyed by it and come back (a page that sets the same config on every load keeps them). Hashed before it is
      // applied: the page may change its object afterwards.
      const hash = this.persist ? configHash(value) : undefined;
      let applied;
      if (state) {
        // A state from toJSON(): restore it whole, through the share-link validator (its JSON text, as a link carries it).
        let text;
        try { text = api.configJson(value); } catch (e) { this._fail(e?.message ?? String(e)); return; }
        applied = this._apply(() => { this._showNaive = this._edit({ shareState: [text, true] }).naive; }, { rebuild: true, initial: 'page' });
      } else {
        // A config of the same structure as the shown one (new numbers only: a model redrawn while it trains, a
        // page's slider) keeps every part's DOM: only the numbers and the heatmaps change (see _structure).
        const before = this._structure();
        applied = this._apply(() => {
          const shown = fromModel(api, value);
          const sent = api.setConfig(this._viz, shown.config);
          this._log?.push(sent);
          this._modelCaption(shown.model);
        }, { rebuild: () => (this._structure() === before ? 'values' : true), initial: 'page' });
      }
      if (!applied) return;
      this._configHash = hash;
      this._persist.reset();
      const back = this._takeBack();
      if (back.restored) this._rebuild();
      this._showBack(back);
      if (back.shared) revealShared(this);
    }

    /**
     * The document's config (Reset's): the one loaded, or the core's copy of the last new document, read when first
     * asked (`undefined` until then) — a model's stack is ~20 bytes a weight as JSON, too much to read back for
     * every config a page sets.
     */
    get _initial() {
      if (this._authoredCache === undefined) this._authoredCache = this._viz ? JSON.parse(this._ask({ kind: 'authored' })) : null;
      return this._authoredCache;
    }

    set _initial(value) { this._authoredCache = value; }

    /**
     * The trace of the current config (see `compute()`), read-only. A large figure (large.js): the stages it shows,
     * typed, with the core's note on what it holds; null until they are drawn.
     */
    get trace() {
      if (this._large?.shown) return this._large.trace();
      if (!this._viz) return null;
      if (!this._traceCache) this._traceCache = api.toTrace(this._ask({ kind: 'trace' }));
      return this._traceCache;
    }

    /** Which panels show: heatmap view names, plus "inputs", "breakdown", "controls" (attribute `views`). */
    get views() { return this.getAttribute('views'); }
    set views(v) { this._setText('views', v, (x) => (Array.isArray(x) ? x.join(',') : String(x))); }

    /** `false` makes a read-only figure: no controls, inputs drawn as heatmaps (attribute `editable`). */
    get editable() { return this.getAttribute('editable') !== 'false'; }
    set editable(v) { this.setAttribute('editable', v ? 'true' : 'false'); }

    /** Height of each heatmap in CSS pixels, or null for its natural size (attribute `height`). */
    get height() {
      const attr = this.getAttribute('height');
      const h = Number(attr);
      if (attr === null || attr.trim() === '' || !Number.isFinite(h) || h <= 0) return null;
      return Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, h));
    }
    set height(v) { if (v === null || v === undefined) this.removeAttribute('height'); else this.setAttribute('height', String(v)); }

    /** One palette for every heatmap (attribute `palette`): rocket, vlag, diverging, purple, orange, blue, #rrggbb… */
    get palette() { return this.getAttribute('palette'); }
    set palette(v) { this._setText('palette', v); }

    /**
     * How the numbers in the heatmaps are written (attribute `fmt`): a format spec of seaborn's
     * `heatmap(fmt=…)`, written as Python writes it: `.2g` (the default), `.3g`, `.4g`, `.2f`, `.0f`, `d`, `.1%`, `.2e`.
     */
    get fmt() { return this.getAttribute('fmt') || '.2g'; }
    set fmt(v) { this._setText('fmt', v); }

    /**
     * The text colour rule of the cells (attribute `contrast`): "seaborn" (the default: seaborn's own rule, for
     * fidelity) or "more" (black or white, whichever contrasts more: at least 4.5:1 on every colour).
     */
    get contrast() { return this.getAttribute('contrast') === 'more' ? 'more' : 'seaborn'; }
    set contrast(v) { this._setText('contrast', v); }

    /**
     * "light", "dark" or "auto" (attribute `theme`; the default): auto follows JupyterLab's theme
     * (`data-jp-theme-light`), then the page's `color-scheme`, then the system's `prefers-color-scheme`.
     */
    get theme() { const t = this.getAttribute('theme'); return t === 'light' || t === 'dark' ? t : 'auto'; }
    set theme(v) { this._setText('theme', v); }

    /**
     * A text property's attribute: removed for null or undefined, else the value as text (`text`). A value that
     * cannot be text (a Symbol, a throwing toString, an array too long to join) changes nothing: the figure says so
     * and fires `error`, as a refused config does; nothing is thrown at the page.
     */
    _setText(name, v, text = (x) => String(x)) {
      if (v === null || v === undefined) { this.removeAttribute(name); return; }
      let value;
      try { value = text(v); } catch (e) {
        const now = this.getAttribute(name);
        this._fail(`${name} could not be set: the value cannot be read as text (${api.thrownText(e)}); ${name} stays ${now === null ? 'unset' : 'as it was'}.`);
        return;
      }
      this.setAttribute(name, value);
    }

    /** Keep the user's edits in localStorage and bring them back on reload (attribute `persist`). */
    get persist() { return this.hasAttribute('persist') && this.getAttribute('persist') !== 'false'; }
    set persist(v) { if (v) this.setAttribute('persist', ''); else this.removeAttribute('persist'); }

    /** A standalone SVG string of one heatmap, drawn by the same Rust code as the canvas. */
    toSVG(view) {
      if (this._large?.shown) return this._large.svg(view);
      if (!this._viz) throw notLoaded();
      return api.callCore(() => this._ask({ kind: 'svg', view: String(view), palette: this.palette ?? undefined, fmt: this._fmtSpec(), contrast: this.contrast }));
    }

    /**
     * A PNG Blob at device resolution: of one heatmap (`view`), or of the whole
     * figure (every visible heatmap) when `view` is omitted.
     */
    async toPNG(view) {
      if (!this._viz && !this._large?.shown) throw notLoaded();
      return this._share.png(view);
    }

    /** The whole state as JSON: `{v, config, naive, random}`; `.config = state` restores it. */
    toJSON() {
      if (!this._viz) throw notLoaded();
      return JSON.parse(this._ask({ kind: 'shareState', naive: this._showNaive, json: true }));
    }

    /** "Copy as NumPy": a self-contained Python snippet that recomputes this figure. */
    toNumPy() {
      if (!this._viz) throw notLoaded();
      return this._ask({ kind: 'numpy' });
    }

    /**
     * A link to this page that restores this figure exactly (its state in the URL fragment). Throws an Error (the
     * Share menu's message) when the link would be longer than browsers open: toJSON() holds the figure then.
     */
    shareURL() {
      if (!this._viz) throw notLoaded();
      return this._share.url();
    }

    // ---- the internal interface of the parts ------------------------------

    /** One question to the core about the figure, `{kind, …}` (src/web/ask.rs): its answer, the figure unchanged. */
    _ask(question) {
      try {
        return this._viz.ask(question);
      } catch (e) {
        // A question only the whole core answers, asked of the figure core (a public method before `ready`): said so,
        // and the whole core loads.
        if (api.isWholeViz(this._viz) || !String(e?.message).startsWith('not a question the figure answers')) throw e;
        this._needWhole().catch(() => {});
        throw new Error(`${question.kind} needs the whole attention-viz core, which is loading: await \`ready\` first`);
      }
    }

    /**
     * One edit of the figure (src/web/command.rs) without its snapshot, for a mutation `_apply` runs (the snapshot is
     * asked once, on first use): `{}`, or `{naive}` for a restored state. Throws the core's message when refused.
     */
    _edit(command) {
      const answer = this._viz.edit(command);
      this._log?.push(command);
      return answer;
    }

    /**
     * Loads the whole core (the parts that need it: the model grid, the steppers, import, share and export, persist)
     * and moves this figure to it; resolves once it is there.
     */
    _needWhole() {
      return api.loadWhole().then(() => this._toWhole());
    }

    /**
     * Once the whole core is loaded: the figure made again there, from how it was made and every edit since (`_log`,
     * api.wholeViz), the figure core's let go. Edits made while it loaded went to the figure core and are in the log.
     */
    _toWhole() {
      if (!this._viz || !this._log || !api.wholeLoaded() || api.isWholeViz(this._viz)) return;
      let viz;
      try {
        viz = api.callCore(() => api.wholeViz(this._viz, this._log));
      } catch (e) {
        this._fail(`This figure could not be moved to the whole attention-viz core (${e.message}); it stays as it is.`);
        return;
      }
      try { this._viz.free(); } catch { /* left locked by an internal error: the garbage collector takes it */ }
      this._viz = viz;
      this._log = null; // it stays in the whole core
      this._invalidate();
    }

    /** A log for a new `_viz`: an empty one for a figure core's figure that may move to the whole core, else null. */
    _freshLog() {
      return api.twoCores && !api.isWholeViz(this._viz) ? [] : null;
    }

    /** Forget everything derived from the Rust state (after any successful mutation). */
    _invalidate() {
      this._version = (this._version ?? 0) + 1; // the state changed: the snapshot is stale
      this._traceCache = null;
      this._rawCache = null;
      this._snap = null;
    }

    /**
     * What the parts ask the core for in a snapshot: the canvases' views (the figures', the mask panel's), the fmt
     * they are measured for, the trace fields the tables read (`name#i`: row i alone, `name#q`: the followed
     * query's) — the breakdown's, the steps' — and the variants and modern panels whose model it carries. Only the parts' own structure decides it, so a one-value
     * edit asks what the last did.
     */
    _request() {
      const views = [...(this._figures?.canvases.keys() ?? [])];
      if (this._variants?.canvas) views.push('mask');
      views.push(...(this._steppers?.views() ?? []));
      const fields = [];
      const fmt = this._fmtSpec();
      // The parts built now: the snapshot carries their model (src/shown.rs). Each part says what it shows
      // (`asked()`: part names), the input grids also where their windows are (`gridWindows()`: {name: [r0, c0]}).
      const parts = [this._toolbar, this._inputs, this._variants, this._breakdown, this._steps, this._steppers]
        .flatMap((p) => p?.asked?.() ?? []);
      const windows = this._inputs?.gridWindows?.() ?? {};
      const key = `${views.join(',')}|${fmt}|${parts.join(',')}|${JSON.stringify(windows)}`;
      return { views, fmt, fields, parts, windows, key };
    }

    /**
     * The snapshot of the state now (see "The snapshot contract" above): the last edit's, else asked of the core
     * once (after a rebuild, a load, a mutation that is not a command) — one call, whatever the parts read.
     */
    _snapshot({ sizes = false } = {}) {
      const req = this._request();
      const snap = this._snap;
      if (snap?.version === this._version && snap.request === req.key && (snap.sized || !sizes)) return snap;
      return this._take(api.callCore(() => this._ask({ kind: 'snapshot', ...req })), req, true);
    }

    /** Keeps a snapshot the core returned (an asked `snapshot`, or `Viz.edit`'s) for `req`: views, fields, parts. */
    _take(raw, req, sized = false) {
      const cache = (this._rawCache ||= new Map());
      for (const [name, f] of Object.entries(raw.fields)) cache.set(name, f);
      this._snap = { version: this._version, request: req.key, views: new Map(Object.entries(raw.views)), shapes: raw.shapes, sized,
        used: new Set(raw.panels ?? []), parts: raw.parts ?? {} };
      return this._snap;
    }

    /**
     * One field of the trace as the core returns it ({shape, data: Float64Array}), fetched
     * on first use after each change: the breakdown and the tooltip need a few small fields,
     * and copying the whole trace (~10 MB at n = 512) on every edit cost ~20 ms.
     */
    _field(name) {
      const cache = (this._rawCache ||= new Map());
      if (!cache.has(name)) cache.set(name, this._ask({ kind: 'field', name }) ?? null);
      return cache.get(name);
    }

    _shape(name) {
      const known = this._snap?.version === this._version ? this._snap.shapes[name] : undefined;
      return known ?? this._field(name).shape;
    }

    /** Row i of a matrix field (or the whole vector) as a plain array. */
    _row(name, i = 0) {
      const alone = this._rawCache?.get(`${name}#${i}`);
      if (alone) return Array.from(alone.data);
      const cached = this._rawCache?.get(name);
      if (cached) {
        const { shape, data } = cached;
        return Array.from(shape.length === 1 ? data : data.subarray(i * shape[1], (i + 1) * shape[1]));
      }
      // Only the row crosses from Rust: the breakdown reads ~70 rows of n × d fields per edit.
      return Array.from(this._ask({ kind: 'row', name, i }) ?? []);
    }

    /** Element (i, j) of a matrix field; for a vector, element j (or i when j is null). */
    _at(name, i, j) {
      const alone = this._rawCache?.get(`${name}#${i}`);
      if (alone && j !== null && j !== undefined) return alone.data[j];
      const { shape, data } = this._field(name);
      if (shape.length === 1) return data[j ?? i];
      return data[i * shape[1] + j];
    }

    /** The `views` attribute as a set, or null for "everything". */
    _panels() {
      const attr = this.getAttribute('views');
      if (!attr) return null;
      return new Set(attr.split(',').map((v) => v.trim()).filter(Boolean));
    }

    /** Whether the heatmaps are drawn for a dark background. */
    _darkMode() { return this._theme?.isDark() ?? false; }

    /** The fmt the core is given: the attribute's, unless the core refused it (then its default, with a message). */
    _fmtSpec() { return this._badFmt === this.fmt ? undefined : this.fmt; }

    /** A new `fmt`: checked by the core once; a refused one keeps the numbers as they were drawn and says why. */
    _setFmt(value) {
      this._badFmt = null;
      if (value !== null) {
        try { api.callCore(() => this._ask({ kind: 'preferredSize', view: this._ask({ kind: 'views' })[0], fmt: value })); } catch (e) {
          this._badFmt = value;
          this._fail(`${e.message} — the numbers keep the default .2g.`);
        }
      }
      this._rebuild({ silent: true });
    }

    // ---- loading ----------------------------------------------------------

    /**
     * The short hash of the figure's starting config as its author gave it (part of its storage key): known once it
     * loaded or the page set its config; before that, of the config it will load (another figure's key needs it).
     */
    _authorHash() {
      if (typeof this._configHash === 'function') this._configHash = this._configHash();
      if (this._configHash !== undefined) return this._configHash;
      let pending = false;
      try { pending = this._pending !== undefined && !isState(this._pending); } catch { /* unreadable: not a config */ }
      if (pending) return configHash(this._pending);
      const { config, error } = this._initialConfig({ peek: true });
      return config === undefined ? shortHash(`error:${error}`) : configHash(config);
    }

    _initialConfig({ peek = false } = {}) {
      if (!peek && this._failed && this._pending !== undefined) {
        const config = this._pending;
        this._pending = undefined;
        return { config, source: 'config property' };
      }
      const read = (text, what, source) => {
        let parsed;
        try { parsed = JSON.parse(text); } catch (e) { return { error: `${what} is not valid JSON: ${e.message}` }; }
        try { return { config: unpack(parsed, this._large?.check ?? api.checkDeclared, api), source }; } catch (e) { return { error: e.message }; }
      };
      const attr = this.getAttribute('config');
      if (attr !== null) return read(attr, 'The config attribute', 'config attribute');
      const script = this.querySelector('script[type="application/json"]');
      if (script) return read(script.textContent, 'The inline <script type="application/json">', 'inline JSON');
      const preset = this.getAttribute('preset') || 'seed-001';
      if (!api.presets[preset]) return { error: `Unknown preset "${preset}": use ${Object.keys(api.presets).join(', ')}` };
      return { config: api.presets[preset], source: `preset ${preset}` };
    }

    /** Whether the config attribute or inline JSON holds an array Python packed deflated (`"deflate": true`). */
    _deflated() {
      const text = this.getAttribute('config') ?? this.querySelector('script[type="application/json"]')?.textContent ?? '';
      return /"deflate"\s*:\s*true/.test(text);
    }

    _load() {
      // A new `config` or `preset` attribute: the reader's edit still waiting to be saved is saved first, as `set config` does.
      this._persist.flush();
      // A read-only figure over the page's cost bound that a worker computes (large.js): the page's config first.
      if (this._pending !== undefined && this._large.take(this._pending)) { this._pending = undefined; this._failed = false; this._picture(false, { slot: true }); return; }
      // Python's deflated arrays wait for the inflater (loaded after the core, not before the page's first figure).
      // Once: an inflater that cannot be loaded leaves the figure saying so (unpack's message).
      if (!api.inflateLoaded() && !this._inflateAsked && this._deflated()) {
        this._inflateAsked = true;
        api.loadInflate().catch(() => {}).then(() => this._built && this._load());
        return;
      }
      let { config, error } = this._initialConfig();
      const wait = config !== undefined && (modelsNeeded(api, config) || partsNeeded(config));
      if (wait) {
        wait.then(() => this._built && this._load(), (e) => {
          if (!this._built) return;
          if (!this._viz) { this._failed = true; this._picture(true); }
          this._fail(partFailed(e));
        });
        return;
      }
      if (config !== undefined && this._large.take(config)) { this._failed = false; this._picture(false, { slot: true }); return; }
      // Saved edits belong to this figure as its author wrote it: another config (changed by the page, or another
      // figure now at this position) has another key, and never takes them.
      // Hashed when a storage key first asks (a `persist` figure): JSON of a 12 × 12 × 128 stack from Python took half a
      // second, for figures that never save. The parsed config is the element's own object, which nothing changes.
      this._configHash = config === undefined ? shortHash(`error:${error}`) : () => configHash(config);
      this._persist.reset();
      let viz = null;
      let model = null;
      if (config !== undefined) {
        try {
          viz = api.callCore(() => {
            const shown = fromModel(api, config);
            model = shown.model;
            return api.newViz(shown.config);
          });
        } catch (e) { error = e.message; }
      }
      if (!viz) {
        // Keep what is on screen. With nothing yet: the preset the author also named, else the message alone —
        // another figure's numbers (seed-001) under it would read as the author's, next to prose about theirs.
        let instead = 'the last valid figure';
        const preset = this.getAttribute('preset');
        if (!this._viz && api.presets[preset] && this.hasAttribute('config')) {
          viz = api.callCore(() => api.newViz(api.presets[preset]));
          config = api.presets[preset];
          instead = `preset ${preset}`;
        } else if (!this._viz) {
          this._failed = true;
          this._picture(true);
          this._fail(error);
          return;
        }
        this._fail(`${error} — showing ${instead} instead.`);
      }
      // The picture beside it shows the author's numbers: it gives way to them only, never to a fallback.
      this._picture(!!error);
      this._failed = false;
      if (viz) {
        this._modelCaption(model);
        try { this._viz?.free(); } catch { /* left locked by an internal error: the garbage collector takes it */ }
        this._viz = viz;
        this._log = this._freshLog();
        this._invalidate();
        this._initial = config;
        this._inputs.forget();
      }
      // A config the page set before the figure loaded replaces this one at once: what the reader had (a link, saved
      // edits) belongs to that one, and comes back when it is applied.
      const back = this._pending === undefined ? this._takeBack() : null;
      if (back?.error) error = back.error;
      // A refused source leaves the figure as it was: no `change` for it.
      this._rebuild({ silent: !viz });
      if (!this._showBack(back) && !error && !this._persist.warned) this._status('');
      if (back?.shared && !error) revealShared(this);
      if (this._pending !== undefined) { const p = this._pending; this._pending = undefined; this.config = p; }
    }

    /**
     * An `<img class="attention-viz-picture">` before the element (Python's outputs carry one: the figure where
     * scripts do not run) is hidden once the element shows its author's config, and shown again when the element
     * refuses it. The element does it, not a script beside it: Panel and Gradio insert HTML through innerHTML or
     * into a shadow root, where no script of the output runs (`document.currentScript` is null in a shadow tree).
     * With `slot`, only the picture inside the element.
     */
    _picture(show, { slot = false } = {}) {
      // A picture inside, `slot="picture"` (the author's, or www/first.js's): shown in the slot until now, in place of
      // the figure's parts; from now on, the figure (with its message when it refuses the config, the picture above).
      this._pictureSlot.hidden = !show;
      this._container.hidden = false;
      if (slot) return; // a large figure (large.js): the picture before the element stays, as it did
      for (let n = this.previousElementSibling; n && n.localName !== 'attention-viz'; n = n.previousElementSibling) {
        if (n.localName === 'img' && n.classList.contains('attention-viz-picture')) {
          n.style.display = show ? 'block' : 'none';
          return;
        }
      }
    }

    /**
     * The author's config is shown (loaded, or set by the page): what the reader had of it comes back, never
     * silently — a link in the URL (once, on the first load), else their saved edits of this figure and config, else
     * saved edits of this page that no figure claims and that look like this one's are offered. Returns what to say
     * (`_showBack`): {restored, shared, error, notice, offers, say}.
     */
    _takeBack() {
      const back = { restored: false, shared: false, error: null, notice: null, offers: [], say: null };
      // Unmatched saved edits are offered once, when the figure first shows its author's config: not each time the
      // page changes it.
      const first = !this._tookBack;
      this._tookBack = true;
      const shared = this._shareApplied ? null : this._share.fromURL();
      this._shareApplied = true;
      if (shared) {
        const refused = this._restoreState(shared);
        if (refused) {
          back.error = refused;
          this._fail(`${refused} — showing the original figure instead.`);
          return back;
        }
        Object.assign(back, { restored: true, shared: true, notice: 'Restored from a link: these are the numbers that were shared, not the document\'s.' });
        // The newest intent wins: the link the reader opened shows; their saved edits of this figure are offered.
        const kept = this.persist ? this._persist.saved() : null;
        if (kept !== null && kept !== shared) {
          back.offers.push(['You have saved edits for this figure:', 'Show them', 'show-saved', () => this._restoreFrom(kept, SAVED_NOTICE)]);
        }
        return back;
      }
      if (!this.persist) return back;
      const saved = this._persist.saved();
      if (saved) {
        const refused = this._restoreState(saved, true);
        if (refused) {
          back.error = refused;
          this._persist.forget();
          this._fail(`Your saved edits could not be restored (${refused}) — showing the original figure.`);
        } else Object.assign(back, { restored: true, notice: SAVED_NOTICE });
        return back;
      }
      const orphan = first ? this._persist.orphan() : null;
      if (orphan) {
        back.say = [orphan.sameName
          ? 'You have saved edits of an earlier version of this figure (the page has changed it since); they are not shown.'
          : 'You have saved edits of a figure like this one that could not be matched to it (figures like it were added to the page or removed); they are not shown.',
        [['Show them', 'show-orphan', () => {
          const refused = this._restoreState(orphan.text, true);
          if (refused) { this._fail(`Those edits could not be restored (${refused}).`); return; }
          // They are this figure's from now on: saved under its key, and no longer offered elsewhere.
          this._persist.drop(orphan.key);
          this._share.leaveURL();
          this._rebuild();
          this._notice(SAVED_NOTICE);
          this._persist.saveNow();
          this._statusEl.querySelector('[data-action="notice-reset"]')?.focus();
        }], ['Discard them', 'discard-orphan', () => {
          this._persist.drop(orphan.key);
          this._status('Those saved edits are discarded.');
          this._firstControl()?.focus();
        }]]];
      }
      return back;
    }

    /** Says what `_takeBack` brought back or offers; whether it said anything. */
    _showBack(back) {
      if (back?.notice) this._notice(back.notice, back.offers);
      else if (back?.say) this._say(...back.say);
      else return false;
      return true;
    }

    /** The caption line of a trained model's figure (`{name, prediction}`), or none; `data-model` names the model. */
    _modelCaption(model) {
      this._predictionEl.hidden = !model;
      this._predictionEl.textContent = model ? `${model.name} model · prediction: ${model.prediction.join(' ')}` : '';
      if (model) this.setAttribute('data-model', model.name); else this.removeAttribute('data-model');
    }

    /** Shows a saved state the reader asked for (their saved edits, another tab's): the link in the URL is older. */
    _restoreFrom(text, notice) {
      const refused = this._restoreState(text, true);
      if (refused) { this._fail(`Those edits could not be restored (${refused}).`); return; }
      this._share.leaveURL();
      this._rebuild();
      this._notice(notice);
    }

    /**
     * Applies a shared state (share-link text) or a `saved` one (persist's: also a weights figure's selection on this
     * stack): null, or the core's reason for refusing it.
     */
    _restoreState(text, saved = false) {
      try {
        this._showNaive = api.callCore(() => (saved ? this._edit({ restoreSaved: text }) : this._edit({ shareState: [text, false] })).naive);
        this._invalidate();
        return null;
      } catch (e) {
        return e.message;
      }
    }

    // ---- edits --------------------------------------------------------------

    /**
     * Runs one edit: a command for `Viz.edit` ({value: [matrix, row, column, x]}, {query: i}, {fields: {…}}, …: the
     * edit and its snapshot in one call) or a function that edits through `_edit` (its snapshot asked once, on first
     * use); on success recompute → repaint → `change`.
     * `cell`: the input it came from (its mark is set or cleared); `rebuild`: the shape may
     * have changed (true) or only the token names ('labels': the grids, where they were typed, stay); `initial`: a new
     * document, not a user edit — Reset (true: the saved edits are forgotten) or a config set by the page ('page':
     * they are kept, and `set config` brings back those of its config).
     */
    _apply(mutate, { rebuild = false, cell = null, initial = false } = {}) {
      // `rebuild` may be a function, asked after the mutation (the new state decides: see `set config`).
      // A token name with half a surrogate pair would reach Rust as U+FFFD: refused, never changed silently.
      if (rebuild === 'labels' && this._loneSurrogate()) return false;
      // A command is one call: the edit and the snapshot of what it changed.
      const req = typeof mutate === 'function' ? null : this._request();
      let raw = null;
      try {
        if (req) {
          raw = api.callCore(() => this._viz.edit(mutate, req));
          this._log?.push(mutate);
        } else api.callCore(mutate);
      } catch (e) {
        if (e.message.startsWith('attention-viz internal error')) this._recover();
        if (cell) this._inputs.markInvalid(cell, e.message);
        else this._fail(e.message);
        return false;
      }
      this._invalidate();
      if (raw) this._take(raw, req);
      if (cell) this._inputs.clearInvalid(cell);
      else this._status('');
      // A new document is not a user edit: nothing to save. Only Reset forgets the saved edits.
      if (initial) {
        this._initial = undefined; // read back from the core only when asked (the getter above): a stack is not copied
        this._edit({ markAuthored: true });
        if (initial !== 'page') this._persist.forget();
        this._inputs.forget();
        this._share.leaveURL();
      } else this._persist.schedule();
      if (typeof rebuild === 'function') rebuild = rebuild();
      if (rebuild === 'values') this._refill();
      else if (rebuild) this._rebuild(rebuild === 'labels' ? { inputs: false } : {});
      else this._repaint();
      return true;
    }

    /**
     * The shown structure, without the numbers: the config with every matrix (a list of lists of numbers) replaced by
     * its shape, and a model's stack by its shape. Two states with the same structure have the same DOM in every part
     * (toolbar, variants, grids, canvases), so going from one to the other needs no rebuild.
     */
    _structure() {
      return this._viz ? this._state.facts.structure : null;
    }

    /**
     * After new numbers of the same structure: the grids get their values (only when shown: hidden ones are built when
     * they show), a model's grid its new stack, and everything repaints. ~10× cheaper than _rebuild.
     */
    _refill() {
      const refocus = rememberFocus(this.shadowRoot);
      // A new config is a new document: the heatmaps are measured for its numbers, as a rebuild measures them (edits
      // keep their sizes until they settle; a later rebuild would otherwise resize them, and a refused config redraw).
      this._figures.sizes.clear();
      if (!this._inputs.root.hidden) this._inputs.build();
      if (this._model.active()) this._model.build();
      refocus();
      this._repaint();
    }

    /** A token field holding a lone surrogate: its old name back, a message, true. */
    _loneSurrogate() {
      for (const field of this.shadowRoot.querySelectorAll('input.token')) {
        const v = field.value;
        if (typeof v.isWellFormed === 'function' ? v.isWellFormed() : !/[\uD800-\uDFFF]/.test(v.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''))) continue;
        const i = Number(field.dataset.token);
        field.value = this._state.facts.tokens[i] ?? field.value;
        this._fail(`Token ${i}: the name holds half of a character (a lone UTF-16 surrogate), which cannot be kept as typed; the old name is kept.`);
        return true;
      }
      return false;
    }

    /**
     * Whether the Rust state can still change. A panic (a bug: no input may cause one) traps in the middle of a call,
     * and the object it was called on stays borrowed for good: every later change throws wasm-bindgen's "recursive
     * use of an object detected" (`ask` takes it mutably).
     */
    _usable() {
      try { return this._ask({ kind: 'usable' }); } catch { return false; }
    }

    /** A config set on a figure whose Rust state a panic left unusable: a fresh Viz of it, said on the figure. */
    _renew(value) {
      let viz, model;
      try {
        viz = api.callCore(() => { const shown = fromModel(api, value); model = shown.model; return api.newViz(shown.config); });
      } catch (e) {
        this._fail(`${e.message} (and this figure's state was lost to an internal error: set another config)`);
        return;
      }
      // The locked object cannot be freed (freeing is a call on it): the garbage collector takes it with the element.
      this._viz = viz;
      this._log = this._freshLog();
      this._modelCaption(model);
      this._invalidate();
      this._edit({ markAuthored: true });
      this._initial = undefined;
      this._persist.forget();
      this._inputs.forget();
      this._rebuild();
      this._status('An internal error (a bug, said in the console) had broken this figure: it was rebuilt from the new config.', true);
    }

    /**
     * After a Rust panic the Viz object may stay locked: rebuilt from the document's config when it was read (the
     * element keeps no copy of the config; a locked Viz answers nothing), else kept until the next config (`_renew`).
     */
    _recover() {
      const last = this._authoredCache;
      if (!last) return;
      try {
        const viz = api.callCore(() => api.newViz(last));
        try { this._viz.free(); } catch { /* the old object may be unusable */ }
        this._viz = viz;
        this._log = this._freshLog();
        this._invalidate();
      } catch { /* keep the old one; the message already says what happened */ }
    }

    _fail(message) {
      this._status(message, true);
      this.dispatchEvent(new CustomEvent('error', { detail: { message } }));
    }

    /**
     * On paper: print resolution (3 device pixels per CSS pixel, about 300 dpi) and the light look (a dark figure
     * on white paper is a block of ink); on screen again: screen resolution and the page's theme.
     */
    _setPrinting(on) {
      const scale = on ? Math.max(1, 3 / (window.devicePixelRatio || 1)) : 1;
      const themeChanged = this._theme?.setPrinting(on) ?? false;
      const started = on && !this._printing;
      this._printing = on;
      if (scale === this._printScale && !themeChanged && !started) return;
      this._printScale = scale;
      this._repaint({ silent: true });
    }

    /** The first control of the figure the keyboard can reach (a shown button, menu, field or heatmap), or null. */
    _firstControl() {
      const all = this.shadowRoot.querySelectorAll('button, select, input, textarea, summary, [tabindex="0"]');
      return [...all].find((n) => !n.disabled && !n.classList.contains('skip') && n.tabIndex >= 0
        && n.getClientRects().length > 0) ?? null;
    }

    /** Moves the keyboard past the input grids: to the first heatmap, else the steps or the breakdown. */
    _skipInputs() {
      const target = this._figures.root.querySelector('canvas')
        ?? [this._steps.root, this._breakdown.root].find((r) => !r.hidden)?.querySelector('.wrap, summary');
      target?.focus();
    }

    /**
     * A note that the figure is not the document's, with the way back (Reset) beside it; `offers`: more
     * [text, button label, data-action, handler] after it (saved edits to show instead).
     */
    _notice(text, offers = []) {
      const reset = el('button', { type: 'button', 'data-action': 'notice-reset', text: 'Reset to the document' });
      reset.addEventListener('click', () => {
        this._toolbar.action('reset');
        // This button goes with the notice: the keyboard lands on the toolbar's Reset, which did the same, or — a
        // figure whose `views` shows no toolbar — on its first control, never on the page's body.
        const again = this._toolbar.root.hidden ? null : this._toolbar.root.querySelector('[data-action="reset"]');
        (again ?? this._firstControl())?.focus();
      });
      this._statusEl.classList.remove('error');
      this._statusEl.replaceChildren(`${text} `, reset);
      for (const [say, label, action, fn] of offers) this._statusEl.append(` ${say} `, this._button(label, action, fn));
    }

    /** A message with buttons ([label, data-action, handler]) that act on it (saved edits to show or discard). */
    _say(text, buttons) {
      if (!this._statusEl) return;
      this._statusEl.classList.remove('error');
      this._statusEl.replaceChildren(`${text}`);
      for (const [label, action, fn] of buttons) this._statusEl.append(' ', this._button(label, action, fn));
    }

    /** A message with one button that acts on it (load another tab's edits, download instead of a link). */
    _offer(text, label, action, fn, isError = false) {
      if (!this._statusEl) return;
      this._statusEl.classList.toggle('error', isError);
      this._statusEl.replaceChildren(`${text} `, this._button(label, action, fn));
    }

    _button(label, action, fn) {
      const b = el('button', { type: 'button', 'data-action': action, text: label });
      b.addEventListener('click', fn);
      return b;
    }

    _status(text, isError = false) {
      // Unchanged text is not rewritten: any DOM write makes the next canvas font lookup restyle the page.
      if (!this._statusEl || (this._statusEl.textContent === text && this._statusEl.classList.contains('error') === isError)) return;
      this._statusEl.textContent = text;
      this._statusEl.classList.toggle('error', isError);
    }

    // ---- DOM ----------------------------------------------------------------

    _skeleton() {
      const root = this.shadowRoot;
      // A constructed stylesheet needs no 'unsafe-inline' under a Content-Security-Policy.
      const style = sharedSheet() ? null : el('style', { text: STYLE });
      if (!style) root.adoptedStyleSheets = [sharedSheet()];
      this._statusEl = el('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
      // A trained model's prediction (mechanism "model"), above its heads.
      this._predictionEl = el('p', { class: 'model-caption', 'data-role': 'prediction', hidden: true });
      // What is wrong with the page's attributes (views, height): shown until the attribute changes.
      this._attrEl = el('div', { class: 'status error', 'data-role': 'attributes', role: 'status', hidden: true });
      // The parts see the element only through a Port (port.js); the element's own services (share, persist,
      // large) take it whole.
      const port = (this._port = new Port(this, api));
      this._toolbar = new Toolbar(port, api);
      this._variants = new Variants(port, api);
      this._share = new Share(this, api);
      this._inputs = new Inputs(port, api);
      this._importer = new Importer(port, api);
      this._figures = new Figures(port, api);
      this._model = loaded.model ? new loaded.model(port, api) : idleModel();
      this._breakdown = new Breakdown(port);
      this._steps = new Steps(port);
      this._steppers = loaded.steppers ? new loaded.steppers(port, api) : idleSteppers(port);
      this._peek = new Peek(port);
      this._peek.watch(this._inputs.root);
      this._large = new Large(this, api);
      // Tabbing through every cell of every grid to reach the heatmaps is 64 stops a figure: one stop skips them.
      this._skip = el('button', { type: 'button', class: 'skip', 'data-action': 'skip-inputs', text: 'Skip the input cells' });
      this._skip.addEventListener('click', () => this._skipInputs());
      // The picture slot: a static picture given inside the element shows until the figure is drawn (`_picture`), and
      // the parts, still empty, wait hidden below it.
      this._pictureSlot = el('slot', { name: 'picture' });
      this._container = el('div', { class: 'av', part: 'container', hidden: Boolean(this.querySelector(':scope > [slot="picture"]')) },
        this._toolbar.root, this._variants.root, this._share.root, this._statusEl, this._attrEl, this._skip, this._importer.root, this._inputs.root, this._peek.root, this._predictionEl, this._model.root,
        // The steppers (decode, flash) drive the stage heatmaps (the row generated, the tile outlined): above them.
        this._steppers.root, this._figures.lesson, this._figures.root, this._steps.root, this._breakdown.root);
      root.replaceChildren(...(style ? [style] : []), this._pictureSlot, this._container, this._figures.tip);
    }

    /** Rebuilds every part (`inputs: false`: all but the grids); the keyboard focus stays on the same control. */
    _rebuild({ silent = false, inputs = true } = {}) {
      const refocus = rememberFocus(this.shadowRoot);
      const panels = this._panels();
      const show = (name) => (panels ? panels.has(name) : true);
      // A model's weights (mechanism "weights") have no inputs to edit, no query steps and no options: the model panel instead.
      const weights = this._state.facts.mechanism === 'weights';
      // The parts this figure shows that are not imported yet (parts.js): nothing is built before they are.
      const wanted = [];
      if (weights && this._model.idle) wanted.push('model');
      const refused = this._partsRefused ?? new Set(); // panels whose import failed: the figure is drawn without them
      if (!weights && this._steppers.idle && !refused.has('steppers') && this._steppers.shown().size) wanted.push('steppers');
      if (!weights && this._variants.modern.idle && !refused.has('modern') && this._variants.modern.shown().size) wanted.push('modern');
      if (wanted.length && !this._takeParts(wanted)) return;
      this._toolbar.root.hidden = weights || !this.editable || !show('controls');
      this._share.root.hidden = panels ? !show('controls') : false;
      this._inputs.root.hidden = weights || !this.editable || !show('inputs');
      this._skip.hidden = this._inputs.root.hidden;
      this._breakdown.root.hidden = weights || !show('breakdown');
      if (weights) { this._variants.root.hidden = true; this._steps.root.hidden = true; } else {
        this._toolbar.build();
        this._variants.build();
        if (inputs) this._inputs.build();
      }
      this._figures.build();
      if (weights) this._steppers.root.hidden = true; else this._steppers.build();
      this._model.build();
      this._attributeProblems();
      refocus();
      this._repaint({ silent });
    }

    /**
     * Parts the figure shows (parts.js): true when they are imported (each put in place of its stand-in, which hands
     * over the panels it kept shown); else they are imported and the figure rebuilt when they arrive — a weights
     * config that came another way than a load or the config property (which wait for model.js first: a share link,
     * saved edits), a config or an edit that shows a panel. Meanwhile nothing is painted and no `change` fires
     * (_repaint): the figure's first change follows its first draw; edits go on in the Viz, in order.
     */
    _takeParts(names) {
      if (names.every(partReady)) {
        if (names.some((name) => WHOLE_PARTS.includes(name))) this._toWhole();
        for (const name of names) {
          if (name === 'model' || name === 'steppers') {
            const key = `_${name}`;
            const part = new loaded[name](this._port, api);
            part.sticky = this[key].sticky;
            this[key].root.replaceWith(part.root);
            this[key] = part;
          } else {
            const part = new loaded.modern(this._port, api);
            part.sticky = this._variants.modern.sticky;
            this._variants.modern = part;
          }
        }
        return true;
      }
      if (this._partWait) return false;
      this._partWait = true;
      const loading = `Loading the ${names.map((n) => PART_NAMES[n]).join(' and the ')}…`;
      this._status(loading);
      const whole = names.some((name) => WHOLE_PARTS.includes(name)) ? [api.loadWhole()] : [];
      Promise.all([...names.map(loadPart), ...whole]).then(() => {
        this._partWait = false;
        if (!this._built) return;
        this._toWhole();
        if (this._statusEl.textContent === loading) this._status('');
        this._rebuild();
      }, (e) => {
        this._partWait = false;
        if (!this._built) return;
        const failed = names.filter((n) => !partReady(n));
        if (this._statusEl.textContent === loading) this._status('');
        // A panel's figure is drawn without it, and says so; a model's weights cannot be shown without model.js.
        if (!failed.includes('model')) {
          this._partsRefused = new Set([...(this._partsRefused ?? []), ...failed]);
          this._rebuild();
        }
        this._fail(partFailed(e, failed[0] ?? names[0]));
      });
      return false;
    }

    /**
     * What a part asks of another (port.js `tell`), by name: the one place where the parts meet. Each entry says who
     * asks it.
     */
    _wiring(name, ...args) {
      const wire = WIRING[name];
      if (!wire) throw new Error(`attention-viz internal error: no wiring named ${name}`);
      return wire(this, ...args);
    }

    /** Says what the page's `views` and `height` ask that cannot be done, until they change. */
    _attributeProblems() {
      const problems = [];
      if (this._figures.unknownMessage) problems.push(this._figures.unknownMessage);
      const palette = this.getAttribute('palette');
      if (palette !== null) {
        // The core's palette names (checkPalette asks it): an unknown one draws the views' own palettes, said here.
        try { api.checkPalette(palette); } catch (e) { problems.push(`${e.message} — the heatmaps keep their own palettes.`); }
      }
      const attr = this.getAttribute('height');
      if (attr !== null) {
        // A height the heatmaps are not drawn at (the `height` getter's reading): the core's words (options::height_note).
        const note = api.callCore(() => call({ kind: 'height_note', text: attr, value: Number(attr) }));
        if (note !== undefined) problems.push(note);
      }
      const text = problems.join(' ');
      if (this._attrEl.textContent !== text) this._attrEl.textContent = text;
      this._attrEl.hidden = !text;
    }

    /** Redraws every heatmap and the breakdown from the Rust state; fires `change` unless `silent`. */
    _repaint({ silent = false } = {}) {
      if (!this._viz || this._partWait) return;
      this._figures.paint();
      this._model.paint();
      this._variants.paint();
      if (this._state.facts.mechanism !== 'weights') this._steppers.paint();
      this._peek.update();
      const breakdownKey = `${this._version}|${this._showNaive}`;
      if (silent && this._breakdownKey === breakdownKey) return;
      this._breakdownKey = breakdownKey;
      if (this._state.facts.mechanism !== 'weights') {
        this._breakdown.render();
        this._steps.render();
      }
      if (!silent) {
        const self = this;
        this.dispatchEvent(new CustomEvent('change', {
          detail: { get config() { return self.config; }, get trace() { return self.trace; } },
        }));
      }
    }
}

/** Defines `<attention-viz>` once, calling the core through `coreApi`. */
export function defineElement(coreApi) {
  if (customElements.get('attention-viz')) return;
  api = coreApi;
  SETTERS = Object.entries(Object.getOwnPropertyDescriptors(AttentionViz.prototype))
    .filter(([name, d]) => d.set && !name.startsWith('_')).map(([name]) => name);
  customElements.define('attention-viz', AttentionViz);
}
