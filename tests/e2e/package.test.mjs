// The npm package (dist/) as a consumer uses it: its files and exports map, its docs (every link resolves inside the
// package; the sizes they quote are the build's, and the repository's docs within 10 % of them), both builds in Node,
// and the single-file build loaded by a classic <script> (and bundled for its side effect). An app importing 'attention-viz' built by each
// bundler (esbuild among them): tests/e2e/bundlers.test.mjs. Needs `make dist` first.
// The types of the package are checked by tests/types/ (`make test-types`).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { serve } from '../../scripts/serve.mjs';
import { DOCS, TOLERANCE, refreshSizes, staleSizes } from '../../scripts/doc-sizes.mjs';
import { launch, WAIT } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'dist');
const SEED_002_WEIGHTS_ROW_1 = [0.2983894767152018, 0.201157324162317, 0.247106611820161, 0.2533465873023202];

const temps = [];
let browser;
before(async () => {
  assert.ok(existsSync(join(DIST, 'package.json')), 'dist/ is missing: run `make dist` first');
  browser = await launch();
});
after(async () => {
  await browser?.close();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

/** A consumer project in a temporary folder with the package "installed": dist/ copied to node_modules/attention-viz. */
function project() {
  const dir = mkdtempSync(join(tmpdir(), 'attention-viz-package-'));
  temps.push(dir);
  cpSync(DIST, join(dir, 'node_modules/attention-viz'), { recursive: true });
  mkdirSync(join(dir, 'public'));
  return dir;
}

/** Serves `root`, opens `path` in a new page; console errors, page errors, failed and HTTP-error requests recorded. */
async function visit(root, path) {
  const { server, url } = await serve({ root, port: 0 });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.errors = [];
  page.requests = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  page.on('requestfailed', (r) => page.errors.push(`request failed: ${r.url()}`));
  page.on('response', (r) => { page.requests.push(`${r.status()} ${new URL(r.url()).pathname}`); if (r.status() >= 400) page.errors.push(`HTTP ${r.status()}: ${r.url()}`); });
  await page.goto(url + path);
  return { page, async close() { await page.close(); server.close(); } };
}

/** Waits for every <attention-viz> to have drawn a canvas; per element, the canvases' sizes. */
async function rendered(page) {
  await page.waitForFunction(() => {
    const els = [...document.querySelectorAll('attention-viz')];
    return els.length > 0 && els.every((e) => e.shadowRoot && [...e.shadowRoot.querySelectorAll('canvas[data-view]')].some((c) => c.width > 0 && c.height > 0));
  }, null, { timeout: WAIT }).catch((e) => { throw new Error(`not rendered (${e.message}); page errors: ${page.errors.join('; ') || 'none'}`); });
  return page.evaluate(() => [...document.querySelectorAll('attention-viz')].map((e) => ({
    trace: e.trace !== null,
    canvases: [...e.shadowRoot.querySelectorAll('canvas[data-view]')].map((c) => [c.width, c.height, c.getBoundingClientRect().width]),
  })));
}

function assertClose(got, want, what) {
  assert.equal(got.length, want.length, what);
  got.forEach((g, i) => assert.ok(Math.abs(g - want[i]) <= 1e-12 * Math.abs(want[i]), `${what}[${i}]: ${g} ≠ ${want[i]}`));
}

// ---- the package files -------------------------------------------------------------------------

test('dist/ is the package: one ES module and its on-demand chunks, the single file, the .wasm, types, README, LICENSE; exports resolve', () => {
  const pkg = JSON.parse(readFileSync(join(DIST, 'package.json'), 'utf8'));
  const listing = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listing(join(dir, e.name)) : [relative(DIST, join(dir, e.name))]));
  const files = listing(DIST).sort();
  // The module build's chunks: train()'s training side, a model's weights view, the decode/flash and the
  // position/kv/window panels, an import's work, the whole core's glue; imported by the module only
  // when asked, never before it runs (scripts/dist.mjs checks that the module has no static import).
  const chunks = files.filter((f) => /^attention-viz-[a-z]+-[\w-]+\.js$/.test(f));
  assert.deepEqual(chunks.map((f) => f.split('-')[2]).sort(), ['import', 'model', 'modern', 'steppers', 'training', 'whole'], `the chunks: ${chunks.join(', ')}`);
  for (const c of chunks) assert.match(readFileSync(join(DIST, 'attention-viz.js'), 'utf8'), new RegExp(`import\\(\\s*["']\\./${c.replace(/[.-]/g, '\\$&')}["']\\s*\\)`), `the module imports ${c} on demand`);
  const scripts = files.filter((f) => /\.m?js$/.test(f) && !chunks.includes(f) && !f.startsWith('docs/'));
  assert.deepEqual(scripts, ['attention-viz.first.js', 'attention-viz.inline.js', 'attention-viz.js'], 'the first module, one module bundle and the single file (no element.js, no pkg/*.js)');
  // The first module's pictures: each preset's, light and dark (README "Picture first").
  assert.deepEqual(files.filter((f) => f.startsWith('pictures/')), ['000', '001', '002', '003'].flatMap((n) => [`pictures/seed-${n}.dark.svg`, `pictures/seed-${n}.svg`]));
  assert.deepEqual(files.filter((f) => f.startsWith('docs/')), ['docs/embed.css', 'docs/embed.html', 'docs/embed.js', 'docs/integrations.md', 'docs/page.css'], 'the docs the README links to');
  assert.deepEqual(files.filter((f) => f.startsWith('pkg/')), ['pkg/attention_viz_bg.wasm', 'pkg/attention_viz_figure.wasm', 'pkg/attention_viz_models.bin']);
  for (const entry of pkg.files) assert.ok(files.some((f) => f === entry || f.startsWith(entry)), `"files" entry ${entry} exists`);
  // Nothing else: the Python wheel goes to dist-python/ (make wheel), not into the npm package's folder.
  for (const f of files) assert.ok(['package.json', 'sizes.json'].includes(f) || pkg.files.some((e) => f === e || f.startsWith(e)), `${f} is in "files"`);
  assert.equal(pkg.license, 'MIT');
  const license = readFileSync(join(DIST, 'LICENSE'), 'utf8');
  assert.equal(license, readFileSync(join(ROOT, 'LICENSE'), 'utf8'));
  assert.match(license, /^MIT License\n\nCopyright \(c\) 2026 the attention-viz authors\n/);
  assert.deepEqual(pkg.exports['./inline'], { types: './attention-viz.inline.d.ts', default: './attention-viz.inline.js' });
  assert.equal(pkg.exports['./wasm'], './pkg/attention_viz_bg.wasm');
  assert.equal(pkg.exports['./pkg/attention_viz_bg.wasm'], './pkg/attention_viz_bg.wasm');
  assert.equal(pkg.exports['./models'], './pkg/attention_viz_models.bin');
  // Resolved as a consumer's tooling resolves them (Node's exports map), from a project where the package is installed.
  const dir = project();
  const require = createRequire(join(dir, 'index.js'));
  const installed = join(dir, 'node_modules/attention-viz');
  assert.equal(require.resolve('attention-viz/wasm'), join(installed, 'pkg/attention_viz_bg.wasm'));
  assert.equal(require.resolve('attention-viz/figure-wasm'), join(installed, 'pkg/attention_viz_figure.wasm'));
  assert.equal(require.resolve('attention-viz/models'), join(installed, 'pkg/attention_viz_models.bin'));
  assert.equal(require.resolve('attention-viz/inline'), join(installed, 'attention-viz.inline.js'));
  assert.equal(require.resolve('attention-viz/first'), join(installed, 'attention-viz.first.js'));
  const inline = readFileSync(join(DIST, 'attention-viz.inline.js'), 'utf8');
  assert.ok(!inline.includes('import.meta'), 'no import.meta in the classic script');
  assert.match(inline, /^\/\*! attention-viz single-file build/, 'the banner (a legal comment) is kept');
});

test("the .wasm pages fetch has the figure's exports but not the C-ABI ones only Python calls; the single file's has both", () => {
  const exports = (bytes) => WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((e) => e.name);
  const page = exports(readFileSync(join(DIST, 'pkg/attention_viz_bg.wasm')));
  assert.ok(page.includes('viz_draw') && page.includes('call') && page.some((n) => n.startsWith('trainercore_')), 'the figure\'s and train()\'s exports');
  assert.deepEqual(page.filter((n) => n.startsWith('av_')), [], 'no av_* (scripts/dist.mjs takes them out)');
  const inline = readFileSync(join(DIST, 'attention-viz.inline.js'), 'utf8');
  const [, base64] = /\("(AGFzbQ[A-Za-z0-9+/=]*)"\)/.exec(inline);
  const full = exports(Buffer.from(base64, 'base64'));
  for (const name of ['av_alloc', 'av_check', 'av_compute', 'av_picture', 'av_facts']) assert.ok(full.includes(name), `the single file's .wasm exports ${name}`);
  assert.deepEqual(full.filter((n) => !n.startsWith('av_')), page, 'otherwise the same exports');
  // The figure core, which the module build's figures run first: a figure's exports, none of train()'s.
  const figure = exports(readFileSync(join(DIST, 'pkg/attention_viz_figure.wasm')));
  assert.ok(figure.includes('viz_draw') && figure.includes('call'), 'the figure\'s exports');
  assert.deepEqual(figure.filter((n) => n.startsWith('trainercore_') || n.startsWith('largejob_') || n.startsWith('av_')), [], 'no trainer, large job or C ABI');
});

// ---- the package's docs ----------------------------------------------------------------------------

/** GitHub's and npm's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

/** The links of a Markdown or HTML text: Markdown's `[text](target)` and `<url>`, HTML's href and src; not those
 * shown as code (fenced blocks, code spans, <pre>). */
const links = (markup) => {
  const text = markup.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '').replace(/<pre[\s\S]*?<\/pre>/g, '');
  return [
  ...[...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]),
  ...[...text.matchAll(/<(https?:\/\/[^>\s]+)>/g)].map((m) => m[1]),
  ...[...text.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((m) => m[1]),
  ];
};

/** What is wrong with the links of `file` (a path inside `dir`, the package): a relative one must name a file of the
 * package (and, with a #fragment, an id of that HTML or a heading of that Markdown); an absolute one must be one of
 * `urls`, or any with `urls` null. */
function brokenLinks(dir, file, urls) {
  const text = readFileSync(join(dir, file), 'utf8');
  const broken = [];
  for (const link of links(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) {
      if (urls && !urls.some((u) => link.startsWith(u))) broken.push(`${link}: an absolute URL package.json does not give`);
      continue;
    }
    const [path, fragment] = link.split('#');
    const target = path ? join(dir, dirname(file), path) : join(dir, file);
    if (relative(dir, target).startsWith('..') || !existsSync(target)) { broken.push(`${link}: no such file in the package`); continue; }
    if (!fragment) continue;
    const body = readFileSync(target, 'utf8');
    const anchors = target.endsWith('.md') ? [...body.matchAll(/^#+ (.*)$/gm)].map((m) => slug(m[1])) : [...body.matchAll(/\sid="([^"]*)"/g)].map((m) => m[1]);
    if (!anchors.includes(fragment)) broken.push(`${link}: ${relative(dir, target)} has no #${fragment}`);
  }
  return broken;
}

test("every link of the package's README.md resolves inside the package (or is a URL of package.json's), and its docs' links too", () => {
  const pkg = JSON.parse(readFileSync(join(DIST, 'package.json'), 'utf8'));
  const urls = [pkg.homepage, pkg.repository?.url ?? pkg.repository, pkg.bugs?.url ?? pkg.bugs].filter((u) => typeof u === 'string');
  const readme = readFileSync(join(DIST, 'README.md'), 'utf8');
  for (const doc of ['docs/embed.html', 'docs/integrations.md', 'LICENSE']) assert.ok(links(readme).some((l) => l.split('#')[0] === doc), `README.md links to ${doc}`);
  assert.deepEqual(brokenLinks(DIST, 'README.md', urls), [], 'dist/README.md');
  for (const doc of ['docs/embed.html', 'docs/integrations.md']) assert.deepEqual(brokenLinks(DIST, doc, null), [], `dist/${doc}`);
  // The check finds a planted broken link, an unknown anchor and a foreign URL.
  const dir = project();
  const planted = join(dir, 'node_modules/attention-viz');
  writeFileSync(join(planted, 'README.md'), `${readme}\n[a](docs/missing.md) [b](docs/embed.html#nowhere) [c](docs/integrations.md#bundlers) <https://example.com/x>\n`);
  assert.deepEqual(brokenLinks(planted, 'README.md', urls), ['docs/missing.md: no such file in the package', 'docs/embed.html#nowhere: docs/embed.html has no #nowhere',
    'https://example.com/x: an absolute URL package.json does not give']);
});

test("the docs quote the build's sizes: the package's exactly, the repository's within 10 % (node scripts/doc-sizes.mjs rewrites them)", (t) => {
  const sizes = JSON.parse(readFileSync(join(DIST, 'sizes.json'), 'utf8'));
  const spans = (text) => [...text.matchAll(/<!-- size:([\w-]+) -->/g)].map((m) => m[1]);
  for (const doc of ['README.md', 'docs/integrations.md']) {
    const text = readFileSync(join(DIST, doc), 'utf8');
    assert.ok(spans(text).includes(doc === 'README.md' ? 'wasm' : 'inline'), `dist/${doc} quotes sizes`);
    assert.deepEqual(staleSizes(text, sizes, 0), [], `dist/${doc}`);
  }
  for (const doc of DOCS) {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    assert.ok(spans(text).length > 0, `${doc} quotes sizes`);
    const stale = staleSizes(text, sizes, TOLERANCE);
    assert.deepEqual(stale, [], `${doc}: run \`node scripts/doc-sizes.mjs\` after \`make dist\``);
    t.diagnostic(`${doc}: ${spans(text).join(', ')}`);
  }
  // A planted stale size is found: each quoted size 20 % off, and a size no one knows.
  const fresh = refreshSizes(readFileSync(join(ROOT, 'docs/integrations.md'), 'utf8'), sizes);
  const off = fresh.replace(/(<!-- size:[\w-]+ -->)(\d+(?:\.\d+)?)/g, (_, open, n) => `${open}${(Number(n) * 1.2).toFixed(1)}`);
  assert.equal(staleSizes(off, sizes).length, spans(fresh).length, 'every planted size 20 % off is found');
  assert.equal(staleSizes(`${fresh}<!-- size:speed -->1 KiB<!-- /size -->`, sizes).length, 1, 'an unknown size is found');
  assert.equal(staleSizes(fresh.replace(/(<!-- size:wasm -->)\d+/, '$1999'), sizes, 0).length, 1, 'exactly: one size changed');
});

test("the package's docs/embed.html, served from the package's folder, runs its examples from the package's files", async () => {
  const site = await visit(DIST, 'docs/embed.html');
  try {
    // Every figure computes, and each draws its heatmaps (one shows only its inputs and steps: views="inputs,steps").
    await site.page.waitForFunction(() => {
      const els = [...document.querySelectorAll('attention-viz')];
      const drawn = (e) => [...e.shadowRoot.querySelectorAll('canvas[data-view]')].some((c) => c.width > 0 && c.height > 0);
      const heatmapless = (e) => e.getAttribute('views')?.split(',').every((v) => ['inputs', 'steps'].includes(v));
      return els.length >= 10 && els.every((e) => e.trace && (drawn(e) || heatmapless(e)));
    }, null, { timeout: WAIT }).catch((e) => { throw new Error(`not rendered (${e.message}); page errors: ${site.page.errors.join('; ') || 'none'}`); });
    await site.page.waitForFunction(() => !document.getElementById('module-out').textContent.startsWith('…'), null, { timeout: WAIT });
    assert.deepEqual(site.page.errors, []);
    assert.ok(!site.page.requests.some((r) => r.includes('/www/') || r.includes('/pages/')), site.page.requests.join(', '));
  } finally {
    await site.close();
  }
});

// ---- Node (a server, a static site's build) ------------------------------------------------------------------------

test("in Node, importing either build fetches nothing and throws nothing; after ready, compute, renderSVG, RandomState work, and models after loadModels()", () => {
  const dir = project();
  // fetch() made to fail loudly: the package must read its files from disk, never fetch at import or in ready.
  const script = (specifier, api) => `globalThis.fetch = () => { throw new Error('fetch called'); };
${api === 'module' ? `import * as m from '${specifier}';` : `await import('${specifier}'); const m = globalThis.AttentionViz;`}
await m.ready;
await m.loadModels();
const svg = m.renderSVG(m.presets['seed-001'], 'weights');
const rs = new m.RandomState(42);
console.log(JSON.stringify({ weights: m.compute(m.presets['seed-002']).weights[1], svg: svg.startsWith('<svg'), rand: rs.rand(2), models: Object.keys(m.models), reversal: m.compute({ mechanism: 'model', model: 'reversal', input: [1, 2, 3, 4, 5, 6] }).prediction }));
`;
  for (const [specifier, api] of [['attention-viz', 'module'], ['attention-viz/inline', 'global']]) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script(specifier, api)], { cwd: dir, encoding: 'utf8' });
    const r = JSON.parse(out);
    assertClose(r.weights, SEED_002_WEIGHTS_ROW_1, `${specifier}: compute(seed-002).weights[1]`);
    assert.equal(r.svg, true, `${specifier}: renderSVG draws an SVG`);
    assert.deepEqual(r.rand, [0.3745401188473625, 0.9507143064099162], `${specifier}: RandomState(42).rand(2) is NumPy's`);
    assert.deepEqual(r.models, ['reversal', 'induction'], specifier);
    assert.deepEqual(r.reversal, [6, 5, 4, 3, 2, 1], `${specifier}: the shipped reversal model, read from the package's files`);
  }
});

// ---- the single-file build -------------------------------------------------------------------------

test('the single-file build from a classic <script>: window.AttentionViz at once, the element renders, no .wasm request, no errors', async () => {
  const dir = project();
  cpSync(join(DIST, 'attention-viz.inline.js'), join(dir, 'public/attention-viz.inline.js'));
  writeFileSync(join(dir, 'public/index.html'), '<!doctype html><meta charset="utf-8"><title>inline</title><link rel="icon" href="data:,">\n'
    + '<script src="attention-viz.inline.js"></script>\n<script src="check.js"></script>\n<attention-viz preset="seed-001"></attention-viz>\n');
  // A second classic script: window.AttentionViz exists as soon as the first has run.
  writeFileSync(join(dir, 'public/check.js'), 'window.__sync = typeof window.AttentionViz === "object" && typeof window.AttentionViz.compute;\n');

  const site = await visit(join(dir, 'public'), 'index.html');
  try {
    const drawn = await rendered(site.page);
    assert.ok(drawn[0].trace && drawn[0].canvases.every(([w, h]) => w > 0 && h > 0), JSON.stringify(drawn));
    const r = await site.page.evaluate(async () => {
      await window.AttentionViz.ready;
      return {
        sync: window.__sync,
        keys: Object.keys(window.AttentionViz).sort(),
        defined: customElements.get('attention-viz') !== undefined,
        weights: window.AttentionViz.compute(window.AttentionViz.presets['seed-002']).weights[1],
      };
    });
    assert.equal(r.sync, 'function', 'window.AttentionViz.compute right after the script ran');
    for (const k of ['ready', 'compute', 'presets', 'RandomState', 'normalizeConfig', 'renderSVG']) assert.ok(r.keys.includes(k), `window.AttentionViz.${k}`);
    assert.ok(r.defined);
    assertClose(r.weights, SEED_002_WEIGHTS_ROW_1, 'compute(seed-002).weights[1]');
    assert.ok(!site.page.requests.some((q) => q.includes('.wasm')), `no .wasm request: ${site.page.requests.join(', ')}`);
    assert.deepEqual(site.page.errors, []);
  } finally {
    await site.close();
  }
});

test("the single-file build bundled for its side effect (import 'attention-viz/inline', as its types allow): works", async () => {
  const dir = project();
  writeFileSync(join(dir, 'app.js'), "import 'attention-viz/inline';\nawait window.AttentionViz.ready;\n"
    + "window.__weights = window.AttentionViz.compute(window.AttentionViz.presets['seed-002']).weights;\n");
  writeFileSync(join(dir, 'public/index.html'), '<!doctype html><meta charset="utf-8"><title>app</title><link rel="icon" href="data:,"><script type="module" src="app.js"></script>\n'
    + '<attention-viz preset="seed-000"></attention-viz>\n');
  await build({ entryPoints: [join(dir, 'app.js')], bundle: true, format: 'esm', outfile: join(dir, 'public/app.js'), absWorkingDir: dir, logLevel: 'silent' });
  const site = await visit(join(dir, 'public'), 'index.html');
  try {
    await rendered(site.page);
    await site.page.waitForFunction(() => window.__weights);
    assertClose(await site.page.evaluate(() => window.__weights[1]), SEED_002_WEIGHTS_ROW_1, 'compute(seed-002).weights[1]');
    assert.deepEqual(site.page.errors, []);
  } finally {
    await site.close();
  }
});
