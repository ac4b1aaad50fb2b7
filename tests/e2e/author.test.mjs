// What a tutorial author meets: the page's <meta name="color-scheme">, figures on paper
// (light, whatever the screen; the guided page's print is checked in pages.test.mjs), a config mistake
// shown as a message and not as another figure's numbers, and one install instruction everywhere.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { open, done } from './harness.mjs';
import { installSnippets, distReadme } from '../../scripts/install-text.mjs';

let site;
before(async () => { site = await open(); });
after(() => site.close());

const read = (p) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');

/** The figure's look: its theme attribute, its background and a heatmap's top-left pixel ("r,g,b"). */
const looks = (page, id) => page.evaluate((i) => {
  const e = document.getElementById(i);
  const c = e.shadowRoot.querySelector('canvas[data-view="weights"]');
  const px = c.getContext('2d').getImageData(1, 1, 1, 1).data;
  return { attr: (e.matches(':state(dark)') ? 'dark' : 'light'), host: getComputedStyle(e).backgroundColor, canvas: `${px[0]},${px[1]},${px[2]}` };
}, id);
const LIGHT = { attr: 'light', host: 'rgb(255, 255, 255)', canvas: '255,255,255' };
const DARK = { attr: 'dark', host: 'rgb(22, 27, 34)', canvas: '22,27,34' };

const drawn = (page, id) => page.waitForFunction((i) => document.getElementById(i)?.shadowRoot?.querySelector('canvas[data-view="weights"]')?.width > 0, id);
/** Waits until figure #id's theme is `want` and one more frame has been drawn. */
const themed = async (page, id, want) => {
  await page.waitForFunction(([i, w]) => (document.getElementById(i).matches(':state(dark)') ? 'dark' : 'light') === w, [id, want]);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
};

test('<meta name="color-scheme" content="light"> keeps the figures light for a dark-mode reader, and its changes are followed', async () => {
  const page = await site.page(null);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`${site.url}tests/fixtures/author-page.html`);
  await drawn(page, 'good');
  assert.deepEqual(await looks(page, 'good'), LIGHT, 'the page says light: the figure is light');
  const meta = () => page.evaluate(() => document.querySelector('meta[name="color-scheme"]'));
  await meta();
  await page.evaluate(() => document.querySelector('meta[name="color-scheme"]').setAttribute('content', 'dark'));
  await themed(page, 'good', 'dark');
  assert.deepEqual(await looks(page, 'good'), DARK, 'content="dark": dark');
  await page.evaluate(() => document.querySelector('meta[name="color-scheme"]').setAttribute('content', 'light dark'));
  await page.emulateMedia({ colorScheme: 'light' });
  await themed(page, 'good', 'light');
  assert.deepEqual(await looks(page, 'good'), LIGHT, 'content="light dark": the system decides (light)');
  await page.emulateMedia({ colorScheme: 'dark' });
  await themed(page, 'good', 'dark');
  assert.deepEqual(await looks(page, 'good'), DARK, 'content="light dark": the system decides (dark)');
  await page.evaluate(() => document.querySelector('meta[name="color-scheme"]').remove());
  await page.evaluate(() => document.head.insertAdjacentHTML('beforeend', '<meta name="color-scheme" content="only light">'));
  await themed(page, 'good', 'light');
  assert.deepEqual(await looks(page, 'good'), LIGHT, 'a meta added later: followed');
  await done(page);
});

test('a malformed config shows its message and an empty figure, not another figure\'s numbers', async () => {
  const page = await site.page(null);
  const events = [];
  await page.exposeFunction('onFigureError', (m) => events.push(m));
  await page.addInitScript(() => window.addEventListener('error', (e) => {
    if (e.target?.localName === 'attention-viz') window.onFigureError(e.detail.message);
  }, true));
  await page.goto(`${site.url}tests/fixtures/author-page.html`);
  await drawn(page, 'good');
  await page.waitForFunction(() => document.getElementById('bad').shadowRoot?.querySelector('.status.error')?.textContent);
  const bad = await page.evaluate(() => {
    const e = document.getElementById('bad');
    const status = e.shadowRoot.querySelector('.status');
    const r = status.getBoundingClientRect();
    return {
      message: status.textContent,
      visible: r.width > 0 && r.height > 0 && getComputedStyle(status).visibility !== 'hidden',
      canvases: [...e.shadowRoot.querySelectorAll('canvas[data-view]')].filter((c) => c.width > 0).length,
      cells: e.shadowRoot.querySelectorAll('input.cell').length,
      config: e.config,
      trace: e.trace,
    };
  });
  assert.match(bad.message, /embeddings row 1 has 1 value/, 'the message says what is wrong');
  assert.doesNotMatch(bad.message, /seed-00\d|preset/, 'no other figure is offered in its place');
  assert.ok(bad.visible, 'the message is visible');
  assert.equal(bad.canvases, 0, 'no heatmap is drawn');
  assert.equal(bad.cells, 0);
  assert.equal(bad.config, null);
  assert.equal(bad.trace, null);
  assert.deepEqual(events, [bad.message], '`error` fired once, with the message shown');
  // The author fixes it through the property: the figure appears.
  await page.evaluate(() => { document.getElementById('bad').config = { embeddings: [[1, 0], [0, 1]] }; });
  await drawn(page, 'bad');
  assert.equal(await page.evaluate(() => document.getElementById('bad').shadowRoot.querySelector('.status').textContent), '');
  await done(page);
});

test('printed from a dark screen, figures are light (theme auto and theme="dark"), and dark again on screen', async () => {
  const page = await site.page(null);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`${site.url}tests/fixtures/blank.html`);
  await page.evaluate(async () => {
    await import('/www/attention-viz.js');
    document.body.insertAdjacentHTML('beforeend', '<attention-viz id="auto" preset="seed-001" views="weights"></attention-viz>'
      + '<attention-viz id="dark" preset="seed-001" views="weights" theme="dark"></attention-viz>');
  });
  await drawn(page, 'auto');
  await drawn(page, 'dark');
  assert.deepEqual(await looks(page, 'auto'), DARK);
  await page.emulateMedia({ media: 'print', colorScheme: 'dark' });
  for (const id of ['auto', 'dark']) {
    await themed(page, id, 'light');
    assert.deepEqual(await looks(page, id), LIGHT, `#${id} on paper`);
  }
  await page.emulateMedia({ media: 'screen', colorScheme: 'dark' });
  for (const id of ['auto', 'dark']) {
    await themed(page, id, 'dark');
    assert.deepEqual(await looks(page, id), DARK, `#${id} back on screen`);
  }
  await done(page);
});

// The guided page on paper: pages.test.mjs prints the dark index.html it has open.

// ---- one install instruction ----

test('README.md, www/embed.html and the npm package\'s README.md give the same install snippets', () => {
  const readme = installSnippets(read('README.md'));
  assert.equal(readme.length, 2, 'README: the module build and the single file');
  assert.match(readme[0], /^<script type="module" src="\/attention-viz\/attention-viz\.js"><\/script>\n<attention-viz /);
  assert.deepEqual(installSnippets(read('www/embed.html')), readme, 'embed.html');
  assert.deepEqual(installSnippets(distReadme('0.0.0', read('README.md'))), readme, 'dist/README.md as dist.mjs writes it');
  if (existsSync(new URL('../../dist/README.md', import.meta.url))) assert.deepEqual(installSnippets(read('dist/README.md')), readme, 'dist/README.md (built)');
  // No other way to load it is told: every <script src> naming the build in the three texts is one of these.
  const srcs = (text) => [...text.replace(/&lt;/g, '<').replace(/&quot;/g, '"').matchAll(/<script[^>]*\ssrc="([^"]*attention-viz(?:\.inline)?\.js)"/g)].map((m) => m[1]);
  const allowed = new Set(readme.flatMap(srcs));
  for (const [name, text] of [['README.md', read('README.md')], ['www/embed.html', read('www/embed.html').replace(/<head>[\s\S]*<\/head>/, '')], ['dist/README.md', distReadme('0.0.0', read('README.md'))]]) {
    for (const src of srcs(text)) assert.ok(allowed.has(src), `${name}: <script src="${src}">`);
  }
});

test('make wheel writes the wheel outside dist/, the npm package\'s folder', () => {
  assert.match(read('scripts/wheel.py'), /"--outdir", "dist-python"/);
  assert.doesNotMatch(read('scripts/wheel.py'), /root \/ "dist" \/ f"attention_viz-/);
  assert.match(read('Makefile'), /dist-python\/attention_viz-\$\$/);
  assert.doesNotMatch(read('README.md') + read('www/embed.html'), /[^-]dist\/attention_viz-/);
});
