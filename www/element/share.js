// Owns getting a figure out of the page: shareURL() (its state is the core's text: its shareState, base64url of the
// versioned JSON, src/share.rs), the Share & export menu (link, PNG, SVG, JSON, NumPy), downloads and the clipboard,
// and PNG export (one heatmap drawn offscreen at device resolution, or the visible heatmaps composited as they are
// laid out).
import { el } from './dom.js';

/** The figure's name in URL fragments: its id, else its position among the page's figures (storage keys: persist.js). */
export function shareKey(host) {
  if (host.id) return host.id;
  const all = [...document.querySelectorAll('attention-viz')];
  return `attention-viz-${Math.max(0, all.indexOf(host))}`;
}

/** The longest link offered: Chromium refuses to open a URL longer than 2 MB (2,097,152 characters). */
export const MAX_LINK = 2_000_000;

/** shareURL()'s Error for a link too long to open (`length` characters, or `atLeast` that many): the menu says the same. */
export class LinkTooLong extends Error {
  constructor(length, atLeast = false) {
    super(`This figure is too large for a link (${atLeast ? 'at least ' : ''}${length.toLocaleString('en')} characters; browsers open at most about ${MAX_LINK.toLocaleString('en')}): the JSON file (toJSON()) holds the whole figure instead.`);
    this.name = 'Error';
    this.length = length;
  }
}

/** Saves `blob` as `filename` through a temporary link (also the model panel's exports). */
export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export class Share {
  constructor(host, api) {
    this.host = host;
    this.api = api;
    this.root = this.buildMenu();
  }

  /** This figure's state in the page's URL fragment, or null. */
  fromURL() {
    const text = new URLSearchParams(location.hash.slice(1)).get(shareKey(this.host));
    this.inURL = text !== null;
    return text;
  }

  /** The fragment's parts but this figure's (a page anchor, other figures' states are kept as they are). */
  otherParts() {
    const key = encodeURIComponent(shareKey(this.host));
    return location.hash.slice(1).split('&').filter((p) => p && p.split('=')[0] !== key);
  }

  /**
   * The reader changed the figure after its state went into the URL (opened from a link, or Copy link): the link
   * is older than what is on screen, so it leaves the address bar and a reload shows the newer (saved) edits.
   */
  leaveURL() {
    if (!this.inURL) return;
    this.inURL = false;
    if (!this.host.isConnected) return;
    const parts = this.otherParts();
    try {
      history.replaceState(history.state, '', `${location.href.split('#')[0]}${parts.length ? `#${parts.join('&')}` : ''}`);
    } catch { /* a sandboxed frame: nothing to change */ }
  }

  /**
   * The link that restores this figure, or a LinkTooLong when browsers would not open it — judged from the sizes
   * first (the core's lower bound of the state's length), so a state that cannot be a link is never written out.
   */
  url() {
    const { host } = this;
    const parts = this.otherParts();
    const head = `${location.href.split('#')[0]}#${parts.map((p) => `${p}&`).join('')}${encodeURIComponent(shareKey(host))}=`;
    const least = head.length + host._ask({ kind: 'shareStateAtLeast' });
    if (least > MAX_LINK) throw new LinkTooLong(least, true);
    const url = head + host._ask({ kind: 'shareState', naive: host._state.naive });
    if (url.length > MAX_LINK) throw new LinkTooLong(url.length);
    return url;
  }

  buildMenu() {
    const svgView = el('select', { 'data-control': 'export-view', 'aria-label': 'Heatmap to export' });
    const refresh = () => {
      const { host } = this;
      if (!host._viz) return;
      const keep = svgView.value;
      svgView.replaceChildren(el('option', { value: '', text: 'whole figure' }), ...host._ask({ kind: 'views' }).map((v) => el('option', { value: v, text: v })));
      svgView.value = host._ask({ kind: 'views' }).includes(keep) ? keep : '';
      svgState();
    };
    const button = (action, text, title) => el('button', { type: 'button', 'data-action': action, title, text, onclick: () => this.export(action, svgView.value) });
    // SVG is one heatmap: offered only once one is picked (a disabled button says why in its title).
    const svgState = () => {
      const svg = menu.querySelector('[data-action="svg"]');
      svg.disabled = svgView.value === '';
      svg.title = svg.disabled ? 'SVG is one heatmap: pick it in the list first' : `Download an SVG of ${svgView.value}`;
    };
    svgView.addEventListener('change', svgState);
    const menu = el('details', { class: 'menu' }, el('summary', { text: 'Share & export' }),
      el('div', { class: 'group' },
        button('copy-link', 'Copy link', 'A link that restores this exact figure'),
        svgView,
        button('png', 'PNG', 'Download a PNG (device resolution)'),
        button('svg', 'SVG', 'Download an SVG of one heatmap'),
        button('json', 'JSON', 'Download the state as JSON'),
        button('numpy', 'Copy as NumPy', 'A Python snippet that recomputes these numbers with NumPy/SciPy')));
    // Sharing and exporting are the whole core's (src/share.rs, src/export.rs): it loads as the menu opens.
    menu.addEventListener('toggle', () => { if (menu.open) this.host._needWhole().catch(() => {}); refresh(); });
    svgState();
    return menu;
  }

  async export(action, view) {
    const { host } = this;
    // The state is the whole figure's whatever heatmap is picked; images are of the picked one.
    const base = host.id || 'attention-viz';
    const name = base + (view ? `-${view}` : '');
    const saved = (file) => host._status(`Downloaded ${file}.`);
    try {
      await host._needWhole();
      switch (action) {
        case 'copy-link': {
          let url;
          try { url = host.shareURL(); } catch (e) {
            if (!(e instanceof LinkTooLong)) throw e;
            // Chromium does not open a URL over 2 MB: such a link would restore nothing. The JSON file does.
            host._offer(e.message, 'Download JSON', 'download-json', () => this.export('json', ''), true);
            return;
          }
          history.replaceState(history.state, '', url);
          this.inURL = true;
          await this.copy(url, 'Link copied: it restores this exact figure.');
          return;
        }
        case 'png': download(await host.toPNG(view || undefined), `${name}.png`); return saved(`${name}.png`);
        case 'svg': {
          if (!view) { host._status('Pick one heatmap to export as SVG.', true); return; }
          download(new Blob([host.toSVG(view)], { type: 'image/svg+xml' }), `${name}.svg`);
          return saved(`${name}.svg`);
        }
        case 'json':
          download(new Blob([JSON.stringify(host.toJSON(), null, 1)], { type: 'application/json' }), `${base}.json`);
          return saved(`${base}.json`);
        case 'numpy': return this.copy(host.toNumPy(), 'NumPy code copied: paste it into a notebook to get these numbers.');
        default:
      }
    } catch (e) { host._fail(e.message); }
    return undefined;
  }

  async copy(text, done) {
    try {
      await navigator.clipboard.writeText(text);
      this.host._status(done);
    } catch {
      // No clipboard (insecure context, permissions): show the text to copy by hand.
      const area = el('textarea', { rows: '4', cols: '60', readonly: true, 'aria-label': 'Text to copy' });
      area.value = text;
      this.host._statusEl.replaceChildren('Copy this by hand: ', area);
      area.select();
    }
  }

  /**
   * A PNG Blob of one heatmap, or of every visible heatmap when `view` is undefined. A large figure's (large.js: a
   * worker's images) is its canvases and texts composited as a whole figure's are.
   */
  png(view) {
    const { host } = this;
    let canvas;
    if (host._large?.shown) {
      const { origin, canvases, texts } = host._large.parts(view);
      canvas = this.composite(origin, canvases, texts);
    } else if (view === undefined) {
      host._figures.paintAll(); // off-screen heatmaps are drawn only when asked
      const figs = [...host._figures.canvases.values()];
      canvas = this.composite(host._figures.root, figs.map((c) => ({ canvas: c, overlay: host._figures.overlays.get(c.dataset.view) })));
    } else canvas = this.offscreen(String(view));
    return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'));
  }

  offscreen(view) {
    const { host } = this;
    const dpr = window.devicePixelRatio || 1;
    const fmt = host._state.fmt;
    const [w, h] = this.api.callCore(() => host._ask({ kind: 'preferredSize', view, fmt }));
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round((host.height ?? h) * dpr);
    this.api.callCore(() => host._viz.draw(canvas, { kind: 'heatmap', view, dpr, dark: false, palette: host.palette ?? undefined, fmt, contrast: host.contrast }));
    return canvas;
  }

  /**
   * `canvases` ({canvas, overlay, fit, pixelated}) placed as they are on the page relative to `origin`, on the figure's
   * background: each at its own pixels, or (`fit`) stretched to its box at device resolution as the page shows it
   * (a large figure's images and colour bars); its overlay (outlines) over it. `texts`: elements whose text is drawn
   * where it shows, in its font and colour (a large figure's titles, ticks and captions are DOM text).
   */
  composite(origin, canvases, texts = []) {
    const { host } = this;
    const dpr = window.devicePixelRatio || 1;
    const gap = 10 * dpr;
    const o = origin.getBoundingClientRect();
    const at = (r) => [Math.round((r.left - o.left) * dpr), Math.round((r.top - o.top) * dpr)];
    let width = 1; let height = 1;
    const placed = canvases.map(({ canvas: c, overlay, fit, pixelated }) => {
      const r = c.getBoundingClientRect();
      const [x, y] = at(r);
      const w = fit ? Math.round(r.width * dpr) : c.width;
      const h = fit ? Math.round(r.height * dpr) : c.height;
      width = Math.max(width, x + w); height = Math.max(height, y + h);
      return { c, overlay, x, y, w, h, fit, pixelated };
    });
    const lines = texts.flatMap((node) => {
      const r = node.getBoundingClientRect();
      const [x, y] = at(r);
      width = Math.max(width, x + Math.ceil(r.width * dpr)); height = Math.max(height, y + Math.ceil(r.height * dpr));
      return [{ node, x, y, w: r.width * dpr }];
    });
    const out = document.createElement('canvas');
    out.width = width + gap; out.height = height + gap;
    const ctx = out.getContext('2d');
    ctx.fillStyle = getComputedStyle(host).getPropertyValue('--av-bg').trim() || '#ffffff';
    ctx.fillRect(0, 0, out.width, out.height);
    for (const { c, overlay, x, y, w, h, fit, pixelated } of placed) {
      ctx.imageSmoothingEnabled = !pixelated;
      ctx.drawImage(c, x, y, w, h);
      // Its outlines, on the canvas over it (figures.js, large.js): the PNG shows what the page does.
      if (overlay && (fit || (overlay.width === c.width && overlay.height === c.height))) ctx.drawImage(overlay, x, y, w, h);
    }
    ctx.textBaseline = 'top';
    for (const { node, x, y, w } of lines) {
      const cs = getComputedStyle(node);
      const size = parseFloat(cs.fontSize) * dpr;
      const lh = (parseFloat(cs.lineHeight) || parseFloat(cs.fontSize) * 1.2) * dpr;
      ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${size}px ${cs.fontFamily}`;
      ctx.fillStyle = cs.color;
      // Wrapped as the page wraps it: word by word to the element's width.
      let line = ''; let k = 0;
      for (const word of node.textContent.split(/\s+/).filter(Boolean)) {
        const next = line ? `${line} ${word}` : word;
        if (line && ctx.measureText(next).width > w + 1) { ctx.fillText(line, x, y + k++ * lh); line = word; } else line = next;
      }
      if (line) ctx.fillText(line, x, y + k * lh);
    }
    return out;
  }
}
