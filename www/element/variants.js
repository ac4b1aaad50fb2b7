// Owns the panels of attention as transformers and the literature use it, beside the toolbar: heads (+ head, − head,
// the head the figure follows, the output projection W_O), the mask (none / causal / custom, a heatmap of it where a
// click or Enter/Space on the keyboard cursor toggles a cell, a valid length per query, what a fully masked query
// gets), the temperature (a log-scale slider, and each query's entropy of its weights in bits) and the scoring
// function. Each panel shows when the `views` attribute names it (heads, mask, temperature, scoring) or is absent,
// in an editable figure; the position, kv and window panels (modern.js) are placed and painted in the same row.
// Every control is one edit through host._apply; a refused one says why in the status line
// and changes nothing. Entropy is the one number computed here: the trace holds the weights it comes from.
import { el, clip, fmt } from './dom.js';
import { maskReason } from './breakdown.js';
import { loaded, idleModern } from './parts.js';

/** The names the `views` attribute gives these panels. */
export const VARIANT_PANELS = ['heads', 'mask', 'temperature', 'scoring'];

/** The temperature slider: 100 steps a decade, from 10^−1.3 ≈ 0.05 to 10^1.3 ≈ 20, with T = 1 in the middle. */
const STEPS = 100;
const S_MIN = -130;
const S_MAX = 130;
/** T at slider position s, to 3 significant digits (the config keeps a number a reader can read). */
const tOf = (s) => Number((10 ** (s / STEPS)).toPrecision(3));
const sOf = (t) => Math.max(S_MIN, Math.min(S_MAX, Math.round(STEPS * Math.log10(t))));

/** Queries whose entropy is listed one by one; past them, the mean over all of them. */
const MAX_LISTED = 16;
/** Queries with a valid-length field each; past them, one field holding the list. */
const MAX_LEN_FIELDS = 16;

const MASKS = [
  ['none', 'none', 'Every query may attend to every key.'],
  ['causal', 'causal', 'Query i may attend to keys 0 … i only: a decoder cannot look ahead.'],
  ['custom', 'custom', 'Your own 0/1 matrix (1 = may attend): click a cell of the mask to toggle it.'],
];
const MASKED_ROWS = [
  ['zero', 'zero', 'Weights 0 and context 0, as PyTorch ≥ 2.5\'s scaled_dot_product_attention.'],
  ['uniform', 'uniform', '1/m on every key, as d2l\'s masked_softmax (which fills masked scores with −1e6).'],
  ['nan', 'nan', 'NaN: softmax of scores that are all −∞ is 0/0, the literal mathematics.'],
];
const SCORINGS = [
  ['dot', 'dot product', 'q·kᵀ', 'The dot product of query and key (Vaswani et al.; the documents\' scoring).'],
  ['general', 'general (Luong)', 'q·W_a·kᵀ', 'Luong et al. 2015: q·W_a·kᵀ, with W_a starting as the identity (the dot product).'],
  ['additive', 'additive (Bahdanau)', 'v_a·tanh(q·W_a + k·U_a)', 'Bahdanau et al. 2015: v_a·tanh(q·W_a + k·U_a), with W_a, U_a, v_a from seed 42.'],
  ['cosine', 'cosine', 'q·k / (‖q‖‖k‖)', 'Cosine similarity (PyTorch\'s cosine_similarity, eps 1e-8): scores in [−1, 1], usually paired with a low temperature.'],
];
/** The seed additive scoring's starting W_a, U_a, v_a are drawn from. */
const SCORING_SEED = 42;

const options = (list, value) => list.map(([v, text, title]) => el('option', { value: v, text, title, selected: v === value }));

/** The mask as a select names it. */
const maskKind = (cfg) => (cfg.mask === undefined ? 'none' : cfg.mask === 'causal' ? 'causal' : 'custom');

/** Entry [i][j] of the mask as the config states it (1 = may attend; valid lengths apart). */
function maskAt(cfg, i, j) {
  const m = cfg.mask;
  if (Array.isArray(m)) return Number(cfg.mechanism === 'self' ? m[i][j] : m[j]);
  if (m === 'causal') return j <= i ? 1 : 0;
  return 1;
}

/** H = −Σ w·log₂ w of one row of weights, in bits (0·log 0 = 0); null for a row of zeros (every key masked). */
function entropy(w) {
  let h = 0;
  let sum = 0;
  for (const x of w) {
    if (Number.isNaN(x)) return NaN;
    sum += x;
    if (x > 0) h -= x * Math.log2(x);
  }
  return sum === 0 ? null : Math.max(0, h);
}

/** Cursor moves of the arrow keys on the mask heatmap: [rows, columns]. */
const MOVES = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

export class Variants {
  constructor(host, api) {
    this.host = host;
    this.api = api;
    this.cursor = null; // [i, j] of the mask heatmap's keyboard cursor
    this.canvas = null;
    this.size = null; // the mask heatmap's natural [w, h]
    // The position, kv and window panels, in this row (modern.js, imported when a figure first shows one: index.js
    // `_rebuild` puts it in place of the stand-in, parts.js).
    this.modern = loaded.modern ? new loaded.modern(host, api) : idleModern(host);
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
   * config uses (so the documents' figures and pages written before these panels look as they did). A panel once shown
   * stays, so undoing its feature (mask back to none, T back to 1) never takes the control away from under the reader.
   */
  shown() {
    const { host } = this;
    if (!host.editable) return new Set();
    const panels = host._state.panels;
    // The window and sinks are drawn on the mask heatmap: it shows with their panel.
    const withWindow = this.modern.shown().has('window') ? ['mask'] : [];
    if (panels) return new Set([...VARIANT_PANELS.filter((p) => panels.has(p)), ...withWindow]);
    const cfg = host._state.config;
    const used = {
      heads: (cfg.heads ?? 1) > 1 || cfg.w_o !== undefined,
      mask: (cfg.mask !== undefined && cfg.mask !== 'none') || cfg.valid_lens !== undefined,
      temperature: (cfg.temperature ?? 1) !== 1,
      scoring: (cfg.scoring ?? 'dot') !== 'dot',
    };
    this.sticky ??= new Set();
    for (const p of VARIANT_PANELS) if (used[p]) this.sticky.add(p);
    return new Set([...this.sticky, ...withWindow]);
  }

  build() {
    const { host } = this;
    const show = this.shown();
    this.canvas = null;
    this.entropyEl = null;
    this.entropyKey = null;
    const modern = host._viz ? this.modern.build() : [];
    if ((!show.size && !modern.length) || !host._viz) { this.root.hidden = true; this.root.replaceChildren(); return; }
    const cfg = host._state.config;
    // The one-line panels on a line of their own; the temperature and the mask (each with its figure) below, side by side.
    const line = [];
    if (show.has('heads')) line.push(this.headsPanel(cfg));
    if (show.has('scoring')) line.push(this.scoringPanel(cfg));
    const parts = line.length ? [el('div', { class: 'line' }, ...line)] : [];
    if (show.has('temperature')) parts.push(this.temperaturePanel(cfg));
    parts.push(...modern);
    if (show.has('mask')) parts.push(this.maskPanel(cfg));
    this.root.hidden = false;
    this.root.replaceChildren(...parts);
  }

  // ---- the panels ----------------------------------------------------------------------------------------

  headsPanel(cfg) {
    const self = cfg.mechanism === 'self';
    const h = cfg.heads ?? 1;
    const head = cfg.head ?? 0;
    // Heads split W_Q, W_K and W_V by columns: a figure without them has nothing to split (said, not refused).
    const why = !self
      ? 'Encoder–decoder attention here compares the decoder state with the annotations directly: it has one head.'
      : !cfg.w_q ? 'Heads split W_Q, W_K and W_V by columns: this figure has no projections (it attends with the embeddings themselves).' : null;
    const add = el('button', { type: 'button', 'data-action': 'add-head', text: '+ head', disabled: Boolean(why),
      title: why ?? 'One more head: W_Q, W_K and W_V gain its columns (zeros to start with)' });
    const remove = el('button', { type: 'button', 'data-action': 'remove-head', text: '− head', disabled: Boolean(why),
      title: why ?? 'Remove the last head: its columns of W_Q, W_K and W_V (and its rows of W_O)' });
    const group = el('div', { class: 'group', 'data-panel': 'heads', title: why ?? undefined },
      el('span', { class: 'label', text: h > 1 ? `${h} heads` : 'heads' }), add, remove);
    if (h > 1) {
      const pick = el('select', { 'data-control': 'head', 'aria-label': 'Head the figure follows', title: 'The head whose stages, breakdown and entropy are shown' },
        ...Array.from({ length: h }, (_, i) => el('option', { value: String(i), text: `head ${i}`, selected: i === head })));
      group.append(pick);
    }
    if (self) {
      const box = el('input', { type: 'checkbox', 'data-control': 'w-o', checked: cfg.w_o !== undefined });
      group.append(el('label', { title: 'The output projection: the heads\' contexts side by side times W_O (Vaswani et al. 2017, §3.2.2); it starts as the identity' },
        box, ' W_O'));
    }
    return group;
  }

  scoringPanel(cfg) {
    const scoring = cfg.scoring ?? 'dot';
    const [, , formula, title] = SCORINGS.find(([v]) => v === scoring) ?? SCORINGS[0];
    const select = el('select', { 'data-control': 'scoring', 'aria-label': 'Scoring function', title },
      ...SCORINGS.map(([v, text, , t]) => el('option', { value: v, text, title: t, selected: v === scoring })));
    return el('div', { class: 'group', 'data-panel': 'scoring' },
      el('span', { class: 'label', text: 'scoring' }), select, el('code', { class: 'formula', text: formula }));
  }

  temperaturePanel(cfg) {
    const t = cfg.temperature ?? 1;
    const range = el('input', {
      type: 'range', min: String(S_MIN), max: String(S_MAX), step: '1', value: String(sOf(t)), 'data-control': 'temperature',
      'aria-label': 'Temperature (log scale, 0.05 to 20)', 'aria-valuetext': `T = ${fmt(t)}`,
      title: 'scaled = scores ÷ scale ÷ T: a low T sharpens the weights towards one key, a high T flattens them towards uniform',
    });
    this.entropyEl = el('div', { class: 'entropy', 'data-role': 'entropy' });
    return el('div', { class: 'panel', 'data-panel': 'temperature' },
      el('div', { class: 'group' }, el('span', { class: 'label', text: 'temperature' }),
        el('span', { class: 'scale-end', 'aria-hidden': 'true', text: '0.05' }), range,
        el('span', { class: 'scale-end', 'aria-hidden': 'true', text: '20' }),
        el('output', { class: 't-value', 'data-role': 't-value', text: `T = ${fmt(t)}` })),
      this.entropyEl);
  }

  maskPanel(cfg) {
    const self = cfg.mechanism === 'self';
    const kind = maskKind(cfg);
    const n = self ? cfg.tokens.length : 1;
    const m = cfg.tokens.length;
    const row = cfg.masked_row ?? 'zero';
    const kinds = self ? MASKS : MASKS.filter(([v]) => v !== 'causal'); // one query: nothing to look ahead of
    const select = el('select', { 'data-control': 'mask', 'aria-label': 'Mask', title: MASKS.find(([v]) => v === kind)[2] }, ...options(kinds, kind));
    const masked = el('select', { 'data-control': 'masked-row', 'aria-label': 'What a query whose every key is masked gets',
      title: MASKED_ROWS.find(([v]) => v === row)?.[2] }, ...options(MASKED_ROWS, row));
    const head = el('div', { class: 'group' }, el('span', { class: 'label', text: 'mask' }), select,
      el('span', { class: 'label', text: 'if every key is masked' }), masked);
    const body = el('div', { class: 'mask-body' });
    if (this.host._viz.views().includes('mask')) {
      this.canvas = el('canvas', {
        'data-control': 'mask-grid', tabindex: '0', role: 'img', 'aria-describedby': 'av-mask-keys',
        'aria-label': `Mask, ${self ? 'queries as rows' : 'the decoder state as the row'}, keys as columns: 1 = may attend, 0 = masked`,
        title: 'Click a cell to toggle it (1 = may attend, 0 = masked)',
      });
      this.canvas.addEventListener('click', (e) => this.onCanvasClick(e));
      // The hovered cell's tooltip says which rule masks it (the core's reasons: mask, valid length, window, sink).
      this.canvas.addEventListener('pointermove', (e) => {
        const cell = this.hit(e.clientX, e.clientY);
        const at = `${cell}|${this.host._state.version}`;
        if (this.hovered === at) return; // the core is asked once a cell and state
        this.hovered = at;
        this.canvas.title = cell ? `${this.cellWords(...cell)}\nClick to toggle the mask` : 'Click a cell to toggle it (1 = may attend, 0 = masked)';
      });
      this.size = null;
      if (this.cursor && (this.cursor[0] >= n || this.cursor[1] >= m)) this.cursor = null;
      body.append(el('div', { class: 'mask-canvas' }, this.canvas));
    } else {
      this.cursor = null;
      body.append(el('p', { class: 'hint', text: 'Pick causal or custom to draw the mask and toggle its cells, or give a query a valid length.' }));
    }
    body.append(this.validLens(cfg, n, m));
    return el('div', { class: 'panel', 'data-panel': 'mask' }, head, body,
      el('p', { id: 'av-mask-keys', class: 'sr-only', text: 'Click a cell, or move a cursor with the arrow keys and press Enter or Space, to toggle it; Escape hides the cursor.' }),
      this.live = el('div', { class: 'sr-only', 'aria-live': 'polite', 'aria-atomic': 'true' }));
  }

  /** A valid length per query (empty: all keys), or past MAX_LEN_FIELDS queries one field with the list. */
  validLens(cfg, n, m) {
    const lens = cfg.valid_lens;
    const title = `Query i may attend to keys 0 … L − 1 only (d2l's valid_lens); empty: all ${m} keys`;
    const box = el('div', { class: 'valid-lens', title }, el('span', { class: 'label', text: 'valid length' }));
    if (n > MAX_LEN_FIELDS) {
      box.append(el('input', { type: 'text', class: 'lens', inputmode: 'numeric', 'data-control': 'valid-lens', spellcheck: 'false', autocomplete: 'off',
        placeholder: `${n} lengths, e.g. ${Array.from({ length: 3 }, (_, i) => Math.max(1, m - i)).join(', ')}, …`,
        'aria-label': `Valid lengths, one whole number per query (${n}), separated by commas, applied with Enter; empty: all keys`, value: lens ? lens.join(', ') : '' }));
      return box;
    }
    const queries = cfg.mechanism === 'self' ? cfg.tokens : ['decoder state'];
    box.append(el('div', { class: 'lens-fields' }, ...queries.map((q, i) => el('label', { class: 'len', title: q },
      el('span', { class: 'len-name', text: clip(q) }),
      // Text, not type=number: the caret stays where it was across a rebuild (rememberFocus); ↑/↓ step it.
      el('input', { type: 'text', class: 'num', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false', 'data-control': 'valid-len', 'data-row': String(i),
        // A length of m or more is every key: shown empty, as typed for none, so clearing the others removes valid_lens.
        placeholder: 'all', 'aria-label': `Valid length of query ${q}, 0 to ${m} (empty: all ${m} keys; arrow keys step it)`,
        value: lens && lens[i] < m ? String(lens[i]) : '' })))));
    return box;
  }

  // ---- painting (every repaint: the mask heatmap, the temperature's value, the entropies) ----------------

  paint() {
    const { host } = this;
    if (this.root.hidden || !host._viz) return;
    const cfg = host._state.config;
    // What changes without a rebuild: a toggled cell makes a causal mask custom; the slider moves T; a head is
    // followed from its heatmap (figures.js).
    const head = this.control('head');
    if (head && head.value !== String(cfg.head ?? 0)) head.value = String(cfg.head ?? 0);
    const select = this.control('mask');
    if (select && select.value !== maskKind(cfg)) { select.value = maskKind(cfg); select.title = MASKS.find(([v]) => v === select.value)[2]; }
    const t = cfg.temperature ?? 1;
    const out = this.root.querySelector('[data-role="t-value"]');
    if (out && out.textContent !== `T = ${fmt(t)}`) {
      out.textContent = `T = ${fmt(t)}`;
      this.control('temperature').setAttribute('aria-valuetext', `T = ${fmt(t)}`);
    }
    this.paintMask(cfg);
    this.paintEntropy(cfg);
    this.modern.paint();
  }

  paintMask(cfg) {
    const { host, api, canvas } = this;
    if (!canvas) return;
    const dpr = host._state.dpr;
    const dark = host._state.dark;
    const fmtSpec = host._state.fmt;
    const views = this.size ? host._state.views : host._state.sized;
    if (!this.size) {
      const size = views.get('mask')?.size;
      if (size) this.size = [size[0], size[1]];
      else try { this.size = Array.from(api.callCore(() => host._viz.preferredSize('mask', fmtSpec))); } catch { this.size = [240, 160]; }
    }
    const width = host._state.width ?? 600;
    const avail = Math.max(120, width - (width <= 520 ? 16 : 24) - 2);
    const w = Math.min(this.size[0], avail);
    const h = this.size[1];
    const cw = Math.round(w * dpr);
    const ch = Math.round(h * dpr);
    const highlights = [];
    if (cfg.mechanism === 'self') highlights.push(0, cfg.query, 0, cfg.query + 1, cfg.tokens.length);
    if (this.cursor) highlights.push(2, this.cursor[0], this.cursor[1], this.cursor[0] + 1, this.cursor[1] + 1);
    const palette = host.palette ?? undefined;
    const key = `${views.get('mask')?.key ?? host._state.version}|${cw}x${ch}|${dark}|${palette}|${fmtSpec}|${host.contrast}|${highlights}`;
    if (canvas.dataset.painted === key) return;
    if (canvas.width !== cw || canvas.height !== ch) {
      canvas.width = cw; canvas.height = ch;
      canvas.style.width = `${w}px`; canvas.style.height = `${h}px`;
    }
    api.callCore(() => host._viz.render('mask', canvas, dpr, dark, palette, highlights, true, fmtSpec, host.contrast));
    canvas.dataset.painted = key;
  }

  /** The trace fields `paint` reads, for the host's snapshot request: the followed head's weights for the entropies. */
  traceFields(cfg) {
    if (this.root.hidden) return [];
    const own = this.entropyEl ? [cfg.mechanism === 'self' ? `heads.${cfg.head ?? 0}.weights` : 'weights'] : [];
    return [...own, ...this.modern.traceFields(cfg)];
  }

  /** Each query's entropy of its weights (the followed head's), with log₂ m, the entropy of uniform weights. */
  paintEntropy(cfg) {
    const { host, entropyEl } = this;
    if (!entropyEl) return;
    const self = cfg.mechanism === 'self';
    const head = cfg.head ?? 0;
    const field = self ? `heads.${head}.weights` : 'weights';
    const key = `${host._state.version}|${field}`;
    if (this.entropyKey === key) return;
    this.entropyKey = key;
    const m = cfg.tokens.length;
    const n = self ? m : 1;
    const max = Math.log2(m);
    const names = self ? cfg.tokens : ['decoder state'];
    const hs = [];
    for (let i = 0; i < n; i++) hs.push(entropy(host._state.row(field, i)));
    const say = (x) => (x === null ? 'all masked' : fmt(Number(x.toPrecision(3))));
    const items = hs.slice(0, MAX_LISTED).map((x, i) => el('li', { title: `${names[i]}: H = ${x === null ? 'none (every key is masked, weights 0)' : `${say(x)} bits`}` },
      el('span', { class: 'len-name', text: clip(names[i]) }),
      el('span', { class: 'bar', 'aria-hidden': 'true' }, el('span', { style: `width: ${x === null || Number.isNaN(x) || max === 0 ? 0 : Math.round((100 * x) / max)}%` })),
      el('span', { class: 'h', text: say(x) })));
    const finite = hs.filter((x) => x !== null && !Number.isNaN(x));
    const mean = finite.length ? finite.reduce((a, b) => a + b, 0) / finite.length : null;
    const whose = self && (cfg.heads ?? 1) > 1 ? `head ${head}'s weights` : 'the weights';
    const parts = [
      el('p', { class: 'entropy-title', text: `Entropy of ${whose}, bits: 0 = all on one key, log₂ ${m} = ${fmt(Number(max.toPrecision(3)))} = uniform` }),
      el('ol', { class: 'entropy-rows' }, ...items)];
    if (n > MAX_LISTED) parts.push(el('p', { class: 'entropy-title', text: `… ${n - MAX_LISTED} more queries; mean over all ${n}: ${say(mean)} bits` }));
    entropyEl.replaceChildren(...parts);
  }

  // ---- events ---------------------------------------------------------------------------------------------

  /** One edit; on refusal, `undo` puts the control back as the config has it. */
  apply(mutate, { rebuild = false, undo = null } = {}) {
    const ok = this.host._apply(mutate, { rebuild });
    if (!ok && undo) undo();
    return ok;
  }

  fields(obj, options) {
    return this.apply({ fields: obj }, options);
  }

  onInput(e) {
    const t = e.target;
    switch (t.dataset?.control) {
      case 'temperature': this.fields({ temperature: tOf(Number(t.value)) }); return;
      case 'valid-len': this.setLens(t); return;
      default:
    }
  }

  onChange(e) {
    const t = e.target;
    const { host } = this;
    const cfg = host._state.config;
    switch (t.dataset?.control) {
      case 'head': this.fields({ head: Number(t.value) }, { rebuild: true, undo: () => { t.value = String(cfg.head ?? 0); } }); return;
      // On: the reader's last W_O when it still fits, else the identity (the heads' contexts side by side); edits.rs.
      case 'w-o': this.apply(() => host._viz.setOutputProjection(t.checked), { rebuild: true, undo: () => { t.checked = cfg.w_o !== undefined; } }); return;
      case 'scoring':
        this.apply(() => host._viz.setScoring(t.value, SCORING_SEED), { rebuild: true, undo: () => { t.value = cfg.scoring ?? 'dot'; } });
        return;
      case 'mask': {
        const undo = () => { t.value = maskKind(cfg); };
        if (t.value === 'none') this.fields({ mask: null }, { rebuild: true, undo });
        else if (t.value === 'causal') this.fields({ mask: 'causal' }, { rebuild: true, undo });
        else if (maskKind(cfg) !== 'custom') {
          // Custom starts from what the mask is now (causal's triangle, or every key allowed).
          const m = cfg.tokens.length;
          const rows = cfg.mechanism === 'self'
            ? cfg.tokens.map((_, i) => Array.from({ length: m }, (__, j) => maskAt(cfg, i, j)))
            : Array.from({ length: m }, (_, j) => maskAt(cfg, 0, j));
          this.fields({ mask: rows }, { rebuild: true, undo });
        }
        return;
      }
      // The whole list: applied when it is left or Enter is pressed, not at every keystroke of a half-typed list.
      case 'valid-lens': this.setLensList(t); return;
      case 'masked-row':
        t.title = MASKED_ROWS.find(([v]) => v === t.value)?.[2] ?? '';
        this.fields({ masked_row: t.value }, { undo: () => { t.value = cfg.masked_row ?? 'zero'; } });
        return;
      default:
    }
  }

  /** A valid length typed in one query's field: empty fields are all keys; every field empty removes valid_lens. */
  setLens(input) {
    const { host } = this;
    const cfg = host._state.config;
    const fields = [...this.root.querySelectorAll('input[data-control="valid-len"]')];
    const m = cfg.tokens.length;
    const texts = fields.map((f) => f.value.trim());
    const lens = texts.every((x) => x === '') ? null : texts.map((x) => (x === '' ? m : Number(x)));
    if (lens && (texts.some((x) => x !== '' && !/^\d+$/.test(x)))) {
      input.setAttribute('aria-invalid', 'true');
      host._fail(`valid length of query ${Number(input.dataset.row)}: "${clip(input.value)}" is not a whole number ≥ 0`);
      return;
    }
    this.setValidLens(lens, input);
  }

  /** ↑/↓ in a valid-length field: one key more or less (an empty field is all m keys). */
  stepLen(e) {
    e.preventDefault();
    const input = e.target;
    const m = this.host._state.config.tokens.length;
    const now = /^\d+$/.test(input.value.trim()) ? Number(input.value.trim()) : m;
    const next = Math.max(0, Math.min(m, now + (e.key === 'ArrowUp' ? 1 : -1)));
    if (String(next) === input.value) return;
    input.value = String(next);
    this.setLens(input);
  }

  setLensList(input) {
    const { host } = this;
    const text = input.value.trim();
    const parts = text === '' ? null : text.replace(/^\[|\]$/g, '').split(/[\s,]+/).filter(Boolean);
    if (parts && parts.some((x) => !/^\d+$/.test(x))) {
      input.setAttribute('aria-invalid', 'true');
      host._fail('valid lengths: write whole numbers ≥ 0 separated by commas, one per query');
      return;
    }
    this.setValidLens(parts && parts.map(Number), input);
  }

  /** Sets valid_lens (null: none); rebuilt only when the mask heatmap comes or goes, so typing is never interrupted. */
  setValidLens(lens, input) {
    const { host } = this;
    const had = host._state.config.valid_lens !== undefined;
    const rebuild = had !== (lens !== null) && !host._state.config.mask;
    if (this.fields({ valid_lens: lens }, { rebuild })) {
      for (const f of this.root.querySelectorAll('[data-control^="valid-len"][aria-invalid]')) f.removeAttribute('aria-invalid');
    } else input.setAttribute('aria-invalid', 'true');
  }

  action(name) {
    const { host } = this;
    const cfg = host._state.config;
    const h = cfg.heads ?? 1;
    switch (name) {
      case 'add-head': this.apply(() => host._viz.insertHead(), { rebuild: true }); return;
      case 'remove-head': this.apply(() => host._viz.removeHead(h - 1), { rebuild: true }); return;
      default:
    }
  }

  // ---- the mask heatmap: a click, or the keyboard cursor, toggles a cell ---------------------------------

  /** The [row, column] of the mask cell at a client point, as the core laid it out, or null. */
  hit(x, y) {
    const { canvas, host } = this;
    const rect = canvas.getBoundingClientRect();
    if (!rect.width || !rect.height) return null;
    const dpr = canvas.width / (parseFloat(canvas.style.width) || rect.width);
    const px = (x - rect.left) * (canvas.width / rect.width);
    const py = (y - rect.top) * (canvas.height / rect.height);
    const at = host._viz.cellAt('mask', canvas.width, canvas.height, dpr, px, py, host._state.fmt);
    return at ? [at[0], at[1]] : null;
  }

  onCanvasClick(e) {
    const cell = this.hit(e.clientX, e.clientY);
    if (!cell) return;
    this.cursor = cell;
    this.toggle(cell);
  }

  /** Toggles mask cell [i, j] (a "none" or "causal" mask becomes the matrix it stands for, with that entry changed). */
  toggle([i, j]) {
    const { host } = this;
    const cfg = host._state.config;
    const v = maskAt(cfg, i, j);
    if (this.apply(() => host._viz.setValue('mask', i, j, 1 - v))) this.say(i, j);
    else this.paint();
  }

  say(i, j) {
    const text = this.cellWords(i, j);
    if (this.live && this.live.textContent !== text) this.live.textContent = text;
  }

  /** Mask cell (i, j) in words: its entry, and why the key is masked or open (the core's reasons, cellText). */
  cellWords(i, j) {
    const cfg = this.host._state.config;
    const q = cfg.mechanism === 'self' ? cfg.tokens[i] : 'decoder state';
    const v = maskAt(cfg, i, j);
    let c = null;
    try { c = this.host._viz.cellText('mask', i, j, this.host._state.fmt); } catch { /* a fmt the core refused: the entry alone */ }
    const why = c ? maskReason(cfg, i, j, c.masked ?? 0) : null;
    const sink = c?.sink ? '; attended as a sink, though outside the window' : '';
    return `mask, query ${q} → key ${cfg.tokens[j]}: ${v} (${v ? 'may attend' : 'masked'})${why ? `; ${why}` : ''}${sink}`;
  }

  onKey(e) {
    if (e.target.dataset?.control === 'valid-len' && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) { this.stepLen(e); return; }
    if (e.target !== this.canvas || e.altKey || e.ctrlKey || e.metaKey) return;
    const cfg = this.host._state.config;
    const n = cfg.mechanism === 'self' ? cfg.tokens.length : 1;
    const m = cfg.tokens.length;
    const start = () => [cfg.mechanism === 'self' ? cfg.query : 0, 0];
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
