// Owns dist/'s first module and the presets' pictures (scripts/dist.mjs runs it after the module build): the core's
// static picture of each preset, light and dark, as dist/pictures/<preset>[.dark].svg (src/picture.rs, the picture
// Python's notebooks carry); the live figure's height at each width, measured in headless Chromium on dist/ itself,
// so the picture's box reserves it (no layout shift when the figure replaces the picture); and
// dist/attention-viz.first.js, www/first.js minified with those facts defined in it (`PICTURES`).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateSync, inflateSync, crc32 } from 'node:zlib';

/** The widths the live figure is measured at (CSS pixels): from a phone's to a wide column, every 8. */
const WIDTHS = Array.from({ length: (1280 - 240) / 8 + 1 }, (_, k) => 240 + 8 * k);

/** A PNG's bytes with its image data deflated (the core writes it stored: it carries no compressor). */
function deflatedPNG(png) {
  const out = [png.subarray(0, 8)];
  const idat = [];
  const chunk = (kind, body) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length, 0);
    head.write(kind, 4, 'latin1');
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])) >>> 0, 0);
    return Buffer.concat([head, body, tail]);
  };
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const kind = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    at += 12 + length;
    if (kind === 'IDAT') { idat.push(body); continue; }
    if (kind === 'IEND' && idat.length) out.push(chunk('IDAT', deflateSync(inflateSync(Buffer.concat(idat)), { level: 9 })));
    out.push(chunk(kind, body));
  }
  return Buffer.concat(out);
}

/** An SVG of the core's with its PNGs deflated (as Python's package sends them: _core.compress_images). */
export const compressImages = (svg) => svg.replace(/data:image\/png;base64,([A-Za-z0-9+/=]+)/g,
  (_, b64) => `data:image/png;base64,${deflatedPNG(Buffer.from(b64, 'base64')).toString('base64')}`);

/** The core in Node (www/core.js over www/pkg, the build dist/ is made from), initialised. */
export async function nodeCore(root) {
  const core = await import(pathToFileURL(join(root, 'www/core.js')).href);
  core.initSync({ module: readFileSync(join(root, 'www/pkg/attention_viz_bg.wasm')) });
  return core;
}

/**
 * Draws every preset's picture with the core in Node (www/core.js over www/pkg, the build dist/ was made from) into
 * dist/pictures/; returns {preset: {light, dark, alt, width, height}}.
 */
export async function drawPictures(root, dist) {
  const core = await nodeCore(root);
  const { presets } = core.call({ kind: 'facts' });
  mkdirSync(join(dist, 'pictures'), { recursive: true });
  const drawn = {};
  for (const [name, config] of Object.entries(presets)) {
    const entry = {};
    for (const theme of ['light', 'dark']) {
      const { svg, alt } = core.call({ kind: 'picture', config, flat: [], options: { theme } });
      const file = `${name}${theme === 'dark' ? '.dark' : ''}.svg`;
      writeFileSync(join(dist, 'pictures', file), compressImages(svg));
      const [, width, height] = /<svg [^>]*width="([\d.]+)" height="([\d.]+)"/.exec(svg);
      Object.assign(entry, { [theme]: file, alt, width: Number(width), height: Number(height) });
    }
    drawn[name] = entry;
  }
  return drawn;
}

/**
 * The live figure's height of each preset at every width of WIDTHS, as steps [[from width, height]…], measured on
 * dist/ in headless Chromium (the e2e tests' browser); {} when no browser can be started (the pictures then reserve
 * their own size only, and the build says so).
 */
export async function measureLive(root, dist, names) {
  let chromium;
  let browser;
  try {
    ({ chromium } = await import('playwright-core'));
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  } catch (e) {
    console.warn(`the live figures' heights were not measured (no browser: ${e.message.split('\n')[0]}); pictures reserve their own size`);
    return {};
  }
  const { serve } = await import(pathToFileURL(join(root, 'scripts/serve.mjs')).href);
  const { server, url } = await serve({ root: dist, port: 0 });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const boxes = names.map((n) => `<div style="width:1280px"><attention-viz preset="${n}"></attention-viz></div>`).join('');
    await page.route(`${url}measure.html`, (r) => r.fulfill({ contentType: 'text/html',
      body: `<!doctype html><meta charset="utf-8"><body style="margin:0">${boxes}<script type="module" src="attention-viz.js"></script>` }));
    await page.goto(`${url}measure.html`);
    return await page.evaluate(async ({ widths, names }) => {
      const hosts = [...document.querySelectorAll('attention-viz')];
      await Promise.all(hosts.map((h) => new Promise((ok) => (h.trace ? ok() : h.addEventListener('change', ok, { once: true })))));
      const frames = (n) => new Promise((ok) => { const f = () => (n-- ? requestAnimationFrame(f) : setTimeout(ok, 0)); f(); });
      await new Promise((ok) => setTimeout(ok, 500)); // the settle's measure of the views' natural sizes
      const steps = names.map(() => []);
      for (const w of widths) {
        for (const h of hosts) h.parentElement.style.width = `${w}px`;
        await frames(3);
        hosts.forEach((h, k) => {
          const height = Math.round(h.getBoundingClientRect().height * 100) / 100;
          const last = steps[k][steps[k].length - 1];
          if (!last || last[1] !== height) steps[k].push([w, height]);
        });
      }
      return Object.fromEntries(names.map((n, k) => [n, steps[k]]));
    }, { widths: WIDTHS, names });
  } finally {
    server.close();
    await browser.close();
  }
}

/** The figure core's .wasm in dist/ (scripts/dist.mjs), which the first module preloads. */
const FIGURE = 'pkg/attention_viz_figure.wasm';

/** dist/attention-viz.first.js: www/first.js, minified, its dynamic import of the engine left to the browser. */
export async function buildFirst(root, dist, pictures) {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(root, 'www/first.js')], bundle: true, minify: true, format: 'esm', target: 'es2020',
    outfile: join(dist, 'attention-viz.first.js'), external: ['./attention-viz.js'], logLevel: 'silent',
    define: { PICTURES: JSON.stringify(pictures), ...(existsSync(join(dist, FIGURE)) && { FIGURE_WASM: JSON.stringify(FIGURE) }) }, legalComments: 'inline', charset: 'utf8',
  });
}

/** The three steps, in the order they need each other; prints what the first module costs. */
export async function firstModule(root, dist) {
  const drawn = await drawPictures(root, dist);
  const live = await measureLive(root, dist, Object.keys(drawn));
  for (const [name, steps] of Object.entries(live)) drawn[name].live = steps;
  await buildFirst(root, dist, drawn);
}
