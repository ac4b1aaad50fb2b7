// The MkDocs recipe of README.md ("In your own page"), as a site author follows it: examples/mkdocs/ with the
// two files of dist/ put under docs/attention-viz/, built by MkDocs 1.6 (`use_directory_urls`, the default, so
// docs/guide/attention.md is served at /guide/attention/), served under a subpath (/project/) as a project site
// is, and opened in headless Chromium: both pages draw their figures with no console error, no HTTP error and no
// request leaving the machine; the figures' weights equal NumPy's; the reader's path (a click on the link to
// the sub-folder page) works; so does the single-file build listed the same way. It also shows why the old advice
// ("copy dist/ beside the page") fails there.
//
// Needs `make dist` (dist/) and the .venv of `scripts/setup.sh python` (MkDocs), which this file runs.
// Screenshots of both pages (1280 and 390 px, light and dark) go to $AV_SHOTS (default /tmp/attention-viz-mkdocs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../scripts/serve.mjs';
import { launch, whenDrawn } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PYTHON = join(ROOT, '.venv/bin/python');
const SHOTS = process.env.AV_SHOTS || join(tmpdir(), 'attention-viz-mkdocs');
const PREFIX = '/project/';

let tmp, server, base, browser;
before(async () => {
  assert.ok(existsSync(join(ROOT, 'dist/attention-viz.js')), 'dist/ is missing: run `make dist` first');
  // setup.sh takes a lock: `node --test` may run the files that need .venv side by side.
  execFileSync(join(ROOT, 'scripts/setup.sh'), ['python'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  tmp = mkdtempSync(join(tmpdir(), 'attention-viz-mkdocs-'));
  const src = join(tmp, 'src');
  cpSync(join(ROOT, 'examples/mkdocs'), src, { recursive: true });
  // The recipe: only the module and its chunks, its WASM and the models file (dist/README.md copied under docs/ would
  // become a page).
  mkdirSync(join(src, 'docs/attention-viz/pkg'), { recursive: true });
  for (const f of readdirSync(join(ROOT, 'dist')).filter((f) => /^attention-viz(-[\w-]+)?\.js$/.test(f))) cpSync(join(ROOT, 'dist', f), join(src, 'docs/attention-viz', f));
  cpSync(join(ROOT, 'dist/pkg'), join(src, 'docs/attention-viz/pkg'), { recursive: true });
  // The old advice, for the negative check: dist/ beside the Markdown page.
  mkdirSync(join(src, 'docs/guide/dist'));
  cpSync(join(ROOT, 'dist/attention-viz.js'), join(src, 'docs/guide/dist/attention-viz.js'));
  // --strict: a warning (a broken link, a missing nav file) fails the build.
  execFileSync(PYTHON, ['-m', 'mkdocs', 'build', '--strict', '--quiet', '-f', join(src, 'mkdocs.yml'),
    '-d', join(tmp, 'www', PREFIX)], { cwd: src, stdio: ['ignore', 'ignore', 'inherit'] });
  // The single-file build instead (a classic script, no .wasm to serve), the same way, at /inline/.
  const yml = readFileSync(join(src, 'mkdocs.yml'), 'utf8');
  const inline = yml.replace(/extra_javascript:\n(  .*\n)+/, 'extra_javascript:\n  - attention-viz/attention-viz.inline.js\n');
  assert.notEqual(inline, yml, 'extra_javascript not found in examples/mkdocs/mkdocs.yml');
  writeFileSync(join(src, 'mkdocs-inline.yml'), inline);
  cpSync(join(ROOT, 'dist/attention-viz.inline.js'), join(src, 'docs/attention-viz/attention-viz.inline.js'));
  execFileSync(PYTHON, ['-m', 'mkdocs', 'build', '--strict', '--quiet', '-f', join(src, 'mkdocs-inline.yml'),
    '-d', join(tmp, 'www/inline')], { cwd: src, stdio: ['ignore', 'ignore', 'inherit'] });
  ({ server, url: base } = await serve({ root: join(tmp, 'www'), port: 0 }));
  base = base.replace(/\/$/, '');
  browser = await launch();
  mkdirSync(SHOTS, { recursive: true });
});
after(async () => {
  await browser?.close();
  server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** A page of the site with every console error, page error, HTTP error and off-machine request in `problems`. */
async function visit(path, { width = 1280, colorScheme = 'light' } = {}) {
  const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme });
  page.problems = [];
  page.statuses = new Map();
  await page.route((url) => !url.href.startsWith(base), (route) => {
    page.problems.push(`request off the machine: ${route.request().url()}`);
    return route.abort();
  });
  page.on('pageerror', (e) => page.problems.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(m.text()); });
  page.on('response', (r) => {
    page.statuses.set(new URL(r.url()).pathname, r.status());
    if (r.status() >= 400) page.problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  if (path !== null) await page.goto(base + path);
  return page;
}

/** softmax(scores, axis=1) computed by NumPy for a config without projections: scores = X·Xᵀ, unscaled. */
function numpyWeights(config) {
  const code = 'import json, sys, numpy as np\n'
    + 'X = np.array(json.load(sys.stdin)["embeddings"], dtype=np.float64)\n'
    + 's = X @ X.T\ne = np.exp(s - s.max(axis=1, keepdims=True))\n'
    + 'print(json.dumps((e / e.sum(axis=1, keepdims=True)).tolist()))';
  return JSON.parse(execFileSync(PYTHON, ['-c', code], { input: JSON.stringify(config) }).toString());
}

/** Whether every heatmap canvas of the figure holds more than one colour (drawn, not blank). */
function canvasesPainted(page) {
  return page.evaluate(() => [...document.querySelector('attention-viz').shadowRoot.querySelectorAll('canvas[data-view]')]
    .map((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const colours = new Set();
      for (let i = 0; i < d.length && colours.size < 3; i += 4 * 7) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      return `${c.dataset.view}:${colours.size > 2 ? 'painted' : 'blank'}`;
    }));
}

const assertPainted = (views) => {
  assert.ok(views.length > 0, 'no heatmap canvas');
  for (const v of views) assert.match(v, /:painted$/);
};

const close = (got, want, tol, what) => {
  assert.equal(got.length, want.length, `${what}: rows`);
  got.forEach((row, i) => row.forEach((v, j) => assert.ok(Math.abs(v - want[i][j]) <= tol, `${what}[${i}][${j}]: ${v} vs NumPy ${want[i][j]}`)));
};

test('the home page (/project/) draws its seed-001 figure with the document\'s weights', async () => {
  const page = await visit(PREFIX);
  await whenDrawn(page, 'attention-viz', () => {});
  // The module came from the site's own folder, however deep the page: MkDocs wrote the relative path.
  assert.equal(page.statuses.get(`${PREFIX}attention-viz/attention-viz.js`), 200);
  // A seed figure runs in the figure core; the whole core is fetched only when a part needs it.
  assert.equal(page.statuses.get(`${PREFIX}attention-viz/pkg/attention_viz_figure.wasm`), 200);
  assert.equal(page.statuses.get(`${PREFIX}attention-viz/pkg/attention_viz_bg.wasm`), undefined);
  // A seed figure needs no trained model: the models' file is not fetched (loadModels() would).
  assert.equal(page.statuses.get(`${PREFIX}attention-viz/pkg/attention_viz_models.bin`), undefined);
  const weights = await page.evaluate(() => document.querySelector('attention-viz').trace.weights);
  // The second seed document's printed weights (NumPy + SciPy's softmax, 8 digits).
  close([weights[0]], [[0.23608986, 0.00738988, 0.74913039, 0.00738988]], 5e-9, 'weights');
  assertPainted(await canvasesPainted(page));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a click on the link opens /project/guide/attention/, whose figure draws NumPy\'s weights', async () => {
  const page = await visit(PREFIX);
  await whenDrawn(page, 'attention-viz', () => {});
  await page.getByRole('link', { name: 'a figure of your own numbers' }).click();
  await page.waitForURL(`${base}${PREFIX}guide/attention/`);
  await whenDrawn(page, 'attention-viz', () => {});
  assert.equal(page.statuses.get(`${PREFIX}attention-viz/attention-viz.js`), 200);
  const { config, weights } = await page.evaluate(() => {
    const el = document.querySelector('attention-viz');
    return { config: JSON.parse(el.getAttribute('config')), weights: el.trace.weights };
  });
  close(weights, numpyWeights(config), 1e-12, 'weights');
  assertPainted(await canvasesPainted(page));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the single-file build listed in extra_javascript draws the sub-folder page too (/inline/guide/attention/)', async () => {
  const page = await visit('/inline/guide/attention/');
  await whenDrawn(page, 'attention-viz', () => {});
  assert.equal(page.statuses.get('/inline/attention-viz/attention-viz.inline.js'), 200);
  assert.ok(![...page.statuses.keys()].some((p) => p.endsWith('.wasm')), 'the single-file build fetched a .wasm');
  const { config, weights } = await page.evaluate(() => {
    const el = document.querySelector('attention-viz');
    return { config: JSON.parse(el.getAttribute('config')), weights: el.trace.weights };
  });
  close(weights, numpyWeights(config), 1e-12, 'weights');
  assertPainted(await canvasesPainted(page));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the old advice fails under folder URLs: dist/ beside guide/attention.md is not at dist/ from /guide/attention/', async () => {
  const page = await visit(`${PREFIX}guide/attention/`);
  await whenDrawn(page, 'attention-viz', () => {});
  const status = await page.evaluate(async () => [
    (await fetch('dist/attention-viz.js')).status, // what <script src="dist/attention-viz.js"> would load
    (await fetch('../dist/attention-viz.js')).status, // where MkDocs put the copy
  ]);
  assert.deepEqual(status, [404, 200]);
  await page.close();
});

// The mkdocs theme is light on every system; with extra.css's color-scheme the figures (theme="auto") match it.
test('screenshots of both pages at 1280 and 390 px, light and dark system settings: light figures, no problem', async () => {
  for (const [path, name] of [[PREFIX, 'home'], [`${PREFIX}guide/attention/`, 'guide']]) {
    for (const colorScheme of ['light', 'dark']) {
      for (const width of [1280, 390]) {
        const page = await visit(path, { width, colorScheme });
        await whenDrawn(page, 'attention-viz', () => {});
        await page.screenshot({ path: join(SHOTS, `mkdocs-${name}-${width}-${colorScheme}.png`), fullPage: true });
        assert.equal(await page.evaluate(() => (document.querySelector('attention-viz').matches(':state(dark)') ? 'dark' : 'light')), 'light');
        assert.deepEqual(page.problems, [], `${name} ${width} ${colorScheme}`);
        await page.close();
      }
    }
  }
});
