// Every page the project ships: index.html, www/*.html and examples/*.html, found by
// listing those folders so a new page is covered without touching this file.
//
// Each page loads without a console error or page error in light and dark, at 1280 and
// 390 px wide, once every <attention-viz> on it has drawn; axe-core finds no violation
// in light at 1280 px nor in dark at 390 px (each scheme and each width once; axe goes into
// the elements' open shadow roots; narrow screens add rules such as scrollable-region-focusable); a <nav> list reads as separate items (innerText)
// and renders them apart (checked on the light pages, at each width: one load serves every check).
//
// Needs `make dist` first (examples/ load ../dist/).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, WAIT } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const AXE = join(ROOT, 'node_modules/axe-core/axe.min.js');
const AXE_SOURCE = existsSync(AXE) ? readFileSync(AXE, 'utf8') : '';
const FOLDERS = ['', 'www', 'examples'];
const SCHEMES = ['light', 'dark'];
const WIDTHS = [1280, 390];

/** Every shipped page, as a path relative to the repo root. */
function shippedPages() {
  return FOLDERS.flatMap((dir) => readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((f) => f.isFile() && f.name.endsWith('.html'))
    .map((f) => (dir ? `${dir}/${f.name}` : f.name)))
    .sort();
}
const PAGES = shippedPages();

let site;
before(async () => {
  assert.ok(existsSync(join(ROOT, 'dist/attention-viz.js')) && existsSync(join(ROOT, 'dist/attention-viz.inline.js')),
    'dist/ is missing: run `make dist` first');
  assert.ok(existsSync(join(ROOT, 'www/pkg')), 'www/pkg is missing: run `make build` first');
  site = await open({ root: ROOT });
});
after(async () => { await site?.close(); });

/**
 * Waits until every <attention-viz> on the page has drawn: its shadow root has canvases and
 * each has a nonzero width. Then lets two frames and a task pass: only a chance for an error a page
 * script throws after the first `change` to reach the console (the checks after it look for none).
 */
async function drawn(page, timeout = WAIT) {
  try {
    await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')].every((e) => {
      // A figure may show no heatmap at all (views="inputs,steps"): loaded is having a trace.
      const canvases = e.shadowRoot ? [...e.shadowRoot.querySelectorAll('canvas[data-view]')] : [];
      return Boolean(e.trace) && canvases.every((c) => c.width > 0);
    }), null, { timeout, polling: 50 });
  } catch (e) {
    const state = await page.evaluate(() => [...document.querySelectorAll('attention-viz')].map((el, i) => {
      const canvases = el.shadowRoot ? [...el.shadowRoot.querySelectorAll('canvas[data-view]')] : [];
      return `#${i}${el.id ? ` (${el.id})` : ''}: ${canvases.map((c) => `${c.dataset.view}=${c.width}`).join(' ') || 'no canvas'}`;
    }));
    throw new Error(`not every figure drew within ${timeout} ms:\n  ${state.join('\n  ')}\n  errors: ${page.errors.join(' | ')}`);
  }
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(ok, 50)))));
}

/** A page loaded at `width` in `colorScheme`, with every figure drawn. */
async function load(path, colorScheme, width) {
  const page = await site.page(null, { viewport: { width, height: 900 } });
  await page.emulateMedia({ colorScheme });
  await page.goto(site.url + path);
  await drawn(page);
  return page;
}

/**
 * How wide the page is with every part of it on screen (the viewport made as tall as the page, so a
 * figure that sizes itself once visible has done so), and the outermost elements (through open shadow
 * roots) that stick out past `width`.
 */
async function wholePageOverflow(page, width) {
  for (let i = 0, last = 0; i < 6; i++) {
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    if (height === last) break;
    last = height;
    await page.setViewportSize({ width, height });
    await drawn(page);
  }
  return page.evaluate((w) => {
    const culprits = [];
    const name = (e) => `${e.localName}${e.id ? `#${e.id}` : ''}${typeof e.className === 'string' && e.className ? `.${e.className.trim().split(/\s+/).join('.')}` : ''}`;
    const walk = (root, path) => {
      for (const e of root.children) {
        const r = e.getBoundingClientRect();
        const here = path ? `${path} > ${name(e)}` : name(e);
        const scrolls = /(auto|scroll|hidden|clip)/.test(getComputedStyle(e).overflowX); // its content scrolls inside it
        if (r.width > 0 && r.right > w + 0.5) {
          // Report the outermost element that sticks out unless something inside it is the real culprit.
          const before = culprits.length;
          if (!scrolls) {
            if (e.shadowRoot) walk(e.shadowRoot, `${here} >>>`);
            walk(e, here);
          }
          if (culprits.length === before) culprits.push(`${here} (right edge at ${Math.round(r.right)} px)`);
          continue;
        }
        if (scrolls) continue;
        if (e.shadowRoot) walk(e.shadowRoot, `${here} >>>`);
        walk(e, here);
      }
    };
    walk(document.body, 'body');
    return { scrollWidth: document.documentElement.scrollWidth, culprits: culprits.slice(0, 8) };
  }, width);
}

/** axe-core's violations, in a page that has every figure drawn. */
async function axeViolations(page) {
  // axe's source evaluated from the test, once a page (the second width's check runs on the same page): DevTools
  // evaluation is not subject to the page's CSP, where an inline <script> (addScriptTag) would be refused by
  // examples/csp.html and logged as an error the page did not make.
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      targets: v.nodes.map((n) => n.target.map((t) => (Array.isArray(t) ? t.join(' >>> ') : t)).join(' >>> ')),
      summary: v.nodes[0]?.failureSummary?.split('\n').slice(0, 3).join(' ') ?? '',
    }));
  });
}

/** One line per rule: id, impact, how many nodes, the first few target selectors. */
function formatViolations(violations, first = 4) {
  return violations.map((v) => {
    const more = v.targets.length > first ? ` … and ${v.targets.length - first} more` : '';
    return `  ${v.id} (${v.impact}) ×${v.targets.length}: ${v.help}\n`
      + v.targets.slice(0, first).map((t) => `      ${t}\n`).join('')
      + (more ? `     ${more}\n` : '')
      + (v.summary ? `      why: ${v.summary}\n` : '');
  }).join('');
}

/**
 * Per <nav>: its link texts, its innerText lines, and consecutive list items drawn on one line with
 * less than 8 px between them. A marker outside its item ("2." of an <ol>) is drawn in the space
 * before the item, so it counts against that space: "…step by step2. All words…" is touching.
 */
function navLayout() {
  const ctx = document.createElement('canvas').getContext('2d');
  const markerWidth = (li, index) => {
    const cs = getComputedStyle(li);
    if (cs.display !== 'list-item' || cs.listStyleType === 'none' || cs.listStylePosition === 'inside') return 0;
    ctx.font = getComputedStyle(li, '::marker').font || cs.font;
    return ctx.measureText(li.parentElement.localName === 'ol' ? `${index + 1}. ` : '• ').width;
  };
  return [...document.querySelectorAll('nav')].map((nav) => {
    const items = [...nav.querySelectorAll('li')];
    const touching = [];
    for (let i = 1; i < items.length; i++) {
      const a = items[i - 1].getBoundingClientRect();
      const b = items[i].getBoundingClientRect();
      const sameLine = a.top < b.bottom - 1 && b.top < a.bottom - 1;
      const space = (b.left >= a.left ? b.left - a.right : a.left - b.right) - markerWidth(items[i], i);
      if (sameLine && space < 8) {
        touching.push(`"${items[i - 1].textContent.trim()}" | "${items[i].textContent.trim()}": ${space.toFixed(1)} px apart`);
      }
    }
    return {
      label: nav.getAttribute('aria-label') || '',
      links: [...nav.querySelectorAll('a')].map((a) => a.textContent.replace(/\s+/g, ' ').trim()),
      lines: nav.innerText.split('\n').map((l) => l.trim()).filter(Boolean),
      touching,
    };
  });
}

// Every (scheme, width) pair is checked; each scheme and each width is also loaded fresh once: light is loaded at
// 1280 px and then narrowed to 390, dark loaded at 390 and then widened to 1280 (two loads a page instead of four:
// a load of index.html costs seconds on a busy machine). The resized checks see what a reader who turns a tablet
// or resizes a window sees.
const PLAN = [['light', WIDTHS[0], WIDTHS[1]], ['dark', WIDTHS[1], WIDTHS[0]]];
/** index.html loaded in dark, kept open for the print test (a reader prints the page they have open). */
let darkIndex = null;

for (const path of PAGES) {
  test(`${path}: no console or page error and no axe-core violation, every figure drawn (light/dark × ${WIDTHS.join('/')} px)`, async (t) => {
    for (const [scheme, first, second] of PLAN) {
      const page = await load(path, scheme, first);
      try {
        for (const width of [first, second]) {
          const how = width === first ? 'loaded' : `resized from ${first} px`;
          if (width !== first) {
            await page.setViewportSize({ width, height: 900 });
            await page.evaluate(() => window.scrollTo(0, 0));
            await drawn(page);
          }
          await t.test(`${scheme}, ${width} px (${how})`, async (t2) => {
            await t2.test('no console error, no page error', () => {
              assert.deepEqual(page.errors, [], `${path} (${scheme}, ${width} px, ${how}) logged errors`);
            });
            // axe once a scheme, on the page as loaded (light at 1280 px, dark at 390 px): each scheme's colours and each
            // width's layout audited once (a run on index.html costs 20–36 s on a busy machine).
            if (width === first) {
              await t2.test('axe-core: no violation', async () => {
                const violations = await axeViolations(page);
                const nodes = violations.reduce((n, v) => n + v.targets.length, 0);
                assert.ok(violations.length === 0,
                  `${path} (${scheme}, ${width} px, ${how}): ${violations.length} axe rule(s) violated on ${nodes} node(s):\n${formatViolations(violations)}`);
              });
            }
            // Nav lists do not depend on the colour scheme: checked once per width, on the page already loaded.
            if (scheme === SCHEMES[0]) {
              await t2.test('navigation lists read and render as separate items (innerText, layout)', async () => {
                const navs = await page.evaluate(navLayout);
                if (path === 'index.html') assert.ok(navs.length > 0, 'index.html has its chapter <nav>');
                for (const nav of navs) {
                  assert.ok(nav.links.length > 1, `nav "${nav.label}" has links`);
                  // Each link on a line of its own (a list marker such as "2." may precede it): never two run together.
                  for (const link of nav.links) {
                    assert.ok(nav.lines.some((l) => l === link || l.replace(/^\d+\.\s*/, '') === link),
                      `nav "${nav.label}": "${link}" is not on a line of its own in innerText:\n${JSON.stringify(nav.lines, null, 1)}`);
                  }
                  assert.deepEqual(nav.touching, [], `nav "${nav.label}": items drawn with no space between them`);
                }
              });
            }
            await t2.test(`fits ${width} px: no horizontal scrolling`, async () => {
              const overflow = await wholePageOverflow(page, width);
              assert.ok(overflow.scrollWidth <= width,
                `${path} (${scheme}, ${how}) is ${overflow.scrollWidth} px wide at a ${width} px viewport; too wide:\n  ${overflow.culprits.join('\n  ')}`);
            });
          });
        }
      } finally {
        if (path === 'index.html' && scheme === 'dark' && !darkIndex) darkIndex = page;
        else await page.close();
      }
    }
  });
}

test('index.html: the chapter list links to every chapter, in order', async () => {
  const page = await site.page('index.html');
  try {
    const { links, chapters } = await page.evaluate(() => ({
      links: [...document.querySelectorAll('nav[aria-label="Chapters"] li > a')].map((a) => a.getAttribute('href')),
      chapters: [...document.querySelectorAll('main section.chapter')].map((s) => `#${s.id}`),
    }));
    assert.deepEqual(links, chapters);
  } finally {
    await page.close();
  }
});

/** The printed index.html as one text per page (pdftotext), or null without poppler-utils. */
function pdfPages(pdf) {
  const dir = mkdtempSync(join(tmpdir(), 'attention-viz-print-'));
  try {
    writeFileSync(join(dir, 'p.pdf'), pdf);
    return execFileSync('pdftotext', ['-layout', join(dir, 'p.pdf'), '-'], { encoding: 'utf8', maxBuffer: 1 << 26 }).split('\f');
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The guided page on paper (www/element/style.js `@media print`, index.js's print resolution), printed from the dark
// page a reader has open: one load and one PDF for every print check (each load of index.html costs seconds).
test('index.html in print (dark system): no navigation, "Try:" hints or controls, black on white, figures kept whole at print resolution, A4, no near-empty page', async (t) => {
  // The dark page the checks above left open (1280 px), else one loaded here (this test run alone).
  const page = darkIndex ?? await load('index.html', 'dark', WIDTHS[0]);
  darkIndex = null;
  try {
    // A full-page capture of a normal viewport renders every panel: nothing is skipped as off-screen.
    const skipped = await page.evaluate(() => [...document.querySelectorAll('attention-viz')].flatMap((e) => [...e.shadowRoot.querySelectorAll('*')]
      .filter((n) => getComputedStyle(n).contentVisibility !== 'visible').map((n) => `${e.id} ${n.localName}.${n.className}`)));
    assert.deepEqual(skipped, [], 'no content-visibility placeholder in a capture');
    const lastInputs = await page.evaluate(() => {
      const fs = document.getElementById('chapter-4').shadowRoot.querySelector('fieldset.matrix');
      return { h: fs.getBoundingClientRect().height, cells: fs.querySelectorAll('input.cell').length };
    });
    assert.ok(lastInputs.h > 40 && lastInputs.cells > 0, `chapter 4's inputs, far below the fold, have their size: ${JSON.stringify(lastInputs)}`);

    await page.emulateMedia({ colorScheme: 'dark', media: 'print' });
    await drawn(page);
    await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')].every((e) => (e.matches(':state(dark)') ? 'dark' : 'light') === 'light'), null, { timeout: WAIT });
    await page.waitForFunction(() => {
      const c = document.getElementById('chapter-2').shadowRoot.querySelector('canvas[data-view="weights"]');
      return c.width >= 2.9 * parseFloat(c.style.width);
    }, null, { timeout: WAIT });
    const got = await page.evaluate(() => {
      const css = (sel, prop) => getComputedStyle(document.querySelector(sel))[prop];
      const rule = [...document.styleSheets].flatMap((sh) => [...sh.cssRules])
        .flatMap((r) => (r.media && [...r.media].includes('print') ? [...r.cssRules] : []))
        .find((r) => r instanceof CSSPageRule);
      const root = document.getElementById('chapter-2').shadowRoot;
      const shown = (sel) => [...root.querySelectorAll(sel)].filter((n) => getComputedStyle(n).display !== 'none').length;
      const wrap = root.querySelector('.breakdown .wrap');
      const c = root.querySelector('canvas[data-view="weights"]');
      return {
        nav: css('nav', 'display'),
        tries: [...document.querySelectorAll('.try')].map((e) => getComputedStyle(e).display),
        color: css('body', 'color'),
        background: css('body', 'backgroundColor'),
        figures: [...document.querySelectorAll('attention-viz')].map((e) => getComputedStyle(e).breakInside),
        headings: [...document.querySelectorAll('h2')].map((h) => getComputedStyle(h).breakAfter),
        page: rule ? { size: rule.style.size, margin: rule.style.margin } : null,
        controls: shown('.toolbar, details.menu, .window, .skip'),
        overflow: getComputedStyle(wrap).overflowX,
        clipped: wrap.scrollWidth > wrap.clientWidth + 1,
        ratio: c.width / parseFloat(c.style.width),
      };
    });
    assert.equal(got.nav, 'none');
    assert.deepEqual([...new Set(got.tries)], ['none']);
    assert.equal(got.color, 'rgb(0, 0, 0)');
    assert.equal(got.background, 'rgb(255, 255, 255)');
    assert.deepEqual([...new Set(got.figures)], ['avoid']);
    assert.deepEqual([...new Set(got.headings)], ['avoid'], 'headings stay with what follows');
    assert.ok(got.page && /A4/i.test(got.page.size) && got.page.margin, `an @page rule with A4 and margins: ${JSON.stringify(got.page)}`);
    assert.equal(got.controls, 0, 'no toolbar, menu, window arrows or skip link on paper');
    assert.equal(got.overflow, 'visible');
    assert.equal(got.clipped, false, 'the breakdown is not cut at the right edge');
    assert.ok(got.ratio >= 2.9, `heatmaps drawn at ≥ 3 device pixels per CSS pixel for print (got ${got.ratio})`);

    // Laid out for paper (A4 less the margins: 180 mm ≈ 680 CSS px), nothing reaches past the right edge.
    await page.setViewportSize({ width: 680, height: 800 });
    const layout = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const wide = [];
      const visit = (root, where) => {
        for (const n of root.querySelectorAll('*')) {
          const r = n.getBoundingClientRect();
          // A visually hidden text alternative (.sr-only: 1 px, clipped) is not on paper, however wide its table; nor is
          // what is not rendered (checkVisibility: display none, or a closed <details>' content, whose boxes keep the
          // geometry of an earlier, wider layout).
          if (r.width && r.right > width + 1 && n.checkVisibility() && !n.closest('.sr-only')) wide.push(`${where}${n.localName}.${n.className} right ${Math.round(r.right)}: "${n.textContent.trim().slice(0, 60)}"`);
          if (n.shadowRoot) visit(n.shadowRoot, `#${n.id} › `);
        }
      };
      visit(document, '');
      const canvas = document.getElementById('chapter-8').shadowRoot.querySelector('canvas[data-view="weights"]');
      const px = canvas.getContext('2d').getImageData(1, 1, 1, 1).data;
      return { width, wide: wide.slice(0, 5), pixel: `${px[0]},${px[1]},${px[2]}` };
    });
    assert.deepEqual(layout.wide, [], `nothing wider than the page (${layout.width} px)`);
    assert.equal(layout.pixel, '255,255,255', 'chapter 8\'s weights drawn light for paper');
    const pdf = await page.pdf({ format: 'A4', printBackground: true });
    assert.ok(pdf.length > 10000);
    const pages = pdfPages(pdf);
    if (!pages) {
      t.diagnostic('pdftotext (poppler-utils) is not installed: the printed pages were not read');
    } else {
      // Chapter 8's heading is on the page of its first figure (whose title is the scores heatmap's or its inputs').
      const at = pages.findIndex((p) => /Luong.s and Bahdanau.s scores/.test(p));
      assert.ok(at >= 0, 'chapter 8 is printed');
      assert.match(pages[at], /decoder state h \(3\)/, 'chapter 8\'s heading shares its page with its first figure (its first grid\'s legend)');
      // No page but the last (the footer may end up alone there) holds only a line or two of text: a paragraph's
      // last line left behind ("above follow.") when the figure after it moved on.
      const printed = pages.map((p, i) => [i + 1, p.trim()]).filter(([, p]) => p.length > 0);
      const thin = printed.slice(0, -1).filter(([, p]) => p.split('\n').length < 3);
      assert.deepEqual(thin, [], 'no page holds only a line or two');
    }

    // Back on screen, the screen's colours and resolution again.
    await page.setViewportSize({ width: WIDTHS[0], height: 900 });
    await page.emulateMedia({ colorScheme: 'dark', media: 'screen' });
    await page.waitForFunction(() => {
      const c = document.getElementById('chapter-2').shadowRoot.querySelector('canvas[data-view="weights"]');
      return Math.abs(c.width / parseFloat(c.style.width) - devicePixelRatio) < 0.05;
    }, null, { timeout: WAIT });
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});
