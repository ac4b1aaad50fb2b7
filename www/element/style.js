// Owns the element's stylesheet: one constructed sheet shared by every <attention-viz> on the page (a constructed
// sheet also needs no 'unsafe-inline' under a Content-Security-Policy), or a <style> where that is unsupported.

import { THEME } from './facts.js';

/** Labels and hints (--av-muted), light and dark; the model grid's labels too. */
export const MUTED = { light: '#59636e', dark: '#9198a1' };

/** The colours that are the core's (facts.js) or shared with the model grid, as custom properties SHEET reads. */
const themeVars = (k) => `--av-theme-bg: ${THEME[k].background}; --av-theme-accent: ${THEME[k].accent}; `
  + `--av-theme-link: ${THEME[k].link}; --av-theme-muted: ${MUTED[k]};`;

// SHEET is plain CSS (no substitutions): the dist build minifies it as CSS (scripts/dist.mjs).
const SHEET = `
:host { display: block; --av-bg: var(--av-theme-bg); --av-fg: #1f2328; --av-muted: var(--av-theme-muted); --av-border: #d0d7de;
  --av-panel: #f6f8fa; --av-accent: var(--av-theme-accent); --av-invalid: #cf222e; --av-invalid-bg: #ffebe9;
  color: var(--av-fg); background: var(--av-bg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  border: 1px solid var(--av-border); border-radius: 8px; contain: inline-size style; }
/* Dark follows the resolved theme (theme.js: the attribute, JupyterLab, the page's color-scheme, the system), not
   only the system's setting. An author's own --av-* values on the element win over both. */
:host(:state(dark)) { --av-fg: #e6edf3; --av-border: #3d444d; --av-panel: #0d1117; --av-invalid: #ff7b72; --av-invalid-bg: #3c1618; color-scheme: dark; }
:host([hidden]) { display: none; }
[hidden] { display: none !important; }
* { box-sizing: border-box; }
.av { padding: 12px; display: grid; grid-template-columns: minmax(0, 1fr); gap: 12px; }
.toolbar { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: center; }
.group { display: inline-flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.group > span.label { color: var(--av-muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
button, select, input { font: inherit; color: inherit; }
select { max-width: 100%; }
button, select { background: var(--av-panel); border: 1px solid var(--av-border); border-radius: 6px; padding: 4px 10px; min-height: 32px; cursor: pointer; }
button:hover { border-color: var(--av-accent); }
input.num, input.seed { width: 5.5em; padding: 4px 6px; min-height: 32px; border: 1px solid var(--av-border); border-radius: 6px; background: var(--av-bg); }
:focus-visible { outline: 2px solid var(--av-accent); outline-offset: 2px; }
details.menu { font-size: 13px; }
details.menu summary { cursor: pointer; color: var(--av-muted); width: max-content; }
details.menu .group { margin-top: 6px; }
.status textarea { width: 100%; font: 12px ui-monospace, monospace; }
.status { min-height: 1.45em; color: var(--av-muted); font-size: 13px; }
.status.error { color: var(--av-invalid); }
.status:empty { display: none; }
.inputs { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
/* min-width 0: a fieldset is at least as wide as its content by default, which would let a grid of long values
   widen the page instead of scrolling inside its box. */
fieldset.matrix { border: 1px solid var(--av-border); border-radius: 6px; padding: 6px 8px 8px; margin: 0; min-width: 0; max-width: 100%; overflow-x: auto; }
fieldset.matrix legend { padding: 0 4px; font-weight: 600; font-size: 13px; }
table.grid { border-collapse: separate; border-spacing: 2px; }
table.grid th { font-weight: 400; color: var(--av-muted); font-size: 12px; padding: 0 4px; text-align: right; white-space: nowrap; }
table.grid td { padding: 0; }
/* As wide as the longest value of its column in the window (--cell-chars, set by inputs.js) plus one character: a
   '-' or an 'e' may be wider than the '0' that 1ch measures. Padding and border are the 10px. */
input.cell { width: calc((max(var(--cell-chars, 4), 3) + 1) * 1ch + 10px); padding: 3px 4px; text-align: right; border: 1px solid var(--av-border); border-radius: 4px;
  background: var(--av-bg); font-variant-numeric: tabular-nums; cursor: ew-resize; }
input.cell:focus { cursor: text; }
input.cell.scrubbing { border-color: var(--av-accent); background: var(--av-panel); }
input.cell[aria-invalid="true"] { border-color: var(--av-invalid); background: var(--av-invalid-bg); }
.window { display: flex; flex-wrap: wrap; gap: 4px 8px; align-items: center; font-size: 12px; color: var(--av-muted); margin-bottom: 4px; }
.window button { min-height: 26px; padding: 0 8px; }
.window button:disabled { opacity: .4; cursor: default; }
input.token { width: 6.5em; padding: 3px 4px; border: 1px dashed var(--av-border); border-radius: 4px; background: transparent; text-align: right; }
/* The message line always has its two lines' height, so a message coming or going while the reader types moves
   nothing below it; it is as wide as its grid (width 0, min-width 100%: it never widens the fieldset), and a longer
   message is cut at two lines (its title has all of it). */
.cell-msg { color: var(--av-invalid); font-size: 12px; line-height: 16px; height: 32px; margin-top: 4px; width: 0; min-width: 100%;
  overflow: hidden; display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 2; }
.stages { display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-start; }
figure.stage { margin: 0; max-width: 100%; }
/* Containment (bench/element.mjs's trace): an edit changes the canvases, one input and the tables' numbers, and each
   of these boxes then re-lays out and repaints alone — the others' paint is reused whole, not walked cell by cell.
   The 4 px clip margin keeps the focus rings (2 px, 2 px out) that reach past a box's edge. */
.inputs, fieldset.matrix, figure.stage, details.breakdown, .steps { contain: layout paint style; overflow-clip-margin: 4px; }
figure.stage canvas { display: block; max-width: 100%; touch-action: manipulation; border-radius: 4px; }
figure.stage canvas.pickable { cursor: pointer; }
/* The outlines' own canvas (figures.js), exactly over the heatmap's: the pointer and the focus go to the heatmap. */
figure.stage { position: relative; }
figure.stage canvas.overlay { position: absolute; left: 0; top: 0; pointer-events: none; }
.tip { position: fixed; pointer-events: none; background: var(--av-fg); color: var(--av-bg); font-size: 12px; padding: 3px 7px;
  border-radius: 4px; white-space: pre; z-index: 10; font-variant-numeric: tabular-nums; }
.tip[hidden] { display: none; }
details.breakdown { border: 1px solid var(--av-border); border-radius: 6px; padding: 6px 10px; }
details.breakdown summary { cursor: pointer; font-weight: 600; overflow-wrap: anywhere; }
.breakdown table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 13px; margin-top: 6px; }
.breakdown th, .breakdown td { padding: 3px 8px; border-bottom: 1px solid var(--av-border); text-align: right; white-space: nowrap; }
.breakdown th { color: var(--av-muted); font-weight: 400; }
.breakdown td.formula { text-align: left; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
.breakdown tr.sum td { font-weight: 600; border-bottom: none; }
.breakdown .wrap { overflow-x: auto; }
/* Shades on the edge where more of the table is hidden: a phone shows no scroll bar until it is touched. */
.breakdown .wrap.more-right, .steps .wrap.more-right { box-shadow: inset -14px 0 10px -10px color-mix(in srgb, var(--av-fg) 35%, transparent); }
.breakdown .wrap.more-left, .steps .wrap.more-left { box-shadow: inset 14px 0 10px -10px color-mix(in srgb, var(--av-fg) 35%, transparent); }
.breakdown .wrap.more-left.more-right, .steps .wrap.more-left.more-right { box-shadow: inset -14px 0 10px -10px color-mix(in srgb, var(--av-fg) 35%, transparent),
  inset 14px 0 10px -10px color-mix(in srgb, var(--av-fg) 35%, transparent); }
/* The steps strip: each row is one key's path, score → scaled → exp → weight → w_j·v_j, the operation over each arrow. */
.steps .wrap { overflow-x: auto; }
.steps table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 13px; }
.steps-title { margin: 0 0 6px; font-weight: 600; overflow-wrap: anywhere; }
.steps th, .steps td { padding: 3px 8px; text-align: right; white-space: nowrap; border-bottom: 1px solid var(--av-border); }
.steps thead th { vertical-align: bottom; font-weight: 400; color: var(--av-muted); font-size: 12px; }
.steps thead th.op { text-align: center; padding: 3px 2px; }
.steps .op-name { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; color: var(--av-accent); }
.steps thead th:last-child { text-align: left; }
.steps td.arrow { color: var(--av-accent); text-align: center; padding: 3px 2px; font-size: 15px; }
.steps tbody th { font-weight: 400; color: var(--av-muted); text-align: left; }
.steps td.weight { position: relative; min-width: 7em; }
.steps td.weight .bar { position: absolute; left: 0; top: 3px; bottom: 3px; background: color-mix(in srgb, var(--av-accent) 28%, transparent); border-radius: 2px; }
.steps td.weight .value { position: relative; font-weight: 600; }
.steps tfoot td, .steps tfoot th { font-weight: 600; border-bottom: none; }
.steps td.vec { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; text-align: left; }
/* Visually hidden until it has the keyboard focus, like a page's "skip to content" link. */
.skip { position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden; }
.skip:focus { position: static; width: auto; height: auto; justify-self: start; }
.peek { position: fixed; left: 8px; right: 8px; bottom: 8px; z-index: 5; padding: 6px; background: var(--av-bg);
  border: 1px solid var(--av-border); border-radius: 8px; box-shadow: 0 4px 16px rgb(0 0 0 / .25); max-height: 40vh; overflow: hidden; }
.peek canvas { display: block; max-width: 100%; max-height: calc(40vh - 32px); width: auto; height: auto; }
.peek-label { display: block; font-size: 11px; color: var(--av-muted); text-transform: uppercase; letter-spacing: .04em; }
.scroll-hint { margin: 4px 0 0; font-size: 12px; color: var(--av-muted); }
.lesson { font-size: 13px; color: var(--av-muted); max-width: 70ch; }
.nan { color: var(--av-invalid); font-weight: 600; }
/* ---- variants.js: the heads, scoring, temperature and mask panels (the toolbar's look) ---- */
.variants { display: flex; flex-wrap: wrap; gap: 10px 18px; align-items: flex-start; }
.variants > .line { flex-basis: 100%; display: flex; flex-wrap: wrap; gap: 8px 18px; align-items: center; }
.variants .panel { display: flex; flex-direction: column; gap: 6px; min-width: 0; max-width: 100%; }
.variants span.label { color: var(--av-muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.variants button:disabled { opacity: .45; cursor: not-allowed; }
.variants button:disabled:hover { border-color: var(--av-border); }
.variants code.formula { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--av-muted); }
.variants input[type="range"] { width: 11em; max-width: 100%; margin: 0; accent-color: var(--av-accent); }
.variants .scale-end { font-size: 11px; color: var(--av-muted); }
.variants output.t-value { font-variant-numeric: tabular-nums; min-width: 5.5em; }
.entropy-title { margin: 0; font-size: 12px; color: var(--av-muted); }
.entropy-rows { list-style: none; margin: 0; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(15em, 1fr));
  gap: 2px 16px; font-size: 12px; max-width: 32em; }
.entropy-rows li { display: grid; grid-template-columns: minmax(0, 7em) minmax(3em, 1fr) minmax(3em, max-content); gap: 6px; align-items: center; }
.variants .len-name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; color: var(--av-muted); }
.entropy .bar { height: 8px; background: var(--av-panel); border: 1px solid var(--av-border); border-radius: 2px; overflow: hidden; }
.entropy .bar > span { display: block; height: 100%; background: var(--av-accent); }
/* A number is never broken across lines (3.39e-9 as "3.39e-" / "9"): its column widens instead. */
.entropy .h { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.mask-body { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: flex-start; }
.mask-canvas { max-width: 100%; }
.mask-canvas canvas { display: block; max-width: 100%; border-radius: 4px; cursor: pointer; touch-action: manipulation; }
.variants .hint { margin: 0; font-size: 12px; color: var(--av-muted); max-width: 40ch; }
.valid-lens { display: flex; flex-direction: column; gap: 4px; }
.lens-fields { display: flex; flex-direction: column; gap: 4px; }
label.len { display: grid; grid-template-columns: minmax(0, 7em) 4.5em; gap: 6px; align-items: center; font-size: 12px; }
label.len input.num { width: 4.5em; min-height: 28px; }
input.lens { width: 16em; max-width: 100%; padding: 4px 6px; min-height: 32px; border: 1px solid var(--av-border); border-radius: 6px; background: var(--av-bg); }
.variants [aria-invalid="true"] { border-color: var(--av-invalid); background: var(--av-invalid-bg); }
/* ---- modern.js: the position, kv and window panels (in the variants' row) ---- */
.variants .modern input.num { width: 4.5em; min-height: 28px; padding: 2px 6px; border: 1px solid var(--av-border); border-radius: 6px; background: var(--av-bg); }
.variants .modern input.num.base { width: 6.5em; }
.variants .modern output { font-variant-numeric: tabular-nums; font-size: 12px; color: var(--av-muted); }
.variants .modern label.side { font-size: 12px; color: var(--av-muted); }
.variants .modern .sides { display: inline-flex; gap: 8px; }
.variants .modern .hint { max-width: 48ch; }
.variants .panel-error { margin: 0; font-size: 12px; color: var(--av-invalid); max-width: 48ch; }
.kv-share { margin: 0; padding-left: 1.2em; font-size: 12px; }
/* ---- importer.js: each grid's Import… button, the drop targets, the import's message and its shape dialog ---- */
.import-tools { display: flex; justify-content: flex-end; margin: -2px 0 4px; }
.import-tools button.import { min-height: 26px; padding: 0 8px; font-size: 12px; }
/* While files are dragged over the figure every grid shows it takes one; the grid under the pointer says so. */
.inputs.dragging fieldset.matrix { outline: 1px dashed var(--av-muted); outline-offset: 2px; }
.inputs.dragging::before { content: "Drop a file on a matrix to fill it; a .npz anywhere fills every matrix it names"; flex-basis: 100%;
  font-size: 12px; color: var(--av-muted); }
.inputs.dragging fieldset.matrix.drop-target { position: relative; outline: 2px dashed var(--av-accent); outline-offset: 2px;
  background: color-mix(in srgb, var(--av-accent) 10%, var(--av-bg)); }
.inputs fieldset.matrix.drop-target::after { content: attr(data-drop-label); position: absolute; inset: 0; display: flex; align-items: center;
  justify-content: center; text-align: center; padding: 8px; font-weight: 600; color: var(--av-accent);
  background: color-mix(in srgb, var(--av-bg) 72%, transparent); pointer-events: none; border-radius: 6px; }
.import-msg { flex-basis: 100%; font-size: 13px; color: var(--av-muted); overflow-wrap: anywhere; }
.import-msg.error { color: var(--av-invalid); }
.import-dialog { flex-basis: 100%; border: 2px solid var(--av-accent); border-radius: 8px; padding: 10px 12px;
  background: var(--av-panel); overflow-wrap: anywhere; }
.import-dialog p { margin: 0 0 6px; font-size: 13px; max-width: 75ch; }
.import-dialog .import-title { font-weight: 600; font-size: 14px; }
.import-dialog .import-fix { color: var(--av-muted); }
.import-buttons { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 8px; }
.import-buttons [data-action="import-resize"] { background: var(--av-accent); border-color: var(--av-accent); color: var(--av-bg); font-weight: 600; }
.imports { display: flex; flex-direction: column; gap: 8px; }
/* ---- model.js: a model's weights — the grid of every layer × head, the ranking, the line view ---- */
.model { display: flex; flex-direction: column; gap: 8px; min-width: 0; }
.model-caption { margin: 0; font-size: 13px; color: var(--av-muted); max-width: 90ch; }
.model-body { display: flex; flex-wrap: wrap; gap: 12px 24px; align-items: flex-start; min-width: 0; }
.model-gridbox { display: flex; flex-direction: column; gap: 4px; min-width: 0; max-width: 100%; }
/* The grid scrolls sideways inside the panel when its heads do not fit, never the page. */
.model-scroll { overflow-x: auto; max-width: 100%; padding: 3px; }
.model-stack { position: relative; width: max-content; }
.model-stack canvas { display: block; }
canvas.model-grid { touch-action: manipulation; }
canvas.model-overlay { position: absolute; left: 0; top: 0; pointer-events: none; }
.model-legend, .model-readout { margin: 0; font-size: 12px; color: var(--av-muted); max-width: 90ch; }
.model-readout { color: var(--av-fg); font-variant-numeric: tabular-nums; min-height: 1.45em; }
.model-rank { display: flex; flex-direction: column; gap: 6px; min-width: 0; max-width: 100%; }
.model-rank .label, .model-export .label { color: var(--av-muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.model-rank-wrap { max-height: 420px; overflow-y: auto; }
.model-rank-table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; }
.model-rank-table caption { text-align: left; font-size: 12px; color: var(--av-muted); padding-bottom: 4px; max-width: 32ch; }
.model-rank-table th, .model-rank-table td { padding: 2px 8px; border-bottom: 1px solid var(--av-border); text-align: right; white-space: nowrap; }
.model-rank-table th { color: var(--av-muted); font-weight: 400; font-size: 12px; }
.model-rank-table th:nth-child(2), .model-rank-table td:nth-child(2) { text-align: left; }
.model-rank-table button.model-pick { min-height: 28px; padding: 0 8px; }
.model-rank-table tr.current button.model-pick { border-color: var(--av-accent); font-weight: 600; }
.model-rank > button[data-action="model-all"] { align-self: flex-start; }
.model-note { margin: 0; padding: 6px 10px; border-left: 3px solid var(--av-invalid); background: var(--av-panel); font-size: 13px; max-width: 90ch; }
figure.model-lines canvas { display: block; max-width: 100%; height: auto; border-radius: 4px; }
@media print { .model-rank, .model-export, .model-readout { display: none !important; } }
.model-lines-note { margin: 0; font-size: 12px; color: var(--av-muted); }
/* Paper: the numbers and the figures, none of the controls; each figure whole on its page; nothing clipped. */
@media print {
  /* A figure is taller than an A4 page at screen size: at 70 % one fits a page, so it can be kept whole. */
  :host { border: none; break-inside: avoid; zoom: .7; }
  .toolbar, .variants, details.menu, .window, .skip, .import-tools, .imports, .import-dialog, .tip, .peek, .scroll-hint, .status:empty, .cell-msg:empty { display: none !important; }
  .av { padding: 0; }
  fieldset.matrix, .breakdown .wrap, .steps .wrap { overflow: visible; }
  .steps td.vec { white-space: normal; }
  figure.stage, fieldset.matrix, details.breakdown, .steps { break-inside: avoid; }
  .breakdown th, .breakdown td { white-space: normal; }
  .breakdown td.formula { overflow-wrap: anywhere; }
  /* An input grid fits the paper: its window's 16 columns in a smaller type, and a long value cut to 7 characters
     (an ellipsis says so; the heatmaps carry the figure) instead of the grid being cut at the page's edge. */
  fieldset.matrix { contain: none; }
  table.grid { border-spacing: 1px; }
  table.grid th { font-size: 9px; padding: 0 2px; }
  input.cell { font-size: 9px; padding: 1px 2px; max-width: calc(7ch + 6px); text-overflow: ellipsis; }
}
/* A figure at most 520 px wide (index.js sets its state narrow from its ResizeObserver). Not a container query: inside a
   size container every element's style waits for the page's layout, so each canvas font set and style read while
   figures were being built forced a layout of the whole page (index.html: 277 font sets, 0.6-0.9 s). The host keeps
   the containment a container had: its width never follows its content. */
:host(:state(narrow)) .av { padding: 8px; gap: 8px; }
:host(:state(narrow)) .stages { row-gap: 6px; }
/* A heatmap alone on its row with room beside it (pack.js besides, figures.js sets the class): its status line there,
   at its foot, in the row's rest (the figure as wide as the row, so words coming never move anything). */
:host(:state(narrow)) figure.stage.beside { display: flex; align-items: flex-end; gap: 8px; flex-basis: 100%; }
:host(:state(narrow)) figure.stage.beside p.changed-status { flex: 1 1 0; min-width: 0; margin: 0; }
:host(:state(narrow)) .toolbar { gap: 6px 10px; }
:host(:state(narrow)) .variants, :host(:state(narrow)) .variants > .line { gap: 8px 10px; }
:host(:state(narrow)) .variants input[type="range"] { width: 7.5em; }
:host(:state(narrow)) .lens-fields { flex-flow: row wrap; gap: 4px 12px; }
:host(:state(narrow)) label.len { grid-template-columns: auto 4.5em; }
/* Small grids side by side on a phone (a 4 × 3 embeddings grid beside a 3 × 3 one in 356 px): the cells keep their
   column's characters, at least 2 (30 px, still a touch target), less spare room; the token names 5em; the boxes their
   padding only. */
:host(:state(narrow)) input.cell { width: calc((max(var(--cell-chars, 4), 2) + 0.5) * 1ch + 6px); padding: 3px 2px; }
:host(:state(narrow)) input.token { width: 5em; }
:host(:state(narrow)) .inputs { gap: 6px; }
:host(:state(narrow)) fieldset.matrix { padding: 4px 4px 6px; }
/* There a grid's first line holds its Import… or, while a typed or pasted text is refused, the message instead (the
   button back once it goes): one line less than Import… over the grid and the message under it, and the message above
   the grid, where a phone's keyboard does not cover it. Same height either way: a message moves nothing. A grid with a
   window's arrows keeps both lines. */
:host(:state(narrow)) fieldset.matrix:not(:has(.window)) { display: grid; grid-template-columns: minmax(0, 1fr); }
:host(:state(narrow)) fieldset.matrix:not(:has(.window)) > :is(.import-tools, .cell-msg) { grid-area: 1 / 1; margin: 0 0 4px; align-self: start; }
:host(:state(narrow)) fieldset.matrix:not(:has(.window)) > .cell-msg { pointer-events: none; }
:host(:state(narrow)) fieldset.matrix:not(:has(.window)) > table { grid-area: 2 / 1; }
:host(:state(narrow)) fieldset.matrix:not(:has(.window)):has(> .cell-msg:not(:empty)) > .import-tools { visibility: hidden; }
/* There the breakdown's, the steps' and the flash stepper's rows are cards that wrap, each value under its column's name (data-label,
   breakdown.js columnLabels) and the row's key as the card's title: every column, the results too, shows without
   sideways scrolling. The head row's names are on the cells then. */
:host(:state(narrow)) :is(.breakdown, .steps, .flash-state) :is(table, thead, tbody, tfoot) { display: block; }
:host(:state(narrow)) :is(.breakdown, .steps, .flash-state) tr { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 4px 12px; padding: 5px 0; border-bottom: 1px solid var(--av-border); }
:host(:state(narrow)) :is(.breakdown tr.head, .steps thead, .flash-state thead) { display: none; }
:host(:state(narrow)) :is(.breakdown, .steps, .flash-state) :is(th, td) { padding: 0; border: none; text-align: left; }
:host(:state(narrow)) :is(.breakdown, .steps, .flash-state) tr > :first-child { flex-basis: 100%; }
:host(:state(narrow)) :is(.breakdown, .steps, .flash-state) [data-label]::before { content: attr(data-label); display: block; font: 400 11px/1.3 system-ui, sans-serif; color: var(--av-muted); }
:host(:state(narrow)) :is(.breakdown, .steps) :is(th, td):empty { display: none; }
:host(:state(narrow)) .breakdown td.formula { flex-basis: 100%; white-space: normal; overflow-wrap: anywhere; }
:host(:state(narrow)) :is(.breakdown, .steps) td.vec { white-space: normal; }
:host(:state(narrow)) .steps td.arrow { padding: 0; }
/* A key's path in the strip is short: its name starts the card's first line instead of a line of its own. */
:host(:state(narrow)) .steps tbody tr > :first-child { flex-basis: auto; min-width: 4.5em; }
:host(:state(narrow)) .steps td.weight { min-width: 4.5em; }
:host(:state(narrow)) .steps td.weight .bar { top: auto; height: 1.2em; bottom: 0; }
/* ---- steppers.js: the decode and flash panels (a stepper: ← the step →; the core's heatmaps; m, l, o tables) ---- */
.steppers { display: flex; flex-direction: column; gap: 14px; }
.steppers .panel { display: flex; flex-direction: column; gap: 6px; min-width: 0; max-width: 100%; }
.steppers .panel > button { align-self: flex-start; }
.steppers .hint { margin: 0; font-size: 12px; color: var(--av-muted); max-width: 90ch; }
.stepper { display: inline-flex; gap: 6px; align-items: center; }
.stepper button.step { min-width: 40px; min-height: 36px; touch-action: manipulation; }
.stepper button[aria-disabled="true"] { opacity: .45; cursor: not-allowed; }
.stepper output.step-text { font-variant-numeric: tabular-nums; min-width: 12em; }
.stepper output.step-text .range { white-space: nowrap; }
.steppers input.tile { width: 4.5em; }
.steppers [aria-invalid="true"] { border-color: var(--av-invalid); background: var(--av-invalid-bg); }
.stepper-figs, .flash-body { display: flex; flex-wrap: wrap; gap: 10px 16px; align-items: flex-start; }
/* A sideways swipe on a stepper or its heatmaps steps it: not the browser's back/forward gesture. */
figure.stepper-fig, .stepper { touch-action: pan-y; }
figure.stepper-fig { margin: 0; max-width: 100%; }
figure.stepper-fig canvas { display: block; max-width: 100%; border-radius: 4px; }
.flash-state { display: flex; flex-direction: column; gap: 6px; min-width: 0; max-width: 100%; }
.flash-state .wrap { overflow-x: auto; max-width: 100%; }
table.tiles { border-collapse: collapse; font-size: 12px; font-variant-numeric: tabular-nums; }
table.tiles th, table.tiles td { padding: 2px 6px; border: 1px solid var(--av-border); text-align: right; white-space: nowrap; }
table.tiles th { font-weight: 400; color: var(--av-muted); }
/* On paper: the step's text, heatmaps and numbers, not the buttons. */
@media print { .steppers button, .steppers input { display: none !important; } .flash-state .wrap { overflow: visible; } }
/* ---- figures.js and reader.js: the outlines' legend, the heatmaps' text alternatives and live region (keep last) ----
   The legend's colours are the heatmap outlines' (the core's theme: accent, link), light and dark. */
.stages > p.legend { flex-basis: 100%; margin: 0; font-size: 12px; color: var(--av-muted); display: flex; flex-wrap: wrap; align-items: center; gap: 2px 4px; }
.legend .key { display: inline-flex; align-items: center; gap: 5px; }
.legend .swatch { display: inline-block; width: 16px; height: 10px; border: 2px solid currentColor; border-radius: 1px; }
.legend .selected { color: var(--av-theme-accent); }
.legend .link { color: var(--av-theme-link); }
.legend .link .swatch { border-style: dashed; }
/* What the last edit changed in a heatmap, under it (the core's words). */
figure.stage p.changed-status { margin: 2px 0 0; font-size: 12px; line-height: 16px; min-height: 16px; color: var(--av-muted); }
/* A masked cell as the scaled heatmap draws it: hatched. */
.legend .masked .swatch { border: 1px solid currentColor;
  background: repeating-linear-gradient(45deg, currentColor 0 1.5px, transparent 1.5px 4px); }
/* The heads' small multiples: one row that wraps, under a caption; a click picks a head. */
.stages > .heads { flex-basis: 100%; display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-start; }
.heads-title { flex-basis: 100%; margin: 0; font-size: 12px; color: var(--av-muted); }
figure.stage canvas.head-pick { cursor: pointer; }
/* The breakdown's and the steps' notes: the head, scoring, temperature and masks of the config. */
.breakdown .notes { margin: 6px 0 0; }
.breakdown p.note, .steps p.note { margin: 2px 0; font-size: 12px; color: var(--av-muted); max-width: 90ch; }
.breakdown .mask, .steps .mask { text-align: left; }
.breakdown td.mask, .steps td.mask { color: var(--av-muted); font-size: 12px; white-space: normal; min-width: 9em; max-width: 15em; }
.breakdown th.vec { text-align: left; }
.breakdown td.vec { text-align: left; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
/* Read by screen readers, not shown: each heatmap's table of numbers, the keys' help, the cursor's announcements. */
/* ---- marks of the structure: a flash table's cell that changed at this tile (the heatmaps' filled corner); each
   K/V head's colour beside its group; RoPE's pair picture ---- */
.kv-share .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; border-radius: 2px; background: var(--group-light); }
:host(:state(dark)) .kv-share .swatch { background: var(--group-dark); }
figure.rope-pair { margin: 0; display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; max-width: 100%; }
figure.rope-pair svg { flex: none; max-width: 100%; height: auto; overflow: visible; }
figure.rope-pair figcaption { flex: 1 1 16em; min-width: 0; display: flex; flex-direction: column; gap: 4px; }
figure.rope-pair .ring, figure.rope-pair .axis { fill: none; stroke: var(--av-border); stroke-width: 1; }
figure.rope-pair .arrow { stroke-width: 2.5; stroke-linecap: round; }
figure.rope-pair .arrow.q { stroke: var(--av-theme-accent); }
figure.rope-pair .arrow.k { stroke: var(--av-theme-link); }
figure.rope-pair .arrow.before { stroke-width: 1.5; stroke-dasharray: 3 3; }
figure.rope-pair .tag { font: 11px system-ui, sans-serif; fill: var(--av-fg); }
table.tiles td.changed { position: relative; }
table.tiles td.changed::after { content: ''; position: absolute; top: 0; right: 0; border-style: solid; border-width: 0 7px 7px 0;
  border-color: transparent currentColor transparent transparent; }
.legend .changed .swatch { position: relative; border: 1px solid currentColor; }
.legend .changed .swatch::after { content: ''; position: absolute; top: 0; right: 0; border-style: solid; border-width: 0 6px 6px 0;
  border-color: transparent currentColor transparent transparent; }
.sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; border: 0; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;

export const STYLE = withFallback(`:host { ${themeVars('light')} }
:host(:state(dark)) { ${themeVars('dark')} }
${SHEET}`);

/**
 * The sheet with each `:host(:state(x))` rule also written for a browser without custom states, as
 * `:host([data-av-x])` (index.js `customStates` sets that attribute there). Separate rules: one selector that a
 * browser cannot read drops the whole rule it is in.
 */
function withFallback(css) {
  const rules = css.match(/^:host\(:state\([a-z]+\)\)[^\n]*\}$/gm) ?? [];
  return `${css}\n${rules.map((r) => r.replace(/:state\(([a-z]+)\)/g, '[data-av-$1]')).join('\n')}\n`;
}

let sheet;
/** One constructed stylesheet shared by every element, or null where unsupported. */
export function sharedSheet() {
  if (sheet === undefined) {
    try {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(STYLE);
    } catch {
      sheet = null;
    }
  }
  return sheet;
}
