// The host's theme (www/element/theme.js): `theme="light" | "dark" | "auto"`; auto follows JupyterLab's
// data-jp-theme-light, then the page's color-scheme, then the system. Checked on what is drawn: the element's
// background and a heatmap's background pixel, not only an attribute.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, done } from './harness.mjs';

let site;
before(async () => { site = await open(); });
after(() => site.close());

/** A blank page with one element added after `setup` ran on the page; resolves once it has drawn. */
async function figure(setup = '', attrs = '', colorScheme = 'light') {
  const page = await site.page(null);
  await page.emulateMedia({ colorScheme });
  await page.goto(`${site.url}tests/fixtures/blank.html`);
  await page.evaluate(async ({ setup: s, attrs: a }) => {
    // eslint-disable-next-line no-new-func
    new Function(s)();
    await import('/www/attention-viz.js');
    document.body.insertAdjacentHTML('beforeend', `<attention-viz preset="seed-003" ${a}></attention-viz>`);
  }, { setup, attrs });
  await page.waitForFunction(() => document.querySelector('attention-viz').shadowRoot?.querySelector('canvas[data-view]')?.width > 0);
  return page;
}

/** [element background, heatmap canvas top-left pixel] as "r,g,b". */
const looks = (page) => page.evaluate(() => {
  const e = document.querySelector('attention-viz');
  const c = e.shadowRoot.querySelector('canvas[data-view="weights"]');
  const px = c.getContext('2d').getImageData(1, 1, 1, 1).data;
  return { host: getComputedStyle(e).backgroundColor, canvas: `${px[0]},${px[1]},${px[2]}`, attr: (e.matches(':state(dark)') ? 'dark' : 'light'), theme: e.theme };
});

const DARK_BG = 'rgb(22, 27, 34)';
const LIGHT_BG = 'rgb(255, 255, 255)';

test('theme="dark" on a light system, theme="light" on a dark one', async () => {
  let page = await figure('', 'theme="dark"', 'light');
  let l = await looks(page);
  assert.equal(l.host, DARK_BG);
  assert.equal(l.canvas, '22,27,34');
  assert.equal(l.theme, 'dark');
  await done(page);
  page = await figure('', 'theme="light"', 'dark');
  l = await looks(page);
  assert.equal(l.host, LIGHT_BG);
  assert.equal(l.canvas, '255,255,255');
  await page.close();
});

test('auto follows JupyterLab\'s data-jp-theme-light, live, over the system setting', async () => {
  const page = await figure('document.body.setAttribute("data-jp-theme-light", "false")', '', 'light');
  assert.equal((await looks(page)).host, DARK_BG);
  assert.equal((await looks(page)).canvas, '22,27,34');
  await page.evaluate(() => document.body.setAttribute('data-jp-theme-light', 'true'));
  await page.waitForFunction(() => (document.querySelector('attention-viz').matches(':state(dark)') ? 'dark' : 'light') === 'light');
  // The heatmaps are redrawn on the change: wait for the light background pixel, however late.
  await page.waitForFunction(() => {
    const c = document.querySelector('attention-viz').shadowRoot.querySelector('canvas[data-view="weights"]');
    return c.getContext('2d').getImageData(1, 1, 1, 1).data.slice(0, 3).join() === '255,255,255';
  });
  assert.equal((await looks(page)).canvas, '255,255,255', 'the heatmaps are redrawn light');
  await page.close();
});

test('auto follows the page\'s color-scheme, then the system', async () => {
  let page = await figure('document.documentElement.style.colorScheme = "dark"', '', 'light');
  assert.equal((await looks(page)).attr, 'dark');
  await page.close();
  page = await figure('', '', 'dark');
  assert.equal((await looks(page)).attr, 'dark', 'no page preference: the system\'s');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.waitForFunction(() => (document.querySelector('attention-viz').matches(':state(dark)') ? 'dark' : 'light') === 'light');
  await page.close();
});

test('an author\'s --av-* custom properties win over the theme', async () => {
  const page = await figure('const s = document.createElement("style"); s.textContent = "attention-viz { --av-bg: rgb(1, 2, 3); }"; document.head.append(s);', 'theme="dark"');
  assert.equal((await looks(page)).host, 'rgb(1, 2, 3)');
  await page.close();
});

test('the element keeps its states (dark, narrow) to itself: its host\'s attributes stay as the page wrote them', async () => {
  // A framework hydrating server HTML (React, Next dev) reports any attribute the element added to its own node.
  const page = await figure('', 'theme="dark" id="f" style="width: 380px"', 'dark');
  await page.waitForFunction(() => document.getElementById('f').matches(':state(narrow)'));
  const got = await page.evaluate(() => {
    const e = document.getElementById('f');
    return { names: e.getAttributeNames().sort(), dark: e.matches(':state(dark)'), narrow: e.matches(':state(narrow)'),
      padding: getComputedStyle(e.shadowRoot.querySelector('.av')).paddingTop };
  });
  assert.deepEqual(got.names, ['id', 'preset', 'style', 'theme']);
  assert.equal(got.dark, true);
  // The narrow layout (style.js) follows the state.
  assert.deepEqual([got.narrow, got.padding], [true, '8px']);
  await page.evaluate(() => { document.getElementById('f').style.width = '700px'; });
  await page.waitForFunction(() => !document.getElementById('f').matches(':state(narrow)'));
  assert.equal(await page.evaluate(() => getComputedStyle(document.getElementById('f').shadowRoot.querySelector('.av')).paddingTop), '12px');
  await done(page);
});
