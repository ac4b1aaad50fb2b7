// The npm package as a bundler's user has it: `import { ready, compute, presets, models } from 'attention-viz'` in one
// tiny app.js, built by webpack 5, Rspack, Parcel, Rollup, esbuild and Vite through their Node APIs with the recipe
// docs/integrations.md ("Bundlers") gives (no config file for any of them); each build must report no warning, and its
// page must draw, compute the NumPy golden, load the shipped models and log no error, with the .wasm and the models
// file fetched from where the bundler emitted them (or, for Rollup and esbuild, which emit only the script, from pkg/ beside it, copied as the
// recipe says). The builds run one after another while the browser starts. Needs `make dist` first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../scripts/serve.mjs';
import { launch, WAIT } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'dist');
const SEED_002_WEIGHTS_ROW_1 = [0.2983894767152018, 0.201157324162317, 0.247106611820161, 0.2533465873023202];

const APP = `import { ready, compute, presets, models, loadModels } from 'attention-viz';
const el = document.createElement('attention-viz');
el.setAttribute('preset', 'seed-003');
document.body.append(el);
await ready;
await loadModels();
window.__models = Object.keys(models).filter((name) => models[name].params);
window.__weights = compute(presets['seed-002']).weights;
`;
/** The page; `attrs` of its script: a module, or (webpack, Rspack: a classic script, as html-webpack-plugin writes it) `defer`. */
const page = (script, attrs = 'type="module"') => `<!doctype html><meta charset="utf-8"><title>app</title><link rel="icon" href="data:,"><script ${attrs} src="${script}"></script>\n`;

/** webpack and Rspack (production mode) hint that an asset over 244 KiB (Rspack: 300 KiB) "can impact web performance":
 * the .wasm is ~660 KiB, fetched and compiled (streaming) apart from the page's script; the recipe leaves it out of the
 * hint and keeps the hint for the app's own scripts. */
const performanceHints = { assetFilter: (file) => !file.endsWith('.wasm') && !file.endsWith('.map') };

/** Each bundler's build of app.js into out/ (with an index.html that loads it); resolves to its warnings. */
const BUILDERS = {
  async esbuild(dir) {
    const { build } = await import('esbuild');
    const r = await build({ entryPoints: [join(dir, 'app.js')], bundle: true, format: 'esm', outfile: join(dir, 'out/app.js'), absWorkingDir: dir, logLevel: 'silent', metafile: true });
    assert.deepEqual(Object.keys(r.metafile.outputs), ['out/app.js'], 'esbuild emits the script only');
    writeFileSync(join(dir, 'out/index.html'), page('app.js'));
    return r.warnings.map((w) => w.text);
  },
  async vite(dir) {
    const { build, createLogger } = await import('vite');
    const warnings = [];
    const logger = createLogger('warn');
    // Not Vite 8's PLUGIN_TIMINGS: a share of the build's time (here vite:asset-import-meta-url's scan of the package's
    // 200 KB module), so it comes and goes with the machine's load; nothing timed is asserted.
    const keep = (m) => { if (!m.includes('[PLUGIN_TIMINGS]')) warnings.push(m); };
    logger.warn = keep;
    logger.warnOnce = keep;
    writeFileSync(join(dir, 'index.html'), page('./app.js'));
    await build({ root: dir, configFile: false, logLevel: 'warn', customLogger: logger, build: { outDir: join(dir, 'out') } });
    return warnings;
  },
  async rspack(dir) {
    const { rspack } = await import('@rspack/core');
    return webpackLike(rspack, dir);
  },
  async rollup(dir) {
    const { rollup } = await import('rollup');
    const { nodeResolve } = await import('@rollup/plugin-node-resolve');
    const warnings = [];
    const bundle = await rollup({ input: join(dir, 'app.js'), plugins: [nodeResolve()], onwarn: (w) => warnings.push(w.message) });
    await bundle.write({ dir: join(dir, 'out'), format: 'es' });
    await bundle.close();
    writeFileSync(join(dir, 'out/index.html'), page('app.js'));
    return warnings;
  },
  async parcel(dir) {
    const { Parcel } = await import('@parcel/core');
    writeFileSync(join(dir, 'index.html'), page('./app.js'));
    // No .parcelrc: the models file is .bin, which no transformer of Parcel's default config claims, so it is emitted
    // as it is (a .json would become a JS module: parcel-bundler/parcel#7151).
    // Parcel logs through reporters, loaded in this process: this one collects warnings and errors.
    writeFileSync(join(dir, 'reporter.cjs'), `const { Reporter } = require('@parcel/plugin');
module.exports = new Reporter({ report({ event }) { if (event.type === 'log' && (event.level === 'warn' || event.level === 'error')) globalThis.__parcelLog.push(event.diagnostics.map((d) => d.message).join('; ')); } });\n`);
    globalThis.__parcelLog = [];
    // defaultConfig: what the `parcel` CLI passes (the API has none), used when the app has no .parcelrc, as here.
    const parcel = new Parcel({
      entries: join(dir, 'index.html'), defaultConfig: '@parcel/config-default', mode: 'production', shouldDisableCache: true, cacheDir: join(dir, '.parcel-cache'), logLevel: 'warn',
      defaultTargetOptions: { distDir: join(dir, 'out'), publicUrl: './' },
      additionalReporters: [{ packageName: join(dir, 'reporter.cjs'), resolveFrom: dir }],
    });
    await parcel.run();
    return globalThis.__parcelLog;
  },
  async webpack(dir) {
    const { default: webpack } = await import('webpack');
    return webpackLike(webpack, dir);
  },
};

async function webpackLike(compiler, dir) {
  const stats = await new Promise((ok, fail) => compiler({
    mode: 'production', context: dir, entry: './app.js', output: { path: join(dir, 'out'), filename: 'app.js' }, performance: performanceHints,
  }, (e, s) => (e ? fail(e) : ok(s))));
  const { warnings, errors } = stats.toJson({ all: false, warnings: true, errors: true });
  assert.deepEqual(errors.map((e) => e.message), []);
  writeFileSync(join(dir, 'out/index.html'), page('app.js', 'defer'));
  return warnings.map((w) => w.message);
}

/** The bundlers that emit only the script: the .wasm and the models file copied to pkg/ beside it (README, docs/integrations.md). */
const COPIED = new Set(['esbuild', 'rollup']);

const temps = [];
let browser;
const builds = {};
before(async () => {
  assert.ok(existsSync(join(DIST, 'package.json')), 'dist/ is missing: run `make dist` first');
  // Under target/ (ignored by git), so that Parcel finds its plugins in this repo's node_modules as it would in the app's.
  const base = join(ROOT, 'target/bundlers');
  mkdirSync(base, { recursive: true });
  let chain = Promise.resolve();
  for (const [name, build] of Object.entries(BUILDERS)) {
    const dir = mkdtempSync(join(base, `${name}-`));
    temps.push(dir);
    // A consumer project with the package "installed": dist/ copied to node_modules/attention-viz.
    cpSync(DIST, join(dir, 'node_modules/attention-viz'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "name": "app", "private": true, "type": "module" }\n');
    writeFileSync(join(dir, 'package-lock.json'), '{ "name": "app", "lockfileVersion": 3, "requires": true, "packages": {} }\n');
    writeFileSync(join(dir, 'app.js'), APP);
    chain = chain.then(async () => {
      const start = Date.now();
      const warnings = await build(dir);
      if (COPIED.has(name)) {
        assert.ok(!existsSync(join(dir, 'out/pkg')), `${name} emitted pkg/ itself`);
        cpSync(join(dir, 'node_modules/attention-viz/pkg'), join(dir, 'out/pkg'), { recursive: true });
      }
      return { dir, warnings, seconds: (Date.now() - start) / 1000 };
    });
    builds[name] = chain;
    chain = chain.catch(() => {});
  }
  browser = await launch();
});
after(async () => {
  await browser?.close();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

const listing = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listing(join(dir, e.name)) : [join(dir, e.name)]));

function assertClose(got, want, what) {
  assert.equal(got.length, want.length, what);
  got.forEach((g, i) => assert.ok(Math.abs(g - want[i]) <= 1e-12 * Math.abs(want[i]), `${what}[${i}]: ${g} ≠ ${want[i]}`));
}

for (const name of Object.keys(BUILDERS)) {
  test(`${name}: an app importing 'attention-viz' builds with no warning; its page draws, computes, loads the models; no errors`, async (t) => {
    const { dir, warnings, seconds } = await builds[name];
    t.diagnostic(`${name} build: ${seconds.toFixed(1)} s`);
    assert.deepEqual(warnings, [], `${name} warned`);
    const out = join(dir, 'out');
    const files = listing(out).map((f) => relative(out, f));
    const wasm = files.filter((f) => f.endsWith('.wasm'));
    const models = files.filter((f) => f.endsWith('.bin'));
    t.diagnostic(`${name} output: ${files.filter((f) => !f.endsWith('.map')).sort().join(', ')}`);
    // The figure core and the whole core (the app awaits `ready`, which loads the whole one: both are fetched below).
    assert.equal(wasm.length, 2, `two .wasm in the output: ${files.join(', ')}`);
    assert.equal(models.length, 1, `one models file (.bin) in the output: ${files.join(', ')}`);

    const { server, url } = await serve({ root: out, port: 0 });
    const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = [];
    const requests = [];
    let failed;
    const crashed = new Promise((_, fail) => { failed = fail; });
    crashed.catch(() => {}); // a page error after the race is in `errors`
    p.on('pageerror', (e) => { errors.push(String(e)); failed(new Error(`page error: ${e}`)); });
    p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    p.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
    p.on('response', (r) => { requests.push(`${r.status()} ${new URL(r.url()).pathname}`); if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`); });
    try {
      await p.goto(`${url}index.html`);
      await Promise.race([crashed, p.waitForFunction(() => window.__weights && [...document.querySelector('attention-viz')?.shadowRoot?.querySelectorAll('canvas[data-view]') ?? []]
        .some((c) => c.width > 0 && c.height > 0), null, { timeout: WAIT })])
        .catch((e) => { throw new Error(`not drawn (${e.message}); page errors: ${errors.join('; ') || 'none'}`); });
      const r = await p.evaluate(() => {
        const el = document.querySelector('attention-viz');
        return {
          trace: el.trace !== null,
          canvases: [...el.shadowRoot.querySelectorAll('canvas[data-view]')].map((c) => [c.width, c.height, c.getBoundingClientRect().width]),
          weights: window.__weights[1],
          models: window.__models,
        };
      });
      assert.ok(r.trace, 'the element has a trace');
      assert.ok(r.canvases.every(([w, h, css]) => w > 0 && h > 0 && css > 0), `every canvas has a size: ${JSON.stringify(r.canvases)}`);
      assertClose(r.weights, SEED_002_WEIGHTS_ROW_1, 'compute(seed-002).weights[1]');
      assert.deepEqual(r.models, ['reversal', 'induction'], 'the shipped models loaded');
      for (const f of [...wasm, ...models]) assert.ok(requests.includes(`200 /${f}`), `${f} fetched from where ${COPIED.has(name) ? 'the recipe copies it' : `${name} put it`}: ${requests.join(', ')}`);
      assert.deepEqual(errors, []);
    } finally {
      await p.close();
      server.close();
    }
  });
}
