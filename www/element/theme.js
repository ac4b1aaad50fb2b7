// Owns the element's light/dark decision: the `theme` attribute ("light" | "dark" | "auto"), and for "auto"
// what the host page says about itself. Pages that theme themselves without the OS setting are common where
// the element lives: JupyterLab marks its body with data-jp-theme-light, other pages set `color-scheme` (in CSS or
// with <meta name="color-scheme">). On paper every figure is light, whatever the mode: paper is white.

const DARK_QUERY = '(prefers-color-scheme: dark)';

/** The one scheme a `color-scheme` value names (`light`, `only dark`…), or null for none or both (`light dark`). */
function schemeOf(value) {
  const words = (value || '').split(/\s+/).filter((w) => w === 'light' || w === 'dark');
  return words.length === 1 ? words[0] : null;
}

/**
 * What "auto" means on this page now: JupyterLab's flag, then the host's `color-scheme` in CSS, then the page's
 * <meta name="color-scheme"> (the browser uses it for the page, but it is not in any computed style), then the OS.
 */
export function pageIsDark(host) {
  for (const node of [host.closest('[data-jp-theme-light]'), document.body, document.documentElement]) {
    const flag = node?.getAttribute?.('data-jp-theme-light');
    if (flag === 'true' || flag === 'false') return flag === 'false';
  }
  // `color-scheme` is inherited: the host's computed value is the page's (or its container's) choice.
  const css = schemeOf(host.parentElement ? getComputedStyle(host.parentElement).colorScheme : '');
  if (css) return css === 'dark';
  // The browser takes the first such meta in the document's head.
  const meta = schemeOf(document.head?.querySelector('meta[name="color-scheme" i]')?.content);
  if (meta) return meta === 'dark';
  return window.matchMedia(DARK_QUERY).matches;
}

/**
 * Watches that connected in the same task, to decide in one go: each decision reads the page's computed style, and
 * after another figure's first DOM went in that read restyled the page. Twelve figures upgrading at once made twelve
 * style recalculations (bench/load.mjs); read together, after the last, they make one.
 */
const pending = new Set();

function decidePending() {
  const watches = [...pending];
  pending.clear();
  const dark = watches.map((w) => w.decide()); // every read first, then every write
  watches.forEach((w, k) => w.apply(dark[k]));
}

/**
 * Watches everything the decision depends on and calls `onChange(dark)` when it flips. `show(dark)` gives each
 * decision to the element, which keeps it as its state `:state(dark)` so its stylesheet (and the author's CSS) can
 * follow it.
 */
export class ThemeWatch {
  constructor(host, show, onChange) {
    this.host = host;
    this.show = show;
    this.onChange = onChange;
    this.dark = null;
    this.update = () => this.refresh();
  }

  /** "light" | "dark" | "auto" as the attribute says (anything else is "auto"). */
  mode() {
    const t = this.host.getAttribute('theme');
    return t === 'light' || t === 'dark' ? t : 'auto';
  }

  /** Whether the figure is dark now (decided at once if it was waiting for the others that connected with it). */
  isDark() {
    if (pending.has(this)) this.refresh();
    return this.dark ?? false;
  }

  decide() {
    if (this.printing) return false;
    const mode = this.mode();
    return mode === 'auto' ? pageIsDark(this.host) : mode === 'dark';
  }

  /**
   * Printing (or not): on paper the figure is light. Returns whether the figure's look changed, for the element to
   * repaint once with its print resolution (onChange is not called).
   */
  setPrinting(on) {
    this.printing = on;
    pending.delete(this);
    const dark = this.decide();
    this.show(dark);
    if (dark === this.dark) return false;
    const first = this.dark === null;
    this.dark = dark;
    return !first;
  }

  /** Decides now (and no longer with the others that connected with it). */
  refresh() {
    pending.delete(this);
    this.apply(this.decide());
  }

  apply(dark) {
    this.show(dark);
    if (dark === this.dark) return;
    const first = this.dark === null;
    this.dark = dark;
    if (!first) this.onChange(dark);
  }

  start() {
    this.media = window.matchMedia(DARK_QUERY);
    this.media.addEventListener('change', this.update);
    // JupyterLab switches themes by rewriting body attributes; pages switch `color-scheme` through a class, a style,
    // or Bootstrap 5.3's data-bs-theme (MkDocs' theme toggle).
    this.observer = new MutationObserver(this.update);
    const attributeFilter = ['data-jp-theme-light', 'data-bs-theme', 'class', 'style'];
    for (const node of new Set([document.documentElement, document.body].filter(Boolean))) {
      this.observer.observe(node, { attributes: true, attributeFilter });
    }
    // A <meta name="color-scheme"> added, removed or given another content (a theme toggle may rewrite it). Only
    // those: notebooks and frameworks add <style>s to the head all the time, and each decision reads a style.
    const isMeta = (n) => n.localName === 'meta';
    this.metaObserver = new MutationObserver((records) => {
      if (records.some((r) => isMeta(r.target) || [...r.addedNodes, ...r.removedNodes].some(isMeta))) this.refresh();
    });
    if (document.head) this.metaObserver.observe(document.head, { childList: true, subtree: true, attributes: true, attributeFilter: ['content', 'name'] });
    if (!pending.size) queueMicrotask(decidePending);
    pending.add(this);
  }

  stop() {
    pending.delete(this);
    this.media?.removeEventListener('change', this.update);
    this.observer?.disconnect();
    this.metaObserver?.disconnect();
  }
}
