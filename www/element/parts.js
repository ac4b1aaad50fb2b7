// Owns the element's parts that are imported on demand (a seed figure needs none of them):
// model.js (a model's weights), steppers.js (the decode and flash panels) and modern.js (the position, kv, window and
// soft-cap panels). `loadPart` imports one (once; a failed import is tried again by the next figure that needs it); until it has
// arrived the element holds a stand-in (`idleModel`, `idleSteppers`, `idleModern`) with the part's interface, no DOM
// of its own, and the part's own rule of whether the figure shows it (`shown`: index.js `_rebuild` asks it first).

import { el } from './dom.js';
import { MODERN_PANELS } from './facts.js';

/** The panels steppers.js owns; modern.js owns the rest of MODERN_PANELS. */
export const STEPPER_PANELS = ['decode', 'flash'];
export const MODERN_OWN = MODERN_PANELS.filter((p) => !STEPPER_PANELS.includes(p));

/** What each part is, in a figure's status line. */
export const PART_NAMES = { model: 'model view', steppers: 'decode and flash panels', modern: 'position, kv, window and soft-cap panels' };

const IMPORTS = {
  model: () => import('./model.js').then((m) => m.Model),
  steppers: () => import('./steppers.js').then((m) => m.Steppers),
  modern: () => import('./modern.js').then((m) => m.Modern),
};
/** name → the part's class, once imported. */
export const loaded = {};
const loading = {};

/** Imports part `name`; resolves when `loaded[name]` is there. */
export function loadPart(name) {
  loading[name] ??= IMPORTS[name]().then((part) => { loaded[name] = part; }, (e) => { loading[name] = null; throw e; });
  return loading[name];
}

/**
 * The panels of `list` a figure shows: those its `views` names; without it, those its config uses (the snapshot's
 * `used`: the core's rule), kept once shown (`holder.sticky`, which a stand-in hands to its part).
 */
export function shownPanels(port, list, holder) {
  const panels = port.state.panels;
  if (panels) return new Set(list.filter((p) => panels.has(p)));
  holder.sticky ??= new Set();
  for (const p of port.state.used ?? []) if (list.includes(p)) holder.sticky.add(p);
  return new Set(holder.sticky);
}

/** model.js's Model until a figure shows a model's weights. */
export const idleModel = () => ({
  idle: 'model', root: el('div', { class: 'model', hidden: true }), shape: null, active: () => false, token: () => null, build() {}, paint() {},
});

/** steppers.js's Steppers until a figure shows the decode or flash panel. */
export const idleSteppers = (port) => ({
  idle: 'steppers', root: el('div', { class: 'steppers', hidden: true }), views: () => [], build() {}, paint() {},
  // The core says whether the figure has steppers (self-attention's n × n scores: src/steppers.rs).
  shown() { return port.state.parts.steppers ? shownPanels(port, STEPPER_PANELS, this) : new Set(); },
});

/** modern.js's Modern (variants.js's `modern`) until a figure shows the position, kv or window panel. */
export const idleModern = (port) => ({
  idle: 'modern', build: () => [], paint() {},
  // The panels apply where the core's model says so (`modern`: self-attention).
  shown() { return port.state.editable && port.live && port.state.parts.modern ? shownPanels(port, MODERN_OWN, this) : new Set(); },
});
