// The preload hints of index.html and www/embed.html (for the first figure after navigation): each page lists its
// whole static module graph as <link rel="modulepreload"> (so the imports are fetched in one round trip, not one per
// level) and the .wasm and the trained models' file as <link rel="preload" as="fetch" crossorigin>, which www/compile.js's fetches must take (one
// request, no second download). The graph is read from the sources here, so a new or dropped import that the list
// does not follow fails this test instead of silently costing a round trip (or preloading a file nobody imports).
// A module only imported on demand (`import('…')`: model.js, steppers.js, modern.js, import-plan.js, training.js) is not preloaded: its parse would
// cost the page's start, which does not need it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = ['index.html', 'www/embed.html'];
/** A preload the tests add and nothing uses (the page's own are checked against Chrome's warning about it). */
const CONTROL = '/tests/fixtures/blank.html?preloaded-and-never-used';

/** `attr="value"` pairs of every `<tag …>` in html, as objects. */
function tags(html, tag) {
  return [...html.matchAll(new RegExp(`<${tag}\\b([^>]*)>`, 'g'))].map(([, attrs]) => Object.fromEntries(
    [...attrs.matchAll(/([\w-]+)(?:="([^"]*)")?/g)].map(([, k, v]) => [k, v ?? ''])));
}

/** Static imports (`import … from`, `export … from`, bare `import '…'`) of a module, as repo paths. */
function importsOf(file) {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specs = [...text.matchAll(/^\s*(?:import|export)\s+(?:[^'"]*?\sfrom\s*)?['"]([^'"]+)['"]/gm)].map((m) => m[1]);
  return specs.map((s) => relative(ROOT, join(ROOT, dirname(file), s)));
}

/** The modules a module imports on demand (`import('./…')`), as repo paths. */
function lazyImportsOf(file) {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map((m) => relative(ROOT, join(ROOT, dirname(file), m[1])));
}

/** Every module a page's module scripts import, directly or not (repo paths). */
function graph(page) {
  const html = readFileSync(join(ROOT, page), 'utf8');
  const at = (href) => relative(ROOT, join(ROOT, dirname(page), href));
  const todo = tags(html, 'script').filter((s) => s.type === 'module' && s.src).map((s) => at(s.src));
  const seen = new Set();
  while (todo.length) {
    const file = todo.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    todo.push(...importsOf(file));
  }
  return { seen, links: tags(html, 'link'), at };
}

for (const page of PAGES) {
  test(`${page}: modulepreload lists exactly the static module graph; the .wasm is preloaded for fetch()`, () => {
    const { seen, links, at } = graph(page);
    const preloaded = links.filter((l) => l.rel === 'modulepreload').map((l) => at(l.href));
    assert.equal(new Set(preloaded).size, preloaded.length, 'no module preloaded twice');
    assert.deepEqual([...preloaded].sort(), [...seen].sort());
    const lazy = [...seen].flatMap(lazyImportsOf).filter((f) => !seen.has(f));
    for (const f of ['www/element/model.js', 'www/element/steppers.js', 'www/element/modern.js', 'www/element/import-plan.js', 'www/training.js']) assert.ok(lazy.includes(f), `${f} is imported on demand: ${lazy.join(', ')}`);
    const wasm = links.filter((l) => l.rel === 'preload' && l.href.endsWith('.wasm'));
    assert.equal(wasm.length, 1);
    // fetch() is a CORS request: a preload without crossorigin (or not as="fetch") would not match it, and the
    // .wasm would be downloaded twice.
    assert.equal(wasm[0].as, 'fetch');
    assert.ok('crossorigin' in wasm[0], 'the .wasm preload has crossorigin');
    assert.equal(at(wasm[0].href), 'www/pkg/attention_viz_bg.wasm');
    // The trained models' file, which `ready` fetches beside the .wasm, the same way.
    const models = links.filter((l) => l.rel === 'preload' && l.href.endsWith('_models.bin'));
    assert.equal(models.length, 1);
    assert.equal(models[0].as, 'fetch');
    assert.ok('crossorigin' in models[0], 'the models preload has crossorigin');
    assert.equal(at(models[0].href), 'www/pkg/attention_viz_models.bin');
  });
}

let site;
before(async () => { site = await open({ root: ROOT }); });
after(async () => { await site?.close(); });

for (const page of PAGES) {
  test(`${page}: the preloaded .wasm and models file are fetched once and every preload is used, with no console errors`, async () => {
    const p = await site.page(null);
    const warnings = [];
    p.on('console', (m) => { if (m.type() === 'warning' && /preload/i.test(m.text()) && !m.text().includes(CONTROL)) warnings.push(m.text()); });
    // A preload nothing uses, added before the load event: Chrome's warning about it says its check of the page's
    // preloads (a few seconds after the load event, later on a loaded machine) has run.
    await p.addInitScript((href) => document.addEventListener('DOMContentLoaded', () => {
      document.head.append(Object.assign(document.createElement('link'), { rel: 'preload', as: 'fetch', crossOrigin: 'anonymous', href }));
    }), CONTROL);
    const checked = p.waitForEvent('console', { predicate: (m) => m.type() === 'warning' && m.text().includes(CONTROL) });
    const cdp = await p.context().newCDPSession(p);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await p.goto(site.url + page);
    await p.evaluate(async () => { await (await import('./' + (location.pathname.includes('/www/') ? '' : 'www/') + 'attention-viz.js')).ready; });
    const wasm = await p.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.wasm')).length);
    assert.equal(wasm, 1, 'one request for the .wasm');
    const models = await p.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('_models.bin')).length);
    assert.equal(models, 1, 'one request for the models file');
    // Chrome warns a few seconds after the load event about a preload that nothing used: wait for its warning about
    // the control, then none may be about the page's own.
    await checked;
    assert.deepEqual(warnings, []);
    assert.deepEqual(p.errors, []);
    await p.close();
  });
}
