// Owns four panels of how today's language models attend, in the variants' row (variants.js builds and paints
// them with its own): `position` (none, sinusoidal, RoPE or ALiBi; the base as a log slider with its value shown and
// typed; RoPE's pair layout and how many values of a row turn; ALiBi's slopes, editable as a list; "Shift
// positions", `position.offset`, with what a shift does to the scores; RoPE's first pair drawn turning, dragged by
// its position slider), `kv` (the key/value head count, offered as the
// core's divisors of `heads`, and which query heads share which K/V head), `window` (its left and right sides and the
// sinks; the core draws them on the mask heatmap, which shows with this panel) and `softcap` (the soft cap of the
// scores, on or off, and its value). What they show — the choices and their words, the reasons a control is
// off, the groups, the limits — is the core's model (src/panels.rs, the snapshot's `parts`). A panel shows when
// `views` names it or, without `views`, when the core says the config uses it (the snapshot's `used`:
// views::modern_panels), and once shown it stays. Every control is one edit through the port's `dispatch`; a refused one shows
// the core's message in its own panel and puts the control back as the config has it (the config itself is
// unchanged: the core refused it whole).
import { el } from './dom.js';
// Typed numbers are read, and quoted in messages, by the core.
import { parseCell, parseWhole, quoteText } from './cells.js';
// The names the `views` attribute gives these panels (parts.js MODERN_OWN): the core's modern panels but the steppers'.
import { MODERN_OWN as PANELS, shownPanels } from './parts.js';

/** A log-scale slider of the model's (panels.rs `LogSlider`): the value at a position is its list's, nothing else. */
const sliderValue = (slider, position) => slider.values[Number(position) - slider.min];
/** A select's options from the model's choices ({value, text, title}), `value` selected. */
const options = (list, value) => list.map((c) => el('option', { value: c.value, text: c.text, title: c.title, selected: c.value === value }));
const SVG = 'http://www.w3.org/2000/svg';
/** An SVG element with its attributes and children. */
function svgEl(name, attrs, ...children) {
  const n = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
  n.append(...children);
  return n;
}
const whole = (t) => parseWhole(t) !== null;
/** A typed text in a message of the model's (its `{text}`): quoted, its first 24 characters. */
const quoted = quoteText;

export class Modern {
  constructor(port, api) {
    this.port = port;
    this.api = api;
    this.errors = {}; // panel → the core's message for the last refused edit there
    this.parts = {}; // panel → its root element while shown
  }

  /** Which of PANELS show (see the top of this file); none but in a figure that can show them (the model's `modern`). */
  shown() {
    const { port } = this;
    if (!port.state.editable || !port.live || !port.state.parts.modern) return new Set();
    return shownPanels(port, PANELS, this);
  }

  /** The panels' elements from the model, for variants.js to place; empty when none shows. */
  build(model) {
    this.parts = {};
    if (model.position) this.parts.position = this.positionPanel(model.position);
    if (model.kv) this.parts.kv = this.kvPanel(model.kv);
    if (model.window) this.parts.window = this.windowPanel(model.window);
    if (model.softcap) this.parts.softcap = this.softcapPanel(model.softcap);
    return Object.values(this.parts);
  }

  /** The model of these panels now (the snapshot's). */
  model() { return this.port.state.parts; }

  // ---- the panels ----------------------------------------------------------------------------------------

  positionPanel(position) {
    const { kind } = position;
    const select = el('select', { 'data-control': 'position-kind', 'aria-label': 'Position encoding', title: position.title },
      ...options(position.choices, kind));
    const head = el('div', { class: 'group' }, el('span', { class: 'label', text: 'position' }), select);
    if (position.pairs) {
      head.append(el('select', { 'data-control': 'position-pairs', 'aria-label': 'RoPE pair layout', title: position.pairs_title },
        ...options(position.pair_choices, position.pairs)));
    }
    const parts = [head];
    if (position.rotary) {
      const { rotary } = position;
      parts.push(el('div', { class: 'group' }, el('span', { class: 'label', text: 'rotated' }),
        el('input', { type: 'text', class: 'num', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false', 'data-control': 'position-rotary',
          'aria-label': rotary.label, title: rotary.title, value: String(rotary.value) }),
        el('output', { class: 'shift-range', 'data-role': 'rotary-text', text: rotary.text })));
    }
    if (position.base !== null) {
      const { base, base_slider: slider } = position;
      parts.push(el('div', { class: 'group' }, el('span', { class: 'label', text: 'base' }),
        el('span', { class: 'scale-end', 'aria-hidden': 'true', text: slider.ends[0] }),
        el('input', { type: 'range', min: String(slider.min), max: String(slider.max), step: String(slider.step), value: String(slider.at), 'data-control': 'position-base-slider',
          'aria-label': slider.label, 'aria-valuetext': position.base_text, title: position.base_title }),
        el('span', { class: 'scale-end', 'aria-hidden': 'true', text: slider.ends[1] }),
        el('input', { type: 'text', class: 'num base', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false', 'data-control': 'position-base',
          'aria-label': 'Base, a number ≥ 1 (Enter applies it)', value: String(base) })));
      const { offset } = position;
      parts.push(el('div', { class: 'group shift' }, el('span', { class: 'label', text: 'shift positions' }),
        el('button', { type: 'button', 'data-action': 'shift-down', text: '−', 'aria-label': 'Shift positions down by 1', disabled: position.shift_down_off }),
        el('input', { type: 'text', class: 'num', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false', 'data-control': 'position-offset',
          'aria-label': 'Shift every position by k (a whole number ≥ 0; arrow keys step it)', value: String(offset) }),
        el('button', { type: 'button', 'data-action': 'shift-up', text: '+', 'aria-label': 'Shift positions up by 1' }),
        el('output', { class: 'shift-range', 'data-role': 'shift-range', text: position.range })));
      parts.push(el('p', { class: 'hint', 'data-role': 'shift-note', text: position.shift_note }));
      if (position.pair) parts.push(this.pairPicture(position.pair));
    } else if (kind === 'alibi') {
      parts.push(el('div', { class: 'group' }, el('span', { class: 'label', text: 'slopes' }),
        el('input', { type: 'text', class: 'lens', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false', 'data-control': 'position-slopes',
          'aria-label': position.slopes_label,
          value: position.given_slopes ? position.given_slopes.join(', ') : '', placeholder: 'default' })));
      parts.push(el('p', { class: 'hint', 'data-role': 'slopes', text: '' }));
    }
    return this.panel('position', parts);
  }

  /** RoPE's first pair as the core places it (panels.rs `rope_pair`): q and k before (dashed) and after turning by
   * p·θ, the circle they turn on, and a slider that shifts every position (a drag turns both; their dot product stays). */
  pairPicture(pair) {
    const side = String(pair.side);
    const svg = svgEl('svg', { viewBox: `0 0 ${side} ${side}`, width: side, height: side, role: 'img', 'aria-label': pair.text, 'data-role': 'pair-svg' },
      svgEl('circle', { class: 'ring', 'data-role': 'pair-ring' }),
      svgEl('line', { class: 'axis', x1: '0', y1: String(pair.side / 2), x2: side, y2: String(pair.side / 2) }),
      svgEl('line', { class: 'axis', x1: String(pair.side / 2), y1: '0', x2: String(pair.side / 2), y2: side }),
      ...['q_before', 'k_before', 'q', 'k'].map((v) => svgEl('line', { class: `arrow ${v.replace('_', ' ')}`, 'data-role': `pair-${v}` })),
      ...['q', 'k'].map((v) => svgEl('text', { class: `tag ${v}`, 'data-role': `pair-${v}-label` })));
    const slider = el('input', { type: 'range', min: '0', step: '1', 'data-control': 'position-pair' });
    const figure = el('figure', { class: 'rope-pair', 'data-role': 'pair' }, svg,
      el('figcaption', {}, el('label', { class: 'group' }, el('span', { class: 'label', text: 'position' }), slider),
        el('p', { class: 'hint', 'data-role': 'pair-text' })));
    this.paintPair(figure, pair);
    return figure;
  }

  /** The pair picture's points, words and slider from the model. */
  paintPair(figure, pair) {
    const set = (role, attrs) => {
      const n = figure.querySelector(`[data-role="${role}"]`);
      for (const [k, v] of Object.entries(attrs)) if (n.getAttribute(k) !== String(v)) n.setAttribute(k, String(v));
      return n;
    };
    const c = pair.side / 2;
    set('pair-ring', { cx: c, cy: c, r: pair.radius });
    for (const v of ['q_before', 'k_before', 'q', 'k']) set(`pair-${v}`, { x1: c, y1: c, x2: pair[v][0], y2: pair[v][1] });
    for (const v of ['q', 'k']) {
      const [x, y, anchor] = pair[`${v}_tag`];
      const t = set(`pair-${v}-label`, { x, y, 'text-anchor': anchor });
      if (t.textContent !== pair[`${v}_label`]) t.textContent = pair[`${v}_label`];
    }
    set('pair-svg', { 'aria-label': pair.text });
    const words = figure.querySelector('[data-role="pair-text"]');
    if (words.textContent !== pair.text) words.textContent = pair.text;
    const slider = figure.querySelector('[data-control="position-pair"]');
    for (const [k, v] of [['max', pair.slider.max], ['aria-label', pair.slider.label], ['aria-valuetext', pair.slider.valuetext]]) {
      if (slider.getAttribute(k) !== String(v)) slider.setAttribute(k, String(v));
    }
    // The slider is where the reader drags: it moves only when the shift was set elsewhere.
    if (this.port.shadow.activeElement !== slider && slider.value !== String(pair.slider.value)) slider.value = String(pair.slider.value);
  }

  kvPanel(kv) {
    const why = kv.disabled;
    const select = el('select', { 'data-control': 'kv-heads', 'aria-label': 'Key/value heads', disabled: Boolean(why), title: kv.title },
      ...kv.choices.map((c) => el('option', { value: String(c.value), text: c.text, selected: c.selected })));
    return this.panel('kv', [
      el('div', { class: 'group' }, el('span', { class: 'label', text: 'K/V heads' }), select, el('span', { class: 'hint', text: kv.note })),
      why ? el('p', { class: 'hint', text: why }) : el('ul', { class: 'kv-share', 'data-role': 'kv-share' }, ...kv.share.map((text, g) => {
        // Each group's colour on the Q, K and V heatmaps (the core's, light and dark).
        const color = kv.colors[g];
        const li = el('li', { text });
        if (color) {
          const swatch = el('span', { class: 'swatch', 'aria-hidden': 'true' });
          swatch.style.setProperty('--group-light', color.light);
          swatch.style.setProperty('--group-dark', color.dark);
          li.prepend(swatch);
        }
        return li;
      }))]);
  }

  windowPanel(w) {
    const num = (control, value, label) => el('input', { type: 'text', class: 'num', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false',
      'data-control': control, 'aria-label': label, value: String(value), disabled: !w.on && control !== 'sinks' });
    const on = el('input', { type: 'checkbox', 'data-control': 'window-on', checked: w.on });
    return this.panel('window', [
      el('div', { class: 'group' }, el('span', { class: 'label', text: 'window' }),
        el('label', { title: w.title }, on, ' sliding window'),
        el('span', { class: 'sides' },
          el('label', { class: 'side' }, 'left ', num('window-left', w.left, w.side_labels[0])),
          el('label', { class: 'side' }, 'right ', num('window-right', w.right, w.side_labels[1])))),
      el('div', { class: 'group' }, el('span', { class: 'label', text: 'sinks' }),
        num('sinks', w.sinks, w.sinks_label),
        el('span', { class: 'hint', text: 'keys always attended (StreamingLLM)' })),
      el('p', { class: 'hint', text: w.hint })]);
  }

  softcapPanel(c) {
    const on = el('input', { type: 'checkbox', 'data-control': 'softcap-on', checked: c.on });
    return this.panel('softcap', [
      el('div', { class: 'group' }, el('span', { class: 'label', text: 'soft cap' }),
        el('label', { title: c.title }, on, ' cap the scores'),
        el('label', { class: 'side' }, 'c ', el('input', { type: 'text', class: 'num base', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false',
          'data-control': 'softcap', 'aria-label': c.label, value: String(c.value), disabled: !c.on }))),
      el('p', { class: 'hint', 'data-role': 'softcap-hint', text: c.hint })]);
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

  // ---- painting: what an edit changes without a rebuild -----------------------------------------------------

  paint() {
    const { port } = this;
    const part = this.parts.position;
    const position = this.model().position;
    if (part && position) {
      const { base } = position;
      const slider = part.querySelector('[data-control="position-base-slider"]');
      if (slider && base !== null) {
        // The slider is where the reader drags: only its words follow; a typed base moves it.
        if (slider.getAttribute('aria-valuetext') !== position.base_text) slider.setAttribute('aria-valuetext', position.base_text);
        const scale = position.base_slider;
        if (port.shadow.activeElement !== slider && sliderValue(scale, slider.value) !== base) slider.value = String(scale.at);
        const typed = part.querySelector('[data-control="position-base"]');
        if (port.shadow.activeElement !== typed && typed.value !== String(base)) typed.value = String(base);
      }
      const offset = part.querySelector('[data-control="position-offset"]');
      if (offset) {
        const k = position.offset;
        if (port.shadow.activeElement !== offset && offset.value !== String(k)) offset.value = String(k);
        part.querySelector('[data-action="shift-down"]').disabled = position.shift_down_off;
        const range = part.querySelector('[data-role="shift-range"]');
        if (range.textContent !== position.range) range.textContent = position.range;
      }
      const pair = part.querySelector('[data-role="pair"]');
      if (pair && position.pair) this.paintPair(pair, position.pair);
      const slopes = part.querySelector('[data-role="slopes"]');
      if (slopes && position.slopes_text !== null) {
        if (slopes.textContent !== position.slopes_text) slopes.textContent = position.slopes_text;
      }
      const rotary = part.querySelector('[data-control="position-rotary"]');
      if (rotary && position.rotary) {
        const r = String(position.rotary.value);
        if (port.shadow.activeElement !== rotary && rotary.value !== r) rotary.value = r;
        const words = part.querySelector('[data-role="rotary-text"]');
        if (words.textContent !== position.rotary.text) words.textContent = position.rotary.text;
      }
    }
    const cap = this.parts.softcap;
    const softcap = this.model().softcap;
    if (cap && softcap) {
      const typed = cap.querySelector('[data-control="softcap"]');
      if (port.shadow.activeElement !== typed && typed.value !== String(softcap.value)) typed.value = String(softcap.value);
      const hint = cap.querySelector('[data-role="softcap-hint"]');
      if (hint.textContent !== softcap.hint) hint.textContent = softcap.hint;
    }
  }

  // ---- events ---------------------------------------------------------------------------------------------

  /** One edit; the core's message for a refused one goes in `panel`'s error line, and `undo` puts the control back. */
  edit(panel, command, { rebuild = false, undo = null } = {}) {
    const { port } = this;
    let message = null;
    const heard = (e) => { message = e.detail?.message ?? null; };
    const stop = port.listen('error', heard);
    let ok;
    try { ok = port.dispatch(command, { rebuild }); } finally { stop(); }
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

  position(fields, options) { return this.edit('position', { fields: { [this.model().position.field]: fields } }, options); }

  onChange(panel, e) {
    const t = e.target;
    const { position, kv, window } = this.model();
    const p = position?.value ?? {};
    switch (t.dataset?.control) {
      case 'position-kind': {
        const undo = () => { t.value = position.kind; };
        // The field each kind sends is the core's (what a switch keeps of the base and the shift).
        this.position(position.choices.find((c) => c.value === t.value).position, { rebuild: true, undo });
        return;
      }
      case 'position-pairs': this.position({ ...p, pairs: t.value }, { undo: () => { t.value = position.pairs; } }); return;
      case 'position-base': this.setBase(t); return;
      case 'position-slopes': this.setSlopes(t); return;
      case 'kv-heads': {
        this.edit('kv', () => this.port.edit({ kvHeads: Number(t.value) }), { rebuild: true, undo: () => { t.value = String(kv.kv); } });
        return;
      }
      case 'window-on': {
        const left = this.number('window-left');
        const right = this.number('window-right');
        this.edit('window', { fields: { [window.fields.window]: t.checked ? [left ?? window.left, right ?? window.right] : null } }, { rebuild: true, undo: () => { t.checked = window.on; } });
        return;
      }
      case 'softcap-on': {
        const { softcap } = this.model();
        const typed = parseCell(this.parts.softcap.querySelector('[data-control="softcap"]').value).value;
        const value = t.checked ? (typed ?? softcap.value) : null;
        this.edit('softcap', { fields: { [softcap.field]: value } }, { rebuild: true, undo: () => { t.checked = softcap.on; } });
        return;
      }
      case 'softcap': this.setSoftcap(t); return;
      default:
    }
  }

  onInput(panel, e) {
    const t = e.target;
    const p = this.model().position?.value ?? {};
    switch (t.dataset?.control) {
      case 'position-base-slider': {
        const base = sliderValue(this.model().position.base_slider, t.value);
        const typed = this.parts.position.querySelector('[data-control="position-base"]');
        typed.value = String(base);
        this.position({ ...p, base });
        return;
      }
      case 'position-offset': this.setWhole(t, (k) => this.position({ ...p, offset: k }), 'position'); return;
      case 'position-pair': this.position({ ...p, offset: Number(t.value) }); return;
      case 'position-rotary': this.setWhole(t, (k) => this.position({ ...p, [this.model().position.rotary.field]: k }), 'position'); return;
      case 'window-left': case 'window-right': case 'sinks': this.setWindow(t); return;
      default:
    }
  }

  /** ↑/↓ step a whole-number field; Enter applies a typed base or slopes (change does too, when the field is left). */
  onKey(panel, e) {
    const t = e.target;
    const control = t.dataset?.control;
    if ((e.key === 'ArrowUp' || e.key === 'ArrowDown') && ['position-offset', 'position-rotary', 'window-left', 'window-right', 'sinks'].includes(control)) {
      e.preventDefault();
      const now = parseWhole(t.value) ?? 0;
      const step = control === 'position-rotary' ? this.model().position.rotary.step : 1;
      const next = Math.max(0, now + (e.key === 'ArrowUp' ? step : -step));
      if (String(next) === t.value) return;
      t.value = String(next);
      t.dispatchEvent(new Event('input', { bubbles: true }));
    } else if (e.key === 'Enter' && (control === 'position-base' || control === 'position-slopes')) {
      e.preventDefault();
      if (control === 'position-base') this.setBase(t); else this.setSlopes(t);
    } else if (e.key === 'Enter' && control === 'softcap') {
      e.preventDefault();
      this.setSoftcap(t);
    }
  }

  action(panel, name) {
    const { position } = this.model();
    const p = position?.value ?? {};
    const k = position?.offset ?? 0;
    if (name === 'shift-up') this.position({ ...p, offset: k + 1 });
    else if (name === 'shift-down' && !position.shift_down_off) this.position({ ...p, offset: k - 1 });
  }

  /** A whole number typed in `input` (empty or not whole: marked, and said in its panel). */
  setWhole(input, apply, panel) {
    if (!whole(input.value)) {
      input.setAttribute('aria-invalid', 'true');
      this.say(panel, this.model()[panel].not_whole.replace('{text}', quoted(input.value)));
      return;
    }
    if (apply(parseWhole(input.value))) input.removeAttribute('aria-invalid');
    else input.setAttribute('aria-invalid', 'true');
  }

  setBase(input) {
    const p = this.model().position?.value ?? {};
    const { value: base, error } = parseCell(input.value);
    if (error) {
      input.setAttribute('aria-invalid', 'true');
      this.say('position', this.model().position.base_not_number.replace('{text}', quoted(input.value)));
      return;
    }
    if (base === this.model().position?.base) { input.removeAttribute('aria-invalid'); return; }
    // The core judges the number (a base below 1 is refused with its message).
    if (this.position({ ...p, base })) {
      input.removeAttribute('aria-invalid');
      const slider = this.parts.position?.querySelector('[data-control="position-base-slider"]');
      if (slider) slider.value = String(this.model().position.base_slider.at);
    } else input.setAttribute('aria-invalid', 'true');
  }

  /** A typed soft cap (a number; the core judges it), applied while the cap is on. */
  setSoftcap(input) {
    const { softcap } = this.model();
    const { value, error } = parseCell(input.value);
    if (error) {
      input.setAttribute('aria-invalid', 'true');
      this.say('softcap', softcap.not_number.replace('{text}', quoted(input.value)));
      return;
    }
    if (!softcap.on || value === softcap.value) { input.removeAttribute('aria-invalid'); return; }
    if (this.edit('softcap', { fields: { [softcap.field]: value } })) input.removeAttribute('aria-invalid');
    else input.setAttribute('aria-invalid', 'true');
  }

  setSlopes(input) {
    const p = this.model().position?.value ?? {};
    const text = input.value.trim().replace(/^\[|\]$/g, '');
    const parts = text === '' ? null : text.split(/[\s,]+/).filter(Boolean);
    const read = parts?.map(parseCell);
    if (read?.some((x) => x.error)) {
      input.setAttribute('aria-invalid', 'true');
      this.say('position', this.model().position.slopes_not_numbers);
      return;
    }
    const next = { kind: 'alibi' };
    if (read) next.slopes = read.map((x) => x.value);
    if (JSON.stringify(next.slopes) === JSON.stringify(p.slopes)) return;
    if (this.position(next)) input.removeAttribute('aria-invalid'); else input.setAttribute('aria-invalid', 'true');
  }

  /** The window's sides and the sinks, as typed: one edit of both fields. */
  setWindow(input) {
    const { window } = this.model();
    if (!whole(input.value)) {
      input.setAttribute('aria-invalid', 'true');
      this.say('window', window.not_whole.replace('{text}', quoted(input.value)));
      return;
    }
    const fields = input.dataset.control === 'sinks'
      ? { [window.fields.sinks]: parseWhole(input.value) }
      : { [window.fields.window]: [this.number('window-left') ?? (window.on ? window.left : 0), this.number('window-right') ?? (window.on ? window.right : 0)] };
    if (this.edit('window', { fields })) input.removeAttribute('aria-invalid'); else input.setAttribute('aria-invalid', 'true');
  }

  number(control) {
    const input = this.parts.window?.querySelector(`[data-control="${control}"]`);
    return input ? parseWhole(input.value) : null;
  }

  /** A message of the shell's own (a field that is not a number yet) in `panel`'s error line. */
  say(panel, text) {
    this.errors[panel] = text;
    const line = this.parts[panel]?.querySelector('.panel-error');
    if (line) { line.textContent = text; line.hidden = false; }
  }
}
