// The first module: what a page loads first, a few KB. It shows each <attention-viz>'s static picture before the
// engine (www/attention-viz.js, its element and the .wasm) arrives, and decides when the engine loads.
//
// A picture is a light-DOM child `slot="picture"` of the element, which the element shows in its <slot
// name="picture"> until it draws the live figure (www/element/index.js `_picture`). The author may write one inside
// the element (an <img> or <svg>, for their own config); for a preset, this module adds the picture the build drew
// (scripts/dist.mjs: `pictures/<preset>.svg` beside this module, the core's own picture, as Python's notebooks carry
// it), in a box as tall as the live figure at the element's width (PICTURES, measured by the build), so the live
// figure takes its place without moving anything.
//
// The engine's files are fetched at once, at low priority, after the pictures'; the engine runs on the first of: the
// page idle once the pictures are in, the reader's first interaction (a pointer down, a key, a focus), or at once
// when a figure has no picture to show (an author's config without one, a share link or saved edits it would
// contradict, a look the preset's picture was not drawn with). Whatever the page
// or the reader does to a figure before then (attributes, properties, a config) is read when the element upgrades.

import { pageIsDark } from './element/theme.js';
import { STYLE_OPTIONS, LAYOUT_OPTIONS } from './element/facts.js';

/* global PICTURES -- {preset: {light, dark, width, height, live: [[min width, height]…]}}: scripts/dist.mjs defines it */
/** What the build drew: without it (this module run from www/), no preset has a picture and the engine loads at once. */
const DRAWN = typeof PICTURES === 'object' ? PICTURES : {};
/* global FIGURE_WASM -- the figure core's .wasm beside the bundle (scripts/first-module.mjs defines it) */
/** The .wasm a page's figures run: the figure core's in dist/, the only one in www/. */
const WASM = typeof FIGURE_WASM === 'string' ? FIGURE_WASM : 'pkg/attention_viz_bg.wasm';

/** The attributes a preset's picture was drawn without: its own config, and the options the core says change its
 *  look; LAYOUT_OPTIONS change its layout (the picture shows, but its box cannot reserve the live figure's size). */
const LOOKS = ['config', ...STYLE_OPTIONS];

let engine = null;

/** Loads the engine (www/attention-viz.js: the element, the API and the .wasm) once; resolves to its module. */
function loadEngine() {
  engine ??= import('./attention-viz.js');
  return engine;
}

/** Whether the figure is drawn dark: its `theme`, else the page's (the element's own rule). */
function dark(host) {
  const theme = host.getAttribute('theme');
  return theme === 'dark' || (theme !== 'light' && pageIsDark(host));
}

/** Whether this page has saved edits of a `persist` figure (www/element/persist.js keys them `attention-viz:…`). */
function savedEdits() {
  try { return Object.keys(localStorage).some((k) => k.startsWith('attention-viz:')); } catch { return false; }
}

/** The live figure's height at `width` CSS pixels (the build's measure: the last step at or below it), or 0. */
function liveHeight(live, width) {
  let h = 0;
  for (const [from, height] of live ?? []) if (width >= from) h = height;
  return h;
}

/**
 * Gives `host` its picture, in a box as tall as the live figure at `width`; false when it has none and the engine
 * should not wait: saved edits or a share link (`#name=…`) would replace the preset at once, or the figure has a look
 * the picture was not drawn with.
 */
function showPicture(host, width) {
  if (host.querySelector(':scope > [slot="picture"]')) return true; // the author's own
  const preset = host.getAttribute('preset') || 'seed-001';
  const drawn = DRAWN[preset];
  if (!drawn || LOOKS.some((a) => host.hasAttribute(a)) || host.querySelector('script[type="application/json"]')
    || (host.hasAttribute('persist') && savedEdits()) || location.hash.includes('=')) return false;
  const img = document.createElement('img');
  img.src = new URL(`pictures/${dark(host) ? drawn.dark : drawn.light}`, import.meta.url).href;
  img.alt = drawn.alt;
  img.width = drawn.width;
  img.height = drawn.height;
  img.style.cssText = 'display:block;max-width:100%;height:auto';
  const box = document.createElement('div');
  box.slot = 'picture';
  box.append(img);
  // The live figure's height at this width, reserved (the picture itself is shorter: its heatmaps alone).
  if (!LAYOUT_OPTIONS.some((a) => host.hasAttribute(a))) {
    const h = liveHeight(drawn.live, width);
    if (h) box.style.minHeight = `${h}px`;
  }
  host.append(box);
  return true;
}

/** Waits for the page's idle time, after every picture's image has arrived and decoded. */
function whenIdle(images, then) {
  Promise.all(images.map((img) => img.decode().catch(() => {}))).then(() => {
    if (typeof requestIdleCallback === 'function') requestIdleCallback(then, { timeout: 1000 });
    else setTimeout(then, 50);
  });
}

function start() {
  if (customElements.get('attention-viz')) return; // the engine is here already (the page loaded it too)
  // Before the element is defined its host is an unknown, inline element: laid out as the element will be.
  const style = document.createElement('style');
  style.textContent = 'attention-viz:not(:defined){display:block}';
  document.head.append(style);
  const hosts = [...document.querySelectorAll('attention-viz')];
  const widths = hosts.map((h) => h.getBoundingClientRect().width); // one layout, before any picture goes in
  let now = hosts.length === 0;
  hosts.forEach((host, k) => { if (!showPicture(host, widths[k])) now = true; });
  if (now) { loadEngine(); return; }
  // The engine's files fetched now, below the pictures (asked for in a task after theirs, whose requests start in a
  // microtask): it runs later, but need not be fetched then.
  setTimeout(() => {
    for (const [file, attrs] of [['attention-viz.js', { rel: 'modulepreload' }], [WASM, { rel: 'preload', as: 'fetch', type: 'application/wasm', crossOrigin: '' }]]) {
      const href = new URL(file, import.meta.url).href;
      // Not twice: a page that preloads them itself (index.html) has them coming already.
      if (![...document.querySelectorAll('link[rel$="preload"]')].some((l) => l.href === href)) {
        document.head.append(Object.assign(document.createElement('link'), attrs, { href, fetchPriority: 'low' }));
      }
    }
  }, 0);
  const go = () => { for (const type of EVENTS) removeEventListener(type, go, true); loadEngine(); };
  const EVENTS = ['pointerdown', 'keydown', 'focusin', 'touchstart'];
  for (const type of EVENTS) addEventListener(type, go, true);
  whenIdle(hosts.map((h) => h.querySelector(':scope > [slot="picture"] img')).filter(Boolean), go);
}

if (typeof document === 'object') {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
  else start();
}
