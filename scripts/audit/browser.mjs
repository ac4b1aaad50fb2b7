// The audit's browser surface: gen.mjs's inputs given to a live <attention-viz> in Chromium (tests/fixtures/
// hostile-two.html), as a page's script sets them (`el.config = …`, the `config` attribute), and text typed with the
// real keyboard into input cells and token names. Per input: accepted (the figure's trace is compute(config)'s),
// refused (one `error` event, its message shown in the figure's status, the figure, its config and its trace kept),
// or a failure by kind: lost (a refusal changed what the figure had), wrong, freeze (over 1 s), panic ("internal
// error"), unclear (no message, or not shown), xss (a script of the input ran: a canary, a dialog), console (an
// error logged). Usage: node scripts/audit/browser.mjs [--configs N] [--typed N]   (needs `make build`)
import { writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { open } from '../../tests/e2e/harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const CONFIGS = Number(arg('configs', 2000));
const TYPED = Number(arg('typed', 300));
const OUT = arg('out', '/tmp/audit');
mkdirSync(OUT, { recursive: true });

const site = await open({ root });
const page = await site.page(null);
page.dialogs = [];
page.on('dialog', (d) => { page.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
await page.goto(site.url + 'tests/fixtures/hostile-two.html');
await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')].every((e) => e.trace));

const counts = await page.evaluate(async (total) => {
  const gen = await import('/scripts/audit/gen.mjs');
  const av = await import('/www/attention-viz.js');
  const r = gen.rng(7);
  const out = { inputs: 0, accepted: 0, refused: 0, lost: 0, wrong: 0, freeze: 0, panic: 0, unclear: 0, xss: 0, failures: [] };
  const el = document.getElementById('self-el');
  const status = () => el.shadowRoot.querySelector('.status');
  const errors = [];
  el.addEventListener('error', (e) => errors.push(e.detail?.message ?? ''));
  const fail = (kind, what, c) => { out[kind]++; if (out.failures.length < 200) out.failures.push({ kind, what, config: String(JSON.stringify(c)).slice(0, 400) }); };
  for (let i = 0; i < total; i++) {
    const k = r.next();
    let c = gen.validConfig(r);
    if (k < 0.6) c = gen.mutate(r, c);
    else if (k < 0.8) c = { ...c, [r.pick(['tokens', 'mask', 'heads', 'position', 'window', 'tiles', 'sinks', 'decode_step', 'query', 'scale', 'temperature', 'b_q', 'softcap', 'q_norm'])]: r.pick(gen.HOSTILE) };
    else if (k < 0.85) c = { ...c, tokens: (c.embeddings ?? c.annotations ?? c.attention?.[0]?.[0] ?? [1]).map((_, j) => (j % 2 ? '<img src=x onerror="globalThis.__xss=1">' : '<script>globalThis.__xss=2</script>')) };
    out.inputs++;
    const before = JSON.stringify(el.config);
    const trace0 = JSON.stringify(el.trace);
    errors.length = 0;
    const attr = i % 4 === 3;
    const t0 = performance.now();
    let threw = null;
    try {
      if (attr) el.setAttribute('config', JSON.stringify(c));
      else el.config = c;
    } catch (e) { threw = String(e); }
    const ms = performance.now() - t0;
    if (ms > 1000) fail('freeze', `${ms.toFixed(0)} ms`, c);
    if (globalThis.__xss) { fail('xss', `canary ${globalThis.__xss}`, c); globalThis.__xss = 0; }
    if (threw) { fail('unclear', `threw ${threw.slice(0, 200)}`, c); continue; }
    if (errors.length) {
      out.refused++;
      const m = errors[0];
      if (/internal error/.test(m)) fail('panic', m, c);
      else if (!m || errors.length !== 1 || !status().textContent.includes(m.slice(0, 60))) fail('unclear', `${errors.length} errors; "${m.slice(0, 160)}" shown: "${status().textContent.slice(0, 120)}"`, c);
      if (JSON.stringify(el.config) !== before || JSON.stringify(el.trace) !== trace0) fail('lost', 'a refused config changed the figure', c);
      continue;
    }
    out.accepted++;
    let want;
    try { want = JSON.stringify(av.compute(el.config)); } catch (e) { fail('wrong', `the figure took a config compute() refuses: ${e.message}`, c); continue; }
    if (JSON.stringify(el.trace) !== want) fail('wrong', 'trace ≠ compute(config)', c);
    if (i % 50 === 49) el.config = av.presets['seed-001'];
  }
  if (document.querySelector('img[src="x"]') || el.shadowRoot.querySelector('img[src="x"], script')) fail('xss', 'markup of a token name became an element', {});
  return out;
}, CONFIGS);

// Text typed with the keyboard into a cell and into a token's name: a number is taken, anything else marks the cell
// and keeps the figure's value; focus stays where the reader typed.
await page.evaluate(async () => { document.getElementById('self-el').config = (await import('/www/attention-viz.js')).presets['seed-001']; });
const texts = ['1', '-0', '1e3', '0x10', '1,5', '١٢', 'NaN', 'Infinity', '1e400', '--1', '.5', '5.', ' 7 ', '<img src=x onerror=alert(1)>', '"', '\\', '1/2', '∞', '½', '२', 'e', '', '+3', '0.1e-5', '9'.repeat(400)];
const typed = { inputs: 0, taken: 0, marked: 0, lost: 0, focus: 0, unclear: 0, xss: 0, failures: [] };
const cell = (r, c) => page.locator('#self-el').locator(`input.cell[data-matrix="embeddings"][data-row="${r}"][data-col="${c}"]`);
for (let i = 0; i < TYPED; i++) {
  const text = i < texts.length ? texts[i] : texts[i % texts.length] + (i % 3 ? '' : String(i));
  const [r, c] = [i % 2, (i >> 1) % 2];
  const target = cell(r, c);
  await target.click();
  await page.keyboard.press('Control+a');
  const before = await page.evaluate(([r, c]) => document.getElementById('self-el').config.embeddings[r][c], [r, c]);
  await page.keyboard.type(text);
  typed.inputs++;
  const after = await page.evaluate(([r, c]) => {
    const el = document.getElementById('self-el');
    const input = el.shadowRoot.querySelector(`input.cell[data-matrix="embeddings"][data-row="${r}"][data-col="${c}"]`);
    const msg = input.closest('fieldset').querySelector('.cell-msg').textContent;
    return { value: el.config.embeddings[r][c], invalid: input.getAttribute('aria-invalid') === 'true', msg,
      focused: el.shadowRoot.activeElement === input, xss: globalThis.__xss ?? 0 };
  }, [r, c]);
  if (!after.focused) { typed.focus++; typed.failures.push({ text, what: 'focus left the cell' }); }
  if (after.xss) { typed.xss++; typed.failures.push({ text, what: 'canary' }); }
  if (after.invalid) {
    typed.marked++;
    // Each keystroke applies: the figure keeps the last valid prefix's number ("1e400" keeps 1e40), or the old value.
    const prefixes = [before, ...[...text].map((_, j) => Number(text.slice(0, j + 1).trim()))];
    if (!prefixes.some((v) => Object.is(v, after.value) || v === after.value)) { typed.lost++; typed.failures.push({ text, what: `marked invalid and the value is ${after.value}: neither the old ${before} nor a prefix's` }); }
    if (!after.msg) { typed.unclear++; typed.failures.push({ text, what: 'marked with no message' }); }
  } else {
    typed.taken++;
    if (!(Number.isFinite(after.value))) { typed.lost++; typed.failures.push({ text, what: `took ${after.value}` }); }
  }
  await page.keyboard.press('Escape');
}
// Token names typed with the keyboard: markup stays text (the heatmaps' labels, the tables), nothing runs.
const names = ['<img src=x onerror="globalThis.__xss=3">', '<script>globalThis.__xss=4</script>', '"><svg onload=globalThis.__xss=5>', '&lt;b&gt;', '\u202e', 'x'.repeat(500), '  '];
for (let i = 0; i < names.length * 3; i++) {
  const name = names[i % names.length];
  await page.locator('#self-el').locator(`input.token[data-token="${i % 2}"]`).click();
  await page.keyboard.press('Control+a');
  await page.keyboard.type(name);
  await page.keyboard.press('Tab');
  typed.inputs++;
  const seen = await page.evaluate(() => {
    const el = document.getElementById('self-el');
    return { xss: globalThis.__xss ?? 0, markup: !!el.shadowRoot.querySelector('img[src="x"], svg[onload], script') };
  });
  if (seen.xss || seen.markup) { typed.xss++; typed.failures.push({ text: name, what: `token name ran or became markup (${JSON.stringify(seen)})` }); }
}
const result = { configs: counts, typed, dialogs: page.dialogs, console: page.errors.slice(0, 50), consoleCount: page.errors.length };
writeFileSync(join(OUT, 'browser.json'), JSON.stringify(result, null, 1));
const { failures, ...c } = counts;
const { failures: tf, ...t } = typed;
console.log('browser configs', JSON.stringify(c));
console.log('browser typed', JSON.stringify(t));
console.log('dialogs', page.dialogs.length, 'console errors', page.errors.length);
for (const f of failures.slice(0, 15)) console.log(' ', f.kind, f.what, f.config.slice(0, 200));
for (const f of tf.slice(0, 10)) console.log(' ', JSON.stringify(f));
for (const e of page.errors.slice(0, 5)) console.log('  console:', e.slice(0, 200));
await site.close();
