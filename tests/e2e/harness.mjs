// Shared set-up of the end-to-end tests: serve a folder, open headless Chromium.
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * How long any wait of a page may last before it fails (playwright's default is 30 s). Tests wait for something to
 * happen, never for it to happen fast: on a loaded machine a page that draws in 1 s can take 30, and what takes
 * a minute there (training a model in chapter 9, a 4096-token figure's worker) can take several while other people's
 * jobs share the 2 cores. So the limit only tells a hang from slowness: 10 minutes, far past any wait that ends, and
 * every explicit limit in these tests is this one (or a multiple of it), never a shorter one.
 */
export const WAIT = 600_000;

/** Headless Chromium; its pages and contexts wait up to `WAIT`. */
export async function launch() {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
  for (const make of ['newPage', 'newContext']) {
    const original = browser[make].bind(browser);
    browser[make] = async (...args) => {
      const made = await original(...args);
      made.setDefaultTimeout(WAIT);
      return made;
    };
  }
  return browser;
}

/** Serves `root` on a free port and opens a browser; call `close()` when done. */
export async function open({ root = '.', csp = false } = {}) {
  const { server, url } = await serve({ root, port: 0, csp });
  const browser = await launch();
  return {
    url,
    browser,
    /** A fresh page with console errors and page errors collected in `errors`. */
    async page(path = '', { viewport = { width: 1280, height: 900 }, hasTouch = false } = {}) {
      const page = watch(await browser.newPage({ viewport, hasTouch }));
      if (path !== null) await page.goto(url + path);
      return page;
    },
    async close() {
      await browser.close();
      server.close();
    },
  };
}

/** Collects `page`'s console errors and uncaught page errors in `page.errors` (checked by `done`); returns the page.
 *  Its file choosers stay intercepted: playwright turns the interception on when a 'filechooser' listener is added
 *  and off when the last one goes, without waiting for the browser, so a test's second `waitForEvent('filechooser')`
 *  raced a key press that opened the picker (lost under load: no chooser, ever). One listener for the page's life
 *  keeps it on. */
export function watch(page) {
  page.on('filechooser', () => {});
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  return page;
}

/** Closes a page after checking that nothing reached its console (console errors, uncaught page errors). */
export async function done(page) {
  const errors = [...page.errors];
  await page.close();
  assert.deepEqual(errors, [], 'console errors / uncaught page errors');
}

/**
 * Waits until `fn(arg)`, run in the page, resolves truthy: like page.waitForFunction, whose predicate cannot be async
 * (it takes the promise itself for true), for the helpers that ask the figure's twin (`T.twin`). Tried once every two
 * frames, up to `WAIT`.
 */
export async function until(page, fn, arg) {
  const end = Date.now() + WAIT;
  while (!(await page.evaluate(fn, arg))) {
    if (Date.now() > end) throw new Error(`until: not true after ${WAIT} ms: ${fn}`);
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  }
}

/** Types `text` into input cell [r][c] of matrix `m` of figure #id with the real mouse and keyboard (click, select all, type). */
export async function typeInCell(page, id, m, r, c, text) {
  const cell = page.locator(`#${id}`).locator(`input.cell[data-matrix="${m}"][data-row="${r}"][data-col="${c}"]`);
  // A figure still taking a config its page just set rebuilds its grids: the cell found may be replaced meanwhile,
  // and is then found again (a few times at most: the rebuild is one).
  for (let tries = 0; ; tries++) {
    try {
      await cell.scrollIntoViewIfNeeded();
      await cell.click();
      break;
    } catch (e) {
      if (tries >= 4 || !/not attached/.test(e.message)) throw e;
    }
  }
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
}

export const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));

/**
 * Helpers every end-to-end page needs, installed as `window.T` by `page.evaluate(pageHelpers)`
 * before a test file's own helpers: deep comparison to 1e-12 and a canvas pixel hash.
 */
export function pageHelpers() {
  const T = {
    /** First difference between two values beyond 1e-12 relative (NaN equals NaN), or null. */
    diff(got, want, path = '') {
      if (typeof want === 'number') {
        const ok = (Number.isNaN(got) && Number.isNaN(want)) || got === want
          || (typeof got === 'number' && Math.abs(got - want) <= 1e-12 * Math.max(Math.abs(want), 1e-300));
        return ok ? null : `${path}: ${got} ≠ ${want}`;
      }
      if (want && typeof want === 'object') {
        if (!got || typeof got !== 'object') return `${path}: not an object`;
        const a = Object.keys(got).sort().join();
        const b = Object.keys(want).sort().join();
        if (a !== b) return `${path}: keys ${a} ≠ ${b}`;
        for (const k of Object.keys(want)) { const d = T.diff(got[k], want[k], `${path}.${k}`); if (d) return d; }
        return null;
      }
      return got === want ? null : `${path}: ${got} ≠ ${want}`;
    },
    /**
     * A heatmap canvas as the reader sees it: a copy with the outlines' overlay (figures.js draws them on a canvas
     * laid over the heatmap's) drawn over it. Any other canvas is itself.
     */
    seen(canvas) {
      const overlay = canvas.parentElement?.querySelector(`:scope > canvas.overlay[data-overlay="${canvas.dataset?.view}"]`);
      if (!overlay || !canvas.width || !canvas.height) return canvas;
      const out = document.createElement('canvas');
      out.width = canvas.width; out.height = canvas.height;
      const ctx = out.getContext('2d');
      ctx.drawImage(canvas, 0, 0);
      if (overlay.width === canvas.width && overlay.height === canvas.height) ctx.drawImage(overlay, 0, 0);
      return out;
    },
    /** FNV-1a of a canvas's pixels as seen (with its outlines' overlay), with its size. */
    hash(canvas) {
      const { width, height } = canvas;
      if (!width || !height) return `${width}x${height}`;
      const d = T.seen(canvas).getContext('2d').getImageData(0, 0, width, height).data;
      let h = 0x811c9dc5;
      for (let i = 0; i < d.length; i++) { h ^= d[i]; h = Math.imul(h, 16777619); }
      return `${width}x${height}:${(h >>> 0).toString(16)}`;
    },
    /**
     * Where the keyboard is: the document's active element (an element's id, else its tag) and, inside an element,
     * its shadow root's, described as `cell m:r:c`, `token t`, `action a[:matrix]`, `control c[:row]`, `view v` or a tag.
     */
    focus() {
      const describe = (e) => {
        if (!e) return null;
        const d = e.dataset ?? {};
        if (e.matches('input.cell')) return `cell ${d.matrix}:${d.row}:${d.col}`;
        if (e.matches('input.token')) return `token ${d.token}`;
        if (d.action) return `action ${d.action}${d.matrix ? `:${d.matrix}` : ''}`;
        if (d.control) return `control ${d.control}${d.row !== undefined ? `:${d.row}` : ''}`;
        if (d.view) return `view ${d.view}`;
        return e.localName;
      };
      const a = document.activeElement;
      return { doc: a?.localName === 'attention-viz' ? a.id : a?.localName ?? null, shadow: a?.shadowRoot ? describe(a.shadowRoot.activeElement) : null };
    },
    /**
     * A second core of `el`'s figure, independent of the element's own: a `Viz` the page makes from the public
     * `el.config` through the core's own module (www/core.js), one per config. Tests ask it where the core lays a
     * view out on a canvas of a given size (cellRect, cellAt) and what it writes (cellText, describeViews…), and
     * compare that with what the element shows.
     */
    async twin(el) {
      const { Viz } = await import('/www/core.js');
      const text = JSON.stringify(el.config);
      let viz = T.twins.get(text);
      if (!viz) { viz = new Viz(text); T.twins.set(text, viz); }
      return viz;
    },
    twins: new Map(),
    /** The fmt `el` draws its numbers with: its `fmt`, or undefined (the default) when the core refuses that one. */
    async fmt(el) {
      const viz = await T.twin(el);
      try { viz.ask({ kind: 'preferredSize', view: viz.ask({ kind: 'views' })[0], fmt: el.fmt }); return el.fmt; } catch { return undefined; }
    },
    /** `el`'s canvas of `view` ('mask': the mask panel's grid). */
    canvasOf(el, view) {
      return el.shadowRoot.querySelector(view === 'mask' ? 'canvas[data-control="mask-grid"]' : `canvas[data-view="${view}"]`);
    },
    /**
     * Cell [i, j] of `el`'s heatmap `view` where the core lays it out on that canvas (its size, dpr and fmt), asked of
     * the twin: `px` its box in the canvas's device pixels [x0, y0, x1, y1], `client` the same box in client pixels
     * {left, top, right, bottom}, `center` its middle {x, y}; null off the grid.
     */
    async cell(el, view, i, j) {
      const c = T.canvasOf(el, view);
      const r = c.getBoundingClientRect();
      const dpr = c.width / parseFloat(c.style.width);
      const px = (await T.twin(el)).ask({ kind: 'cellRect', view, width: c.width, height: c.height, dpr, i, j, fmt: await T.fmt(el) });
      if (!px) return null;
      const [sx, sy] = [r.width / c.width, r.height / c.height];
      const client = { left: r.left + px[0] * sx, top: r.top + px[1] * sy, right: r.left + px[2] * sx, bottom: r.top + px[3] * sy };
      return { px, client, center: { x: (client.left + client.right) / 2, y: (client.top + client.bottom) / 2 } };
    },
    /** The client point at the middle of cell [i, j] of `el`'s canvas for `view`, where the core drew it (`cell`). */
    async cellPoint(el, view, i, j) {
      const cell = await T.cell(el, view, i, j);
      if (!cell) throw new Error(`no cell [${i}, ${j}] on the ${view} canvas`);
      return cell.center;
    },
    /**
     * Where `el`'s grid of a model's heads (canvas.model-grid) shows head (l, h). The core's grid raster (its
     * `modelGrid`) fills the canvas's bottom-right corner, past the label strips; the size `t` of its thumbnails and
     * the gap `g` between them (device px) are read from the pixels (the last head's bottom row, then the background
     * left of it), and the whole raster is checked, pixel for pixel, against the twin's for that size. Returns
     * {t, g, layers, heads, at(l, h) → [x, y, t] (device px), center(l, h) → the client point in its middle}.
     */
    async grid(el) {
      const c = el.shadowRoot.querySelector('canvas.model-grid');
      const a = el.trace.attention;
      const [layers, heads] = [a.length, a[0].length];
      const { width: W, height: H } = c;
      const ctx = c.getContext('2d');
      const colours = (d) => Array.from({ length: d.length / 4 }, (_, k) => (d[4 * k] << 16) | (d[4 * k + 1] << 8) | d[4 * k + 2]).reverse();
      const bg = colours(ctx.getImageData(0, 0, 1, 1).data)[0]; // the label strips' corner: the background
      // From the bottom-right corner back: a thumbnail (not the background), then a gap (the background).
      const runs = (line) => { const t = line.findIndex((x) => x === bg); const g = line.slice(t).findIndex((x) => x !== bg); return [t, g]; };
      const [t, gRow] = runs(colours(ctx.getImageData(0, H - 1, W, 1).data));
      const [, gCol] = runs(colours(ctx.getImageData(W - 1, 0, 1, H).data));
      const g = heads > 1 ? gRow : layers > 1 ? gCol : 0;
      const key = `${W}x${H}|${t}|${g}|${layers}x${heads}`;
      if (!T.grids.has(key)) {
        const twin = await T.twin(el);
        const raster = [false, true].map((dark) => twin.ask({ kind: 'modelGrid', thumb: t, gap: g, dark, palette: el.palette ?? undefined }))
          .find((r) => {
            if (r.thumb !== t || r.gap !== g || r.width > W || r.height > H) return false;
            const d = ctx.getImageData(W - r.width, H - r.height, r.width, r.height).data;
            return d.length === r.data.length && d.every((x, k) => x === r.data[k]);
          });
        if (!raster) throw new Error(`the model grid (${W} × ${H}) is not the core's raster of ${layers} × ${heads} thumbnails of ${t} px, ${g} px apart`);
        T.grids.set(key, { x0: W - raster.width, y0: H - raster.height });
      }
      const { x0, y0 } = T.grids.get(key);
      const at = (l, h) => [x0 + h * (t + g), y0 + l * (t + g), t];
      const center = (l, h) => {
        const r = c.getBoundingClientRect();
        const [x, y] = at(l, h);
        return { x: r.left + ((x + t / 2) * r.width) / W, y: r.top + ((y + t / 2) * r.height) / H };
      };
      return { t, g, layers, heads, at, center };
    },
    grids: new Map(),
    /**
     * Whether every heatmap's hidden table (its text alternative) holds what the core writes for `el`'s numbers now
     * (the twin's describeViews). After an edit the figure rebuilds them once typing stops, in the same turn as it
     * measures its canvases again: so this also says that turn has come for the current numbers.
     */
    async current(el) {
      const [viz, fmt] = [await T.twin(el), await T.fmt(el)];
      return [...el.shadowRoot.querySelectorAll('canvas[data-view]')].every((c) => {
        const [d] = viz.ask({ kind: 'describeViews', views: [c.dataset.view], fmt });
        const table = el.shadowRoot.querySelector(`[data-text-of="${c.dataset.view}"] table`);
        // A cell the last edit changed says so after its number (" (changed)"); the twin has no last edit.
        const cells = table ? [...table.tBodies[0].rows].map((tr) => [...tr.querySelectorAll('td')].map((t) => t.textContent.replace(/ \(changed\)$/, ''))) : null;
        return JSON.stringify(cells) === JSON.stringify(d?.cells);
      });
    },
    /** Starts counting `el`'s `change` events and collecting its `error` messages (from zero); returns the log. */
    record(el) {
      let log = T.logs.get(el);
      if (!log) {
        log = { change: 0, errors: [] };
        el.addEventListener('change', () => { log.change++; });
        el.addEventListener('error', (e) => log.errors.push(e.detail.message));
        T.logs.set(el, log);
      }
      log.change = 0; log.errors = [];
      return log;
    },
    /** `el`'s log since `record(el)` (kept by the page, not on the element). */
    log: (el) => T.logs.get(el),
    logs: new WeakMap(),
  };
  window.T = T;
}

/**
 * A page that is not on disk: `html` served at `path` of `site` (playwright's page.route), opened in a fresh context
 * (`opts`: viewport, hasTouch…; `url`: open this address instead, e.g. with a fragment), then every figure on it waited
 * for (its trace and a heatmap) and `pageHelpers` and `helpers` installed.
 */
export async function openHTML(site, path, html, helpers, { url = null, ...opts } = {}) {
  const page = await site.page(null, opts);
  await page.route(`**/${path}`, (r) => r.fulfill({ body: html, contentType: 'text/html' }));
  await page.goto(url ?? site.url + path);
  await page.waitForFunction(() => {
    const els = [...document.querySelectorAll('attention-viz')];
    return els.length > 0 && els.every((e) => e.trace && e.shadowRoot.querySelector('canvas[data-view]')
      && [...e.shadowRoot.querySelectorAll('canvas[data-view]')].every((c) => c.width > 0));
  });
  await page.evaluate(pageHelpers);
  await page.evaluate(helpers);
  return page;
}

/** Waits until the figure at `selector` has its trace and every heatmap drawn, then installs `pageHelpers` and `helpers`. */
export async function whenDrawn(page, selector, helpers) {
  await page.waitForFunction((sel) => {
    const e = document.querySelector(sel);
    return e?.trace && [...e.shadowRoot.querySelectorAll('canvas[data-view]')].every((c) => c.width > 0);
  }, selector);
  await page.evaluate(pageHelpers);
  await page.evaluate(helpers);
}

/**
 * In the page (an init script, or evaluated before a train()): each Web Worker's messages sent and heard
 * (`window.workerTraffic`, in the order the workers were made). The training protocol answers every message
 * (www/training.js), so a worker whose counts are equal has nothing in flight.
 */
export function countTraffic() {
  const W = window.Worker;
  window.workerTraffic = [];
  window.Worker = class extends W {
    constructor(...args) {
      super(...args);
      this.traffic = { sent: 0, heard: 0 };
      window.workerTraffic.push(this.traffic);
      this.addEventListener('message', () => { this.traffic.heard++; });
    }
    postMessage(...args) { this.traffic.sent++; return super.postMessage(...args); }
  };
}
