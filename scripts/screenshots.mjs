// Full-page screenshots of the shipped pages, for looking at (not a test).
// Usage: node scripts/screenshots.mjs [--out shots]   (or `make screenshots`; needs `make build`)
//
// Writes <out>/<page>-<width>-<scheme>.png for index.html and www/embed.html at 1280, 768
// and 390 px wide in light and dark, once every <attention-viz> has drawn: a plain full-page
// capture of a 900 px viewport, as an author making a thumbnail would take it; then
// <out>/index-print.pdf (A4, backgrounds on, print media) and, when poppler's pdftoppm is
// installed, <out>/index-print-<n>.png of its first pages.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './serve.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const OUT = resolve(ROOT, opt('--out', 'shots'));
const PAGES = [['index', 'index.html'], ['embed', 'www/embed.html']];
const WIDTHS = [1280, 768, 390];
const SCHEMES = ['light', 'dark'];
const PRINT_PAGES = Number(opt('--print-pages', 4)); // how many PDF pages to rasterise
// As tests/e2e/harness.mjs launches it.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Every <attention-viz> has its trace and its heatmaps drawn (nonzero width); then two frames for the page to settle. */
async function drawn(page, timeout = 30000) {
  await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')].every((e) => {
    const canvases = e.shadowRoot ? [...e.shadowRoot.querySelectorAll('canvas[data-view]')] : [];
    return Boolean(e.trace) && canvases.every((c) => c.width > 0);
  }), null, { timeout, polling: 50 });
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(ok, 100)))));
}

mkdirSync(OUT, { recursive: true });
const { server, url } = await serve({ root: ROOT, port: 0 });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
const problems = [];
try {
  for (const [name, path] of PAGES) {
    for (const width of WIDTHS) {
      for (const colorScheme of SCHEMES) {
        const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme });
        page.on('pageerror', (e) => problems.push(`${path} ${width} ${colorScheme}: ${e}`));
        page.on('console', (m) => { if (m.type() === 'error') problems.push(`${path} ${width} ${colorScheme}: ${m.text()}`); });
        await page.goto(url + path);
        await drawn(page);
        const file = join(OUT, `${name}-${width}-${colorScheme}.png`);
        await page.screenshot({ path: file, fullPage: true });
        console.log(file);
        await page.close();
      }
    }
  }

  // The printed guided page: A4 with backgrounds, as a reader's "Save as PDF" would make it.
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  await page.goto(url + 'index.html');
  await drawn(page);
  await page.emulateMedia({ media: 'print' });
  await drawn(page); // a figure that resizes for print repaints its canvases
  const pdf = join(OUT, 'index-print.pdf');
  await page.pdf({ path: pdf, format: 'A4', printBackground: true, preferCSSPageSize: true });
  console.log(pdf);
  await page.close();

  let pdftoppm = true;
  try { execFileSync('pdftoppm', ['-v'], { stdio: 'ignore' }); } catch { pdftoppm = false; }
  if (pdftoppm) {
    for (const f of readdirSync(OUT)) if (/^index-print-\d+\.png$/.test(f)) rmSync(join(OUT, f));
    execFileSync('pdftoppm', ['-png', '-r', '80', '-f', '1', '-l', String(PRINT_PAGES), pdf, join(OUT, 'index-print')]);
    for (const f of readdirSync(OUT).sort()) if (/^index-print-\d+\.png$/.test(f)) console.log(join(OUT, f));
  } else {
    console.log('pdftoppm not found (apt-get install poppler-utils): no PNG of the PDF pages');
  }
} finally {
  await browser.close();
  server.close();
}
if (problems.length) {
  console.error(`console errors or page errors while taking the screenshots:\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
}
