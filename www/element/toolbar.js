// Owns the toolbar: the scale and query menus, Randomize (seed, distribution, high), + / − token and dimension,
// the naive-softmax box and Reset. Every button and menu is one edit through host._apply (the naive box only
// changes what is shown); the seed, distribution and high typed here are kept across rebuilds.
import { el, clip } from './dom.js';
import { parseCell } from './cells.js';
import { INPUT_TITLES } from './inputs.js';
// The toolbar exists only once the core is ready.
import { defaultToken } from '../core.js';

export class Toolbar {
  constructor(host, api) {
    this.host = host;
    this.api = api;
    this.seed = '42';
    this.dist = 'randint';
    this.high = '3';
    this.root = el('div', { class: 'toolbar' });
    this.root.addEventListener('change', (e) => this.onChange(e));
    this.root.addEventListener('input', (e) => this.onInput(e));
    this.root.addEventListener('click', (e) => {
      const b = e.target.closest?.('button[data-action]');
      if (b) this.action(b.dataset.action);
    });
  }

  control(name) { return this.root.querySelector(`[data-control="${name}"]`); }

  /** The query menu follows a query chosen elsewhere (a click or ↑/↓ on the weights). */
  showQuery(q) {
    const menu = this.control('query');
    if (menu) menu.value = String(q);
  }

  build() {
    const { host } = this;
    // Hidden (read-only, a model's weights, `views` without "controls"): nothing built. Reset (the notice's) needs none.
    if (this.root.hidden) {
      this.root.replaceChildren();
      return;
    }
    const cfg = host._state.config;
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
    dist.value = this.dist;
    const high = el('input', { class: 'num', type: 'text', inputmode: 'numeric', 'data-control': 'high', 'aria-label': 'randint high', value: this.high, hidden: dist.value !== 'randint' });
    const seed = el('input', { class: 'seed', type: 'text', inputmode: 'numeric', 'data-control': 'seed', 'aria-label': 'Random seed', value: this.seed });
    const targets = host._ask({ kind: 'randomTargets' }).map((t) => INPUT_TITLES[t] || t).join(', ');
    tb.push(el('div', { class: 'group' }, el('span', { class: 'label', text: 'seed' }), seed, dist, high,
      el('button', { type: 'button', 'data-action': 'randomize', title: `np.random.seed(seed), then one call per matrix: ${targets}`, text: 'Randomize' })));
    tb.push(el('div', { class: 'group' },
      el('button', { type: 'button', 'data-action': 'add-token', text: '+ token' }),
      el('button', { type: 'button', 'data-action': 'remove-token', text: '− token' }),
      el('button', { type: 'button', 'data-action': 'add-dim', text: '+ dim' }),
      el('button', { type: 'button', 'data-action': 'remove-dim', text: '− dim' })));
    const naive = el('input', { type: 'checkbox', 'data-control': 'naive' });
    naive.checked = host._state.naive;
    tb.push(el('div', { class: 'group' },
      el('label', {}, naive, ' naive softmax'),
      el('button', { type: 'button', 'data-action': 'reset', text: host.persist ? 'Reset to the document' : 'Reset', title: 'Back to the original numbers (forgets saved edits)' })));
    this.root.replaceChildren(...tb);
  }

  onInput(e) {
    if (e.target.dataset?.control !== 'scale-value') return;
    const p = parseCell(e.target.value);
    if (p.error) { this.host._fail(`scale: ${p.error}`); return; }
    const { host } = this;
    host._apply(() => host._edit({ scale: ['custom', p.value] }));
  }

  onChange(e) {
    const t = e.target;
    const { host } = this;
    switch (t.dataset.control) {
      case 'scale': {
        this.control('scale-value').hidden = t.value !== 'custom';
        const p = parseCell(this.control('scale-value').value);
        host._apply(() => host._edit({ scale: [t.value, p.value ?? 1] }));
        return;
      }
      case 'query': host._apply({ query: Number(t.value) }); return;
      case 'dist': this.control('high').hidden = t.value !== 'randint'; return;
      case 'naive':
        host._showNaive = t.checked;
        host._figures.build();
        host._persist.schedule();
        host._repaint({ silent: true });
        return;
      default:
    }
  }

  action(name) {
    const { host } = this;
    const cfg = host._state.config;
    const n = cfg.tokens.length;
    // A model's weights have no dimensions (their notice's Reset comes here too).
    const dims = cfg.mechanism === 'self' ? cfg.embeddings[0].length : cfg.decoder_state?.length;
    switch (name) {
      case 'randomize': {
        const seed = parseCell(this.control('seed').value);
        const high = parseCell(this.control('high').value);
        const dist = this.control('dist').value;
        if (seed.error) { host._fail(`seed: ${seed.error}`); return; }
        if (dist === 'randint' && high.error) { host._fail(`high: ${high.error}`); return; }
        // Kept for the rebuilt toolbar (the figure's own state, not the config's).
        this.seed = String(seed.value); this.dist = dist; this.high = String(high.value ?? 3);
        host._apply(() => host._edit({ randomize: [seed.value, dist, high.value ?? 3] }), { rebuild: true });
        return;
      }
      case 'add-token': host._apply(() => host._edit({ insertToken: [n, defaultToken(cfg.mechanism === 'self', n)] }), { rebuild: true }); return;
      case 'remove-token': host._apply(() => host._edit({ removeToken: n - 1 }), { rebuild: true }); return;
      case 'add-dim': host._apply(() => host._edit({ insertDim: dims }), { rebuild: true }); return;
      case 'remove-dim': host._apply(() => host._edit({ removeDim: dims - 1 }), { rebuild: true }); return;
      case 'reset':
        host._showNaive = false;
        // The core holds the author's config: no copy of it (a model's stack) goes to JS and back.
        host._apply(() => host._edit({ reset: true }), { rebuild: true, initial: true });
        return;
      default:
    }
  }
}
