// The npm package in a Next.js app router page under `next dev` (Turbopack), as docs/integrations.md gives it: the
// server renders `<attention-viz>`, React hydrates it, and the element upgrades around that. React reports, as a
// console error, any attribute of a hydrated node the server did not write: the element must add none to its host
// (its dark and narrow looks are custom states). The page must also draw, compute NumPy's golden and log no error.
// Needs `make dist` first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, watch, done, WAIT } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'dist');
const SEED_002_WEIGHTS_ROW_1 = [0.2983894767152018, 0.201157324162317, 0.247106611820161, 0.2533465873023202];

const LAYOUT = `export const metadata = { title: 'app', icons: { icon: 'data:,' } };
export default function RootLayout({ children }) {
  return <html lang="en"><body>{children}</body></html>;
}
`;
// docs/integrations.md's client component, with the figure dark and narrow (both states the element sets).
const PAGE = `'use client';
import { useEffect, useState } from 'react';
import { ready, compute, presets } from 'attention-viz';
export default function Page() {
  const [w, setW] = useState(null);
  useEffect(() => { ready.then(() => setW(compute(presets['seed-002']).weights[1])); }, []);
  return <main><attention-viz preset="seed-003" theme="dark" style={{ width: 380 }}></attention-viz><pre id="w">{w && JSON.stringify(w)}</pre></main>;
}
`;

/** A free TCP port on this machine. */
const freePort = () => new Promise((resolve, reject) => {
  const s = createServer();
  s.on('error', reject);
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

let app; let server; let browser; let url;

before(async () => {
  assert.ok(existsSync(join(DIST, 'package.json')), 'run `make dist` first');
  // Inside the repository, so that `next`, `react` and `react-dom` resolve from its node_modules; the package itself
  // is dist/ as npm would install it.
  mkdirSync(join(ROOT, 'target'), { recursive: true });
  app = mkdtempSync(join(ROOT, 'target', 'next-app-'));
  mkdirSync(join(app, 'app'));
  cpSync(DIST, join(app, 'node_modules', 'attention-viz'), { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ private: true, name: 'next-app' }));
  writeFileSync(join(app, 'app', 'layout.js'), LAYOUT);
  writeFileSync(join(app, 'app', 'page.js'), PAGE);
  const port = await freePort();
  url = `http://127.0.0.1:${port}/`;
  server = spawn(process.execPath, [join(ROOT, 'node_modules/next/dist/bin/next'), 'dev', '--port', String(port), '--hostname', '127.0.0.1'],
    { cwd: app, detached: true, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`next dev did not start:\n${log}`)), WAIT);
    const read = (d) => { log += d; if (/Ready in/.test(log)) { clearTimeout(timer); resolve(); } };
    server.stdout.on('data', read);
    server.stderr.on('data', read);
    server.on('exit', (code) => { clearTimeout(timer); reject(new Error(`next dev exited (${code}):\n${log}`)); });
  });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (server && server.exitCode === null && server.signalCode === null) {
    // next dev keeps writing its .next cache until it has exited: removing the app before then races it.
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try { process.kill(-server.pid, 'SIGTERM'); } catch { /* gone */ }
    const late = setTimeout(() => { try { process.kill(-server.pid, 'SIGKILL'); } catch { /* gone */ } }, WAIT);
    await exited;
    clearTimeout(late);
  }
  if (app) rmSync(app, { recursive: true, force: true, maxRetries: 10, retryDelay: 500 });
});

test('next dev: the figure hydrates with no console error and draws; its host keeps the server\'s attributes', async () => {
  const page = watch(await browser.newPage());
  // The first request compiles the page (minutes on a busy machine are allowed).
  await page.goto(url, { timeout: WAIT });
  await page.waitForFunction(() => document.querySelector('attention-viz')?.shadowRoot?.querySelector('canvas[data-view="weights"]')?.width > 0, null, { timeout: WAIT });
  await page.waitForFunction(() => document.getElementById('w').textContent.length > 0, null, { timeout: WAIT });
  await page.waitForFunction(() => document.querySelector('attention-viz').matches(':state(narrow)'), null, { timeout: WAIT });
  const got = await page.evaluate(() => {
    const e = document.querySelector('attention-viz');
    return { weights: JSON.parse(document.getElementById('w').textContent), attrs: e.getAttributeNames().sort(), dark: e.matches(':state(dark)') };
  });
  for (const [j, x] of SEED_002_WEIGHTS_ROW_1.entries()) assert.ok(Math.abs(got.weights[j] - x) < 1e-15, `weights[1][${j}] ${got.weights[j]} vs NumPy ${x}`);
  assert.deepEqual(got.attrs, ['preset', 'style', 'theme']);
  assert.equal(got.dark, true);
  // React's hydration report, if any, is a console error: `done` fails on it.
  await done(page);
});
