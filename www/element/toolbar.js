// Owns the toolbar: the scale and query menus, Randomize (seed, distribution, high), + / − token and dimension,
// the naive-softmax box and Reset. Every button and menu is one edit through port.dispatch (the naive box only
// changes what is shown); the seed, distribution and high typed here are kept across rebuilds. What it shows (the
// scale's choices, the query menu, what Randomize draws) is the core's model (src/controls.rs `toolbar`).
import { el } from './dom.js';
import { parseCell } from './cells.js';

export class Toolbar {
  constructor(port, api) {
    this.port = port;
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

  /** The snapshot's parts this toolbar shows (src/shown.rs). */
  asked() { return this.root.hidden ? [] : ['toolbar']; }

  control(name) { return this.root.querySelector(`[data-control="${name}"]`); }

  /** The query menu follows a query chosen elsewhere (a click or ↑/↓ on the weights). */
  showQuery(q) {
    const menu = this.control('query');
    if (menu) menu.value = String(q);
  }

  build() {
    const { port } = this;
    // Hidden (read-only, a model's weights, `views` without "controls"): nothing built. Reset (the notice's) needs none.
    if (this.root.hidden) {
      this.root.replaceChildren();
      return;
    }
    const model = port.state.parts.toolbar;
    const tb = [];
    const scale = el('select', { 'data-control': 'scale', 'aria-label': 'Scaling of the scores' },
      ...model.scale.choices.map((c) => el('option', { value: c.value, text: c.text })));
    scale.value = model.scale.kind;
    const custom = el('input', { class: 'num', type: 'text', inputmode: 'decimal', 'data-control': 'scale-value',
      'aria-label': 'Custom divisor of the scores', value: model.scale.value, hidden: model.scale.kind !== 'custom' });
    tb.push(el('div', { class: 'group' }, el('span', { class: 'label', text: 'scale' }), scale, custom));
    if (model.queries) {
      const q = el('select', { 'data-control': 'query', 'aria-label': 'Query followed by the breakdown' },
        ...model.queries.map((o) => el('option', { value: String(o.value), title: o.title, text: o.text })));
      q.value = String(model.query);
      tb.push(el('div', { class: 'group' }, el('span', { class: 'label', text: 'query' }), q));
    }
    const dist = el('select', { 'data-control': 'dist', 'aria-label': 'Distribution' },
      el('option', { value: 'randint', text: 'randint(high)' }), el('option', { value: 'rand', text: 'rand' }),
      el('option', { value: 'randn', text: 'randn' }));
    dist.value = this.dist;
    const high = el('input', { class: 'num', type: 'text', inputmode: 'numeric', 'data-control': 'high', 'aria-label': 'randint high', value: this.high, hidden: dist.value !== 'randint' });
    const seed = el('input', { class: 'seed', type: 'text', inputmode: 'numeric', 'data-control': 'seed', 'aria-label': 'Random seed', value: this.seed });
    tb.push(el('div', { class: 'group' }, el('span', { class: 'label', text: 'seed' }), seed, dist, high,
      el('button', { type: 'button', 'data-action': 'randomize', title: model.randomize, text: 'Randomize' })));
    tb.push(el('div', { class: 'group' },
      el('button', { type: 'button', 'data-action': 'add-token', text: '+ token' }),
      el('button', { type: 'button', 'data-action': 'remove-token', text: '− token' }),
      el('button', { type: 'button', 'data-action': 'add-dim', text: '+ dim' }),
      el('button', { type: 'button', 'data-action': 'remove-dim', text: '− dim' })));
    const naive = el('input', { type: 'checkbox', 'data-control': 'naive' });
    naive.checked = port.state.naive;
    tb.push(el('div', { class: 'group' },
      el('label', {}, naive, ' naive softmax'),
      el('button', { type: 'button', 'data-action': 'reset', text: port.state.persist ? 'Reset to the document' : 'Reset', title: 'Back to the original numbers (forgets saved edits)' })));
    this.root.replaceChildren(...tb);
  }

  onInput(e) {
    if (e.target.dataset?.control !== 'scale-value') return;
    const p = parseCell(e.target.value);
    if (p.error) { this.port.fail(`scale: ${p.error}`); return; }
    const { port } = this;
    port.dispatch(() => port.edit({ scale: ['custom', p.value] }));
  }

  onChange(e) {
    const t = e.target;
    const { port } = this;
    switch (t.dataset.control) {
      case 'scale': {
        this.control('scale-value').hidden = t.value !== 'custom';
        const p = parseCell(this.control('scale-value').value);
        port.dispatch(() => port.edit({ scale: [t.value, p.value ?? 1] }));
        return;
      }
      case 'query': port.dispatch({ query: Number(t.value) }); return;
      case 'dist': this.control('high').hidden = t.value !== 'randint'; return;
      case 'naive':
        port.tell('naive', t.checked);
        return;
      default:
    }
  }

  action(name) {
    const { port } = this;
    switch (name) {
      case 'randomize': {
        const seed = parseCell(this.control('seed').value);
        const high = parseCell(this.control('high').value);
        const dist = this.control('dist').value;
        if (seed.error) { port.fail(`seed: ${seed.error}`); return; }
        if (dist === 'randint' && high.error) { port.fail(`high: ${high.error}`); return; }
        // Kept for the rebuilt toolbar (the figure's own state, not the config's).
        this.seed = String(seed.value); this.dist = dist; this.high = String(high.value ?? 3);
        port.dispatch(() => port.edit({ randomize: [seed.value, dist, high.value ?? 3] }), { rebuild: true });
        return;
      }
      // At the end: the core knows where that is, and the new token's name.
      case 'add-token': port.dispatch(() => port.edit({ addToken: true }), { rebuild: true }); return;
      case 'remove-token': port.dispatch(() => port.edit({ removeLastToken: true }), { rebuild: true }); return;
      case 'add-dim': port.dispatch(() => port.edit({ addDim: true }), { rebuild: true }); return;
      case 'remove-dim': port.dispatch(() => port.edit({ removeLastDim: true }), { rebuild: true }); return;
      case 'reset':
        port.tell('naive', false, { quiet: true });
        // The core holds the author's config: no copy of it (a model's stack) goes to JS and back.
        port.dispatch(() => port.edit({ reset: true }), { rebuild: true, initial: true });
        return;
      default:
    }
  }
}
