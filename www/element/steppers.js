// Owns the two steppers, the panels `decode` and `flash`. decode: generation token by token — a stepper
// (← →, the arrow keys, a tap or a swipe) over the config's decode step t, and the core's heatmaps of the followed
// head at step t (decode.q, the KV cache decode.k_cache / decode.v_cache of tokens 0 … t, decode.scores,
// decode.weights, decode.context) with what the cache holds against recomputing K and V; without a causal mask it says
// why (the core's message) and offers the fix. flash: FlashAttention-2's tiles — the tile size, a stepper over the
// trace's steps (query blocks outer, key blocks inner; the current tile is this panel's state, not the config's: it is
// asked with the part, `flash:s`), the scaled scores with the tile outlined by the core, the running m, l and o after
// it, its memory against n × n, and after a query block's last tile o / l beside the block's context rows.
// What they show — every line, label, number as written, which arrow is past an end and where each move goes — is
// the core's model (src/steppers.rs, the snapshot's `parts`): this file lays it out and sends the moves. A panel shows
// when `views` names it, or, without `views`, when the config uses it (the snapshot's `used`: the core's rule), and
// stays once shown. Every change of the config is one port.dispatch.
import { el, rememberFocus } from './dom.js';
import { numbersTable } from './reader.js';
import { STEPPER_PANELS, shownPanels } from './parts.js';

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

/** A horizontal swipe this long (CSS px) on a panel steps once. */
const SWIPE = 40;

/** The model's move of each key on a stepper (src/steppers.rs `moves`). */
const KEYS = { ArrowLeft: 'back', ArrowRight: 'on', ArrowDown: 'back', ArrowUp: 'on', Home: 'first', End: 'last' };

export class Steppers {
  constructor(port, api) {
    this.port = port;
    this.api = api;
    this.tile = 0; // the flash stepper's step: element state (not in share links), asked with the part
    this.showing = []; // the panels of the last build
    this.outline = null; // [view, highlights]: the current tile's outline (the model's)
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
    const { port } = this;
    // The core says whether this figure has steppers (self-attention's n × n scores).
    if (!port.state.parts.steppers) return new Set();
    return shownPanels(port, STEPPER_PANELS, this);
  }

  /** The parts whose model the snapshot carries (index.js `_request`): the panels built, the flash one at its step. */
  asked() { return this.showing.map((p) => (p === 'flash' ? `flash:${this.tile}` : p)); }

  /** What the panels' DOM depends on (each model's `build`): a change rebuilds them (at a paint, so an edit anywhere is followed). */
  structure() {
    const show = [...this.shown()];
    const parts = this.port.state.parts;
    return [...show, ...show.map((p) => parts[p]?.build), this.port.state.editable].join('|');
  }

  /** The views the panels draw, for the element's snapshot request (their keys come back with every edit). */
  views() { return [...this.canvases.keys()]; }

  build() {
    const { port } = this;
    this.canvases.clear();
    this.sizes.clear();
    const show = port.live ? this.shown() : new Set();
    // Asked before the model is read, so the snapshot read next carries these panels' parts.
    this.showing = [...show];
    this.built = port.live ? this.structure() : null;
    if (!show.size) { this.root.hidden = true; this.root.replaceChildren(); return; }
    const model = port.state.parts;
    const parts = [];
    if (show.has('decode')) parts.push(this.decodePanel(model.decode));
    if (show.has('flash')) parts.push(this.flashPanel(model.flash));
    this.root.hidden = false;
    this.root.replaceChildren(...parts);
  }

  /** ← and → around the step's text (their words the model's): a group the arrow keys, Home and End step. */
  stepper(name, words) {
    const button = (dir, text, what) => el('button', { type: 'button', class: 'step', 'data-action': `${name}-${dir}`, 'aria-label': what, text });
    return el('div', { class: 'stepper', role: 'group', 'aria-label': words.label, 'data-stepper': name },
      button('prev', '←', words.prev),
      el('output', { class: 'step-text', 'data-role': `${name}-step`, 'aria-live': 'polite' }),
      button('next', '→', words.next));
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
    try { [d] = this.port.ask({ kind: 'describeViews', views: [view], fmt: this.port.state.fmt }); } catch { return; }
    if (!d) return; // a refused fmt: the status line says why
    holder.dataset.described = key;
    canvas.setAttribute('aria-label', d.title);
    holder.replaceChildren(numbersTable(d), ...(d.note ? [el('p', { text: `Table: ${d.note}.` })] : []));
  }

  // ---- decode ------------------------------------------------------------------------------------------------

  decodePanel(d) {
    const { port } = this;
    const head = el('div', { class: 'group' }, el('span', { class: 'label', text: d.label }));
    const body = [];
    if (d.why !== null) {
      // The core's reason; the offer is the fix it names.
      body.push(el('p', { class: 'hint', 'data-role': 'decode-why', text: d.why }));
      if (port.state.editable) body.push(el('button', { type: 'button', 'data-action': 'decode-causal', text: d.offer.text }));
    } else {
      head.append(this.stepper('decode', d.stepper));
      if (d.stop) head.append(el('button', { type: 'button', 'data-action': 'decode-off', text: d.stop.text, title: d.stop.title }));
      body.push(el('p', { class: 'hint', 'data-role': 'decode-cost' }));
      if (d.views.length) body.push(el('div', { class: 'stepper-figs' }, ...d.views.map((v) => this.canvas(v.view, v.label))));
    }
    return el('div', { class: 'panel', 'data-panel': 'decode' }, head, ...body);
  }

  paintDecode(d) {
    const out = this.root.querySelector('[data-role="decode-step"]');
    if (!out || !d) return;
    this.ends('decode', d);
    if (out.textContent !== d.text) setWhole(out, d.text);
    const cost = this.root.querySelector('[data-role="decode-cost"]');
    if (cost && cost.textContent !== d.cost) cost.textContent = d.cost;
  }

  // ---- flash -------------------------------------------------------------------------------------------------

  flashPanel(f) {
    const { port } = this;
    const size = (control, s) => el('input', {
      type: 'number', class: 'num tile', min: '1', max: String(s.max), step: '1', 'data-control': control, inputmode: 'numeric',
      value: s.value === null ? '' : String(s.value), placeholder: '–', disabled: !port.state.editable, 'aria-label': s.label,
    });
    const [rows, cols] = f.sizes;
    const head = el('div', { class: 'group' }, el('span', { class: 'label', text: f.label }),
      size('tile-rows', rows), el('span', { 'aria-hidden': 'true', text: '×' }), size('tile-cols', cols));
    const body = [];
    if (f.hint !== null) body.push(el('p', { class: 'hint', text: f.hint }));
    else {
      head.append(this.stepper('flash', f.stepper));
      body.push(el('p', { class: 'hint', 'data-role': 'flash-memory' }));
      body.push(el('p', { class: 'hint', 'data-role': 'flash-traffic' }));
      body.push(el('div', { class: 'flash-body' }, this.canvas(f.view.view, f.view.label),
        el('div', { class: 'flash-state', 'data-role': 'flash-state' })));
    }
    return el('div', { class: 'panel', 'data-panel': 'flash' }, head, ...body);
  }

  paintFlash(f) {
    const out = this.root.querySelector('[data-role="flash-step"]');
    this.outline = null;
    if (!out || !f || f.hint !== null) return;
    // A step past the last (the tiles or the tokens changed) is shown as the core shows it: the first.
    this.tile = f.step;
    this.outline = [f.view.view, f.outline];
    this.ends('flash', f);
    if (out.textContent !== f.text) setWhole(out, f.text);
    const mem = this.root.querySelector('[data-role="flash-memory"]');
    if (mem.textContent !== f.memory) mem.textContent = f.memory;
    const traffic = this.root.querySelector('[data-role="flash-traffic"]');
    if (traffic.textContent !== f.traffic) traffic.textContent = f.traffic;
    const state = this.root.querySelector('[data-role="flash-state"]');
    const key = `${this.port.state.version}|${f.step}`;
    if (state.dataset.painted === key) return;
    state.dataset.painted = key;
    const parts = [el('p', { class: 'hint', text: f.after }), this.table(f.mlo, 'flash-mlo')];
    if (f.equal !== null) parts.push(el('p', { class: 'hint', 'data-role': 'flash-equal', text: f.equal }), this.table(f.check, 'flash-check'));
    state.replaceChildren(...parts);
  }

  /** A table of the model's (`{caption, head, rows: [{name, cells: [{text, title, changed?}]}]}`): a row per query;
   * each cell names its column (`data-label`), which a narrow figure shows above it (style.js); a `changed` cell (a
   * running maximum that grew at this tile, its rescale factor) has the heatmaps' corner mark and says so in words. */
  table(t, role) {
    const head = el('tr', {}, el('th', { scope: 'col', text: 'query' }), ...t.head.map((h) => el('th', { scope: 'col', text: h })));
    const cell = (c, k) => {
      const td = el('td', { title: c.title, text: c.text, 'data-label': t.head[k] });
      if (c.changed) { td.classList.add('changed'); td.append(el('span', { class: 'sr-only', text: ' (changed)' })); }
      return td;
    };
    const body = t.rows.map((r) => el('tr', {}, el('th', { scope: 'row', text: r.name }), ...r.cells.map(cell)));
    return el('div', { class: 'wrap' }, el('table', { class: 'tiles', 'data-role': role }, el('caption', { class: 'sr-only', text: t.caption }), el('thead', {}, head), el('tbody', {}, ...body)));
  }

  // ---- painting ----------------------------------------------------------------------------------------------

  paint() {
    const { port } = this;
    if (!port.live) return;
    if (this.built !== this.structure()) {
      // A step that starts or stops generating, tiles set or cleared, another mask: this panel's DOM, focus kept.
      const refocus = rememberFocus(port.shadow);
      this.build();
      refocus();
    }
    if (this.root.hidden) return;
    const model = port.state.parts;
    this.paintDecode(model.decode);
    this.paintFlash(model.flash);
    for (const [view, canvas] of this.canvases) this.paintCanvas(view, canvas);
  }

  paintCanvas(view, canvas) {
    const { port, api } = this;
    const views = port.state.views;
    const drawKey = views.get(view)?.key ?? port.state.version;
    const fmtSpec = port.state.fmt;
    let size = this.sizes.get(view);
    if (!size || size.key !== `${drawKey}|${fmtSpec}`) {
      // Each step changes these heatmaps' shapes (the cache grows a row): measured again when what they draw changes.
      const [w, h] = api.callCore(() => port.ask({ kind: 'preferredSize', view, fmt: fmtSpec }));
      size = { w, h, key: `${drawKey}|${fmtSpec}` };
      this.sizes.set(view, size);
    }
    const width = port.state.width ?? 600;
    const avail = Math.max(120, width - (width <= 520 ? 16 : 24) - 2);
    const w = Math.min(size.w, avail);
    const h = size.h;
    const dpr = port.state.dpr;
    const cw = Math.round(w * dpr);
    const ch = Math.round(h * dpr);
    const highlights = this.outline?.[0] === view ? this.outline[1] : [];
    const palette = port.state.palette ?? undefined;
    const key = `${drawKey}|${cw}x${ch}|${port.state.dark}|${palette}|${fmtSpec}|${port.state.contrast}|${highlights}`;
    if (canvas.dataset.painted === key) return;
    if (canvas.width !== cw || canvas.height !== ch) {
      canvas.width = cw; canvas.height = ch;
      canvas.style.width = `${w}px`; canvas.style.height = `${h}px`;
    }
    port.draw(canvas, { kind: 'heatmap', view, dpr, dark: port.state.dark, palette, highlights, fmt: fmtSpec, contrast: port.state.contrast });
    canvas.dataset.painted = key;
    this.describe(view, canvas, `${drawKey}|${fmtSpec}`);
  }

  /** ← and → of a stepper as its model has them: past an end a button is aria-disabled (it keeps the focus). */
  ends(name, model) {
    const set = (b, off) => { if (b && (b.getAttribute('aria-disabled') === 'true') !== off) b.setAttribute('aria-disabled', String(off)); };
    set(this.root.querySelector(`[data-action="${name}-prev"]`), model.prev_off);
    set(this.root.querySelector(`[data-action="${name}-next"]`), model.next_off);
  }

  // ---- events ------------------------------------------------------------------------------------------------

  /** Moves a stepper where its model says `move` goes ('back', 'on', 'first', 'last'); null: it stays. */
  step(name, move) {
    const { port } = this;
    const to = port.state.parts[name]?.moves?.[move] ?? null;
    if (to === null) return;
    // decode: the fields the move sets (the row being generated is the followed query, so the stage heatmaps outline
    // row t and the breakdown is its); flash: the tile's step, this panel's own.
    if (name === 'decode') port.dispatch({ fields: to });
    else {
      this.tile = to;
      this.paint();
    }
  }

  action(name, button) {
    const { port } = this;
    if (button?.getAttribute('aria-disabled') === 'true') return;
    const decode = port.state.parts.decode;
    switch (name) {
      case 'decode-prev': this.step('decode', 'back'); return;
      case 'decode-next': this.step('decode', 'on'); return;
      case 'flash-prev': this.step('flash', 'back'); return;
      case 'flash-next': this.step('flash', 'on'); return;
      case 'decode-off': if (decode?.stop && port.dispatch({ fields: decode.stop.fields })) this.root.querySelector('[data-action="decode-next"]')?.focus(); return;
      case 'decode-causal':
        // The offer goes with the problem: the keyboard lands on the stepper it brought.
        if (decode?.offer && port.dispatch({ fields: decode.offer.fields }, { rebuild: true })) this.root.querySelector('[data-action="decode-next"]')?.focus();
        return;
      default:
    }
  }

  onKey(e) {
    const group = e.target.closest?.('[data-stepper]');
    if (!group || e.altKey || e.ctrlKey || e.metaKey) return;
    const move = KEYS[e.key];
    if (!move) return;
    e.preventDefault();
    this.step(group.dataset.stepper, move);
  }

  onSwipe(e) {
    const start = this.touch;
    this.touch = null;
    const t = e.changedTouches[0];
    if (!start || !t || !start.panel) return;
    const dx = t.clientX - start.x;
    if (Math.abs(dx) < SWIPE || Math.abs(dx) < 2 * Math.abs(t.clientY - start.y)) return;
    // A swipe to the left shows the next step, as pages turn.
    this.step(start.panel, dx < 0 ? 'on' : 'back');
  }

  onChange(e) {
    const t = e.target;
    if (t.dataset?.control !== 'tile-rows' && t.dataset?.control !== 'tile-cols') return;
    const { port } = this;
    const rows = this.root.querySelector('[data-control="tile-rows"]');
    const cols = this.root.querySelector('[data-control="tile-cols"]');
    // As typed: what the two fields make (one size alone, both empty) and whether it can be taken are the core's.
    if (port.dispatch({ flashTiles: [rows.value, cols.value] })) {
      this.tile = 0;
      for (const f of [rows, cols]) f.removeAttribute('aria-invalid');
      this.paint();
    } else t.setAttribute('aria-invalid', 'true');
  }
}
