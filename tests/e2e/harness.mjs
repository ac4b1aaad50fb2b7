// Shared set-up of the end-to-end tests: serve a folder, open headless Chromium.
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';
import { readFileSync } from 'node:fs';

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** Serves `root` on a free port and opens a browser; call `close()` when done. */
export async function open({ root = '.', csp = false } = {}) {
  const { server, url } = await serve({ root, port: 0, csp });
  const browser = await launch();
  return {
    url,
    browser,
    /** A fresh page with console errors and page errors collected in `errors`. */
    async page(path = '', { viewport = { width: 1280, height: 900 } } = {}) {
      const page = await browser.newPage({ viewport });
      page.errors = [];
      page.on('pageerror', (e) => page.errors.push(String(e)));
      page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
      if (path !== null) await page.goto(url + path);
      return page;
    },
    async close() {
      await browser.close();
      server.close();
    },
  };
}

export const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));
