// Owns three panels of how today's language models attend, in the variants' row (variants.js builds and paints
// them with its own): `position` (none, sinusoidal, RoPE or ALiBi; the base as a log slider with its value shown and
// typed; RoPE's pair layout; ALiBi's slopes, read from the trace's bias and editable as a list; "Shift positions",
// `position.offset`, with what a shift does to the scores), `kv` (the key/value head count, offered as the core's divisors
// of `heads`, and which query heads share which K/V head) and `window` (its left and right sides and the sinks; the
// core draws them on the mask heatmap, which shows with this panel). A panel shows when `views` names it or, without
// `views`, when the core says the config uses it (the snapshot's `used`: views::modern_panels), and once shown it
// stays. Every control is one edit through host._apply; a refused one shows the core's message in its own panel and
// puts the control back as the config has it (the config itself is unchanged: the core refused it whole).
import { el, fmt } from './dom.js';
// The names the `views` attribute gives these panels (parts.js MODERN_OWN): the core's issue-25 panels but the steppers'.
import { MODERN_OWN as PANELS, shownPanels } from './parts.js';

const KINDS = [
  ['none', 'none', 'No position information: attention sees the tokens as a set (shuffle them and each row of weights only moves).'],
  ['sinusoidal', 'sinusoidal', 'Vaswani et al. 2017 §3.5: PE[p, j] = sin/cos(p / base^(2⌊j/2⌋/d_model)) is added to X before the projections.'],
  ['rope', 'RoPE', 'Su et al. 2021: each head\'s q and k rows are rotated pairwise by the angle p·θ_i, θ_i = base^(−2i/d_k); the scores are of the rotated vectors.'],
  ['alibi', 'ALiBi', 'Press et al. 2022: each head\'s scaled scores gain the bias −m_h·|i − j|.'],
];
const PAIRS = [
  ['interleaved', 'interleaved', 'Pairs (x_2i, x_2i+1): RoFormer\'s complex-number form (Su et al. 2021, eq. 34).'],
  ['halves', 'halves', 'Pairs (x_i, x_i+d/2): GPT-NeoX\'s and LLaMA\'s rotate_half.'],
];

/** The base slider: 100 steps a decade, from 10^0 = 1 (the core's least base) to 10^7. */
const STEPS = 100;
const B_MIN = 0;
const B_MAX = 700;
const DEFAULT_BASE = 10000;
/** The base at slider position s, to 3 significant digits (a number a reader can read back). */
const baseOf = (s) => Number((10 ** (s / STEPS)).toPrecision(3));
const sOf = (b) => Math.max(B_MIN, Math.min(B_MAX, Math.round(STEPS * Math.log10(b))));

/** What shifting every position does to the scores, per kind (the core's computation shows it; this says why). */
const SHIFT_NOTES = {
  rope: 'RoPE: each q and k turns by p·θ, and q_p·k_p′ depends only on p − p′, so every score stays the same.',
  sinusoidal: 'Sinusoidal: the table is added to X before the projections, so shifting the positions changes the scores.',
};

const options = (list, value) => list.map(([v, text, title]) => el('option', { value: v, text, title, selected: v === value }));
const kindOf = (cfg) => cfg.position?.kind ?? 'none';
const whole = (t) => /^\d+$/.test(t.trim());

export class Modern {
  constructor(host, api) {
    this.host = host;
    this.api = api;
    this.errors = {}; // panel → the core's message for the last refused edit there
    this.parts = {}; // panel → its root element while shown
  }

  /** Which of PANELS show (see the top of this file). */
  shown() {
    const { host } = this;
    if (!host.editable || !host._viz || host._state.config.mechanism !== 'self') return new Set();
    return shownPanels(host, PANELS, this);
  }

  /** The panels' elements, for variants.js to place; empty when none shows. */
  build() {
    const show = this.shown();
    const cfg = this.host._state.config;
    this.parts = {};
    if (show.has('position')) this.parts.position = this.positionPanel(cfg);
    if (show.has('kv')) this.parts.kv = this.kvPanel(cfg);
    if (show.has('window')) this.parts.window = this.windowPanel(cfg);
    return Object.values(this.parts);
  }

  /** The trace fields `paint` reads, asked with the snapshot: row 1 of each head's ALiBi bias (−m_h at j = 0). */
  traceFields(cfg) {
    if (!this.parts.position || kindOf(cfg) !== 'alibi' || cfg.tokens.length < 2) return [];
    return Array.from({ length: cfg.heads ?? 1 }, (_, h) => `heads.${h}.bias#1`);
  }

  // ---- the panels ----------------------------------------------------------------------------------------

  positionPanel(cfg) {
    const kind = kindOf(cfg);
    const p = cfg.position ?? {};
    const select = el('select', { 'data-control': 'position-kind', 'aria-label': 'Position encoding', title: KINDS.find(([v]) => v === kind)[2] },
      ...options(KINDS, kind));
    const head = el('div', { class: 'group' }, el('span', { class: 'label', text: 'position' }), select);
    if (kind === 'rope') {
      head.append(el('select', { 'data-control': 'position-pairs', 'aria-label': 'RoPE pair layout', title: PAIRS.find(([v]) => v === (p.pairs ?? 'interleaved'))[2] },
        ...options(PAIRS, p.pairs ?? 'interleaved')));
    }
    const parts = [head];
    if (kind === 'sinusoidal' || kind === 'rope') {
      const base = p.base ?? DEFAULT_BASE;
      parts.push(el('div', { class: 'group' }, el('span', { class: 'label', text: 'base' }),
        el('span', { class: 'scale-end', 'aria-hidden': 'true', text: '1' }),
        el('input', { type: 'range', min: String(B_MIN), max: String(B_MAX), step: '1', value: String(sOf(base)), 'data-control': 'position-base-slider',
          'aria-label': 'Base (log scale, 1 to 10 million)', 'aria-valuetext': `base ${fmt(base)}`,
          title: kind === 'rope' ? 'θ_i = base^(−2i/d_k): a larger base turns the slow pairs more slowly (LLaMA 3: 500000)' : 'The wavelengths grow from 2π to 2π·base across the columns' }),
        el('span', { class: 'scale-end', 'aria-hidden': 'true', text: '10⁷' }),
        el('input', { type: 'text', class: 'num base', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false', 'data-control': 'position-base',
          'aria-label': 'Base, a number ≥ 1 (Enter applies it)', value: String(base) })));
      const offset = p.offset ?? 0;
      parts.push(el('div', { class: 'group shift' }, el('span', { class: 'label', text: 'shift positions' }),
        el('button', { type: 'button', 'data-action': 'shift-down', text: '−', 'aria-label': 'Shift positions down by 1', disabled: offset === 0 }),
        el('input', { type: 'text', class: 'num', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false', 'data-control': 'position-offset',
          'aria-label': 'Shift every position by k (a whole number ≥ 0; arrow keys step it)', value: String(offset) }),
        el('button', { type: 'button', 'data-action': 'shift-up', text: '+', 'aria-label': 'Shift positions up by 1' }),
        el('output', { class: 'shift-range', 'data-role': 'shift-range', text: this.rangeText(cfg) })));
      parts.push(el('p', { class: 'hint', 'data-role': 'shift-note', text: SHIFT_NOTES[kind] }));
    } else if (kind === 'alibi') {
      parts.push(el('div', { class: 'group' }, el('span', { class: 'label', text: 'slopes' }),
        el('input', { type: 'text', class: 'lens', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false', 'data-control': 'position-slopes',
          'aria-label': `ALiBi slope of each head, ${cfg.heads ?? 1} numbers separated by commas (empty: the defaults 2^(−8(h+1)/H); Enter applies them)`,
          value: p.slopes ? p.slopes.join(', ') : '', placeholder: 'default' })));
      parts.push(el('p', { class: 'hint', 'data-role': 'slopes', text: '' }));
    }
    return this.panel('position', parts);
  }

  kvPanel(cfg) {
    const h = cfg.heads ?? 1;
    const kv = cfg.kv_heads ?? h;
    const why = !cfg.w_k ? 'Key/value heads share W_K and W_V: this figure has no projections.' : h === 1 ? 'One head: add heads (the heads panel) to share keys and values among them.' : null;
    const label = (d) => (d === 1 && h > 1 ? '1 (multi-query)' : d === h ? `${d} (one per head)` : `${d} (grouped)`);
    const select = el('select', { 'data-control': 'kv-heads', 'aria-label': 'Key/value heads', disabled: Boolean(why),
      title: why ?? 'W_K and W_V have kv_heads × d_k columns; query head h reads K/V head ⌊h / (heads / kv_heads)⌋ (GQA, Ainslie et al. 2023). Changing it mean-pools each group\'s K/V columns.' },
    ...this.host._state.kvChoices.map((d) => el('option', { value: String(d), text: label(d), selected: d === kv })));
    const group = h / kv;
    const share = Array.from({ length: kv }, (_, g) => {
      const qs = Array.from({ length: group }, (__, k) => g * group + k);
      return el('li', { text: `K/V head ${g} ← query head${qs.length > 1 ? 's' : ''} ${qs.join(', ')}` });
    });
    return this.panel('kv', [
      el('div', { class: 'group' }, el('span', { class: 'label', text: 'K/V heads' }), select, el('span', { class: 'hint', text: `of ${h} query heads` })),
      why ? el('p', { class: 'hint', text: why }) : el('ul', { class: 'kv-share', 'data-role': 'kv-share' }, ...share)]);
  }

  windowPanel(cfg) {
    const n = cfg.tokens.length;
    const w = cfg.window;
    const num = (control, value, label) => el('input', { type: 'text', class: 'num', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false',
      'data-control': control, 'aria-label': label, value: String(value), disabled: !w && control !== 'sinks' });
    const on = el('input', { type: 'checkbox', 'data-control': 'window-on', checked: Boolean(w) });
    return this.panel('window', [
      el('div', { class: 'group' }, el('span', { class: 'label', text: 'window' }),
        el('label', { title: 'Query i may attend keys i − left … i + right only (JAX\'s local_window_size; Mistral\'s sliding window)' }, on, ' sliding window'),
        el('span', { class: 'sides' },
          el('label', { class: 'side' }, 'left ', num('window-left', w ? w[0] : 2, `Window, keys to the left of each query (0 to ${n - 1}; arrow keys step it)`)),
          el('label', { class: 'side' }, 'right ', num('window-right', w ? w[1] : 0, `Window, keys to the right of each query (0 to ${n - 1}; arrow keys step it)`)))),
      el('div', { class: 'group' }, el('span', { class: 'label', text: 'sinks' }),
        num('sinks', cfg.sinks ?? 0, `Attention sinks: keys 0 … sinks − 1 are always attended, even outside the window (0 to ${n}; arrow keys step it)`),
        el('span', { class: 'hint', text: 'keys always attended (StreamingLLM)' })),
      el('p', { class: 'hint', text: w ? 'On the mask heatmap: a crossed 1 is a key the mask allows but the window does not; the sinks are dashed.' : 'Turn the window on to limit each query to its neighbours.' })]);
  }

  /** A panel with its error line (the core's message for its last refused edit). */
  panel(name, parts) {
    const error = el('p', { class: 'panel-error', role: 'alert', 'data-role': `${name}-error`, text: this.errors[name] ?? '' });
    error.hidden = !this.errors[name];
    const root = el('div', { class: 'panel modern', 'data-panel': name }, ...parts, error);
    root.addEventListener('change', (e) => this.onChange(name, e));
    root.addEventListener('input', (e) => this.onInput(name, e));
    root.addEventListener('keydown', (e) => this.onKey(name, e));
    root.addEventListener('click', (e) => {
      const b = e.target.closest?.('button[data-action]');
      if (b) this.action(name, b.dataset.action);
    });
    return root;
  }

  /** "positions 3 … 7": where the tokens sit after the shift. */
  rangeText(cfg) {
    const k = cfg.position?.offset ?? 0;
    return `positions ${k} … ${k + cfg.tokens.length - 1}`;
  }

  // ---- painting: what an edit changes without a rebuild -----------------------------------------------------

  paint() {
    const { host } = this;
    const cfg = host._state.config;
    const part = this.parts.position;
    if (part) {
      const p = cfg.position ?? {};
      const base = p.base ?? DEFAULT_BASE;
      const slider = part.querySelector('[data-control="position-base-slider"]');
      if (slider) {
        // The slider is where the reader drags: only its words follow; a typed base moves it.
        if (slider.getAttribute('aria-valuetext') !== `base ${fmt(base)}`) slider.setAttribute('aria-valuetext', `base ${fmt(base)}`);
        if (this.host.shadowRoot.activeElement !== slider && baseOf(Number(slider.value)) !== base) slider.value = String(sOf(base));
        const typed = part.querySelector('[data-control="position-base"]');
        if (this.host.shadowRoot.activeElement !== typed && typed.value !== String(base)) typed.value = String(base);
      }
      const offset = part.querySelector('[data-control="position-offset"]');
      if (offset) {
        const k = p.offset ?? 0;
        if (this.host.shadowRoot.activeElement !== offset && offset.value !== String(k)) offset.value = String(k);
        part.querySelector('[data-action="shift-down"]').disabled = k === 0;
        const range = part.querySelector('[data-role="shift-range"]');
        if (range.textContent !== this.rangeText(cfg)) range.textContent = this.rangeText(cfg);
      }
      const slopes = part.querySelector('[data-role="slopes"]');
      if (slopes) {
        const h = cfg.heads ?? 1;
        // −bias[1][0] = m_h·|1 − 0|: the core's slope, whichever rule gave it.
        const text = cfg.tokens.length < 2 ? 'One token: no distance to bias.'
          : `m = ${Array.from({ length: h }, (_, i) => fmt(-host._state.row(`heads.${i}.bias`, 1)[0])).join(', ')}${p.slopes ? '' : ' (the defaults 2^(−8(h+1)/H))'}: head h adds −m_h·|i − j|`;
        if (slopes.textContent !== text) slopes.textContent = text;
      }
    }
  }

  // ---- events ---------------------------------------------------------------------------------------------

  /** One edit; the core's message for a refused one goes in `panel`'s error line, and `undo` puts the control back. */
  edit(panel, command, { rebuild = false, undo = null } = {}) {
    const { host } = this;
    let message = null;
    const heard = (e) => { message = e.detail?.message ?? null; };
    host.addEventListener('error', heard);
    let ok;
    try { ok = host._apply(command, { rebuild }); } finally { host.removeEventListener('error', heard); }
    const before = this.errors[panel];
    this.errors[panel] = ok ? undefined : message;
    const line = this.parts[panel]?.querySelector('.panel-error');
    if (line && (before !== this.errors[panel] || !ok)) {
      line.textContent = this.errors[panel] ?? '';
      line.hidden = !this.errors[panel];
    }
    if (!ok && undo) undo();
    return ok;
  }

  position(fields, options) { return this.edit('position', { fields: { position: fields } }, options); }

  onChange(panel, e) {
    const t = e.target;
    const cfg = this.host._state.config;
    const p = cfg.position ?? {};
    switch (t.dataset?.control) {
      case 'position-kind': {
        const undo = () => { t.value = kindOf(cfg); };
        // Sinusoidal and RoPE keep the base and the shift between them; ALiBi takes neither.
        const keep = {};
        if (p.base !== undefined && p.kind !== 'alibi') keep.base = p.base;
        if (p.offset) keep.offset = p.offset;
        const next = t.value === 'none' ? null : t.value === 'alibi' ? { kind: 'alibi' } : { kind: t.value, ...keep };
        this.position(next, { rebuild: true, undo });
        return;
      }
      case 'position-pairs': this.position({ ...p, pairs: t.value }, { undo: () => { t.value = p.pairs ?? 'interleaved'; } }); return;
      case 'position-base': this.setBase(t); return;
      case 'position-slopes': this.setSlopes(t); return;
      case 'kv-heads': {
        const kv = Number(t.value);
        this.edit('kv', () => this.host._viz.setKvHeads(kv), { rebuild: true, undo: () => { t.value = String(cfg.kv_heads ?? cfg.heads ?? 1); } });
        return;
      }
      case 'window-on': {
        const left = this.number('window-left');
        const right = this.number('window-right');
        this.edit('window', { fields: { window: t.checked ? [left ?? 2, right ?? 0] : null } }, { rebuild: true, undo: () => { t.checked = Boolean(cfg.window); } });
        return;
      }
      default:
    }
  }

  onInput(panel, e) {
    const t = e.target;
    const p = this.host._state.config.position ?? {};
    switch (t.dataset?.control) {
      case 'position-base-slider': {
        const base = baseOf(Number(t.value));
        const typed = this.parts.position.querySelector('[data-control="position-base"]');
        typed.value = String(base);
        this.position({ ...p, base });
        return;
      }
      case 'position-offset': this.setWhole(t, (k) => this.position({ ...p, offset: k }), 'position'); return;
      case 'window-left': case 'window-right': case 'sinks': this.setWindow(t); return;
      default:
    }
  }

  /** ↑/↓ step a whole-number field; Enter applies a typed base or slopes (change does too, when the field is left). */
  onKey(panel, e) {
    const t = e.target;
    const control = t.dataset?.control;
    if ((e.key === 'ArrowUp' || e.key === 'ArrowDown') && ['position-offset', 'window-left', 'window-right', 'sinks'].includes(control)) {
      e.preventDefault();
      const now = whole(t.value) ? Number(t.value.trim()) : 0;
      const next = Math.max(0, now + (e.key === 'ArrowUp' ? 1 : -1));
      if (String(next) === t.value) return;
      t.value = String(next);
      t.dispatchEvent(new Event('input', { bubbles: true }));
    } else if (e.key === 'Enter' && (control === 'position-base' || control === 'position-slopes')) {
      e.preventDefault();
      if (control === 'position-base') this.setBase(t); else this.setSlopes(t);
    }
  }

  action(panel, name) {
    const p = this.host._state.config.position ?? {};
    const k = p.offset ?? 0;
    if (name === 'shift-up') this.position({ ...p, offset: k + 1 });
    else if (name === 'shift-down' && k > 0) this.position({ ...p, offset: k - 1 });
  }

  /** A whole number typed in `input` (empty or not whole: marked, and said in its panel). */
  setWhole(input, apply, panel) {
    if (!whole(input.value)) {
      input.setAttribute('aria-invalid', 'true');
      this.say(panel, `"${input.value.slice(0, 24)}" is not a whole number ≥ 0`);
      return;
    }
    if (apply(Number(input.value.trim()))) input.removeAttribute('aria-invalid');
    else input.setAttribute('aria-invalid', 'true');
  }

  setBase(input) {
    const p = this.host._state.config.position ?? {};
    const base = Number(input.value.trim());
    if (input.value.trim() === '' || !Number.isFinite(base)) {
      input.setAttribute('aria-invalid', 'true');
      this.say('position', `base: "${input.value.slice(0, 24)}" is not a number`);
      return;
    }
    if (base === (p.base ?? DEFAULT_BASE)) { input.removeAttribute('aria-invalid'); return; }
    // The core judges the number (a base below 1 is refused with its message).
    if (this.position({ ...p, base })) {
      input.removeAttribute('aria-invalid');
      const slider = this.parts.position?.querySelector('[data-control="position-base-slider"]');
      if (slider) slider.value = String(sOf(base));
    } else input.setAttribute('aria-invalid', 'true');
  }

  setSlopes(input) {
    const p = this.host._state.config.position ?? {};
    const text = input.value.trim().replace(/^\[|\]$/g, '');
    const parts = text === '' ? null : text.split(/[\s,]+/).filter(Boolean);
    if (parts && parts.some((x) => !Number.isFinite(Number(x)))) {
      input.setAttribute('aria-invalid', 'true');
      this.say('position', 'slopes: write numbers separated by commas, one per head');
      return;
    }
    const next = { kind: 'alibi' };
    if (parts) next.slopes = parts.map(Number);
    if (JSON.stringify(next.slopes) === JSON.stringify(p.slopes)) return;
    if (this.position(next)) input.removeAttribute('aria-invalid'); else input.setAttribute('aria-invalid', 'true');
  }

  /** The window's sides and the sinks, as typed: one edit of both fields. */
  setWindow(input) {
    const cfg = this.host._state.config;
    if (!whole(input.value)) {
      input.setAttribute('aria-invalid', 'true');
      this.say('window', `"${input.value.slice(0, 24)}" is not a whole number ≥ 0`);
      return;
    }
    const fields = input.dataset.control === 'sinks'
      ? { sinks: Number(input.value.trim()) }
      : { window: [this.number('window-left') ?? cfg.window?.[0] ?? 0, this.number('window-right') ?? cfg.window?.[1] ?? 0] };
    if (this.edit('window', { fields })) input.removeAttribute('aria-invalid'); else input.setAttribute('aria-invalid', 'true');
  }

  number(control) {
    const input = this.parts.window?.querySelector(`[data-control="${control}"]`);
    return input && whole(input.value) ? Number(input.value.trim()) : null;
  }

  /** A message of the shell's own (a field that is not a number yet) in `panel`'s error line. */
  say(panel, text) {
    this.errors[panel] = text;
    const line = this.parts[panel]?.querySelector('.panel-error');
    if (line) { line.textContent = text; line.hidden = false; }
  }
}
