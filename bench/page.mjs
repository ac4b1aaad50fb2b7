// Benchmark suite "page": a blog-like page with one <attention-viz preset="seed-003"> loading the
// drop-in bundle (dist/attention-viz.js, as README's "In your own page" says), beside its anchor measured in the same
// run, and the same page loading the first module instead (dist/attention-viz.first.js: the preset's picture on screen,
// then the live figure; both timed, with the bytes on the wire by each): CircuitsVis's one-pattern page (its `attention_pattern` as circuitsvis/utils/render.py writes it, the IIFE
// bundle loaded as a script file).
//
// The pages are served by a small server of this suite's own that gzips every response (zlib level 6, gzip's default
// and what static hosts send; scripts/serve.mjs does not compress), on the "Regular 4G" profile of Firefox DevTools
// and WebdriverIO's `throttleNetwork` presets: 4 Mbit/s down (4 × 1024 × 1024 / 8 B/s), 3 Mbit/s up, 20 ms latency,
// applied with CDP Network.emulateNetworkConditions, in a fresh browser context with the cache disabled. Measured:
// the bytes on the wire (CDP's encodedDataLength per request, headers included; every request listed in the notes),
// and the ms from navigation start to the figure drawn: ours, the element's first `change` (fired synchronously after
// its first draw, as bench/load.mjs takes it); CircuitsVis's, the first time its container holds a canvas with a
// painted pixel (a MutationObserver and a requestAnimationFrame poll: to within a frame). Loads alternate between the
// two pages. Reported, never asserted.
//
// CircuitsVis comes from PyPI (`pip download --no-deps circuitsvis==1.43.3`, which scripts/setup.sh bench does into
// bench-cache/); without it the suite measures ours alone and says so.
import { createServer } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { loadavg, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join, normalize, extname } from 'node:path';
import { execFileSync } from 'node:child_process';
import { median, percentile } from './heatmap.mjs';

export const description = 'a blog page with one seed-003 figure (dist/, gzip, Regular 4G) beside CircuitsVis\'s one-pattern page';

export const columns = [['KiB on the wire', 'kib']];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(root, 'bench-cache');
const CV_VERSION = '1.43.3';
const CV_WHEEL = join(CACHE, `circuitsvis-${CV_VERSION}-py3-none-any.whl`);
const CV_JS = join(CACHE, `circuitsvis-${CV_VERSION}-iife.js`);

const TARGET_KB = 150;
const TARGET_MS = 400;
/** The same page fully interactive (the live figure drawn), all its bytes. */
const LIVE_KB = 250;
const LIVE_MS = 1200;

/** Firefox DevTools' and WebdriverIO's "Regular 4G" (they give it in Kbit/s with 1 Mbit = 1024 Kbit). */
export const PROFILE = {
  name: 'Regular 4G (Firefox DevTools / WebdriverIO preset): 4 Mbit/s down, 3 Mbit/s up, 20 ms latency',
  conditions: { offline: false, latency: 20, downloadThroughput: (4 * 1024 * 1024) / 8, uploadThroughput: (3 * 1024 * 1024) / 8 },
};

const PROSE = `<p>Attention lets each position of a sequence look at every other one and take a weighted average of what it
finds there. The weights come from a softmax over scores, and the scores from dot products of queries and keys.</p>
<p>Below, the decoder state of a translation model attends over the encoder's four annotations, as in Bahdanau et
al. (2014). Edit any number and every stage recomputes.</p>`;

function blogPage(title, figure) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="icon" href="data:,">
<style>body{font:17px/1.6 Georgia,serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#222}h1{font-size:1.8rem}</style>
</head><body><article><h1>How attention weighs its inputs</h1>${PROSE}
${figure}
<p>The weights sum to one across the keys; the context vector is their weighted sum of the values.</p></article></body></html>`;
}

/** Ours: README's two lines, the bundle at /attention-viz/ (dist/ copied there). */
const OURS = blogPage('attention-viz', `<script type="module" src="/attention-viz/attention-viz.js"></script>
<attention-viz preset="seed-003"></attention-viz>`);

/** Ours, picture first: the first module (dist/attention-viz.first.js, README "Picture first") shows the preset's
 * picture, then loads the engine; render-blocking so the picture's box is in the first frame. */
const FIRST = blogPage('attention-viz, picture first', `<script type="module" blocking="render" src="/attention-viz/attention-viz.first.js"></script>
<attention-viz preset="seed-003"></attention-viz>`);

/** CircuitsVis's render_local, with its IIFE as a script file instead of inline (so it is fetched and gzipped alike). */
function theirs(tokens, attention) {
  return blogPage('CircuitsVis', `<div id="circuits-vis-0" style="margin: 15px 0;"></div>
<script src="/cv/iife.js"></script>
<script>CircuitsVis.render("circuits-vis-0", CircuitsVis.AttentionPattern, ${JSON.stringify({ tokens, attention })});</script>`);
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm', '.bin': 'application/octet-stream', '.json': 'application/json', '.svg': 'image/svg+xml' };

/** A server of the two pages and their files, every body gzipped when the browser accepts it (it always does). */
function startServer(pages) {
  const gz = new Map(); // path → {body, gzipped, type}
  const file = (path) => {
    if (gz.has(path)) return gz.get(path);
    let bytes = null;
    if (pages[path] !== undefined) bytes = Buffer.from(pages[path]);
    else if (path === '/cv/iife.js' && existsSync(CV_JS)) bytes = readFileSync(CV_JS);
    else if (path.startsWith('/attention-viz/')) {
      const p = normalize(join(root, 'dist', path.slice('/attention-viz/'.length)));
      if (p.startsWith(join(root, 'dist')) && existsSync(p) && statSync(p).isFile()) bytes = readFileSync(p);
    }
    const entry = bytes && { body: bytes, gzipped: gzipSync(bytes, { level: 6 }), type: TYPES[extname(path) || '.html'] ?? 'application/octet-stream' };
    gz.set(path, entry);
    return entry;
  };
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const f = file(path);
    if (!f) { res.writeHead(404, { 'Cache-Control': 'no-store' }); res.end(); return; }
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    res.writeHead(200, { 'Content-Type': f.type, 'Cache-Control': 'no-store', ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) });
    res.end(gzip ? f.gzipped : f.body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })));
}

/** Runs in the page before its scripts: notes when the figure is drawn (ours: `change`; CircuitsVis: a painted canvas). */
function initScript() {
  const marks = { drawn: null, via: null, errors: [], picture: null, pictureBytes: null };
  window.__avPage = marks;
  // The first module's picture on screen (its image decoded), and the bytes on the wire by then (resource timing's
  // transferSize: headers and body, same-origin).
  const pictured = () => {
    const img = document.querySelector('attention-viz > [slot="picture"] img');
    if (marks.picture != null || !img?.complete || !img.naturalWidth) return;
    marks.picture = performance.now();
    const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
    marks.pictureBytes = entries.filter((e) => e.responseEnd <= marks.picture).reduce((n, e) => n + e.transferSize, 0);
  };
  const seen = (via) => {
    if (marks.drawn != null) return;
    marks.drawn = performance.now();
    marks.via = via;
    requestAnimationFrame(() => { marks.frame = performance.now(); });
  };
  addEventListener('change', (e) => { if (e.target?.localName === 'attention-viz') seen('change'); }, true);
  addEventListener('error', (e) => { if (e.target?.localName === 'attention-viz') marks.errors.push(e.detail?.message); }, true);
  const painted = () => {
    const box = document.getElementById('circuits-vis-0');
    if (!box) return false;
    for (const c of box.querySelectorAll('canvas')) {
      if (!c.width || !c.height) continue;
      const data = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data;
      for (let i = 3; data && i < data.length; i += 4) if (data[i] !== 0) return true;
    }
    return false;
  };
  const check = (via) => { pictured(); if (marks.drawn == null && painted()) seen(via); };
  new MutationObserver(() => check('mutation')).observe(document, { childList: true, subtree: true });
  const poll = () => { check('rAF poll'); if (marks.drawn == null) requestAnimationFrame(poll); };
  requestAnimationFrame(poll);
}

/** One cold load of `url` on the profile: its time to the figure drawn and every request's bytes on the wire. */
async function sample(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', PROFILE.conditions);
    const requests = new Map(); // requestId → {url, bytes}
    cdp.on('Network.requestWillBeSent', (e) => requests.set(e.requestId, { url: e.request.url, bytes: 0 }));
    cdp.on('Network.loadingFinished', (e) => { const r = requests.get(e.requestId); if (r) r.bytes = e.encodedDataLength; });
    await page.addInitScript(initScript);
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction(() => window.__avPage.errors.length > 0 || window.__avPage.frame !== undefined, null, { timeout: 60_000, polling: 50 });
    // Anything the page still fetches after its figure (the lazy parts must not be; a late request is counted too).
    await page.waitForTimeout(500);
    const marks = await page.evaluate(() => window.__avPage);
    if (marks.errors.length) throw new Error(`the element reported: ${marks.errors[0]}`);
    if (errors.length) throw new Error(`${url} logged errors: ${errors.join('; ')}`);
    const list = [...requests.values()].filter((r) => !r.url.startsWith('data:'));
    return { ...marks, requests: list, bytes: list.reduce((s, r) => s + r.bytes, 0) };
  } finally {
    await context.close();
  }
}

/** CircuitsVis's IIFE from its wheel in bench-cache/ (pip download: scripts/setup.sh bench); null when absent. */
function circuitsVis() {
  if (existsSync(CV_JS)) return CV_JS;
  if (!existsSync(CV_WHEEL)) return null;
  execFileSync('python3', ['-c', `import zipfile,sys; open(sys.argv[2],'wb').write(zipfile.ZipFile(sys.argv[1]).read('circuitsvis/dist/cdn/iife.js'))`, CV_WHEEL, CV_JS]);
  return CV_JS;
}

export async function run({ site, samples = 30, warmup = 5, log = () => {} }) {
  if (!existsSync(join(root, 'dist', 'attention-viz.js'))) throw new Error('no dist/attention-viz.js: run make dist first');
  const cv = circuitsVis();
  // CircuitsVis's pattern: seed-001's self-attention weights (4 × 4) and tokens, from the bundle under test in Node
  // (only as input data: any 4 × 4 pattern would do).
  const api = await import(join(root, 'dist', 'attention-viz.js'));
  await api.ready;
  const seed = api.presets['seed-001'];
  const pattern = api.compute(seed).weights;
  const { server, url } = await startServer({ '/ours.html': OURS, '/first.html': FIRST, '/circuitsvis.html': theirs(seed.tokens, pattern) });
  const n = Math.max(5, Math.ceil(samples / 3));
  const w = Math.min(2, warmup);
  const pages = [['ours', `${url}/ours.html`], ['first', `${url}/first.html`], ...(cv ? [['CircuitsVis', `${url}/circuitsvis.html`]] : [])];
  log(`  ${w} + ${n} loads of ${pages.length} page(s), alternating …`);
  const runs = Object.fromEntries(pages.map(([name]) => [name, []]));
  try {
    for (let k = 0; k < w + n; k++) {
      for (const [name, at] of pages) {
        const r = await sample(site.browser, at);
        if (k >= w) runs[name].push(r);
      }
    }
  } finally {
    server.close();
  }
  const rows = [];
  const stat = {};
  for (const [name] of pages) {
    const rs = runs[name];
    const ms = rs.map((r) => r.drawn);
    const kib = median(rs.map((r) => r.bytes)) / 1024;
    stat[name] = { ms: median(ms), kib };
    const ours = name !== 'CircuitsVis';
    if (name === 'first') {
      const pic = rs.map((r) => r.picture);
      const picKib = median(rs.map((r) => r.pictureBytes)) / 1024;
      stat.picture = { ms: median(pic), kib: picKib };
      rows.push({ what: 'picture first: blog page → seed-003\'s picture on screen', median_ms: median(pic), p90_ms: percentile(pic, 90),
        target_ms: TARGET_MS, ok: median(pic) <= TARGET_MS, kib: `${picKib.toFixed(1)} (≤ ${TARGET_KB})`, samples_ms: pic, via: 'picture' });
    }
    const target = name === 'first' ? LIVE_MS : TARGET_MS;
    rows.push({
      what: { ours: 'ours: blog page → seed-003 drawn (dist/, gzip, 4G)', first: '  … its live figure drawn (interactive)' }[name]
        ?? `anchor: CircuitsVis ${CV_VERSION} AttentionPattern page → drawn`,
      median_ms: median(ms), p90_ms: percentile(ms, 90), target_ms: ours ? target : null, ok: ours ? median(ms) <= target : null,
      kib: `${kib.toFixed(1)}${ours ? ` (≤ ${name === 'first' ? LIVE_KB : TARGET_KB})` : ''}`, samples_ms: ms, via: [...new Set(rs.map((r) => r.via))].join('/'),
    });
    rows.push({ what: '  … its next animation frame', median_ms: median(rs.map((r) => r.frame)), p90_ms: percentile(rs.map((r) => r.frame), 90), target_ms: null, ok: null, kib: '' });
  }
  const notes = [
    `Profile: ${PROFILE.name}; each load a new context, cache disabled, gzip level 6; ${n} loads per page after ${w} untimed, alternating.`,
    `Load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} on ${cpus().length} cores (the ms depend on it; the bytes do not).`,
  ];
  for (const [name] of pages) {
    const last = runs[name][runs[name].length - 1];
    const list = last.requests.map((r) => `${new URL(r.url).pathname} ${(r.bytes / 1024).toFixed(1)}`).join(', ');
    notes.push(`${name}: ${(last.bytes / 1024).toFixed(1)} KiB on the wire (headers included): ${list}`);
  }
  if (!cv) notes.push(`No CircuitsVis in bench-cache/ (scripts/setup.sh bench downloads circuitsvis==${CV_VERSION} from PyPI): no anchor.`);
  const anchor = (f) => (stat.CircuitsVis ? f(stat.CircuitsVis) : 'no CircuitsVis in bench-cache/');
  const targets = [
    { row: 1, what: 'one-figure page, bytes on the wire (gzip)', measured: `${stat.ours.kib.toFixed(1)} KiB`, target: `≤ ${TARGET_KB} KB`,
      anchor: anchor((c) => `CircuitsVis ${c.kib.toFixed(1)} KiB`), ok: stat.ours.kib * 1024 <= TARGET_KB * 1000 },
    { row: 1, what: 'one-figure page, navigation → drawn (Regular 4G)', measured: `${stat.ours.ms.toFixed(0)} ms`, target: `≤ ${TARGET_MS} ms`,
      anchor: anchor((c) => `CircuitsVis ${c.ms.toFixed(0)} ms`), ok: stat.ours.ms <= TARGET_MS },
    { row: 1, what: 'picture first: bytes until the picture shows (gzip)', measured: `${stat.picture.kib.toFixed(1)} KiB`, target: `≤ ${TARGET_KB} KB`,
      anchor: anchor((c) => `CircuitsVis ${c.kib.toFixed(1)} KiB`), ok: stat.picture.kib * 1024 <= TARGET_KB * 1000 },
    { row: 1, what: 'picture first: navigation → picture (Regular 4G)', measured: `${stat.picture.ms.toFixed(0)} ms`, target: `≤ ${TARGET_MS} ms`,
      anchor: anchor((c) => `CircuitsVis ${c.ms.toFixed(0)} ms`), ok: stat.picture.ms <= TARGET_MS },
    { row: 1, what: 'picture first: bytes until interactive (gzip)', measured: `${stat.first.kib.toFixed(1)} KiB`, target: `≤ ${LIVE_KB} KB`,
      anchor: '', ok: stat.first.kib * 1024 <= LIVE_KB * 1000 },
    { row: 1, what: 'picture first: navigation → interactive (Regular 4G)', measured: `${stat.first.ms.toFixed(0)} ms`, target: `≤ ${LIVE_MS} ms`,
      anchor: '', ok: stat.first.ms <= LIVE_MS },
  ];
  return { rows, notes, targets, profile: PROFILE, requests: Object.fromEntries(pages.map(([name]) => [name, runs[name].map((r) => r.requests)])) };
}
