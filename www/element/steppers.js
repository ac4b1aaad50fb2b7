// Owns the two steppers, the panels `decode` and `flash`. decode: generation token by token — a stepper
// (← →, the arrow keys, a tap or a swipe) over the config's `decode_step` t, and the core's heatmaps of the followed
// head at step t (decode.q, the KV cache decode.k_cache / decode.v_cache of tokens 0 … t, decode.scores,
// decode.weights, decode.context) with what the cache holds against recomputing K and V; without a causal mask it says
// why (the core's message) and offers to turn one on. flash: FlashAttention-2's tiles — the tile size (`tiles`), a
// stepper over the trace's steps (query blocks outer, key blocks inner; the current tile is this panel's state, not the
// config's), the scaled scores with the tile outlined by the core (outline kind 3), the running m, l and o after it,
// its memory against n × n, and after a query block's last tile o / l beside the block's context rows (the core's flashTile).
// A panel shows when `views` names it, or, without `views`, when the config uses it (the snapshot's `panels`: the
// core's rule), and stays once shown. Every change of the config is one host._apply; the numbers are the core's.
import { el, clip, fmt, rememberFocus } from './dom.js';
import { DECODE_VIEWS } from './facts.js';
import { numbersTable } from './reader.js';
import { STEPPER_PANELS, shownPanels } from './parts.js';

/** The names the `views` attribute gives these panels. */
/** A stepper's line with each range ("queries 0 … 2", "0 … 5") in an unbreakable span: a narrow figure wraps the line
 * between ranges, never inside one. The text stays the line's whole textContent. */
function setWhole(out, text) {
  const parts = [];
  let at = 0;
  for (const m of text.matchAll(/(?:[a-z]+ )?\d+ … \d+/g)) {
    parts.push(text.slice(at, m.index), el('span', { class: 'range', text: m[0] }));
    at = m.index + m[0].length;
  }
  parts.push(text.slice(at));
  out.replaceChildren(...parts.filter((p) => p !== ''));
}

/** A heatmap drawing's outline kind of FlashAttention's current tile. */
const TILE = 3;
/** A horizontal swipe this long (CSS px) on a panel steps once. */
const SWIPE = 40;

/** A number in the tables: to 6 significant digits (the title holds it whole). */
const short = (x) => (Number.isFinite(x) ? String(Number(x.toPrecision(6))) : fmt(x));

export class Steppers {
  constructor(host, api) {
    this.host = host;
    this.api = api;
    this.tile = 0; // the flash stepper's step: element state (not in share links)
    this.canvases = new Map(); // view → canvas
    this.sizes = new Map(); // view → [w, h], measured when its drawing changed
    this.built = null;
    this.root = el('div', { class: 'steppers', hidden: true });
    this.root.addEventListener('click', (e) => {
      const b = e.target.closest?.('button[data-action]');
      if (b && this.root.contains(b)) this.action(b.dataset.action, b);
    });
    this.root.addEventListener('keydown', (e) => this.onKey(e));
    this.root.addEventListener('change', (e) => this.onChange(e));
    this.root.addEventListener('touchstart', (e) => {
      const t = e.changedTouches[0];
      this.touch = { x: t.clientX, y: t.clientY, panel: e.target.closest?.('[data-panel]')?.dataset.panel };
    }, { passive: true });
    this.root.addEventListener('touchend', (e) => this.onSwipe(e), { passive: true });
  }

  /** Which panels show: those `views` names; without it, those the config uses (the core's rule), kept once shown. */
  shown() {
    const { host } = this;
    // Generation and tiles are of self-attention's n × n scores: encoder–decoder attention has one query.
    if (host._state.config.mechanism !== 'self') return new Set();
    return shownPanels(host, STEPPER_PANELS, this);
  }

  /** What the panels' DOM depends on: a change rebuilds them (at a paint, so an edit anywhere is followed). */
  structure() {
    const cfg = this.host._state.config;
    const show = this.shown();
    return [...show, cfg.mechanism, cfg.mask === 'causal', cfg.decode_step !== undefined, cfg.tiles !== undefined,
      cfg.tokens?.length, this.host.editable].join('|');
  }

  /** The views the panels draw, for the host's snapshot request (their keys come back with every edit). */
  views() { return [...this.canvases.keys()]; }

  build() {
    const { host } = this;
    this.canvases.clear();
    this.sizes.clear();
    this.built = host._viz ? this.structure() : null;
    const show = host._viz ? this.shown() : new Set();
    if (!show.size) { this.root.hidden = true; this.root.replaceChildren(); return; }
    const cfg = host._state.config;
    const parts = [];
    if (show.has('decode')) parts.push(this.decodePanel(cfg));
    if (show.has('flash')) parts.push(this.flashPanel(cfg));
    this.root.hidden = false;
    this.root.replaceChildren(...parts);
  }

  /** ← and → around the step's text: a group the arrow keys, Home and End step while a button has the focus. */
  stepper(name, label) {
    const button = (dir, text, what) => el('button', { type: 'button', class: 'step', 'data-action': `${name}-${dir}`, 'aria-label': what, text });
    return el('div', { class: 'stepper', role: 'group', 'aria-label': label, 'data-stepper': name },
      button('prev', '←', `Previous ${name === 'decode' ? 'token' : 'tile'}`),
      el('output', { class: 'step-text', 'data-role': `${name}-step`, 'aria-live': 'polite' }),
      button('next', '→', `Next ${name === 'decode' ? 'token' : 'tile'}`));
  }

  canvas(view, label) {
    const c = el('canvas', { 'data-view': view, role: 'img', 'aria-label': label });
    this.canvases.set(view, c);
    // Its text alternative right after it, as the stage heatmaps have (reader.js): filled by paintCanvas.
    return el('figure', { class: 'stepper-fig' }, c, el('div', { class: 'sr-only', 'data-text-of': view }));
  }

  /** The canvas's hidden table of its numbers (the core's `describe`), rebuilt when what it draws changes. */
  describe(view, canvas, key) {
    const holder = canvas.nextElementSibling;
    if (!holder || holder.dataset.described === key) return;
    let d;
    try { [d] = this.host._ask({ kind: 'describeViews', views: [view], fmt: this.host._state.fmt }); } catch { return; }
    if (!d) return; // a refused fmt: the status line says why
    holder.dataset.described = key;
    canvas.setAttribute('aria-label', d.title);
    holder.replaceChildren(numbersTable(d), d.note ? el('p', { text: `Table: ${d.note}.` }) : null);
  }

  // ---- decode ------------------------------------------------------------------------------------------------

  decodePanel(cfg) {
    const { host } = this;
    const head = el('div', { class: 'group' }, el('span', { class: 'label', text: 'decode (KV cache)' }));
    const body = [];
    if (cfg.mask !== 'causal') {
      // The core's reason, asked without changing anything: the offer is the fix it names.
      const why = host._ask({ kind: 'fieldsProblem', fields: { decode_step: 0 } }) ?? 'Generating needs a causal mask.';
      body.push(el('p', { class: 'hint', 'data-role': 'decode-why', text: why }));
      if (host.editable) {
        body.push(el('button', { type: 'button', 'data-action': 'decode-causal', text: 'Turn on the causal mask and generate token 0' }));
      }
    } else {
      head.append(this.stepper('decode', 'Decode step: the token being generated'));
      if (cfg.decode_step !== undefined) head.append(el('button', { type: 'button', 'data-action': 'decode-off', text: 'Stop generating', title: 'Remove decode_step' }));
      body.push(el('p', { class: 'hint', 'data-role': 'decode-cost' }));
      if (cfg.decode_step !== undefined) {
        body.push(el('div', { class: 'stepper-figs' }, ...DECODE_VIEWS.map((v) => this.canvas(v, DECODE_LABELS[v]))));
      }
    }
    return el('div', { class: 'panel', 'data-panel': 'decode' }, head, ...body);
  }

  paintDecode(cfg) {
    const out = this.root.querySelector('[data-role="decode-step"]');
    if (!out) return;
    const n = cfg.tokens.length;
    const t = cfg.decode_step;
    const { host } = this;
    this.ends('decode', t === undefined ? -1 : t, n);
    const text = t === undefined ? `not generating (→ starts at token 0 of ${n})` : `token ${t} of 0 … ${n - 1}: ${clip(cfg.tokens[t])}`;
    if (out.textContent !== text) setWhole(out, text);
    const cost = this.root.querySelector('[data-role="decode-cost"]');
    let say = 'Generating token t, the model attends with q_t to the keys and values of tokens 0 … t: a KV cache keeps them from the earlier steps.';
    if (t !== undefined) {
      const size = host._state.field('decode.cache_size').data[0];
      const cost2 = host._state.field('decode.recompute_cost').data[0];
      const heads = (cfg.heads ?? 1) > 1 ? `head ${cfg.head ?? 0}'s ` : '';
      say = `The cache holds ${fmt(size)} numbers (K and V of tokens 0 … ${t}, every key/value head); without it, step ${t} would `
        + (cost2 > 0 ? `recompute them: ${fmt(cost2)} multiply-adds.` : 'copy them again (K = V = X here: nothing to multiply).')
        + ` The weights are ${heads}row ${t} of the causal weights, entries 0 … ${t}.`;
    }
    if (cost && cost.textContent !== say) cost.textContent = say;
  }

  // ---- flash -------------------------------------------------------------------------------------------------

  flashPanel(cfg) {
    const { host } = this;
    const n = cfg.tokens.length;
    const [rows, cols] = cfg.tiles ?? [];
    const size = (control, value, what) => el('input', {
      type: 'number', class: 'num tile', min: '1', max: String(n), step: '1', 'data-control': control, inputmode: 'numeric',
      value: value === undefined ? '' : String(value), placeholder: '–', disabled: !host.editable,
      'aria-label': `Tile ${what}: ${what === 'rows' ? 'queries' : 'keys'} a tile holds (1 to ${n}; empty: no tiles)`,
    });
    const head = el('div', { class: 'group' }, el('span', { class: 'label', text: 'FlashAttention tiles' }),
      size('tile-rows', rows, 'rows'), el('span', { 'aria-hidden': 'true', text: '×' }), size('tile-cols', cols, 'columns'));
    const body = [];
    if (cfg.tiles === undefined) {
      body.push(el('p', { class: 'hint', text: 'Give a tile size (rows × columns): FlashAttention-2 goes through the scaled scores tile by tile, query blocks outer, key blocks inner, without ever holding the n × n matrix.' }));
    } else {
      head.append(this.stepper('flash', 'FlashAttention tile'));
      body.push(el('p', { class: 'hint', 'data-role': 'flash-memory' }));
      body.push(el('div', { class: 'flash-body' },
        this.canvas('scaled', 'The scaled scores; the current tile outlined'),
        el('div', { class: 'flash-state', 'data-role': 'flash-state' })));
    }
    return el('div', { class: 'panel', 'data-panel': 'flash' }, head, ...body);
  }

  /** The current tile as the core gives it (its flashTile), for this state and step. */
  flashTile() {
    const { host } = this;
    const key = `${host._state.version}|${this.tile}`;
    if (this.tileKey !== key) {
      let info = this.api.callCore(() => host._ask({ kind: 'flashTile', step: this.tile }));
      if (!info && this.tile > 0) { this.tile = 0; info = this.api.callCore(() => host._ask({ kind: 'flashTile', step: 0 })); }
      this.tileInfo = info ?? null;
      this.tileKey = `${host._state.version}|${this.tile}`;
    }
    return this.tileInfo;
  }

  paintFlash() {
    const out = this.root.querySelector('[data-role="flash-step"]');
    if (!out) return;
    const info = this.flashTile();
    if (!info) return;
    const { host } = this;
    const cfg = host._state.config;
    this.ends('flash', this.tile, info.count);
    const [r0, r1] = info.rows;
    const [c0, c1] = info.cols;
    const text = `tile ${this.tile + 1} of ${info.count}: queries ${r0} … ${r1 - 1} × keys ${c0} … ${c1 - 1}`;
    if (out.textContent !== text) setWhole(out, text);
    const [rows, cols] = cfg.tiles;
    const dv = info.o[0]?.length ?? 0;
    const n = cfg.tokens.length;
    const mem = this.root.querySelector('[data-role="flash-memory"]');
    const say = `Memory a query block needs: ${Math.min(rows, n)} × ${Math.min(cols, n)} scores + ${Math.min(rows, n)} × ${dv} outputs = ${fmt(info.memory)} numbers, against ${n} × ${n} = ${fmt(info.full)} for the whole score matrix.`;
    if (mem.textContent !== say) mem.textContent = say;
    const state = this.root.querySelector('[data-role="flash-state"]');
    const key = this.tileKey;
    if (state.dataset.painted === key) return;
    state.dataset.painted = key;
    const names = cfg.tokens.slice(r0, r1);
    const parts = [
      el('p', { class: 'hint', text: `After this tile (block ${info.q_block} of the queries, block ${info.k_block} of the keys): m is the running maximum of each row's scaled scores, l = Σ exp(scaled − m), o = Σ exp(scaled − m)·v, rescaled by exp(m_old − m_new) whenever m grows.` }),
      this.table('Running m, l and o', names, [['m', Array.from(info.m, (x) => [x])], ['l', Array.from(info.l, (x) => [x])], ['o', info.o.map((r) => [...r])]], 'flash-mlo'),
    ];
    if (info.last) {
      const equal = info.diff === 0 ? 'equal, to the last bit' : `equal to within ${fmt(info.diff)}`;
      parts.push(el('p', { class: 'hint', 'data-role': 'flash-equal', text: `Block ${info.q_block}'s last tile: o / l is its rows of the context (${equal}).` }),
        this.table('o / l against the context', names, [['o / l', info.normalized.map((r) => [...r])], ['context', info.context.map((r) => [...r])]], 'flash-check'));
    }
    state.replaceChildren(...parts);
  }

  /** A small table: a row per query, and per group of columns (m; l; o's d_v columns) its numbers. */
  table(caption, names, groups, role) {
    const head = el('tr', {}, el('th', { scope: 'col', text: 'query' }),
      ...groups.flatMap(([g, rows]) => (rows[0]?.length > 1 ? rows[0].map((_, j) => el('th', { scope: 'col', text: `${g}[${j}]` })) : [el('th', { scope: 'col', text: g })])));
    const body = names.map((name, r) => el('tr', {}, el('th', { scope: 'row', text: clip(name) }),
      ...groups.flatMap(([, rows]) => rows[r].map((x) => el('td', { title: String(x), text: short(x) })))));
    return el('div', { class: 'wrap' }, el('table', { class: 'tiles', 'data-role': role }, el('caption', { class: 'sr-only', text: caption }), el('thead', {}, head), el('tbody', {}, ...body)));
  }

  // ---- painting ----------------------------------------------------------------------------------------------

  paint() {
    const { host } = this;
    if (!host._viz) return;
    if (this.built !== this.structure()) {
      // A step that starts or stops generating, tiles set or cleared, another mask: this panel's DOM, focus kept.
      const refocus = rememberFocus(host.shadowRoot);
      this.build();
      refocus();
    }
    if (this.root.hidden) return;
    const cfg = host._state.config;
    this.paintDecode(cfg);
    this.paintFlash();
    for (const [view, canvas] of this.canvases) this.paintCanvas(view, canvas);
  }

  paintCanvas(view, canvas) {
    const { host, api } = this;
    const views = host._state.views;
    const drawKey = views.get(view)?.key ?? host._state.version;
    const fmtSpec = host._state.fmt;
    let size = this.sizes.get(view);
    if (!size || size.key !== `${drawKey}|${fmtSpec}`) {
      // Each step changes these heatmaps' shapes (the cache grows a row): measured again when what they draw changes.
      const [w, h] = api.callCore(() => host._ask({ kind: 'preferredSize', view, fmt: fmtSpec }));
      size = { w, h, key: `${drawKey}|${fmtSpec}` };
      this.sizes.set(view, size);
    }
    const width = host._state.width ?? 600;
    const avail = Math.max(120, width - (width <= 520 ? 16 : 24) - 2);
    const w = Math.min(size.w, avail);
    const h = size.h;
    const dpr = host._state.dpr;
    const cw = Math.round(w * dpr);
    const ch = Math.round(h * dpr);
    const highlights = [];
    if (view === 'scaled' && this.tileInfo) highlights.push(TILE, this.tileInfo.rows[0], this.tileInfo.cols[0], this.tileInfo.rows[1], this.tileInfo.cols[1]);
    const palette = host.palette ?? undefined;
    const key = `${drawKey}|${cw}x${ch}|${host._state.dark}|${palette}|${fmtSpec}|${host.contrast}|${highlights}`;
    if (canvas.dataset.painted === key) return;
    if (canvas.width !== cw || canvas.height !== ch) {
      canvas.width = cw; canvas.height = ch;
      canvas.style.width = `${w}px`; canvas.style.height = `${h}px`;
    }
    api.callCore(() => host._viz.draw(canvas, { kind: 'heatmap', view, dpr, dark: host._state.dark, palette, highlights, fmt: fmtSpec, contrast: host.contrast }));
    canvas.dataset.painted = key;
    this.describe(view, canvas, `${drawKey}|${fmtSpec}`);
  }

  /** ← and → of a stepper at `at` of `count` steps: past an end a button is aria-disabled (it keeps the focus). */
  ends(name, at, count) {
    const set = (b, off) => { if (b && (b.getAttribute('aria-disabled') === 'true') !== off) b.setAttribute('aria-disabled', String(off)); };
    set(this.root.querySelector(`[data-action="${name}-prev"]`), at <= 0);
    set(this.root.querySelector(`[data-action="${name}-next"]`), at >= count - 1);
  }

  // ---- events ------------------------------------------------------------------------------------------------

  /** Moves a stepper: `to` a step, or by ±1 (`by`); ends clamp it. */
  step(name, { by = 0, to = null } = {}) {
    const { host } = this;
    const cfg = host._state.config;
    if (name === 'decode') {
      const n = cfg.tokens.length;
      const now = cfg.decode_step;
      const next = Math.max(0, Math.min(n - 1, to ?? (now === undefined ? 0 : now + by)));
      if (next === now) return;
      // The row being generated is the followed query: the stage heatmaps outline row t, the breakdown is its.
      host._apply({ fields: { decode_step: next, query: next } });
    } else {
      const info = this.flashTile();
      if (!info) return;
      const next = Math.max(0, Math.min(info.count - 1, to ?? this.tile + by));
      if (next === this.tile) return;
      this.tile = next;
      this.paint();
    }
  }

  action(name, button) {
    const { host } = this;
    if (button?.getAttribute('aria-disabled') === 'true') return;
    switch (name) {
      case 'decode-prev': this.step('decode', { by: -1 }); return;
      case 'decode-next': this.step('decode', { by: 1 }); return;
      case 'flash-prev': this.step('flash', { by: -1 }); return;
      case 'flash-next': this.step('flash', { by: 1 }); return;
      case 'decode-off': if (host._apply({ fields: { decode_step: null } })) this.root.querySelector('[data-action="decode-next"]')?.focus(); return;
      case 'decode-causal':
        // The offer goes with the problem: the keyboard lands on the stepper it brought.
        if (host._apply({ fields: { mask: 'causal', decode_step: 0, query: 0 } }, { rebuild: true })) this.root.querySelector('[data-action="decode-next"]')?.focus();
        return;
      default:
    }
  }

  onKey(e) {
    const group = e.target.closest?.('[data-stepper]');
    if (!group || e.altKey || e.ctrlKey || e.metaKey) return;
    const name = group.dataset.stepper;
    const moves = { ArrowLeft: { by: -1 }, ArrowRight: { by: 1 }, ArrowDown: { by: -1 }, ArrowUp: { by: 1 }, Home: { to: 0 }, End: { to: Infinity } };
    const move = moves[e.key];
    if (!move) return;
    e.preventDefault();
    this.step(name, move);
  }

  onSwipe(e) {
    const start = this.touch;
    this.touch = null;
    const t = e.changedTouches[0];
    if (!start || !t || !start.panel) return;
    const dx = t.clientX - start.x;
    if (Math.abs(dx) < SWIPE || Math.abs(dx) < 2 * Math.abs(t.clientY - start.y)) return;
    // A swipe to the left shows the next step, as pages turn.
    this.step(start.panel, { by: dx < 0 ? 1 : -1 });
  }

  onChange(e) {
    const t = e.target;
    if (t.dataset?.control !== 'tile-rows' && t.dataset?.control !== 'tile-cols') return;
    const { host } = this;
    const rows = this.root.querySelector('[data-control="tile-rows"]');
    const cols = this.root.querySelector('[data-control="tile-cols"]');
    const text = [rows.value.trim(), cols.value.trim()];
    let tiles;
    if (text.every((x) => x === '')) tiles = null;
    else {
      // One size given: square tiles of it. Anything else is the core's to judge (its message names the field).
      const [a, b] = text.map((x, k) => Number(x === '' ? text[1 - k] : x));
      tiles = [a, b];
    }
    if (host._apply({ fields: { tiles } })) {
      this.tile = 0;
      for (const f of [rows, cols]) f.removeAttribute('aria-invalid');
      this.paint();
    } else t.setAttribute('aria-invalid', 'true');
  }
}

const DECODE_LABELS = {
  'decode.q': 'The query of the token being generated',
  'decode.k_cache': 'The K cache: keys of tokens 0 to t',
  'decode.v_cache': 'The V cache: values of tokens 0 to t',
  'decode.scores': 'Scores of the query against the cached keys',
  'decode.weights': 'Weights of the query over the cached tokens',
  'decode.context': 'The context of the token being generated',
};
