// Owns the heatmaps: one canvas per stage view (and the naive-softmax lesson above them), their sizes and repaints,
// the outlines (kind 0 the followed query's row, solid; 1 what a hovered weight links together, dashed, as the
// core's src/links.rs says; 2 the keyboard cursor's cell) and the legend that says what they mean, hit-testing through the core, the tooltip (on
// hover, on a tap, and beside the keyboard cursor), and the weights as a control (a click or a tap follows that
// query; the keyboard's cursor, with Enter or Space, too: reader.js). With several heads, each head's weights are small
// multiples in one wrapping row (as large as the core draws them, shrunk to fit only while their numbers stay legible),
// and a click, a tap, Enter or Space on one follows that head (outlined: kind 0 around its whole grid). While a drag
// scrubs an input, every heatmap keeps the palette it had when the drag began; once an edit ends, the canvases are
// measured again. Under each heatmap, a line says what the last edit changed in it (the core's status: the drawing
// marks each changed cell with a corner triangle). Only the canvases on or near the screen are drawn (an
// IntersectionObserver says which): one off it keeps its size and is drawn with an edit's (or a load's) numbers as it
// nears the viewport, or once the figure has been still for CATCH_UP_MS, so an edit at scale repaints what the reader
// sees, a page's figures below the fold cost nothing in its first frames, and no canvas stays stale. A new look
// (theme, palette, fmt, size) is drawn on every canvas at once.
import { el } from './dom.js';
import { Reader, headOf } from './reader.js';
import { VARIANT_PANELS } from './variants.js';
import { besides, packRows, packSizes } from './pack.js';
import { NARROW } from './peek.js';
// The view lists are the core's (views::INPUT_VIEWS: drawn as heatmaps only in a read-only figure; WEIGHT_VIEWS).
import { LEGIBLE_FONT, HIGHLIGHT, INPUT_VIEWS as INPUTS, WEIGHT_VIEWS } from './facts.js';

/** Views the inputs already show as cells. */
const INPUT_VIEWS = new Set(INPUTS);
/** The names `views` may hold besides heatmaps and the variants' panels (variants.js VARIANT_PANELS). */
const PANELS = ['inputs', 'steps', 'breakdown', 'controls'];
/** The gap between small multiples, CSS px (style.js .heads). */
const MULTIPLE_GAP = 10;
/** Outline kinds of a heatmap drawing's highlights: the core's codes. */
const { selected: SELECTED, link: LINK, cursor: CURSOR } = HIGHLIGHT;
/** Typed edits end this long after the last one: then the canvases are measured again (scrubs: at the release). */
const SETTLE_MS = 300;
/** How near the viewport a canvas is drawn (the observer's rootMargin): within one screen height above or below. */
const NEAR_MARGIN = '100% 0px';
/** Canvases off the screen are drawn this long after the last paint that left them stale (a load, a scrub's end). */
const CATCH_UP_MS = 2000;

/** x as the tooltip adds it to the figure's text: at most 6 significant digits. */

export class Figures {
  constructor(port, api) {
    this.port = port;
    this.api = api;
    this.canvases = new Map();
    this.overlays = new Map(); // view → the transparent canvas over its heatmap that holds the outlines (a `layers` drawing)
    this.statuses = new Map(); // view → the line under it that says what the last edit changed (the snapshot's `status`)
    this.sizes = new Map(); // view → [w, h]: kept between rebuilds and edits, so an edit never reflows the page
    this.palettes = null; // view → palette name, while a scrub lasts
    this.hover = null; // {view, cell} under the mouse, or tapped
    this.tipOf = null; // what the tooltip shows: 'hover', 'touch' or 'cursor'
    this.tipTarget = null; // and for which cell: {view, cell}
    this.frame = 0;
    this.scrolled = 0; // the frame that places a shown tooltip again after a scroll
    this.linked = new Map(); // "view|i|j" → the outlines the core says that cell links to (`highlights`), …
    this.linkedAt = null; // … for this state version
    this.settleTimer = 0;
    this.seen = null; // the state last painted
    this.near = new Map(); // canvas → whether it is on or near the screen, as the observer last said
    this.looks = new WeakMap(); // canvas → the look (size, theme, palette, fmt, contrast) it was last drawn with
    this.atLoad = new WeakSet(); // the canvases of the figure's first build (a later one, an attribute's, draws at once)
    this.built = false;
    this.everything = false; // while true (a PNG of the figure, a copy of a canvas), every canvas is drawn
    this.watcher = typeof IntersectionObserver === 'function'
      ? new IntersectionObserver((entries) => this.onNear(entries), { rootMargin: NEAR_MARGIN }) : null;
    this.reader = new Reader(port, this);
    this.lesson = el('p', { class: 'lesson', hidden: true });
    this.legendParts = []; // the legend's keys but the changed cells' (buildLegend)
    this.changedKey = null;
    this.legendChanged = null;
    this.legend = el('p', {
      class: 'legend', hidden: true,
      title: 'On a focused heatmap, the arrow keys move a cursor cell (a thick outline) and read it out; on the score and weight heatmaps, '
        + 'Enter or Space follow the cursor\'s query row (on a head\'s weights, that head); Escape hides the cursor.',
    });
    this.multiple = null; // {key, size}: the small multiples' shared size for the current width
    this.root = el('div', { class: 'stages' });
    this.tip = el('div', { class: 'tip', hidden: true, role: 'tooltip' });
    this.root.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    this.root.addEventListener('pointermove', (e) => this.onPointerMove(e));
    this.root.addEventListener('pointerleave', (e) => { if (e.pointerType !== 'touch') this.setHover(null); });
    this.root.addEventListener('keydown', (e) => this.onKey(e));
    // A head's weights are picked on click (after the pointer's focus): the rebuild that follows keeps the focus there.
    this.root.addEventListener('click', (e) => this.onClick(e));
    this.root.addEventListener('focusout', (e) => {
      // Not when a rebuild replaces the canvas: the focus comes back to its replacement (dom.js rememberFocus).
      if (e.target.isConnected && e.target.dataset?.view && this.reader.cursor?.view === e.target.dataset.view) this.reader.hide();
    });
    // A scroll moves a shown tooltip with its cell, once a frame.
    this.onScroll = () => {
      if (this.scrolled) return;
      this.scrolled = requestAnimationFrame(() => {
        this.scrolled = 0;
        // A figure taken out of the page drops its tooltip (and so this window listener) at the first scroll.
        if (!this.root.isConnected) this.hideTip();
        else if (!this.tip.hidden && this.tipTarget && this.port.live) this.placeTipAt(this.tipTarget);
      });
    };
    // A tap anywhere but on a heatmap hides a tapped cell's tooltip.
    this.onOutside = (e) => {
      if (!e.composedPath().some((n) => n.localName === 'canvas' && this.root.contains(n))) this.setHover(null);
    };
  }

  /**
   * The heatmaps to show: the `views` attribute's as the core resolves it against the figure now (a view the reader's
   * edit took away gives way to what remains of it: views.rs `resolve`), else every stage (and the inputs in a
   * read-only figure).
   */
  views() {
    const { port } = this;
    const panels = port.state.panels;
    if (panels) {
      const { views, unknown, message } = port.ask({ kind: 'resolveViews', requested: [...panels], panels: [...PANELS, ...VARIANT_PANELS, ...(port.tell('modelShape') ? ['model'] : [])] });
      // Names that are no view of the author's config are said by the element (index.js `_attributeProblems`) until `views`
      // changes; a later status message (an edit's) never hides them. The core writes the message (names cut).
      this.unknown = unknown;
      this.unknownMessage = message;
      // "mask" in an editable figure is the mask panel's own heatmap (variants.js), not a second one here.
      return views.filter((v) => !(v === 'mask' && port.state.editable));
    }
    this.unknown = [];
    this.unknownMessage = null;
    return port.ask({ kind: 'views' }).filter((v) => (!INPUT_VIEWS.has(v) || !port.state.editable) && (port.state.naive || v !== 'naive_weights'));
  }

  /** The scores and weights heatmaps (and each head's weights): query rows against key columns. */
  isWeightView(view) { return WEIGHT_VIEWS.includes(view) || headOf(view) !== null; }

  /** The head the stage heatmaps and the breakdown follow. */
  followedHead() { return this.port.state.facts.head ?? 0; }

  build() {
    const { port, reader } = this;
    this.canvases.clear();
    this.overlays.clear();
    this.statuses.clear();
    this.near.clear();
    this.watcher?.disconnect();
    this.sizes = new Map();
    clearTimeout(this.settleTimer);
    reader.reset();
    this.hover = null;
    this.hideTip();
    const cfg = port.state.facts;
    const self = cfg.mechanism === 'self';
    const followed = this.followedHead();
    this.multiple = null;
    let group = null;
    const figs = [];
    const views = this.views();
    // A head is picked for what follows it; a figure with nothing that does (only the heads' weights) has no picking.
    this.followers = this.headFollowers(views);
    for (const view of views) {
      const canvas = el('canvas', { 'data-view': view, tabindex: '0', role: 'img' });
      if (WEIGHT_VIEWS.includes(view) && self) canvas.classList.add('pickable');
      const head = headOf(view);
      if (head !== null && this.followers.length) {
        canvas.classList.add('head-pick');
        canvas.dataset.head = String(head);
        if (head === followed) canvas.setAttribute('aria-current', 'true');
      }
      this.canvases.set(view, canvas);
      this.watcher?.observe(canvas);
      if (!this.built) this.atLoad.add(canvas);
      // The outlines and cursors on a canvas of their own over the heatmap: a hover redraws them, not the cells.
      const overlay = el('canvas', { class: 'overlay', 'data-overlay': view, 'aria-hidden': 'true' });
      this.overlays.set(view, overlay);
      // The canvas's text alternative right after it: a hidden table of its numbers (reader.js).
      // Under it, what the last edit changed in it (the core's words; blank until an edit, its line kept from the
      // start so the first edit moves nothing): read out with the table. A read-only figure is never edited: no line.
      const status = port.state.editable ? el('p', { class: 'changed-status', 'data-status-of': view, 'aria-hidden': 'true' }) : null;
      if (status) this.statuses.set(view, status);
      const fig = el('figure', { class: 'stage', 'data-view': view }, canvas, overlay, status, reader.holder(view, canvas));
      if (head === null) { figs.push(fig); continue; }
      if (!group) { group = this.headsGroup(cfg); figs.push(group); }
      group.append(fig);
    }
    // All heads at a glance come before the followed head's stages (the full view of the one picked).
    if (group) {
      const first = figs.findIndex((f) => ['scores', 'scaled', 'weights'].includes(f.dataset?.view));
      if (first >= 0 && first < figs.indexOf(group)) { figs.splice(figs.indexOf(group), 1); figs.splice(first, 0, group); }
    }
    // Its numbers may be gone (− token): the cursor goes too.
    const c = reader.cursor;
    if (c && (!this.canvases.has(c.view) || !reader.text(c.view, ...c.cell))) reader.cursor = null;
    this.built = true;
    this.buildLegend(cfg);
    this.root.replaceChildren(...figs, this.legend, ...reader.nodes());
    this.lesson.hidden = !port.state.naive;
    this.lesson.textContent = 'Naive softmax computes exp(x) / Σ exp(x) directly: exp overflows to infinity once a score passes about 709.78, '
      + 'and inf / inf is NaN (grey cells). The stable softmax subtracts the row maximum first, so every exponent is ≤ 0 and the weights stay finite.';
  }

  /** What of the figure follows the picked head, as the heads' caption names it: the stage heatmaps, the breakdown… */
  headFollowers(views) {
    const { port } = this;
    const out = [];
    if (views.some((v) => WEIGHT_VIEWS.includes(v))) out.push('the stages');
    const shown = port.tell('tablesShown');
    if (shown.breakdown) out.push('the breakdown');
    if (shown.steps) out.push('the steps');
    if (shown.entropies) out.push('the entropies');
    return out;
  }

  /** The box of the heads' small multiples: a caption (what a pick does, when something follows it), then one figure per head in a row that wraps. */
  headsGroup(cfg) {
    const n = cfg.heads ?? 1;
    const followed = this.followedHead();
    const f = this.followers;
    const which = f.length > 1 ? `${f.slice(0, -1).join(', ')} and ${f[f.length - 1]}` : f[0];
    const title = el('p', { class: 'heads-title', id: 'av-heads-title',
      text: f.length ? `Each head's weights (${n} heads, head ${followed} followed): a click, a tap or Enter on a head follows it in ${which}.`
        : `Each head's weights (${n} heads).` });
    return el('div', { class: 'heads', 'data-role': 'heads', role: 'group', 'aria-labelledby': 'av-heads-title' }, title);
  }

  /** The legend of what is drawn: the outlines there are, and −∞ where the config masks keys. */
  buildLegend(cfg) {
    const views = [...this.canvases.keys()];
    const self = cfg.mechanism === 'self';
    const key = (cls, text) => el('span', { class: `key ${cls}` }, el('span', { class: 'swatch', 'aria-hidden': 'true' }), text);
    const parts = [];
    if (self && views.some((v) => WEIGHT_VIEWS.includes(v))) parts.push(key('selected', 'solid: the followed query'));
    if (views.some((v) => headOf(v) !== null) && this.followers.length) parts.push(key('selected', 'solid around a head: the followed head'));
    if (self && views.some((v) => this.isWeightView(v))) parts.push(key('link', 'dashed: what the hovered weight links'));
    if (cfg.masks && views.some((v) => v === 'scaled' || this.isWeightView(v))) {
      parts.push(key('masked', '−∞ = masked (a weight of 0)'));
    }
    // The changed cells' corner, once an edit has marked some (paint, `markLegend`).
    this.changedKey = this.statuses.size ? key('changed', 'filled corner: changed by the last edit') : null;
    this.legendParts = parts;
    this.legendChanged = null;
    this.markLegend(false);
  }

  /** The legend's parts, with the changed cells' corner when `changed` (a heatmap says what the last edit changed). */
  markLegend(changed) {
    const shown = changed && this.changedKey !== null;
    if (shown === this.legendChanged) return;
    this.legendChanged = shown;
    const parts = shown ? [...this.legendParts, this.changedKey] : this.legendParts;
    const children = parts.flatMap((p, k) => (k ? [el('span', { class: 'sep', 'aria-hidden': 'true', text: ' · ' }), p] : [p]));
    this.legend.replaceChildren(...children);
    this.legend.hidden = !parts.length;
  }

  /**
   * The small multiples' shared size for `avail` CSS px: the core's preferred size, or shrunk so that k of them share a
   * row — the most per row whose numbers stay at least LEGIBLE_FONT px (the core's layout says where its cells fall).
   */
  multipleSize(avail) {
    const { port } = this;
    const views = [...this.canvases.keys()].filter((v) => headOf(v) !== null);
    if (!views.length) return null;
    const sizes = views.map((v) => this.sizes.get(v));
    const key = `${avail}|${port.state.height}|${port.state.fmt}|${sizes.join(';')}`;
    if (this.multiple?.key === key) return this.multiple.size;
    const pw = Math.max(...sizes.map((s) => s[0]));
    const ph = port.state.height ?? Math.max(...sizes.map((s) => s[1]));
    let size = null;
    for (let k = views.length; k >= 1 && !size; k--) {
      const w = Math.min(pw, Math.floor((avail - MULTIPLE_GAP * (k - 1)) / k));
      const h = Math.round(ph * Math.min(1, w / pw));
      if (k === 1 || w === pw) { size = [w, h]; break; }
      if (this.legible(views, w, h)) size = [w, h];
    }
    this.multiple = { key, size };
    return size;
  }

  /** A narrow figure's heatmaps drawn smaller than their natural size, view → [w, h] (pack.js), for `avail` CSS px;
   *  the heads' own rows (multipleSize) end a row. An author's height is kept. */
  packed(avail) {
    const { port } = this;
    const views = [...this.canvases.keys()];
    const key = `${avail}|${port.state.height}|${port.state.fmt}|${views.map((v) => `${v}:${this.sizes.get(v)}`).join(';')}`;
    if (this.rows?.key === key) return this.rows.widths;
    const items = views.map((v) => (headOf(v) === null ? [v, [this.sizes.get(v)[0], port.state.height ?? this.sizes.get(v)[1]]] : null));
    // What the core's layout does with a view on a w × h canvas: its numbers' font and its first cell's size.
    const look = (view, [w, h]) => {
      try {
        const cell = port.ask({ kind: 'cellRect', view, width: w, height: h, dpr: 1, i: 0, j: 0, fmt: port.state.fmt });
        const font = port.ask({ kind: 'numbersFont', view, width: w, height: h, fmt: port.state.fmt });
        return { font, cell: cell ? [cell[2] - cell[0], cell[3] - cell[1]] : [0, 0] };
      } catch {
        return { font: 0, cell: [0, 0] }; // a refused fmt: the status line says why
      }
    };
    const sizes = port.state.height ? packRows(items, avail, MULTIPLE_GAP, look) : packSizes(items, avail, MULTIPLE_GAP, look);
    const widths = port.state.height ? new Map([...sizes].map(([v, w]) => [v, [w, port.state.height]])) : sizes;
    this.rows = { key, widths };
    return widths;
  }

  /** In a narrow figure (`widths`: view → CSS width) each status line beside its heatmap where pack.js `besides` finds
   *  room, else under it; a class set only when it changes (a DOM write between two drawings restyles the page). */
  placeStatuses(widths, avail) {
    const items = widths && [...this.root.children].map((f) => (f.localName === 'figure' ? [f.dataset.view, widths.get(f.dataset.view)] : null));
    const beside = items ? besides(items, avail, MULTIPLE_GAP) : new Set();
    for (const [view, status] of this.statuses) {
      const fig = status.parentNode;
      if (fig.classList.contains('beside') !== beside.has(view)) fig.classList.toggle('beside');
    }
  }

  /** Whether every head's numbers are written at LEGIBLE_FONT px or more at w × h (the core's layout decides). */
  legible(views, w, h) {
    const { port } = this;
    const [rows, cols] = port.state.shape(views[0]);
    try {
      // A grid too big to annotate shows no numbers at any size: its cells need only stay visible.
      if (rows * cols > 1024) {
        const cell = port.ask({ kind: 'cellRect', view: views[0], width: w, height: h, dpr: 1, i: 0, j: 0, fmt: port.state.fmt });
        return !!cell && cell[2] - cell[0] >= 3 && cell[3] - cell[1] >= 3;
      }
      return views.every((v) => port.ask({ kind: 'numbersFont', view: v, width: w, height: h, fmt: port.state.fmt }) >= LEGIBLE_FONT);
    } catch {
      return false; // a refused fmt: the status line says why
    }
  }

  /** A repaint on the next frame (hover, resize, colour scheme): many events, one paint. */
  scheduleRepaint() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.port.repaint({ silent: true }); });
  }

  /** A view's natural size for the current numbers and fmt, [w, h] in CSS pixels: the snapshot's. */
  measure(view, views = this.port.state.sized) {
    const { port, api } = this;
    const size = views.get(view)?.size;
    if (size) return [size[0], size[1]];
    try {
      return api.callCore(() => port.ask({ kind: 'preferredSize', view, fmt: port.state.fmt }));
    } catch {
      return this.sizes.get(view) ?? [300, 200];
    }
  }

  /** Redraws every heatmap whose inputs changed since it was last drawn. */
  paint() {
    const { port } = this;
    // On paper the heatmaps are drawn at print resolution (the state's dpr), else they print soft.
    const dpr = port.state.dpr;
    const dark = port.state.dark;
    const fmt = port.state.fmt;
    // The element's content box minus the .av padding (12 px a side; 8 px in narrow containers).
    const width = port.state.width ?? 600;
    const pad = width <= 520 ? 16 : 24;
    const avail = Math.max(120, width - pad - 2);
    const highlights = this.highlights();
    // Each view's natural size and the key of what it draws: the last edit's snapshot, else one call for all.
    // Sizes are fixed between rebuilds and while edits go on, so a drag never reflows the page (see settle).
    const unmeasured = [...this.canvases.keys()].filter((view) => !this.sizes.has(view));
    const views = unmeasured.length ? port.state.sized : port.state.views;
    for (const view of unmeasured) this.sizes.set(view, this.measure(view, views));
    const multiple = this.multipleSize(avail);
    const packed = width <= NARROW ? this.packed(avail) : null;
    // Three passes: every size first, then every drawing, then every data-painted mark. A DOM write between two
    // drawings (a canvas's size, an attribute) makes the next drawing's first `font` restyle the whole page
    // (164 font sets cost 200–460 ms on index.html's first load, about half of it that).
    const stale = [];
    const widths = new Map();
    for (const [view, canvas] of this.canvases) {
      const [pw, ph] = this.sizes.get(view);
      const [w, h] = headOf(view) !== null && multiple ? multiple : packed?.get(view) ?? [Math.min(pw, avail), port.state.height ?? ph];
      widths.set(view, w);
      const cw = Math.round(w * dpr);
      const ch = Math.round(h * dpr);
      // While a scrub lasts, each view keeps the palette it had when it began (signs may change mid-drag).
      const palette = this.palettes?.get(view) ?? port.state.palette ?? undefined;
      // A canvas whose inputs are all unchanged (an edit that leaves its view's numbers and labels as they were, a
      // hover that moves only outlines, a resize that keeps its size) is not redrawn; its overlay of outlines is
      // redrawn when they change (or, the core decides, when the heatmap under it moved its cells).
      const look = `${cw}x${ch}|${dark}|${palette}|${fmt}|${port.state.contrast}`;
      const key = `${views.get(view)?.key ?? port.state.version}|${look}`;
      const overlay = this.overlays.get(view);
      const outlines = `${cw}x${ch}|${dark}|${highlights[view] || ''}`;
      const base = canvas.dataset.painted !== key;
      if (!base && overlay.dataset.painted === outlines) continue;
      if (canvas.width !== cw || canvas.height !== ch) {
        canvas.width = cw; canvas.height = ch;
        canvas.style.width = `${w}px`; canvas.style.height = `${h}px`;
        overlay.width = cw; overlay.height = ch;
        overlay.style.width = `${w}px`; overlay.style.height = `${h}px`;
      }
      stale.push([view, canvas, palette, key, base, outlines, look]);
    }
    this.placeStatuses(packed ? widths : null, avail);
    // New numbers (an edit, a load) are drawn only on heatmaps on or near the screen (the sizes above are set either
    // way: the page never reflows); a new look (theme, palette, fmt, size) is drawn on every heatmap at once, as are
    // the outlines over a heatmap already drawn (cheap).
    const deferred = ([, canvas, , , base, , look]) => base
      && (this.looks.has(canvas) ? this.looks.get(canvas) === look : this.atLoad.has(canvas))
      && !this.isNear(canvas, port.state.printing);
    const shown = stale.filter((s) => !deferred(s));
    clearTimeout(this.catchUp);
    if (shown.length < stale.length) this.catchUp = setTimeout(() => { if (port.live) this.paintAll(); }, CATCH_UP_MS);
    stale.length = 0;
    stale.push(...shown);
    for (const [view, canvas, palette, key, base, outlines] of stale) {
      const overlay = this.overlays.get(view);
      port.draw(canvas, { kind: 'layers', view, overlay, key, dpr, dark, palette, highlights: highlights[view] || [], fmt,
        contrast: port.state.contrast, base, outlines: overlay.dataset.painted !== outlines });
    }
    for (const [view, canvas, , key, , outlines, look] of stale) {
      canvas.dataset.painted = key;
      this.overlays.get(view).dataset.painted = outlines;
      this.looks.set(canvas, look);
    }
    let marked = false;
    for (const [view, node] of this.statuses) {
      const text = views.get(view)?.status ?? '';
      if (node.textContent !== text) node.textContent = text;
      marked ||= text !== '';
    }
    this.markLegend(marked);
    // The text alternatives: made at once for new canvases; after an edit, once edits stop.
    if (this.reader.key === null) {
      this.seen = port.state.version;
      this.reader.sync();
    } else if (port.state.version !== this.seen) {
      this.seen = port.state.version;
      // A shown tooltip says the new value (and drops "click: follow" once followed), where it is.
      if (!this.tip.hidden && this.tipTarget) {
        const text = this.tipText(this.tipTarget);
        if (this.tip.textContent !== text) this.tip.textContent = text;
      }
      clearTimeout(this.settleTimer);
      if (!this.palettes) this.settleTimer = setTimeout(() => this.settle(true), SETTLE_MS);
    }
  }

  /**
   * Whether `canvas` is drawn now: on paper, while `everything` is asked, or without an observer, always; else on or
   * near the screen — as the observer last said, or, before it has said anything (a new canvas), by where it is now.
   */
  isNear(canvas, printing) {
    if (printing || this.everything || !this.watcher) return true;
    const said = this.near.get(canvas);
    if (said !== undefined) return said;
    const r = canvas.getBoundingClientRect();
    if (!r.width && !r.height) return false; // not laid out (a hidden container): the observer says when it shows
    const h = window.innerHeight || document.documentElement.clientHeight;
    return r.bottom >= -h && r.top <= 2 * h;
  }

  /** The observer's word: a canvas that came near the screen is drawn on the next frame if it is stale. */
  onNear(entries) {
    let came = false;
    for (const e of entries) {
      if (!this.canvases.has(e.target.dataset.view) || this.canvases.get(e.target.dataset.view) !== e.target) continue;
      const was = this.near.get(e.target);
      this.near.set(e.target, e.isIntersecting);
      if (e.isIntersecting && was !== true) came = true;
    }
    if (came && this.port.live) this.scheduleRepaint();
  }

  /** Every canvas drawn now, on or off the screen (a PNG of the whole figure composites them all). */
  paintAll() {
    this.everything = true;
    try { this.paint(); } finally { this.everything = false; }
  }

  /** `view`'s canvas, drawn now if it is stale (the peek mirrors the result heatmap wherever it is). */
  drawn(view) {
    const canvas = this.canvases.get(view);
    if (canvas && !this.isNear(canvas, this.port.state.printing)) {
      this.near.set(canvas, true);
      try { this.paint(); } finally { this.near.set(canvas, false); }
    }
    return canvas;
  }

  /**
   * An edit has ended (SETTLE_MS after the last typed one, or a scrub's release): each canvas is measured again —
   * wider numbers get wider cells instead of smaller digits — and the text alternatives follow the numbers.
   * Returns whether a size changed; `repaint`: then repaint at once.
   */
  settle(repaint = false) {
    clearTimeout(this.settleTimer);
    this.settleTimer = 0;
    if (!this.port.live) return false;
    let resized = false;
    const views = this.port.state.sized;
    for (const view of this.canvases.keys()) {
      const size = this.measure(view, views);
      const old = this.sizes.get(view);
      if (!old || old[0] !== size[0] || old[1] !== size[1]) { this.sizes.set(view, size); resized = true; }
    }
    if (!this.reader.fresh()) this.reader.sync();
    if (resized && repaint) this.port.repaint({ silent: true });
    return resized;
  }

  /** A scrub began (inputs.js: the pointer moved past its threshold): every heatmap keeps the palette it has now. */
  scrubStart() {
    const { port } = this;
    this.palettes = new Map();
    for (const view of this.canvases.keys()) {
      try { this.palettes.set(view, port.ask({ kind: 'palette', view, palette: port.state.palette ?? undefined })); } catch { /* its own palette */ }
    }
    clearTimeout(this.settleTimer);
  }

  /** The scrub ended: the palettes follow the values again, and the canvases are measured again. */
  scrubEnd() {
    if (!this.palettes) return;
    this.palettes = null;
    this.settle();
    this.port.repaint({ silent: true });
  }

  /** Outlines as a heatmap drawing takes them: [kind, r0, c0, r1, c1, …] per view. */
  highlights() {
    const { port, hover } = this;
    const cursor = this.reader.cursor;
    const out = {};
    const add = (view, kind, r0, c0, r1, c1) => { (out[view] ||= []).push(kind, r0, c0, r1, c1); };
    const cfg = port.state.facts;
    const n = cfg.tokens.length;
    const followed = this.followedHead();
    const shown = (v) => this.canvases.has(v);
    // What a weight (hovered, tapped or under the cursor) links together, on every view: the core's (src/links.rs),
    // asked once per cell while the figure's state stays (a hover repaints, a tooltip is placed: no call each time).
    if (this.linkedAt !== port.state.version || this.linked.size > 64) { this.linked = new Map(); this.linkedAt = port.state.version; }
    const links = ({ view, cell: [i, j] }) => {
      const key = `${view}|${i}|${j}`;
      if (!this.linked.has(key)) this.linked.set(key, port.ask({ kind: 'links', view, i, j }));
      for (const [v, list] of Object.entries(this.linked.get(key))) (out[v] ||= []).push(...list);
    };
    if (cfg.mechanism === 'self') {
      const qi = cfg.query;
      for (const v of WEIGHT_VIEWS) add(v, SELECTED, qi, 0, qi + 1, n);
      // The followed head: its whole small multiple.
      if ((cfg.heads ?? 1) > 1 && this.followers?.length) add(`heads.${followed}.weights`, SELECTED, 0, 0, n, n);
    }
    if (hover) links(hover);
    // A model's weights: the token pointed at anywhere (its grid, this heatmap's labels, the line view: model.js), dashed.
    const token = cfg.mechanism === 'weights' && shown('attention') ? port.tell('modelToken') : null;
    if (token) {
      const [, , rows, cols] = port.tell('modelShape');
      if (token.kind === 'row') add('attention', LINK, token.index, 0, token.index + 1, cols);
      else add('attention', LINK, 0, token.index, rows, token.index + 1);
    }
    if (cursor) {
      links(cursor);
      const [i, j] = cursor.cell;
      add(cursor.view, CURSOR, i, j, i + 1, j + 1);
    }
    return out;
  }

  // ---- where the cells are ------------------------------------------------------------------------------

  /** How a canvas is shown: its client rectangle, device pixels per client pixel, its drawing scale. */
  frameOf(canvas) {
    const rect = canvas.getBoundingClientRect();
    return {
      rect,
      sx: canvas.width / rect.width,
      sy: canvas.height / rect.height,
      dpr: canvas.width / (parseFloat(canvas.style.width) || rect.width),
    };
  }

  /** The [row, column] of the cell at device pixel (x, y) of a canvas, as the core laid it out, or null. */
  cellAtPx(canvas, f, x, y) {
    const { port } = this;
    // The key of what the canvas shows: the core keeps its layout while it is the same (no view built per move).
    const hit = port.ask({ kind: 'cellAt', view: canvas.dataset.view, width: canvas.width, height: canvas.height, dpr: f.dpr, x, y, fmt: port.state.fmt, key: canvas.dataset.painted });
    return hit ? [hit[0], hit[1]] : null;
  }

  /** The [row, column] of the heatmap cell under a pointer event, or null. */
  hit(canvas, e) {
    const f = this.frameOf(canvas);
    return this.cellAtPx(canvas, f, (e.clientX - f.rect.left) * f.sx, (e.clientY - f.rect.top) * f.sy);
  }

  /** Cell [i, j] of a canvas as a client rectangle, where the core laid it out; null outside the grid. */
  cellRect(canvas, i, j) {
    const f = this.frameOf(canvas);
    if (!f.rect.width || !f.rect.height) return null;
    const { port } = this;
    const r = port.ask({ kind: 'cellRect', view: canvas.dataset.view, width: canvas.width, height: canvas.height, dpr: f.dpr, i, j, fmt: port.state.fmt, key: canvas.dataset.painted });
    if (!r) return null;
    const [x0, y0, x1, y1] = r;
    return { left: f.rect.left + x0 / f.sx, right: f.rect.left + x1 / f.sx, top: f.rect.top + y0 / f.sy, bottom: f.rect.top + y1 / f.sy };
  }

  // ---- events ---------------------------------------------------------------------------------------------

  /** Follows query `q`: the breakdown, the outlines and the query menu. */
  follow(q) {
    const { port } = this;
    const ok = port.dispatch({ query: q });
    port.tell('showQuery', q);
    return ok;
  }

  /**
   * Follows head `h`: the stage heatmaps, the breakdown and the outlines. The figure is rebuilt (titles, sizes); the
   * keyboard focus lands on the picked head's canvas, and a cursor or a tapped cell's tooltip stays where it was.
   */
  pickHead(h) {
    const { port } = this;
    const tapped = this.tipOf === 'touch' ? this.hover : null;
    const ok = port.dispatch({ fields: { head: h } }, { rebuild: true });
    const canvas = this.canvases.get(`heads.${h}.weights`);
    if (ok && canvas && port.shadow.activeElement !== canvas) canvas.focus({ preventScroll: true });
    if (tapped && this.canvases.has(tapped.view)) this.setHover(tapped, null, 'touch');
    else if (this.reader.cursor) this.showCursor();
    return ok;
  }

  onClick(e) {
    const canvas = e.target.closest?.('canvas.head-pick');
    if (!canvas) return;
    const h = Number(canvas.dataset.head);
    if (h !== this.followedHead()) this.pickHead(h);
  }

  onPointerDown(e) {
    const canvas = e.target.closest?.('canvas[data-view]');
    const touch = e.pointerType === 'touch';
    if (!canvas || !(touch || canvas.classList.contains('pickable'))) return;
    const hit = this.hit(canvas, e);
    if (hit && canvas.classList.contains('pickable')) this.follow(hit[0]);
    // A finger has no hover: a tap shows the tapped cell's tooltip (and outlines) until a tap elsewhere.
    if (touch) {
      this.setHover(hit ? { view: canvas.dataset.view, cell: hit } : null, { x: e.clientX, y: e.clientY }, 'touch');
    }
  }

  onPointerMove(e) {
    if (e.pointerType === 'touch') return;
    const canvas = e.target.closest?.('canvas[data-view]');
    if (!canvas) return;
    const hit = this.hit(canvas, e);
    this.setHover(hit ? { view: canvas.dataset.view, cell: hit } : null, { x: e.clientX, y: e.clientY }, 'hover');
  }

  onKey(e) {
    const canvas = e.target.closest?.('canvas[data-view]');
    if (canvas) this.reader.onKey(e, canvas);
  }

  /** The cell under the pointer (or tapped), `point` where it is; null: none (then the cursor's tooltip, if any). */
  setHover(hover, point = null, kind = 'hover') {
    const same = JSON.stringify(hover) === JSON.stringify(this.hover);
    this.hover = hover;
    if (hover) {
      if (!same || this.tipOf !== kind || this.tip.hidden) this.showTip(hover, point, kind);
    } else if (this.tipOf === 'hover' || this.tipOf === 'touch') {
      this.hideTip();
      if (this.reader.cursor) this.showCursor({ repaint: false });
    }
    if (!same) this.scheduleRepaint();
  }

  /** After the keyboard cursor moved, appeared or went: its tooltip, and its outline at once. */
  showCursor({ repaint = true } = {}) {
    const c = this.reader.cursor;
    if (c) this.showTip(c, null, 'cursor');
    else if (this.tipOf === 'cursor') this.hideTip();
    if (repaint) this.port.repaint({ silent: true });
  }

  /** The tooltip of a cell, placed beside the cell and clear of its row and of what it reads (`placeTip`). */
  showTip(target, point, kind) {
    const { tip } = this;
    const canvas = this.canvases.get(target.view);
    if (!canvas) return;
    const text = this.tipText(target);
    if (tip.textContent !== text) tip.textContent = text;
    tip.hidden = false;
    this.tipOf = kind;
    this.tipTarget = target;
    if (kind === 'touch') document.addEventListener('pointerdown', this.onOutside, true);
    else document.removeEventListener('pointerdown', this.onOutside, true);
    // The tooltip is fixed to the window: a scroll (a finger swiping up to read the score above a tapped weight) would
    // leave it over whatever comes under it, so it is placed again beside its cell after each.
    window.addEventListener('scroll', this.onScroll, { capture: true, passive: true });
    this.placeTipAt(target, point);
  }

  /** Places the shown tooltip beside its cell where the cell is now; hidden while the cell is off the screen. */
  placeTipAt(target, point = null) {
    const { tip } = this;
    const canvas = this.canvases.get(target.view);
    if (!canvas) return;
    const cell = this.cellRect(canvas, ...target.cell)
      ?? (point ? { left: point.x, right: point.x, top: point.y - 16, bottom: point.y + 16 } : canvas.getBoundingClientRect());
    const view = { width: document.documentElement.clientWidth, height: document.documentElement.clientHeight };
    const off = cell.bottom <= 0 || cell.top >= view.height || cell.right <= 0 || cell.left >= view.width;
    tip.style.visibility = off ? 'hidden' : '';
    if (off) return;
    const { offsetWidth: w, offsetHeight: h } = tip;
    const { left, top } = placeTip(cell, { w, h }, this.readRects(target, canvas, cell), view);
    tip.style.left = `${Math.round(left)}px`;
    tip.style.top = `${Math.round(top)}px`;
  }

  /**
   * What a cell's tooltip must leave in view, as client rectangles: the cell's row across its heatmap, and the cells
   * the hovered (tapped, cursor) cell reads or feeds, as its dashed outlines show them (on a phone, the score under the
   * tapped weight).
   */
  readRects(target, canvas, cell) {
    const frame = canvas.getBoundingClientRect();
    const out = [{ left: frame.left, right: frame.right, top: cell.top, bottom: cell.bottom }];
    const all = this.highlights();
    for (const [view, list] of Object.entries(all)) {
      const c = this.canvases.get(view);
      if (!c) continue;
      for (let k = 0; k + 4 < list.length; k += 5) {
        if (list[k] !== LINK && list[k] !== CURSOR) continue;
        const a = this.cellRect(c, list[k + 1], list[k + 2]);
        const b = this.cellRect(c, list[k + 3] - 1, list[k + 4] - 1);
        if (a && b) out.push({ left: a.left, top: a.top, right: b.right, bottom: b.bottom });
      }
    }
    return out;
  }

  hideTip() {
    this.tip.hidden = true;
    this.tipOf = null;
    document.removeEventListener('pointerdown', this.onOutside, true);
    window.removeEventListener('scroll', this.onScroll, { capture: true });
  }

  /** The tooltip of a cell, the core's (src/tables.rs `tip`): `weights[1][3] = 0.045 (0.0451737)`, the score's
   * formula, the query → key it links and how to follow it, why the key is masked. */
  tipText({ view, cell: [i, j] }) {
    return this.reader.text(view, i, j)?.tip ?? `${view}[${i}][${j}]`;
  }
}

/** The tooltip's gap to what it stands beside, and to the window's edges, CSS px. */
const TIP_GAP = 6;

/**
 * Where a tooltip `size` ({w, h}) goes beside `cell` in a `view` ({width, height}): of the places above, below, left
 * or right of the cell or of any of `avoid` (client rectangles it must not cover), inside the window, the one covering
 * the least of them, then the nearest the cell (above it first, as the eye reads down the row).
 */
export function placeTip(cell, size, avoid, view) {
  const { w, h } = size;
  const g = TIP_GAP;
  const xs = [cell.left, cell.right - w, cell.right + g, cell.left - g - w];
  const ys = [cell.top - g - h, cell.bottom + g];
  for (const a of avoid) { xs.push(a.right + g, a.left - g - w); ys.push(a.top - g - h, a.bottom + g); }
  const clamp = (x, lo, hi) => Math.max(lo, Math.min(x, hi));
  const cx = (cell.left + cell.right) / 2;
  const cy = (cell.top + cell.bottom) / 2;
  let best = null;
  for (const y0 of ys) {
    for (const x0 of xs) {
      const left = clamp(x0, 2, Math.max(2, view.width - w - 2));
      const top = clamp(y0, 2, Math.max(2, view.height - h - 2));
      const box = { left, top, right: left + w, bottom: top + h };
      const covered = [cell, ...avoid].reduce((sum, a) => sum + Math.max(0, Math.min(box.right, a.right) - Math.max(box.left, a.left))
        * Math.max(0, Math.min(box.bottom, a.bottom) - Math.max(box.top, a.top)), 0);
      const far = Math.hypot(left + w / 2 - cx, top + h / 2 - cy);
      if (!best || covered < best.covered - 0.5 || (Math.abs(covered - best.covered) <= 0.5 && far < best.far - 0.5)) best = { left, top, covered, far };
    }
  }
  return best;
}
