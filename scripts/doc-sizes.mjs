// The sizes of the built files the docs quote, from dist/sizes.json (written by scripts/dist.mjs), each between markers
// `<!-- size:NAME -->…<!-- /size -->` (NAME one of SIZES). Sizes change with every build, so the repository's docs
// (DOCS) are checked against a build within TOLERANCE (tests/e2e/package.test.mjs, after `make dist`) and rewritten
// by `node scripts/doc-sizes.mjs`; the package's own copies (dist/README.md, dist/docs/integrations.md) get the
// build's exact sizes from scripts/dist.mjs. The core's limits are written by src/docs.rs, not here.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Each size the docs quote: what it is, and its bytes (or [least, most]) from dist/sizes.json. */
export const SIZES = {
  module: { what: 'what a page loads with the module build, its script and .wasm, gzipped', bytes: (s) => s.module_total_gzip_bytes },
  entry: { what: 'dist/attention-viz.js gzipped', bytes: (s) => s.gzip_bytes['attention-viz.js'] },
  'entry-raw': { what: 'dist/attention-viz.js as bundlers read it', bytes: (s) => s.bytes['attention-viz.js'] },
  wasm: { what: "the module build's .wasm as bundlers emit it (webpack's asset-size hint measures that)", bytes: (s) => s.bytes['pkg/attention_viz_bg.wasm'] },
  inline: { what: 'the single-file build gzipped', bytes: (s) => s.inline_gzip_bytes },
  models: { what: 'the trained models file gzipped', bytes: (s) => s.models_gzip_bytes },
  'figure-core': { what: "the figure core's .wasm gzipped (measured by make dist, not shipped)", bytes: (s) => s.figure_core_gzip_bytes },
  chunks: { what: "the module build's on-demand chunks gzipped, the smallest and the largest", bytes: (s) => { const b = Object.values(s.chunks_gzip_bytes); return [Math.min(...b), Math.max(...b)]; } },
  // The Python package's, in MB (10⁶ bytes) as its README writes them.
  'inline-raw': { what: 'the single-file build as the wheel holds it', bytes: (s) => s.inline_bytes, unit: 'MB' },
  engine: { what: "the notebooks' engine: that build's .wasm and text deflated, as text85 (scripts/python-assets.mjs)", bytes: (s) => s.engine_bytes, unit: 'MB' },
};

/** The docs of the repository that quote sizes, from its root. */
export const DOCS = ['README.md', 'docs/integrations.md', 'python/README.md'];

/** How far a size a doc of the repository quotes may be from the build's: ±10 %. */
export const TOLERANCE = 0.1;

/** A size in its unit: KiB (2¹⁰ bytes), or MB (10⁶ bytes) where a size says so. */
const UNITS = { KiB: 1024, MB: 1e6 };
const unitOf = (name) => SIZES[name].unit ?? 'KiB';
/** A number as the docs write it: KiB with one decimal under 10, whole above; MB with two significant digits. */
const number = (x, unit) => (unit === 'MB' ? String(Number(x.toPrecision(2))) : x < 10 ? x.toFixed(1) : String(Math.round(x)));

/** The text of size `name` from `sizes` (dist/sizes.json): `530 KiB`, `1.4–6.4 KiB`. */
export function sizeText(name, sizes) {
  const size = SIZES[name];
  if (!size) throw new Error(`no size named ${name}: the sizes are ${Object.keys(SIZES).join(', ')}`);
  const b = size.bytes(sizes);
  const unit = unitOf(name);
  return `${[b].flat().map((x) => number(x / UNITS[unit], unit)).join('–')} ${unit}`;
}

/** `<!-- size:NAME -->TEXT<!-- /size -->` for size `name`: how a generated text (dist/README.md) quotes one. */
export const sizeSpan = (name, sizes) => `<!-- size:${name} -->${sizeText(name, sizes)}<!-- /size -->`;

const SPAN = /<!-- size:([\w-]+) -->(.*?)<!-- \/size -->/g;

/** `text` with every size span holding the build's exact size. */
export const refreshSizes = (text, sizes) => text.replace(SPAN, (_, name) => sizeSpan(name, sizes));

/** What is wrong with the sizes `text` quotes against `sizes`, at most `tolerance` apart (0: exactly the build's). */
export function staleSizes(text, sizes, tolerance = TOLERANCE) {
  const problems = [];
  for (const [, name, quoted] of text.matchAll(SPAN)) {
    if (!SIZES[name]) { problems.push(`size:${name} is no size (${Object.keys(SIZES).join(', ')})`); continue; }
    const want = sizeText(name, sizes);
    if (tolerance === 0) {
      if (quoted !== want) problems.push(`size:${name} says ${quoted}, the build's is ${want}`);
      continue;
    }
    const got = /^(\d+(?:\.\d+)?)(?:–(\d+(?:\.\d+)?))? (KiB|MB)$/.exec(quoted);
    const bytes = [SIZES[name].bytes(sizes)].flat();
    const per = UNITS[unitOf(name)];
    const off = !got || got[3] !== unitOf(name) || (got[2] === undefined) !== (bytes.length === 1)
      || bytes.some((b, i) => Math.abs(Number(got[i + 1]) - b / per) > tolerance * (b / per));
    if (off) problems.push(`size:${name} says ${quoted}, the build's is ${want} (more than ${tolerance * 100} % apart)`);
  }
  return problems;
}

// `node scripts/doc-sizes.mjs`: the repository's docs rewritten with dist/sizes.json's sizes.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const sizes = JSON.parse(readFileSync(join(root, 'dist/sizes.json'), 'utf8'));
  for (const doc of DOCS) {
    const path = join(root, doc);
    const text = readFileSync(path, 'utf8');
    const fresh = refreshSizes(text, sizes);
    if (fresh !== text) { writeFileSync(path, fresh); console.log(`${doc}: sizes rewritten from dist/sizes.json`); }
  }
}
