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

  /** Says again what the followed box shows (after its classes were rewritten: patchChildren). */
  refresh() { this.update?.(); }

  /** Follows `wrap` (and forgets the previous one); returns the hint's node to place after it. */
  watch(wrap) {
    this.resize?.disconnect();
    const update = () => {
      const more = wrap.scrollWidth - wrap.clientWidth > 1;
      this.root.hidden = !more;
      wrap.classList.toggle('more-right', more && wrap.scrollLeft + wrap.clientWidth < wrap.scrollWidth - 1);
      wrap.classList.toggle('more-left', more && wrap.scrollLeft > 0);
    };
    this.update = update;
    wrap.addEventListener('scroll', update, { passive: true });
    this.resize = new ResizeObserver(update);
    this.resize.observe(wrap);
    return this.root;
  }
}

/**
 * Makes `parent`'s children read as `kids` (nodes just built, or strings) by changing only what differs, when both
 * have the same shape — the same elements in the same places, as a table whose numbers changed — so an edit re-lays
 * out only changed text, and the nodes stay (their focus, their scroll position, their listeners). Returns false,
 * changing nothing, when the shapes differ: then the caller replaces the children. A node present in both is kept.
 */
export function patchChildren(parent, kids) {
  const news = kids.map((k) => (typeof k === 'string' ? document.createTextNode(k) : k));
  if (!sameShape(parent.childNodes, news)) return false;
  patchNodes(parent.childNodes, news);
  return true;
}

function sameShape(olds, news) {
  if (olds.length !== news.length) return false;
  for (let k = 0; k < news.length; k++) {
    const [a, b] = [olds[k], news[k]];
    if (a === b) continue;
    if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) return false;
    if (a.nodeType === Node.ELEMENT_NODE && !sameShape(a.childNodes, b.childNodes)) return false;
  }
  return true;
}

function patchNodes(olds, news) {
  for (let k = 0; k < news.length; k++) {
    const [a, b] = [olds[k], news[k]];
    if (a === b) continue;
    if (a.nodeType !== Node.ELEMENT_NODE) {
      if (a.data !== b.data) a.data = b.data;
      continue;
    }
    for (const { name, value } of b.attributes) if (a.getAttribute(name) !== value) a.setAttribute(name, value);
    for (const { name } of [...a.attributes]) if (!b.hasAttribute(name)) a.removeAttribute(name);
    patchNodes(a.childNodes, b.childNodes);
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
