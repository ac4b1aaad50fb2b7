// Small DOM and text helpers shared by the element's parts: building elements, the short forms token names and
// numbers take in labels, and keeping the keyboard focus across a rebuild. Nothing here knows about the element.

const SUBSCRIPT = '₀₁₂₃₄₅₆₇₈₉';
/** 12 → "₁₂". */
export const sub = (i) => String(i).split('').map((d) => SUBSCRIPT[d]).join('');

/** A token name as labels show it: at most 24 characters (the full name goes in a title). */
export const clip = (t) => (t.length > 24 ? `${t.slice(0, 23)}…` : t);

/** A number as the breakdown shows it: integers whole, others to 4 significant digits. */
export function fmt(x) {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (Number.isInteger(x) && Math.abs(x) < 1e15) return String(x);
  return Math.abs(x) >= 1e-3 && Math.abs(x) < 1e6 ? String(Number(x.toPrecision(4))) : x.toExponential(2);
}

/** A vector as the breakdown and the steps write it: `[0.2361, 0.2361, 0]`, its first `max` values then `…`. */
export const vec = (v, max) => `[${v.slice(0, max).map(fmt).join(', ')}${v.length > max ? ', …' : ''}]`;

/** A number as a factor in a written-out product: negatives bracketed, so `2·(-3)` never reads as `2·-3`. */
export const factor = (x) => (x < 0 || Object.is(x, -0) ? `(${fmt(x)})` : fmt(x));

/**
 * `el('button', {type: 'button', text: 'Go', onclick: f}, child…)`. Attributes become attributes, never HTML:
 * token names and any text from a config reach the page only as text.
 */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/**
 * "Scroll sideways for more columns →" under a box that scrolls sideways, shown only while its content is wider
 * than it (a cut-off column gives no other sign on a phone), with shades on the edges where more is hidden.
 */
export class ScrollHint {
  constructor() {
    this.root = el('p', { class: 'scroll-hint', hidden: true, text: 'Scroll sideways for more columns →' });
  }

  /**
   * Follows `wrap` (and forgets the previous one); returns the hint's node to place after it. The box and its content
   * are both observed, so new numbers that widen the table are followed after the browser's own layout: reading
   * scrollWidth inside an edit forced a layout of its own (2.5 ms of an edit at n = 128, bench/element.mjs).
   */
  watch(wrap) {
    this.resize?.disconnect();
    const update = () => {
      const more = wrap.scrollWidth - wrap.clientWidth > 1;
      this.root.hidden = !more;
      wrap.classList.toggle('more-right', more && wrap.scrollLeft + wrap.clientWidth < wrap.scrollWidth - 1);
      wrap.classList.toggle('more-left', more && wrap.scrollLeft > 0);
    };
    wrap.addEventListener('scroll', update, { passive: true });
    this.resize = new ResizeObserver(update);
    this.resize.observe(wrap);
    if (wrap.firstElementChild) this.resize.observe(wrap.firstElementChild);
    return this.root;
  }
}

/**
 * `tag('td', {class: 'x', text: '1'}, child…)`: an element described, for a `Patcher` to render. Attributes as `el`
 * takes them (null, undefined and false leave one out; `text` is the first child; `style` is CSS text, set through
 * the CSSOM), children are descriptions, strings or nodes. Describing a table is plain JavaScript objects: an edit re-describes the breakdown's ~300 cells,
 * and building them as elements to compare with the shown ones was 3 ms of an edit at n = 128.
 */
export function tag(name, attrs = {}, ...children) {
  const kids = [];
  const attributes = {};
  for (const k in attrs) {
    if (k === 'text') { if (attrs.text !== '' && attrs.text != null) kids.push({ text: String(attrs.text) }); } else attributes[k] = attrs[k];
  }
  for (const c of children) if (c !== null && c !== undefined) kids.push(described(c));
  return { tag: name, attrs: attributes, kids };
}

const described = (k) => (typeof k === 'string' ? { text: k } : k instanceof Node ? { raw: k } : k);

/**
 * Keeps `parent`'s children as the last descriptions given to `render`. When the new ones have the same shape — the
 * same elements in the same places, as a table whose numbers changed — only the text and attributes that differ from
 * the last ones are written, so an edit re-lays out only changed text and the nodes stay (their focus, their scroll
 * position, their listeners, classes others set on them). Otherwise the children are built anew.
 */
export class Patcher {
  constructor(parent) {
    this.parent = parent;
    this.kids = null;
  }

  /** Renders `kids` (descriptions, strings, nodes); true when patched in place, false when built anew. */
  render(kids) {
    const news = kids.filter((k) => k !== null && k !== undefined).map(described);
    const patched = this.kids !== null && sameShape(this.kids, news);
    if (patched) patch(this.kids, news);
    else this.parent.replaceChildren(...news.map(build));
    this.kids = news;
    return patched;
  }
}

function build(d) {
  if (d.raw) return d.raw;
  if (d.tag === undefined) return (d.node = document.createTextNode(d.text));
  const e = (d.node = document.createElement(d.tag));
  for (const k in d.attrs) setAttribute(e, k, d.attrs[k]);
  for (const c of d.kids) e.append(build(c));
  return e;
}

function setAttribute(e, name, value) {
  // Through the CSSOM: a page's Content-Security-Policy may refuse style attributes.
  if (name === 'style') e.style.cssText = value ?? '';
  else if (value === null || value === undefined || value === false) e.removeAttribute(name);
  else e.setAttribute(name, value === true ? '' : value);
}

function sameShape(olds, news) {
  if (olds.length !== news.length) return false;
  for (let k = 0; k < news.length; k++) {
    const [a, b] = [olds[k], news[k]];
    if (a.raw || b.raw) { if (a.raw !== b.raw) return false; continue; }
    if (a.tag !== b.tag) return false;
    if (b.tag !== undefined && !sameShape(a.kids, b.kids)) return false;
  }
  return true;
}

function patch(olds, news) {
  for (let k = 0; k < news.length; k++) {
    const [a, b] = [olds[k], news[k]];
    if (b.raw) continue;
    const node = (b.node = a.node);
    if (b.tag === undefined) {
      if (a.text !== b.text) node.data = b.text;
      continue;
    }
    for (const name in b.attrs) if (b.attrs[name] !== a.attrs[name]) setAttribute(node, name, b.attrs[name]);
    for (const name in a.attrs) if (!(name in b.attrs)) node.removeAttribute(name);
    patch(a.kids, b.kids);
  }
}

/** The data attributes that name a control across rebuilds (a rebuilt control has the same ones). */
const FOCUS_KEYS = ['action', 'control', 'token', 'window', 'matrix', 'row', 'col', 'view'];

/**
 * Notes which control of `root` has the keyboard focus; the function it returns gives the focus to that control's
 * replacement after a rebuild (the same data-action, data-control, cell…), with the caret where it was. Without it
 * a rebuilt toolbar or grid drops the focus to <body>, and a second Enter on "+ token" goes nowhere.
 */
export function rememberFocus(root) {
  const active = root.activeElement;
  const keys = FOCUS_KEYS.filter((k) => active?.dataset?.[k] !== undefined);
  if (!keys.length) return () => {};
  const selector = active.localName + keys.map((k) => `[data-${k}="${CSS.escape(active.dataset[k])}"]`).join('');
  // Text fields only: selectionStart is a number there (null on a checkbox, undefined on a button).
  const text = typeof active.selectionStart === 'number'
    ? { value: active.value, start: active.selectionStart, end: active.selectionEnd, direction: active.selectionDirection } : null;
  return () => {
    if (active.isConnected) return;
    const next = root.querySelector(selector);
    if (!next || next.disabled || next.closest('[hidden]')) return;
    next.focus({ preventScroll: true });
    if (!text || typeof next.selectionStart !== 'number') return;
    if (next.value === text.value) next.setSelectionRange(text.start, text.end, text.direction);
    else next.setSelectionRange(next.value.length, next.value.length);
  };
}
