// Builds dist/: the drop-in bundle (one ES module, its on-demand chunks, the .wasm, the trained models' file), the
// single-file build (a classic script with the WASM inlined) and the npm package files. Both are bundles of
// www/attention-viz.js and everything it imports (the element modules, the wasm-bindgen glue, train()'s worker as a
// string): the module build by Rollup (split, then minified by esbuild), the single file by esbuild. Run by `make dist` after `make build`; prints the gzipped sizes.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, copyFileSync, rmSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, transform, analyzeMetafile } from 'esbuild';
import { modelsText } from './models.mjs';
import { distReadme, packagedEmbed } from './install-text.mjs';
import { refreshSizes } from './doc-sizes.mjs';
import { makeEngine } from './python-assets.mjs';
import { firstModule } from './first-module.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** An unsigned LEB128 at `at`: [value, the offset after it]. */
function leb(bytes, at) {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return [value, at];
  }
}
const uleb = (n) => { const out = []; do { let b = n % 128; n = Math.floor(n / 128); if (n) b |= 0x80; out.push(b); } while (n); return Buffer.from(out); };

/** A .wasm's bytes with the exports whose name `drop(name)` accepts taken out of its export section (nothing else). */
function withoutExports(bytes, drop) {
  const parts = [bytes.subarray(0, 8)];
  for (let at = 8; at < bytes.length;) {
    const id = bytes[at];
    const [size, start] = leb(bytes, at + 1);
    let body = bytes.subarray(start, start + size);
    if (id === 7) {
      const kept = [];
      let [count, p] = leb(body, 0);
      for (; count > 0; count--) {
        const from = p;
        const [length, nameAt] = leb(body, p);
        const name = body.subarray(nameAt, nameAt + length).toString('utf8');
        [, p] = leb(body, nameAt + length + 1); // the kind byte, then the index
        if (!drop(name)) kept.push(body.subarray(from, p));
      }
      body = Buffer.concat([uleb(kept.length), ...kept]);
    }
    parts.push(Buffer.from([id]), uleb(body.length), body);
    at = start + size;
  }
  return Buffer.concat(parts);
}
const www = join(root, 'www');
const dist = join(root, 'dist');
const read = (p) => readFileSync(join(root, p), 'utf8');

rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, 'pkg'), { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'attention-viz-dist-'));
const version = /^version = "([^"]+)"/m.exec(read('Cargo.toml'))[1];
/** The figure core's .wasm as the module build's is made (wasm-bindgen, wasm-opt -O1), when make dist built it. */
let figureCore = null;
/** Its wasm-bindgen glue, which the module build's entry imports (the whole core's glue is an on-demand chunk). */
let figureGlue = null;
const FIGURE_WASM = 'pkg/attention_viz_figure.wasm';

try {
  // 1. The WASM core, minus the name section, and its wasm-bindgen glue (bundled below, not shipped on its own).
  execFileSync('wasm-bindgen', ['--target', 'web', '--omit-default-module-path', '--remove-name-section', '--remove-producers-section', '--out-dir', work,
    join(root, 'target/wasm32-unknown-unknown/release/attention_viz.wasm')], { stdio: 'inherit' });
  // Two .wasm of one build: the single-file build's (`full`: every export; the Python package runs that one through
  // wasmtime, scripts/wheel.py), and the module build's, which pages fetch (`wasm`): the same minus the C-ABI exports
  // only Python calls (`av_*`, src/ffi.rs) and the code only they reach (src/picture.rs, …): 21 KB gzipped less.
  const full = join(work, 'attention_viz_full.wasm');
  const wasm = join(dist, 'pkg/attention_viz_bg.wasm');
  const wasmOpt = join(root, 'node_modules/binaryen/bin/wasm-opt');
  const features = ['--enable-reference-types', '--enable-bulk-memory', '--enable-nontrapping-float-to-int',
    '--enable-sign-ext', '--enable-mutable-globals', '--enable-multivalue'];
  if (existsSync(wasmOpt)) {
    // npm's binaryen (not Debian's wasm-opt 108, which breaks the externref table). -O1, not -Oz: npm's wasm-opt is
    // binaryen compiled to WebAssembly, one thread; -Oz took 46 CPU-seconds for 3.5 % fewer raw bytes than -O1's 15
    // (on this build), and it runs in every `make dist` and `make test`.
    execFileSync(wasmOpt, ['-O1', ...features, join(work, 'attention_viz_bg.wasm'), '-o', full]);
    const browser = join(work, 'attention_viz_browser.wasm');
    writeFileSync(browser, withoutExports(readFileSync(full), (name) => name.startsWith('av_')));
    // Only the dead-code pass: what the dropped exports alone reached goes (a second -O1 would take as long again).
    execFileSync(wasmOpt, ['--remove-unused-module-elements', ...features, browser, '-o', wasm]);
  } else {
    copyFileSync(join(work, 'attention_viz_bg.wasm'), full);
    copyFileSync(full, wasm);
  }
  // The figure core (Cargo.toml: the build without the feature `full`; make dist builds it in target/figure-core/),
  // made the same way: the module build's pages run their figures in it first (www/core.js), and load the whole core
  // (pkg/attention_viz_bg.wasm) when a part needs it. Without it the module build has the whole core alone.
  const figureBuild = join(root, 'target/figure-core/wasm32-unknown-unknown/release/attention_viz.wasm');
  if (existsSync(figureBuild)) {
    const figureDir = join(work, 'figure');
    execFileSync('wasm-bindgen', ['--target', 'web', '--omit-default-module-path', '--remove-name-section', '--remove-producers-section', '--out-dir', figureDir, figureBuild], { stdio: 'inherit' });
    const figureOpt = join(figureDir, 'figure.wasm');
    if (existsSync(wasmOpt)) execFileSync(wasmOpt, ['-O1', ...features, join(figureDir, 'attention_viz_bg.wasm'), '-o', figureOpt]);
    else copyFileSync(join(figureDir, 'attention_viz_bg.wasm'), figureOpt);
    figureCore = readFileSync(figureOpt);
    figureGlue = join(figureDir, 'attention_viz.js');
    writeFileSync(join(dist, FIGURE_WASM), figureCore);
  } else {
    console.warn(`no figure core at ${figureBuild} (make dist builds it): the module build loads the whole core at once`);
  }
  const glue = join(work, 'attention_viz.js');
  // The shipped models, beside the .wasm (fetched while it compiles; the core does not carry them: scripts/models.mjs).
  const models = modelsText();
  writeFileSync(join(dist, 'pkg/attention_viz_models.bin'), models);

  /** Bundles the glue wasm-bindgen wrote beside the shipped .wasm instead of www/pkg's (they must be one pair). */
  const shippedGlue = {
    name: 'shipped-glue',
    setup(b) {
      b.onResolve({ filter: /\/pkg\/attention_viz\.js$/ }, (args) =>
        (resolve(args.resolveDir, args.path) === join(www, 'pkg/attention_viz.js') ? { path: glue } : undefined));
    },
  };
  /** The single-file build: www/wasm-source.js becomes a module exporting the .wasm's bytes (esbuild's binary loader)
   * and the models file's text. */
  const inlineWasm = {
    name: 'inline-wasm',
    setup(b) {
      b.onResolve({ filter: /(^|\/)wasm-source\.js$/ }, (args) =>
        (resolve(args.resolveDir, args.path) === join(www, 'wasm-source.js') ? { path: 'wasm-source.js', namespace: 'inline-wasm' } : undefined));
      b.onLoad({ filter: /.*/, namespace: 'inline-wasm' }, () => ({
        contents: `import bytes from ${JSON.stringify(full)};\nexport const WASM_SOURCE = bytes;\nexport const FIGURE_SOURCE = bytes;\nexport const MODELS_SOURCE = ${JSON.stringify(models)};\n`,
        resolveDir: root,
        loader: 'js',
      }));
    },
  };

  /** The element's stylesheet (www/element/style.js's SHEET, a template literal of CSS with comments) minified as CSS:
   * esbuild's JS minifier leaves a string as it is (~1.5 KiB gzipped of comments and layout). */
  const minifiedStyle = {
    name: 'minified-style',
    setup(b) {
      b.onLoad({ filter: /[\\/]www[\\/]element[\\/]style\.js$/ }, async (args) => {
        const source = readFileSync(args.path, 'utf8');
        const at = /const SHEET = `([^`$\\]*)`;/.exec(source);
        if (!at) throw new Error('www/element/style.js: SHEET is no longer one plain template literal; update scripts/dist.mjs');
        const css = (await transform(at[1], { loader: 'css', minify: true })).code.trim();
        return { contents: source.replace(at[0], `const SHEET = ${JSON.stringify(css)};`), loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };

  const common = {
    bundle: true, minify: true, target: 'es2020', platform: 'browser', legalComments: 'inline', charset: 'utf8',
    absWorkingDir: root, write: true, metafile: true, logLevel: 'silent',
  };
  /** Runs esbuild; prints its warnings except the ones `expected(warning)` accepts; throws on errors. */
  async function bundle(options, expected = () => false) {
    const result = await build({ ...common, ...options });
    for (const w of result.warnings) {
      if (!expected(w)) console.warn(`esbuild warning: ${w.text}${w.location ? ` (${w.location.file}:${w.location.line})` : ''}`);
    }
    return result;
  }
  /** The input files of a bundle, relative to the repo (the glue and the .wasm by name). */
  const inputs = (result) => Object.keys(result.metafile.inputs).map((p) => (p.includes('attention-viz-dist-') ? `(wasm-bindgen) ${p.split('/').pop()}` : p));

  /** An import.meta warning from the glue itself (its default .wasm URL, never used: init() is always given the Module). */
  const glueMeta = (w) => w.id === 'empty-import-meta' && w.location && resolve(root, w.location.file) === glue;

  // 2. train()'s Web Worker (www/train-worker.js and its own copy of the glue) as one classic script, handed to both
  // builds as a string (esbuild's `define` of TRAIN_WORKER_SOURCE): www/train.js starts it from a Blob URL and posts
  // it the compiled WebAssembly.Module, so neither build ships or fetches another file.
  const worker = await bundle({ entryPoints: [join(www, 'train-worker.js')], format: 'iife', write: false, outfile: join(work, 'train-worker.js'), plugins: [shippedGlue] }, glueMeta);
  const workerSource = worker.outputFiles.find((f) => f.path.endsWith('.js')).text;
  const workerStrays = worker.warnings.filter((w) => w.id === 'empty-import-meta' && !glueMeta(w));
  if (workerStrays.length || workerSource.includes('import.meta')) throw new Error('the training worker cannot use import.meta (it runs from a Blob URL)');
  // The same for a large read-only figure's worker (www/compute-worker.js, started by www/attention-viz.js's
  // computeWorker): both builds carry it, so a 4,096-token figure draws from npm and in a notebook too.
  const compute = await bundle({ entryPoints: [join(www, 'compute-worker.js')], format: 'iife', write: false, outfile: join(work, 'compute-worker.js'), plugins: [shippedGlue] }, glueMeta);
  const computeSource = compute.outputFiles.find((f) => f.path.endsWith('.js')).text;
  if (computeSource.includes('import.meta')) throw new Error('the compute worker cannot use import.meta (it runs from a Blob URL)');
  const define = { TRAIN_WORKER_SOURCE: JSON.stringify(workerSource), COMPUTE_WORKER_SOURCE: JSON.stringify(computeSource) };

  /** The inflater (www/inflate.js: fflate) in the bundles themselves, run by `ready` (www/arrays.js's loadInflate):
   * after `await ready`, parseArrays reads a compressed .npz at once, and no page fetches a chunk for it. */
  const eagerInflate = {
    name: 'eager-inflate',
    setup(b) {
      b.onLoad({ filter: /[\\/]www[\\/]arrays\.js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const lazy = "import('./inflate.js')";
        if (!source.includes(lazy)) throw new Error(`www/arrays.js no longer says ${lazy}; update scripts/dist.mjs`);
        return { contents: `import * as inflateModule from './inflate.js';\n${source.replace(lazy, 'Promise.resolve(inflateModule)')}`, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };

  // 3. The module build: an ES module, and beside it the chunks it imports on demand (`attention-viz-<name>-<hash>.js`,
  // each a dynamic import() of www/: train()'s training side and its worker's script, a model's weights view:
  // a page of seed figures fetches none of them). Rollup splits it: a module the entry imports stays in the entry (an
  // on-demand chunk imports it from there), where esbuild's splitting moves whatever two chunks share into chunks the
  // entry would wait for. esbuild then minifies each chunk. It fetches pkg/attention_viz_bg.wasm and
  // pkg/attention_viz_models.bin relative to itself (www/wasm-source.js, which must stay in the entry, beside pkg/).
  const { rollup } = await import('rollup');
  const defines = Object.entries(define);
  const esmBuild = await rollup({
    input: { 'attention-viz': join(www, 'attention-viz.js') },
    // The chunks import what they share with the entry from the entry itself (its extra exports are minified names).
    preserveEntrySignatures: 'allow-extension',
    onwarn: (w) => { throw new Error(`rollup: ${w.message}`); },
    plugins: [{
      name: 'dist',
      // www/core.js's static import of the glue is the figure core's, its dynamic one (`wholeGlue`) the whole core's:
      // an on-demand chunk with pkg/attention_viz_bg.wasm.
      resolveId(source, importer) {
        if (!importer || !source.startsWith('.')) return null;
        const path = resolve(dirname(importer), source);
        return path === join(www, 'pkg/attention_viz.js') ? figureGlue ?? glue : null;
      },
      resolveDynamicImport(source, importer) {
        if (typeof source !== 'string' || !importer || !source.startsWith('.')) return null;
        return resolve(dirname(importer), source) === join(www, 'pkg/attention_viz.js') ? glue : null;
      },
      async load(path) {
        if (figureCore && path === join(www, 'wasm-source.js')) {
          const source = readFileSync(path, 'utf8');
          const line = 'export const FIGURE_SOURCE = WASM_SOURCE;';
          if (!source.includes(line)) throw new Error(`www/wasm-source.js no longer says ${line}; update scripts/dist.mjs`);
          return source.replace(line, `export const FIGURE_SOURCE = new URL('./${FIGURE_WASM}', import.meta.url);`);
        }
        if (/[\\/]www[\\/]element[\\/]style\.js$/.test(path) || /[\\/]www[\\/]arrays\.js$/.test(path)) {
          // The same sources esbuild's minifiedStyle and eagerInflate give the other build.
          const plugin = /style\.js$/.test(path) ? minifiedStyle : eagerInflate;
          let onLoad;
          plugin.setup({ onLoad: (_filter, fn) => { onLoad = fn; }, onResolve() {} });
          return (await onLoad({ path })).contents;
        }
        return null;
      },
      transform(code) {
        // esbuild's `define` of the two workers' sources: `/* global NAME … */` comments first, then the names.
        if (!defines.some(([name]) => code.includes(name))) return null;
        let out = code.replace(/^\/\* global [A-Z_]+ --[^\n]*\*\/$/gm, '');
        for (const [name, value] of defines) out = out.replace(new RegExp(`\\b${name}\\b`, 'g'), value);
        return { code: out, map: null };
      },
      async renderChunk(code) {
        const min = await transform(code, { minify: true, format: 'esm', target: 'es2020', legalComments: 'inline', charset: 'utf8' });
        return { code: min.code, map: null };
      },
    }],
  });
  const esmOut = await esmBuild.write({ dir: dist, format: 'es', entryFileNames: '[name].js', chunkFileNames: (c) => `attention-viz-${c.name === 'attention_viz' ? 'whole' : '[name]'}-[hash].js` });
  await esmBuild.close();
  const esmEntry = esmOut.output.find((o) => o.type === 'chunk' && o.isEntry);
  if (esmEntry.imports.length) throw new Error(`dist/attention-viz.js imports ${esmEntry.imports.join(', ')} before it runs: a page's first figure would wait for them`);
  if (!Object.keys(esmEntry.modules).some((p) => p.endsWith('wasm-source.js'))) throw new Error('www/wasm-source.js left dist/attention-viz.js: pkg/ would be looked for beside a chunk');
  const chunks = esmOut.output.filter((o) => o.type === 'chunk' && !o.isEntry).map((o) => o.fileName);
  // The first module a page may load instead (attention-viz.first.js): the presets' pictures first, the engine after.
  await firstModule(root, dist);
  // What the module bundle is made of, by input (esbuild's analysis of one unsplit bundle; not written).
  const esm = await bundle({ entryPoints: [join(www, 'attention-viz.js')], format: 'esm', write: false, outfile: join(work, 'analysis.js'), plugins: [shippedGlue, minifiedStyle, eagerInflate], define });

  // 4. The single-file build: a classic script (file://, notebook cells, hosts that cannot serve .wasm) with the WASM
  // inlined; it sets globalThis.AttentionViz (window.AttentionViz in a page; Node has no window) to the module's
  // exports. The glue has no default `new URL('attention_viz_bg.wasm', import.meta.url)` (--omit-default-module-path
  // above; bundlers would try to resolve it) and this build always gives it the bytes, so import.meta (empty in an
  // IIFE) is never read. Any other module reading import.meta would break here: an error.
  const inline = await bundle({ plugins: [inlineWasm, shippedGlue, minifiedStyle, eagerInflate],
    stdin: { contents: "import * as api from './attention-viz.js';\nglobalThis.AttentionViz = api;\n", resolveDir: www, sourcefile: 'attention-viz.inline.js', loader: 'js' },
    format: 'iife', outfile: join(dist, 'attention-viz.inline.js'), loader: { '.wasm': 'binary' }, define,
    banner: { js: `/*! attention-viz single-file build: the ES module, the element and the WASM core in one classic script.
 * <script src="attention-viz.inline.js"></script> defines <attention-viz> and window.AttentionViz. */` },
  }, glueMeta);
  const strays = inline.warnings.filter((w) => w.id === 'empty-import-meta' && !glueMeta(w));
  if (strays.length) throw new Error(`the single-file build cannot use import.meta: ${strays.map((w) => `${w.location?.file}:${w.location?.line}`).join(', ')}`);
  if (read('dist/attention-viz.inline.js').includes('import.meta')) throw new Error('import.meta left in dist/attention-viz.inline.js');
  // What the module bundle is made of (minified bytes per input, largest first): where a cut would pay.
  const analysis = await analyzeMetafile(esm.metafile);
  const rows = analysis.split('\n').map((l) => /[├└] (\S+)\s+(\S+)\s+(\S+)$/.exec(l)).filter(Boolean).slice(0, 12).map(([, path, size, share]) => {
    const name = path.includes('attention-viz-dist-') ? '(wasm-bindgen glue)' : path === 'www/train.js' ? 'www/train.js (+ the training worker)' : path;
    return `  ${name.padEnd(40)} ${size.padStart(7)} ${share.padStart(6)}`;
  });
  console.log(`the module build by input, its chunks included (minified, before gzip):\n${rows.join('\n')}`);
  console.log(`training worker (inside both builds): ${(workerSource.length / 1024).toFixed(1)} KiB, ${(gzipSync(workerSource, { level: 9 }).length / 1024).toFixed(1)} KiB gzipped`);

  // 5. Types, licence, npm package files.
  copyFileSync(join(www, 'attention-viz.d.ts'), join(dist, 'attention-viz.d.ts'));
  copyFileSync(join(www, 'attention-viz.inline.d.ts'), join(dist, 'attention-viz.inline.d.ts'));
  copyFileSync(join(root, 'LICENSE'), join(dist, 'LICENSE'));
  writeFileSync(join(dist, 'package.json'), `${JSON.stringify({
    name: 'attention-viz', version, description: 'Interactive attention-mechanism heatmaps: edit the numbers, watch every stage recompute (Rust/WebAssembly).',
    license: 'MIT', type: 'module', main: './attention-viz.js', module: './attention-viz.js', types: './attention-viz.d.ts',
    exports: {
      '.': { types: './attention-viz.d.ts', default: './attention-viz.js' },
      // A classic script that sets window.AttentionViz (no exports): `<script src>`, or `import 'attention-viz/inline'`.
      './inline': { types: './attention-viz.inline.d.ts', default: './attention-viz.inline.js' },
      // A module with no exports that shows each figure's picture and loads the element after (README "Picture first").
      './first': './attention-viz.first.js',
      // The module build fetches them from pkg/ beside the script: a bundler that does not follow
      // `new URL(…, import.meta.url)` (esbuild) needs them copied there.
      './wasm': './pkg/attention_viz_bg.wasm',
      './pkg/attention_viz_bg.wasm': './pkg/attention_viz_bg.wasm',
      // The figure core, which the module build's figures run first (the whole core above loads when a part needs it).
      './figure-wasm': `./${FIGURE_WASM}`,
      [`./${FIGURE_WASM}`]: `./${FIGURE_WASM}`,
      './models': './pkg/attention_viz_models.bin',
      './pkg/attention_viz_models.bin': './pkg/attention_viz_models.bin',
    },
    // docs/: the reference and the recipes the README links to (no public URL to link to instead).
    files: ['attention-viz.js', ...chunks, 'attention-viz.first.js', 'pictures/', 'attention-viz.inline.js', 'attention-viz.d.ts', 'attention-viz.inline.d.ts', 'pkg/', 'docs/', 'README.md', 'LICENSE'],
    sideEffects: true, keywords: ['attention', 'transformer', 'heatmap', 'webassembly', 'visualization', 'custom-element'],
  }, null, 2)}\n`);
  // The package's docs (its README.md, written with the sizes below, links to them): www/embed.html with its pages'
  // script and styles, loading the package's files, and docs/integrations.md.
  mkdirSync(join(dist, 'docs'));
  writeFileSync(join(dist, 'docs/embed.html'), packagedEmbed(read('www/embed.html')));
  for (const f of ['embed.js', 'page.css', 'embed.css']) copyFileSync(join(www, 'pages', f), join(dist, 'docs', f));
} finally {
  rmSync(work, { recursive: true, force: true });
}

// 6. Sizes: what a page loads with the module build (the bundle, then the .wasm; the models file in parallel, counted
// apart: only the trained models need it), and the single file.
const gz = (p) => gzipSync(readFileSync(join(dist, p)), { level: 9 }).length;
const parts = ['attention-viz.js', 'pkg/attention_viz_bg.wasm'];
const MODELS = 'pkg/attention_viz_models.bin';
const total = parts.reduce((s, p) => s + gz(p), 0);
for (const p of ['attention-viz.first.js', 'pictures/seed-003.svg']) console.log(`${p.padEnd(30)} ${(gz(p) / 1024).toFixed(1).padStart(7)} KiB gzipped (first)`);
for (const p of [...parts, MODELS, 'attention-viz.inline.js']) console.log(`${p.padEnd(30)} ${(gz(p) / 1024).toFixed(1).padStart(7)} KiB gzipped`);
// The module's on-demand chunks (not in the total: a page fetches one only when a figure or a call needs it).
const chunkFiles = readdirSync(dist).filter((f) => /^attention-viz-[a-z]+-[\w-]+\.js$/.test(f)).sort();
for (const p of chunkFiles) console.log(`${p.padEnd(36)} ${(gz(p) / 1024).toFixed(1).padStart(7)} KiB gzipped (on demand)`);
console.log(`${'module bundle (JS + WASM)'.padEnd(30)} ${(total / 1024).toFixed(1).padStart(7)} KiB gzipped (target ≤ 150 KB; the models file apart)`);
const figureGzip = figureCore && gzipSync(figureCore, { level: 9 }).length;
if (figureCore) {
  console.log(`${FIGURE_WASM.padEnd(30)} ${(figureGzip / 1024).toFixed(1).padStart(7)} KiB gzipped (the figure core: target ≤ 200 KB)`);
  console.log(`${'a figure (JS + figure core)'.padEnd(30)} ${((gz('attention-viz.js') + figureGzip) / 1024).toFixed(1).padStart(7)} KiB gzipped (what a page of figures loads; the whole core on demand)`);
}
// `bytes`: the files as bundlers read and emit them (webpack's asset-size hint measures the .wasm's).
const sizes = {
  gzip_bytes: Object.fromEntries(parts.map((p) => [p, gz(p)])), module_total_gzip_bytes: total,
  bytes: Object.fromEntries(parts.map((p) => [p, readFileSync(join(dist, p)).length])),
  models_file: MODELS, models_gzip_bytes: gz(MODELS), inline_gzip_bytes: gz('attention-viz.inline.js'),
  chunks_gzip_bytes: Object.fromEntries(chunkFiles.map((p) => [p, gz(p)])),
  // The Python package's: the single-file build as the wheel holds it, and the engine a notebook carries once.
  inline_bytes: readFileSync(join(dist, 'attention-viz.inline.js')).length,
  engine_bytes: (await makeEngine(readFileSync(join(dist, 'attention-viz.inline.js'), 'utf8'))).engine.length,
  // The figure core (Cargo.toml's features), which a page's figures load first; the .wasm above is the whole core.
  ...(figureCore && { figure_core_gzip_bytes: figureGzip, figure_core_bytes: figureCore.length, figure_total_gzip_bytes: gz('attention-viz.js') + figureGzip }),
};
writeFileSync(join(dist, 'sizes.json'), JSON.stringify(sizes, null, 1));
// The package's texts quote this build's sizes exactly (scripts/doc-sizes.mjs; the repository's docs within 10 %).
writeFileSync(join(dist, 'README.md'), distReadme(version, read('README.md'), sizes));
writeFileSync(join(dist, 'docs/integrations.md'), refreshSizes(read('docs/integrations.md'), sizes));
