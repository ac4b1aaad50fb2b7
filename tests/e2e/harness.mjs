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

/** Types `text` into input cell [r][c] of matrix `m` of figure #id with the real mouse and keyboard (click, select all, type). */
export async function typeInCell(page, id, m, r, c, text) {
  const cell = page.locator(`#${id}`).locator(`input.cell[data-matrix="${m}"][data-row="${r}"][data-col="${c}"]`);
  await cell.scrollIntoViewIfNeeded();
  await cell.click();
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
    /** The client point at the middle of cell [i, j] of `el`'s canvas for `view` ('mask': the mask grid), where the core drew it. */
    cellPoint(el, view, i, j) {
      const c = el.shadowRoot.querySelector(view === 'mask' ? 'canvas[data-control="mask-grid"]' : `canvas[data-view="${view}"]`);
      const r = c.getBoundingClientRect();
      const dpr = c.width / parseFloat(c.style.width);
      const [x0, y0, x1, y1] = el._viz.ask({ kind: 'cellRect', view: view, width: c.width, height: c.height, dpr: dpr, i: i, j: j, fmt: el._fmtSpec() });
      return { x: r.left + ((x0 + x1) / 2) * (r.width / c.width), y: r.top + ((y0 + y1) / 2) * (r.height / c.height) };
    },
    /** Starts counting `el`'s `change` events and collecting its `error` messages (from zero); returns the log. */
    record(el) {
      if (!el._log) {
        el._log = { change: 0, errors: [] };
        el.addEventListener('change', () => { el._log.change++; });
        el.addEventListener('error', (e) => el._log.errors.push(e.detail.message));
      }
      el._log.change = 0; el._log.errors = [];
      return el._log;
    },
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
