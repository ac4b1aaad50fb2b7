// A tiny static file server for the repo root (no dependencies).
// Usage: node scripts/serve.mjs [--port 8000] [--root .] [--csp] [--built]
// Serves .wasm as application/wasm so streaming compilation works, and with
// --csp adds the strict Content-Security-Policy the bundle must work under.
// With --built (`make serve`), the pages of www/ modules (index.html, www/embed.html) load dist/'s built, minified
// ones instead (`make dist` first): the first module (its pictures first, render-blocking so their boxes are in the
// first frame), the bundle preloaded beside it, and the .wasm and models their <link rel="preload"> name, all
// answered from dist/ (`builtFile`); the element's own modules are no longer preloaded.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json', '.css': 'text/css', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.md': 'text/markdown; charset=utf-8', '.ts': 'text/plain; charset=utf-8', '.txt': 'text/plain; charset=utf-8',
};
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:";

/** A page of www/ modules as it loads dist/'s built ones: the first module and the bundle instead of www/'s graph. */
export function builtPage(html) {
  return html
    // The page's own scripts (www/pages/) stay; the element's modules are inside the bundle.
    .replace(/<link rel="modulepreload" href="([^"]*)">\n?/g, (all, href) => (/(^|\/)pages\//.test(href) ? all : ''))
    .replace(/<script type="module" async src="[^"]*compile\.js"><\/script>\n?/, '') // the bundle starts the .wasm itself
    // The built bundle's figures run the figure core first (scripts/dist.mjs): its .wasm is the one to preload.
    .replace(/(<link rel="preload" href="[^"]*pkg\/)attention_viz_bg\.wasm"/, '$1attention_viz_figure.wasm"')
    .replace(/<script type="module" src="([^"]*)attention-viz\.js"><\/script>/, (_, dir) => `<link rel="modulepreload" href="${dir}attention-viz.js">
<script type="module" blocking="render" src="${dir}attention-viz.first.js"></script>`);
}

/** An element's attributes from its start tag's text (`name="…"`, `name='…'`, `name=…`, `name`), entities decoded. */
function attributes(text) {
  const decode = (v) => v.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const out = {};
  for (const m of text.matchAll(/([\w-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) out[m[1]] = decode(m[2] ?? m[3] ?? m[4] ?? '');
  return out;
}

/**
 * For --built: a page's figures that the first module has no picture for (a `config` attribute; a `palette`, `fmt` or
 * `contrast` the presets' pictures were not drawn with) given one inside, `slot="picture"` (README "Picture first"):
 * the core's picture drawn in Node, light and dark as the reader's system prefers, served from `pictures` (path →
 * SVG text) and loaded lazily. A figure whose config is not JSON keeps none (the element says why).
 */
export function withPictures(html, core, pictures) {
  const escape = (t) => t.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return html.replace(/<attention-viz\b([^>]*)>/g, (tag, text) => {
    const a = attributes(text);
    if (!('config' in a) && !['palette', 'fmt', 'contrast'].some((k) => k in a)) return tag;
    let config;
    try { config = 'config' in a ? JSON.parse(a.config) : core.call({ kind: 'facts' }).presets[a.preset || 'seed-001']; } catch { return tag; }
    if (!config) return tag;
    const drawn = {};
    for (const theme of a.theme === 'dark' || a.theme === 'light' ? [a.theme] : ['light', 'dark']) {
      const { svg, alt } = core.call({ kind: 'picture', config, flat: [], options: { palette: a.palette, fmt: a.fmt, contrast: a.contrast, theme } });
      const path = `/__pictures/${pictures.size}.svg`;
      pictures.set(path, svg);
      const [, width, height] = /<svg [^>]*width="([\d.]+)" height="([\d.]+)"/.exec(svg);
      drawn[theme] = { path, alt, width, height };
    }
    const { light, dark } = drawn;
    const img = light ?? dark;
    return `${tag}<picture slot="picture">${light && dark ? `<source srcset="${dark.path}" media="(prefers-color-scheme: dark)">` : ''}`
      + `<img src="${img.path}" alt="${escape(img.alt)}" width="${img.width}" height="${img.height}" loading="lazy" style="display:block;max-width:100%;height:auto"></picture>`;
  });
}

/** For --built: dist/'s file for a request of www/ that the build makes (the bundle, its chunks, pkg/, pictures/), else null. */
function builtFile(base, path) {
  const m = /^\/www\/((attention-viz[\w.-]*\.js)|(pkg|pictures)\/[\w.-]+)$/.exec(path);
  return m ? join(base, 'dist', m[1]) : null;
}

/** Starts a server; resolves to {server, port, url}. Port 0 picks a free one. */
export async function serve({ root = '.', port = 8000, host = '127.0.0.1', csp = false, built = false } = {}) {
  const base = resolve(root);
  // --built: the core in Node draws the pictures the first module has none for (withPictures).
  const first = built ? await import('./first-module.mjs') : null;
  const core = built ? await first.nodeCore(base) : null;
  const pictures = new Map();
  const pages = new Map(); // an HTML file → {mtimeMs, html} as --built serves it
  const server = createServer(async (req, res) => {
    try {
      let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = normalize(join(base, path));
      if (!file.startsWith(base)) throw Object.assign(new Error('outside root'), { code: 'ENOENT' });
      if (pictures.has(path)) {
        res.writeHead(200, { 'Content-Type': TYPES['.svg'], 'Cache-Control': 'no-store' });
        res.end(first.compressImages(pictures.get(path)));
        return;
      }
      if (built) file = builtFile(base, path) ?? file;
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      let body = await readFile(file);
      if (built && extname(file) === '.html') {
        // Drawn once per version of the file: the pictures take the core a while.
        const { mtimeMs } = await stat(file);
        if (pages.get(file)?.mtimeMs !== mtimeMs) pages.set(file, { mtimeMs, html: withPictures(builtPage(body.toString('utf8')), core, pictures) });
        body = pages.get(file).html;
      }
      const headers = { 'Content-Type': TYPES[extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-store' };
      if (csp) headers['Content-Security-Policy'] = CSP;
      res.writeHead(200, headers);
      res.end(body);
    } catch (e) {
      res.writeHead(e.code === 'ENOENT' || e.code === 'ENOTDIR' ? 404 : 500, { 'Content-Type': 'text/plain' });
      res.end(e.code === 'ENOENT' ? 'not found' : 'server error');
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const actual = server.address().port;
      ok({ server, port: actual, url: `http://${host}:${actual}/` });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
  const { url } = await serve({ root: opt('--root', '.'), port: Number(opt('--port', process.env.PORT || 8000)), csp: args.includes('--csp'), built: args.includes('--built') });
  console.log(`attention-viz is served at ${url} (Ctrl-C to stop)`);
}
