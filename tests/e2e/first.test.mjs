// The figure before the engine: a page loading dist/attention-viz.first.js shows each preset's picture (the core's,
// dist/pictures/) before the engine's JS and .wasm arrive, in a box as tall as the live figure (no layout shift when
// the figure replaces it: PerformanceObserver 'layout-shift', CLS 0); the engine comes on idle or at the first
// interaction, and what the reader did before it arrived is applied. Loads on "Regular 4G" (CDP
// Network.emulateNetworkConditions, as bench/page.mjs). Needs `make dist` first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../scripts/serve.mjs';
import { launch, watch, done } from './harness.mjs';

const DIST = join(fileURLToPath(new URL('../../', import.meta.url)), 'dist');
const REGULAR_4G = { offline: false, latency: 20, downloadThroughput: (4 * 1024 * 1024) / 8, uploadThroughput: (3 * 1024 * 1024) / 8 };
const PAGE = `<!doctype html><meta charset="utf-8"><title>blog</title><link rel="icon" href="data:,">
<style>body{font:17px/1.6 Georgia,serif;max-width:42rem;margin:2rem auto;padding:0 1rem}</style>
<script type="module" blocking="render" src="/attention-viz.first.js"></script>
<h1>How attention weighs its inputs</h1><p>Some prose above the figure.</p>
<button id="other" onclick="window.__clickedLive = window.__drawn !== null; document.querySelector('attention-viz').setAttribute('preset', 'seed-001')">another preset</button>
<attention-viz preset="seed-003"></attention-viz>
<p id="below">The weights sum to one across the keys.</p>`;

let browser;
let server;
let url;
before(async () => {
  if (!existsSync(join(DIST, 'attention-viz.first.js'))) throw new Error('no dist/attention-viz.first.js: run make dist first');
  ({ server, url } = await serve({ root: DIST, port: 0 }));
  browser = await launch();
});
after(async () => { await browser?.close(); server?.close(); });

/** The page on Regular 4G, its layout shifts and first `change` noted from the start; `requests`: paths in order. */
async function throttled() {
  const page = watch(await browser.newPage({ viewport: { width: 1000, height: 900 } }));
  page.requests = [];
  page.on('request', (q) => { if (!/^(blob|data):/.test(q.url())) page.requests.push(new URL(q.url()).pathname); });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', REGULAR_4G);
  await page.route(`${url}blog.html`, (route) => route.fulfill({ contentType: 'text/html', body: PAGE }));
  await page.addInitScript(() => {
    window.__cls = 0;
    window.__drawn = null;
    new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value; })
      .observe({ type: 'layout-shift', buffered: true });
    addEventListener('change', (e) => { if (e.target?.localName === 'attention-viz' && window.__drawn === null) window.__drawn = performance.now(); }, true);
  });
  await page.goto(`${url}blog.html`, { waitUntil: 'commit' });
  return page;
}

/** Once the picture is on screen: where it is, and whether the engine is there yet. */
const pictureShown = (page) => page.waitForFunction(() => {
  const img = document.querySelector('attention-viz > [slot="picture"] img');
  if (!img?.complete || !img.naturalWidth) return null;
  const box = img.parentElement.getBoundingClientRect();
  return { engine: Boolean(customElements.get('attention-viz')), drawn: window.__drawn, top: box.top, height: box.height,
    below: document.getElementById('below').getBoundingClientRect().top };
}, null, { polling: 'raf' }).then((h) => h.jsonValue());

test('the preset\'s picture shows before the engine, in the live figure\'s box: no layout shift when the figure replaces it', async () => {
  const page = await throttled();
  const shown = await pictureShown(page);
  assert.equal(shown.engine, false, 'the picture shows before the element is defined');
  assert.equal(shown.drawn, null);
  assert.ok(shown.height > 500, `the picture's box reserves the live figure's height (${shown.height} px)`);
  // Nobody touches the page: the engine comes on idle, and the figure is drawn where the picture was.
  await page.waitForFunction(() => window.__drawn !== null, null, { polling: 100 });
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  const after = await page.evaluate(() => {
    const host = document.querySelector('attention-viz');
    return { cls: window.__cls, below: document.getElementById('below').getBoundingClientRect().top,
      slot: host.shadowRoot.querySelector('slot[name="picture"]').hidden, canvases: host.shadowRoot.querySelectorAll('canvas').length };
  });
  assert.equal(after.slot, true, 'the picture gives way to the live figure');
  assert.ok(after.canvases > 0);
  assert.equal(after.below, shown.below, 'the prose below the figure did not move');
  assert.equal(after.cls, 0, 'cumulative layout shift');
  assert.ok(page.requests.indexOf('/pictures/seed-003.svg') < page.requests.indexOf('/attention-viz.js'),
    `the picture is fetched before the engine: ${page.requests.join(', ')}`);
  await done(page);
});

test('an edit made with real input before the engine arrives is applied when it does', async () => {
  const page = await throttled();
  const shown = await pictureShown(page);
  assert.equal(shown.engine, false);
  // A real click (the page's own button changes the figure's preset) while only the picture is there (the engine's
  // files may be arriving, not the live figure): the first interaction also starts the engine.
  await page.click('#other');
  assert.equal(await page.evaluate(() => window.__clickedLive), false, 'the click came before the live figure');
  await page.waitForFunction(() => window.__drawn !== null, null, { polling: 100 });
  const tokens = await page.evaluate(async () => {
    const api = await import('/attention-viz.js');
    return { shown: document.querySelector('attention-viz').config.tokens, preset: api.presets['seed-001'].tokens };
  });
  assert.deepEqual(tokens.shown, tokens.preset, 'the figure shows the preset chosen before it loaded');
  await done(page);
});

test('an author\'s own picture (slot="picture") shows until the figure is drawn, and again above the message of a config the core refuses', async () => {
  const page = watch(await browser.newPage());
  const picture = `<img slot="picture" width="120" height="40" alt="my figure" src="data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="teal"/></svg>')}">`;
  await page.route(`${url}own.html`, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module" src="/attention-viz.first.js"></script>
<attention-viz id="good" config='{"embeddings": [[1, 0], [0, 1]], "tokens": ["a", "b"]}'>${picture}</attention-viz>
<attention-viz id="bad" config='{"embeddings": [[1, 0], [0]]}'>${picture}</attention-viz>` }));
  await page.goto(`${url}own.html`);
  await page.waitForFunction(() => document.getElementById('good').trace !== null && document.getElementById('bad').shadowRoot?.querySelector('.status.error')?.textContent);
  const seen = await page.evaluate(() => Object.fromEntries(['good', 'bad'].map((id) => {
    const host = document.getElementById(id);
    const img = host.querySelector('img[slot="picture"]');
    return [id, { slotHidden: host.shadowRoot.querySelector('slot[name="picture"]').hidden, pictureHeight: img.getBoundingClientRect().height,
      message: host.shadowRoot.querySelector('.status.error')?.textContent ?? '' }];
  })));
  assert.equal(seen.good.slotHidden, true, 'the drawn figure replaces the picture');
  assert.equal(seen.good.pictureHeight, 0);
  assert.equal(seen.bad.slotHidden, false, 'a refused config keeps the picture');
  assert.equal(seen.bad.pictureHeight, 40);
  assert.match(seen.bad.message, /embeddings/);
  await done(page);
});

test('make serve\'s built index.html: every figure of the page\'s HTML shows its picture before the .wasm arrives, then draws', async () => {
  const built = await serve({ root: join(DIST, '..'), port: 0, built: true });
  const page = watch(await browser.newPage({ viewport: { width: 1280, height: 900 } }));
  try {
    let release;
    const held = new Promise((ok) => { release = ok; });
    // Either core (the built page's figures run the figure core; index.html's figures include a model view's, which
    // loads the whole core).
    await page.route(/attention_viz_(bg|figure)\.wasm$/, async (route) => { await held; await route.continue(); });
    await page.goto(`${built.url}index.html`);
    const before = await page.waitForFunction(() => {
      const hosts = [...document.querySelectorAll('attention-viz')];
      const pictured = hosts.filter((h) => h.querySelector(':scope > [slot="picture"] img'));
      const onScreen = pictured.filter((h) => h.getBoundingClientRect().top < innerHeight);
      if (!onScreen.length || !onScreen.every((h) => h.querySelector(':scope > [slot="picture"] img').naturalWidth)) return null;
      return { hosts: hosts.length, pictured: pictured.length, drawn: hosts.filter((h) => h.trace).length, scripts: [...document.scripts].map((s) => s.getAttribute('src')) };
    }, null, { polling: 'raf' }).then((h) => h.jsonValue());
    assert.ok(before.scripts.includes('www/attention-viz.first.js') && !before.scripts.includes('www/compile.js'), `the built modules: ${before.scripts}`);
    assert.equal(before.drawn, 0);
    assert.equal(before.pictured, before.hosts, 'every figure in the HTML has a picture (the presets\' from dist/, the others drawn by serve.mjs)');
    release();
    // Each figure draws: those on screen first, the others in idle time or as they near the viewport.
    await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')].every((h) => h.trace), null, { polling: 200 });
    await done(page);
  } finally {
    built.server.close();
  }
});
