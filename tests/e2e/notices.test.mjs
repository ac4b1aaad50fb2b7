// What the figure says about itself (www/element/index.js `_notice`, share.js, persist.js): a figure opened from a
// share link is scrolled into view and says it was restored from a link; saved edits (`persist`) say so after a
// reload, with a Reset beside the note; the Share & export menu offers SVG only for one heatmap, clears an old
// message after a success, and names the JSON after the figure. Driven with the real mouse and keyboard.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, done, typeInCell } from './harness.mjs';

let site;
before(async () => { site = await open(); });
after(() => site.close());

/** Every figure of the (loaded) page is drawn. */
const drawn = (page) => page.waitForFunction(() => {
  const els = [...document.querySelectorAll('attention-viz')];
  return els.length > 0 && els.every((e) => e.trace && e.shadowRoot.querySelector('canvas[data-view]')?.width > 0);
});

/**
 * Waits until the debounced save has written `value` at config[m][r][c] into figure `id`'s saved entry (the share-link
 * state, base64url of `{"v": 1, "config": …}`: src/share.rs), however late a loaded machine runs it.
 */
const saved = (page, id, m, r, c, value) => page.waitForFunction(([i, mm, rr, cc, v]) => Object.keys(localStorage)
  .filter((k) => k.startsWith('attention-viz:') && k.includes(`:${i}:`)).some((k) => {
    try {
      const bytes = Uint8Array.from(atob(localStorage.getItem(k).replace(/-/g, '+').replace(/_/g, '/')), (ch) => ch.charCodeAt(0));
      return JSON.parse(new TextDecoder().decode(bytes)).config?.[mm]?.[rr]?.[cc] === v;
    } catch { return false; }
  }), [id, m, r, c, value]);

const status = (page, id) => page.evaluate((i) => document.getElementById(i).shadowRoot.querySelector('.status').textContent, id);
const focused = (page) => page.evaluate(() => {
  const host = document.activeElement;
  const inner = host?.shadowRoot?.activeElement;
  return { host: host?.id || host?.localName, action: inner?.dataset?.action ?? null, tag: inner?.localName ?? null };
});

test('a share link scrolls its figure into view and says it was restored from a link', async () => {
  const page = await site.page('index.html');
  await drawn(page);
  await typeInCell(page, 'chapter-2', 'embeddings', 0, 0, '7');
  const link = await page.evaluate(() => document.getElementById('chapter-2').shareURL());
  await page.close();

  const reader = await site.page(null);
  await reader.goto(link);
  await drawn(reader);
  // The figure is scrolled to on the frame after it is built: wait for the scroll, then look where it landed.
  await reader.waitForFunction(() => scrollY > 0);
  const box = await reader.evaluate(() => {
    const r = document.getElementById('chapter-2').getBoundingClientRect();
    return { top: r.top, height: innerHeight, scrollY };
  });
  assert.ok(box.scrollY > 0, 'the page scrolled');
  assert.ok(box.top >= -2 && box.top < box.height / 2, `chapter 2 starts near the top of the viewport (top ${box.top})`);
  assert.match(await status(reader, 'chapter-2'), /Restored from a link/);
  assert.equal(await status(reader, 'chapter-1'), '', 'the other figures say nothing');
  const value = await reader.evaluate(() => document.getElementById('chapter-2').config.embeddings[0][0]);
  assert.equal(value, 7);
  await done(reader);
});

test('saved edits say so after a reload; the note\'s Reset goes back to the document and keeps the keyboard in the toolbar', async () => {
  const page = await site.page('index.html');
  await drawn(page);
  const original = await page.evaluate(() => document.getElementById('chapter-2').config.embeddings[0][1]);
  await typeInCell(page, 'chapter-2', 'embeddings', 0, 1, '5');
  await saved(page, 'chapter-2', 'embeddings', 0, 1, 5); // the save is debounced
  await page.reload();
  await drawn(page);
  assert.match(await status(page, 'chapter-2'), /saved edits/);
  assert.equal(await status(page, 'chapter-3'), '', 'a figure without saved edits says nothing');
  const reset = page.locator('#chapter-2').locator('button[data-action="notice-reset"]');
  await reset.focus();
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.getElementById('chapter-2').config.embeddings[0][1]), original);
  assert.equal(await status(page, 'chapter-2'), '');
  assert.deepEqual(await focused(page), { host: 'chapter-2', action: 'reset', tag: 'button' });
  await done(page);
});

test('export menu: SVG only once a heatmap is picked, a success replaces an old message, JSON is named after the figure', async () => {
  const page = await site.page('index.html');
  await drawn(page);
  const fig = page.locator('#chapter-2');
  await fig.locator('details.menu summary').click();
  const svg = fig.locator('button[data-action="svg"]');
  assert.equal(await svg.isDisabled(), true, 'SVG is disabled while "whole figure" is selected');
  await fig.locator('select[data-control="export-view"]').selectOption('weights');
  assert.equal(await svg.isDisabled(), false);

  // An old error in the status line (a config the figure refused) is replaced by the export's own word.
  await page.evaluate(() => { document.getElementById('chapter-2').config = { embeddings: [[1, 2], [3]] }; });
  assert.match(await status(page, 'chapter-2'), /\S/, 'the refusal is said');
  const [file] = await Promise.all([page.waitForEvent('download'), svg.click()]);
  assert.equal(file.suggestedFilename(), 'chapter-2-weights.svg');
  assert.equal(await status(page, 'chapter-2'), 'Downloaded chapter-2-weights.svg.');

  const [json] = await Promise.all([page.waitForEvent('download'), fig.locator('button[data-action="json"]').click()]);
  assert.equal(json.suggestedFilename(), 'chapter-2.json', 'the state is the whole figure\'s, whatever heatmap is picked');
  await done(page);
});

test('negative numbers are bracketed in the written-out dot products', async () => {
  const page = await site.page('www/embed.html');
  await page.waitForFunction(() => document.querySelector('attention-viz')?.trace);
  const text = await page.evaluate(async () => {
    const e = document.querySelector('attention-viz');
    // The page shows two heatmaps alone: the breakdown is asked for, as a reader would.
    e.setAttribute('views', 'scores,weights,breakdown');
    e.config = { embeddings: [[1, -3], [-0.5, 2]], tokens: ['a', 'b'] };
    await new Promise((r) => requestAnimationFrame(r));
    return [...e.shadowRoot.querySelectorAll('.breakdown td.formula')].map((td) => td.textContent);
  });
  assert.ok(text.some((t) => t.includes('1·1 + (-3)·(-3) = 10')), text.join('\n'));
  assert.ok(text.every((t) => !/·-/.test(t)), `no "·-" in ${text.join(' | ')}`);
  await page.close();
});
