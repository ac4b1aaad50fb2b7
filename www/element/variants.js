// Owns the panels of attention as transformers and the literature use it, beside the toolbar: heads (+ head, − head,
// the head the figure follows, the output projection W_O), the mask (none / causal / custom, a heatmap of it where a
// click or Enter/Space on the keyboard cursor toggles a cell, a valid length per query, what a fully masked query
// gets), the temperature (a log-scale slider, and each query's entropy of its weights in bits) and the scoring
// function. Each panel shows when the `views` attribute names it (heads, mask, temperature, scoring) or is absent,
// in an editable figure; the position, kv and window panels (modern.js) are placed and painted in the same row.
// Every control is one edit through port.dispatch; a refused one says why in the status line
// and changes nothing. What the panels show — the choices and their words, the reasons a control is off, each query's
// entropy — is the core's model (src/panels.rs, the snapshot's `parts`): this file lays it out and sends the edits.
import { el, clip, fmt } from './dom.js';
import { loaded, idleModern, shownPanels } from './parts.js';
import { HIGHLIGHT } from './facts.js';

/** The names the `views` attribute gives these panels. */
export const VARIANT_PANELS = ['heads', 'mask', 'temperature', 'scoring'];

/** A select's options from the model's choices ({value, text, title}), `value` selected. */
const options = (list, value) => list.map((c) => el('option', { value: c.value, text: c.text, title: c.title, selected: c.value === value }));

/** A log-scale slider of the model's (panels.rs `LogSlider`): the value at a position is its list's, nothing else. */
const sliderValue = (slider, position) => slider.values[Number(position) - slider.min];

/** A sentence of the model with its `{name}` numbers written as the element writes numbers (3 significant digits). */
const say = (x) => fmt(Number(x.toPrecision(3)));
const fill = (text, values) => text.replace(/\{(\w+)\}/g, (_, k) => say(values[k]));

/** Cursor moves of the arrow keys on the mask heatmap: [rows, columns]. */
const MOVES = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

export class Variants {
  constructor(port, api) {
    this.port = port;
    this.api = api;
    this.cursor = null; // [i, j] of the mask heatmap's keyboard cursor
    this.canvas = null;
    this.size = null; // the mask heatmap's natural [w, h]
    // The position, kv and window panels, in this row (modern.js, imported when a figure first shows one: index.js
    // `_rebuild` puts it in place of the stand-in, parts.js).
    this.modern = loaded.modern ? new loaded.modern(port, api) : idleModern(port);
    this.root = el('div', { class: 'variants' });
    this.root.addEventListener('change', (e) => this.onChange(e));
    this.root.addEventListener('input', (e) => this.onInput(e));
    this.root.addEventListener('click', (e) => {
      const b = e.target.closest?.('button[data-action]');
      if (b) this.action(b.dataset.action);
    });
    this.root.addEventListener('keydown', (e) => this.onKey(e));
    this.root.addEventListener('focusout', (e) => {
      // Not when a rebuild replaces the canvas: the focus comes back to its replacement (dom.js rememberFocus).
      if (e.target === this.canvas && e.target.isConnected && this.cursor) { this.cursor = null; this.paint(); }
    });
  }

  control(name) { return this.root.querySelector(`[data-control="${name}"]`); }

  /**
   * Which panels show, in an editable figure: those `views` names; when it is absent, each panel whose feature the
   * config uses (the core's rule, the snapshot's `used`: so the documents' figures and pages written before these
   * panels look as they did). A panel once shown stays, so undoing its feature (mask back to none, T back to 1) never
   * takes the control away from under the reader.
   */
  shown() {
    const { port } = this;
    if (!port.state.editable) return new Set();
    // The window and sinks are drawn on the mask heatmap: it shows with their panel.
    const withWindow = this.modern.shown().has('window') ? ['mask'] : [];
    return new Set([...shownPanels(port, VARIANT_PANELS, this), ...withWindow]);
  }

  /** The panels whose model the snapshot carries (index.js `_request`): those of the last build, the modern ones too. */
  asked() {
    return [...(this.built ?? []), ...(this.modern.built ?? [])];
  }

  build() {
    const { port } = this;
    this.canvas = null;
    this.entropyEl = null;
    this.entropyOf = null;
    const show = port.live ? this.shown() : new Set();
    const modernShow = port.live ? this.modern.shown() : new Set();
    // Asked before the model is read, so the snapshot read next carries these panels' parts.
    this.built = [...show];
    this.modern.built = [...modernShow];
    if (!show.size && !modernShow.size) { this.root.hidden = true; this.root.replaceChildren(); return; }
    const model = port.state.parts;
    const modern = this.modern.build(model);
    // The one-line panels on a line of their own; the temperature and the mask (each with its figure) below, side by side.
    const line = [];
    if (model.heads) line.push(this.headsPanel(model.heads));
    if (model.scoring) line.push(this.scoringPanel(model.scoring));
    const parts = line.length ? [el('div', { class: 'line' }, ...line)] : [];
    if (model.temperature) parts.push(this.temperaturePanel(model.temperature));
    parts.push(...modern);
    if (model.mask) parts.push(this.maskPanel(model.mask));
    this.root.hidden = !parts.length;
    this.root.replaceChildren(...parts);
  }

  // ---- the panels ----------------------------------------------------------------------------------------

  headsPanel(heads) {
    const { head, disabled: why } = heads;
    // Heads split W_Q, W_K and W_V by columns: a figure without them has nothing to split (said, not refused).
    const add = el('button', { type: 'button', 'data-action': 'add-head', text: '+ head', disabled: Boolean(why), title: heads.add_title });
    const remove = el('button', { type: 'button', 'data-action': 'remove-head', text: '− head', disabled: Boolean(why), title: heads.remove_title });
    const group = el('div', { class: 'group', 'data-panel': 'heads', title: why ?? undefined },
      el('span', { class: 'label', text: heads.label }), add, remove);
    if (heads.choices.length) {
      const pick = el('select', { 'data-control': 'head', 'aria-label': 'Head the figure follows', title: 'The head whose stages, breakdown and entropy are shown' },
        ...heads.choices.map((c) => el('option', { value: String(c.value), text: c.text, selected: c.value === head })));
      group.append(pick);
    }
    if (heads.w_o !== null) {
      const box = el('input', { type: 'checkbox', 'data-control': 'w-o', checked: heads.w_o });
      group.append(el('label', { title: 'The output projection: the heads\' contexts side by side times W_O (Vaswani et al. 2017, §3.2.2); it starts as the identity' },
        box, ' W_O'));
    }
    return group;
  }

  scoringPanel(scoring) {
    const select = el('select', { 'data-control': 'scoring', 'aria-label': 'Scoring function', title: scoring.title },
      ...options(scoring.choices, scoring.value));
    return el('div', { class: 'group', 'data-panel': 'scoring' },
      el('span', { class: 'label', text: 'scoring' }), select, el('code', { class: 'formula', text: scoring.formula }));
  }

  temperaturePanel(temperature) {
    const { slider } = temperature;
    const range = el('input', {
      type: 'range', min: String(slider.min), max: String(slider.max), step: String(slider.step), value: String(slider.at), 'data-control': 'temperature',
      'aria-label': slider.label, 'aria-valuetext': temperature.text,
      title: temperature.title,
    });
    this.entropyEl = el('div', { class: 'entropy', 'data-role': 'entropy' });
    return el('div', { class: 'panel', 'data-panel': 'temperature' },
      el('div', { class: 'group' }, el('span', { class: 'label', text: 'temperature' }),
        el('span', { class: 'scale-end', 'aria-hidden': 'true', text: slider.ends[0] }), range,
        el('span', { class: 'scale-end', 'aria-hidden': 'true', text: slider.ends[1] }),
        el('output', { class: 't-value', 'data-role': 't-value', text: temperature.text })),
      this.entropyEl);
  }

  maskPanel(mask) {
    const n = mask.queries.length;
    const m = mask.keys.length;
    const select = el('select', { 'data-control': 'mask', 'aria-label': 'Mask', title: mask.title }, ...options(mask.choices, mask.kind));
    const masked = el('select', { 'data-control': 'masked-row', 'aria-label': 'What a query whose every key is masked gets',
      title: mask.masked_title }, ...options(mask.masked_rows, mask.masked_row));
    const head = el('div', { class: 'group' }, el('span', { class: 'label', text: 'mask' }), select,
      el('span', { class: 'label', text: 'if every key is masked' }), masked);
    const body = el('div', { class: 'mask-body' });
    if (mask.drawn) {
      this.canvas = el('canvas', {
        'data-control': 'mask-grid', tabindex: '0', role: 'img', 'aria-describedby': 'av-mask-keys', 'aria-label': mask.canvas_label,
        title: 'Click a cell to toggle its mask entry (1 = may attend, 0 = masked)',
      });
      this.canvas.addEventListener('click', (e) => this.onCanvasClick(e));
      // The hovered cell's tooltip says which rule masks it (the core's reasons: mask, valid length, window, sink).
      this.canvas.addEventListener('pointermove', (e) => {
        const cell = this.hit(e.clientX, e.clientY);
        const at = `${cell}|${this.port.state.version}`;
        if (this.hovered === at) return; // the core is asked once a cell and state
        this.hovered = at;
        this.canvas.title = cell ? `${this.cellWords(...cell)}\nClick to toggle the mask` : 'Click a cell to toggle its mask entry (1 = may attend, 0 = masked)';
      });
      this.size = null;
      if (this.cursor && (this.cursor[0] >= n || this.cursor[1] >= m)) this.cursor = null;
      body.append(el('div', { class: 'mask-canvas' }, this.canvas));
    } else {
      this.cursor = null;
      body.append(el('p', { class: 'hint', text: mask.hint }));
    }
    body.append(this.validLens(mask));
    return el('div', { class: 'panel', 'data-panel': 'mask' }, head, body,
      el('p', { id: 'av-mask-keys', class: 'sr-only', text: 'Click a cell, or move a cursor with the arrow keys and press Enter or Space, to toggle it; Escape hides the cursor.' }),
      this.live = el('div', { class: 'sr-only', 'aria-live': 'polite', 'aria-atomic': 'true' }));
  }

  /** A valid length per query (empty: all keys), or, when the model has no field per query (`lens`), one with the list. */
  validLens(mask) {
    const box = el('div', { class: 'valid-lens', title: mask.lens_title }, el('span', { class: 'label', text: 'valid length' }));
    if (!mask.lens) {
      box.append(el('input', { type: 'text', class: 'lens', inputmode: 'numeric', 'data-control': 'valid-lens', spellcheck: 'false', autocomplete: 'off',
        placeholder: mask.list_placeholder, 'aria-label': mask.list_label, value: mask.lens_list }));
      return box;
    }
    box.append(el('div', { class: 'lens-fields' }, ...mask.queries.map((q, i) => el('label', { class: 'len', title: q },
      el('span', { class: 'len-name', text: clip(q) }),
      // Text, not type=number: the caret stays where it was across a rebuild (rememberFocus); ↑/↓ step it.
      el('input', { type: 'text', class: 'num', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false', 'data-control': 'valid-len', 'data-row': String(i),
        placeholder: 'all', 'aria-label': mask.len_labels[i],
        value: mask.lens[i] })))));
    return box;
  }

  // ---- painting (every repaint: the mask heatmap, the temperature's value, the entropies) ----------------

  paint() {
    const { port } = this;
    if (this.root.hidden || !port.live) return;
    const model = port.state.parts;
    // What changes without a rebuild: a toggled cell makes a causal mask custom; the slider moves T; a head is
    // followed from its heatmap (figures.js).
    const head = this.control('head');
    if (head && model.heads && head.value !== String(model.heads.head)) head.value = String(model.heads.head);
    const select = this.control('mask');
    if (select && model.mask && select.value !== model.mask.kind) { select.value = model.mask.kind; select.title = model.mask.title; }
    const out = this.root.querySelector('[data-role="t-value"]');
    if (out && model.temperature && out.textContent !== model.temperature.text) {
      out.textContent = model.temperature.text;
      this.control('temperature').setAttribute('aria-valuetext', model.temperature.text);
    }
    if (model.mask) this.paintMask(model.mask);
    if (model.temperature) this.paintEntropy(model.temperature.entropy);
    this.modern.paint();
  }

  paintMask(mask) {
    const { port, api, canvas } = this;
    if (!canvas) return;
    const dpr = port.state.dpr;
    const dark = port.state.dark;
    const fmtSpec = port.state.fmt;
    const views = this.size ? port.state.views : port.state.sized;
    if (!this.size) {
      const size = views.get('mask')?.size;
      if (size) this.size = [size[0], size[1]];
      else try { this.size = api.callCore(() => port.ask({ kind: 'preferredSize', view: 'mask', fmt: fmtSpec })); } catch { this.size = [240, 160]; }
    }
    const width = port.state.width ?? 600;
    const avail = Math.max(120, width - (width <= 520 ? 16 : 24) - 2);
    const w = Math.min(this.size[0], avail);
    const h = this.size[1];
    const cw = Math.round(w * dpr);
    const ch = Math.round(h * dpr);
    const highlights = [...(mask.outline ?? [])];
    if (this.cursor) highlights.push(HIGHLIGHT.cursor, this.cursor[0], this.cursor[1], this.cursor[0] + 1, this.cursor[1] + 1);
    const palette = port.state.palette ?? undefined;
    const key = `${views.get('mask')?.key ?? port.state.version}|${cw}x${ch}|${dark}|${palette}|${fmtSpec}|${port.state.contrast}|${highlights}`;
    if (canvas.dataset.painted === key) return;
    if (canvas.width !== cw || canvas.height !== ch) {
      canvas.width = cw; canvas.height = ch;
      canvas.style.width = `${w}px`; canvas.style.height = `${h}px`;
    }
    port.draw(canvas, { kind: 'heatmap', view: 'mask', dpr, dark, palette, highlights, fmt: fmtSpec, contrast: port.state.contrast });
    canvas.dataset.painted = key;
  }

  /** Each query's entropy of the followed head's weights, with log₂ m, the entropy of uniform weights (the model's). */
  paintEntropy(entropy) {
    const { entropyEl } = this;
    if (!entropyEl || this.entropyOf === entropy) return;
    this.entropyOf = entropy;
    const bits = (r) => (r.masked ? null : (r.bits ?? NaN));
    const items = entropy.rows.map((r) => el('li', { title: fill(r.title, { bits: bits(r) }) },
      el('span', { class: 'len-name', text: clip(r.name) }),
      el('span', { class: 'bar', 'aria-hidden': 'true' }, el('span', { style: `width: ${r.bar}%` })),
      el('span', { class: 'h', text: fill(r.text, { bits: bits(r) }) })));
    const parts = [
      el('p', { class: 'entropy-title', text: fill(entropy.title, { max: entropy.max }) }),
      el('ol', { class: 'entropy-rows' }, ...items)];
    if (entropy.more) parts.push(el('p', { class: 'entropy-title', text: fill(entropy.more, { mean: entropy.mean }) }));
    entropyEl.replaceChildren(...parts);
  }

  // ---- events ---------------------------------------------------------------------------------------------

  /** One edit; on refusal, `undo` puts the control back as the config has it. */
  apply(mutate, { rebuild = false, undo = null } = {}) {
    const ok = this.port.dispatch(mutate, { rebuild });
    if (!ok && undo) undo();
    return ok;
  }

  fields(obj, options) {
    return this.apply({ fields: obj }, options);
  }

  onInput(e) {
    const t = e.target;
    switch (t.dataset?.control) {
      case 'temperature': {
        const { temperature } = this.port.state.parts;
        this.fields({ [temperature.field]: sliderValue(temperature.slider, t.value) });
        return;
      }
      case 'valid-len': this.setLens(t); return;
      default:
    }
  }

  onChange(e) {
    const t = e.target;
    const { port } = this;
    const model = port.state.parts;
    switch (t.dataset?.control) {
      case 'head': {
        const { fields } = model.heads.choices.find((c) => String(c.value) === t.value);
        this.fields(fields, { rebuild: true, undo: () => { t.value = String(model.heads.head); } });
        return;
      }
      // On: the reader's last W_O when it still fits, else the identity (the heads' contexts side by side); edits.rs.
      case 'w-o': this.apply(() => port.edit({ outputProjection: t.checked }), { rebuild: true, undo: () => { t.checked = model.heads.w_o; } }); return;
      case 'scoring':
        this.apply(() => port.edit({ scoring: [t.value, model.scoring.seed] }), { rebuild: true, undo: () => { t.value = model.scoring.value; } });
        return;
      case 'mask': {
        const undo = () => { t.value = model.mask.kind; };
        const { fields } = model.mask.choices.find((c) => c.value === t.value);
        if (fields) this.fields(fields, { rebuild: true, undo });
        // Custom starts from what the mask is now (causal's triangle, or every key allowed): the core writes the
        // matrix a kind stands for when one of its entries is set, here entry (0, 0) to the 1 it is under both.
        else if (model.mask.kind !== 'custom') this.apply(() => port.edit({ mask: [0, 0, 1] }), { rebuild: true, undo });
        return;
      }
      // The whole list: applied when it is left or Enter is pressed, not at every keystroke of a half-typed list.
      case 'valid-lens': this.setLensList(t); return;
      case 'masked-row': {
        const choice = model.mask.masked_rows.find((c) => c.value === t.value);
        t.title = choice.title;
        this.fields(choice.fields, { undo: () => { t.value = model.mask.masked_row; } });
        return;
      }
      default:
    }
  }

  /** A valid length typed in one query's field (`step`: ↑/↓ on it). */
  setLens(input, step = 0) {
    const texts = [...this.root.querySelectorAll('input[data-control="valid-len"]')].map((f) => f.value);
    this.typedLens(input, { texts, row: Number(input.dataset.row), step });
  }

  /** ↑/↓ in a valid-length field: one key more or less, as the core counts it. */
  stepLen(e) {
    e.preventDefault();
    this.setLens(e.target, e.key === 'ArrowUp' ? 1 : -1);
  }

  setLensList(input) { this.typedLens(input, { list: input.value }); }

  /**
   * What is typed in the valid-length fields, as the core reads it (panels.rs `typed_lens`): a stepped field's new
   * text, then the edit it makes (rebuilt only when the mask heatmap comes or goes, so typing is never interrupted),
   * or the core's message for a text that is not a whole number, the field it names marked.
   */
  typedLens(input, question) {
    const { port } = this;
    const a = port.ask({ kind: 'validLens', ...question });
    if (a.text !== null) input.value = a.text;
    if (a.error !== null) {
      const field = a.row === null ? input : this.root.querySelector(`input[data-control="valid-len"][data-row="${a.row}"]`) ?? input;
      field.setAttribute('aria-invalid', 'true');
      port.fail(a.error);
      return;
    }
    if (a.fields === null) return;
    if (this.fields(a.fields, { rebuild: a.rebuild })) {
      for (const f of this.root.querySelectorAll('[data-control^="valid-len"][aria-invalid]')) f.removeAttribute('aria-invalid');
    } else input.setAttribute('aria-invalid', 'true');
  }

  action(name) {
    const { port } = this;
    // The modern panels' buttons (modern.js) are in this root too: their actions are theirs.
    switch (name) {
      case 'add-head': this.apply(() => port.edit({ insertHead: true }), { rebuild: true }); return;
      case 'remove-head': this.apply(() => port.edit({ removeHead: port.state.parts.heads.remove }), { rebuild: true }); return;
      default:
    }
  }

  // ---- the mask heatmap: a click, or the keyboard cursor, toggles a cell ---------------------------------

  /** The [row, column] of the mask cell at a client point, as the core laid it out, or null. */
  hit(x, y) {
    const { canvas, port } = this;
    const rect = canvas.getBoundingClientRect();
    if (!rect.width || !rect.height) return null;
    const dpr = canvas.width / (parseFloat(canvas.style.width) || rect.width);
    const px = (x - rect.left) * (canvas.width / rect.width);
    const py = (y - rect.top) * (canvas.height / rect.height);
    const at = port.ask({ kind: 'cellAt', view: 'mask', width: canvas.width, height: canvas.height, dpr, x: px, y: py, fmt: port.state.fmt });
    return at ? [at[0], at[1]] : null;
  }

  onCanvasClick(e) {
    const cell = this.hit(e.clientX, e.clientY);
    if (!cell) return;
    this.cursor = cell;
    this.toggle(cell);
  }

  /**
   * Toggles the mask's entry [i, j] (a "none" or "causal" mask becomes the matrix it stands for, with that entry
   * changed): the core switches it, whatever the heatmap shows there (a key the window closes stays closed).
   */
  toggle([i, j]) {
    const { port } = this;
    if (this.apply(() => port.edit({ toggleMask: [i, j] }))) this.say(i, j);
    else this.paint();
  }

  say(i, j) {
    const text = this.cellWords(i, j);
    if (this.live && this.live.textContent !== text) this.live.textContent = text;
  }

  /** Mask cell (i, j) in words: its entry, and why the key is masked or open (the core's). */
  cellWords(i, j) { return this.port.ask({ kind: 'maskCell', i, j }); }

  onKey(e) {
    if (e.target.dataset?.control === 'valid-len' && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) { this.stepLen(e); return; }
    if (e.target !== this.canvas || e.altKey || e.ctrlKey || e.metaKey) return;
    const { mask } = this.port.state.parts;
    const n = mask.queries.length;
    const m = mask.keys.length;
    const start = () => [mask.query ?? 0, 0];
    const move = MOVES[e.key];
    if (move) {
      e.preventDefault();
      const [i, j] = this.cursor ?? start();
      const next = this.cursor ? [Math.max(0, Math.min(n - 1, i + move[0])), Math.max(0, Math.min(m - 1, j + move[1]))] : [i, j];
      this.cursor = next;
      this.say(...next);
      this.paint();
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (!this.cursor) { this.cursor = start(); this.say(...this.cursor); this.paint(); return; }
      this.toggle(this.cursor);
    } else if (e.key === 'Escape' && this.cursor) {
      e.preventDefault();
      this.cursor = null;
      this.paint();
    }
  }
}
