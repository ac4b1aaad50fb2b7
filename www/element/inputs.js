// Owns the input grids: per matrix a window of at most 16 × 16 <input>s (moved with ▲▼◀▶, or the arrow keys past
// its edge), sized so every value shows whole; typing (a bad value marks its cell and the figure keeps the last valid
// state), spreadsheet keys, scrubbing with the pointer, Alt+↑/↓ and Alt+wheel steps, pasting blocks of numbers, the
// message line under each grid, and the token names. The grids are the documents' inputs, then the scoring
// function's W_a, U_a, v_a and the output projection W_O when the config has them (the same path for every grid).
// What each grid shows (its legend, window, values, step, navigation) is the core's model (src/controls.rs `inputs`,
// the snapshot's `parts.inputs`); the grids ask for their windows (`gridWindows`) and send edits.
import { el } from './dom.js';
import { parseCell, parseBlock, isBlock, tooLong } from './cells.js';
import { CELL_NOTES } from './facts.js';

/** A column's characters count from this many (its longest value's); the stylesheet sets the least width a cell has
 *  (room to click, scrub and start typing: 3 characters, 2 in a narrow figure, where grids then fit side by side). */
const MIN_CHARS = 1;
/** The widest a cell grows for typed text, in characters: any float64 as JavaScript writes it fits (24 at most). */
const MAX_CHARS = 24;

const cellKey = (cell) => `${cell.dataset.matrix}:${cell.dataset.row}:${cell.dataset.col}`;
/** The core's sentence `name` of CELL_NOTES about the cell at `at` ({matrix, row, col}, or a cell) and `message`. */
function say(name, at, message) {
  const { matrix, row, col } = at.dataset ?? at;
  const where = CELL_NOTES.where.replace(/\{(\w+)\}/g, (_, k) => ({ matrix, row, col })[k]);
  return CELL_NOTES[name].replace(/\{(\w+)\}/g, (_, k) => ({ where, message })[k]);
}

export class Inputs {
  constructor(port, api) {
    this.port = port;
    this.api = api;
    this.invalid = new Map(); // "matrix:row:col" → {text the user typed, message}
    this.windows = new Map(); // matrix → [row, column] the reader moved its window of input cells to
    this.scrub = null;
    this.note = null; // {matrix, text}: why the last paste into that matrix was refused, until the next edit
    const root = el('div', { class: 'inputs' });
    this.root = root;
    root.addEventListener('input', (e) => this.onInput(e));
    root.addEventListener('change', (e) => this.onChange(e));
    root.addEventListener('keydown', (e) => this.onKey(e));
    root.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    root.addEventListener('pointermove', (e) => this.onPointerMove(e));
    root.addEventListener('pointerup', (e) => this.onPointerUp(e));
    root.addEventListener('pointercancel', (e) => this.onPointerUp(e));
    // A finger's sideways drag on a cell scrubs it: once the scrub has begun (pointermove comes first), the touch may
    // not also scroll the page or the grid's box. A listener, not `touch-action: pan-y` on the cells: each input is a
    // scroller of its own, so the property only works there, and ~1,000 hit-test rectangles of it cost every frame
    // 10 ms of layerizing (bench/element.mjs). A vertical swipe pans as usual.
    root.addEventListener('touchmove', (e) => { if (this.scrub?.active && e.cancelable) e.preventDefault(); }, { passive: false });
    // On the grids themselves, not the shadow root: Chromium lets the page scroll before a wheel listener on a
    // shadow root can cancel it.
    root.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    root.addEventListener('paste', (e) => this.onPaste(e));
    root.addEventListener('click', (e) => { const b = e.target.closest?.('button[data-window]'); if (b) this.moveWindow(b); });
  }

  /** A new document: typed text from the old one is dropped. */
  forget() { this.invalid.clear(); this.note = null; }

  /** The snapshot's parts the grids show (src/shown.rs): none while hidden. */
  asked() { return this.root.hidden ? [] : ['inputs']; }

  /** Where each grid's window is asked to be, `{name: [r0, c0]}` (the core keeps it inside the matrix). */
  gridWindows() { return Object.fromEntries(this.windows); }

  /** The core's model of grid `name` (see the header). */
  grid(name) { return this.port.state.parts.inputs?.find((g) => g.name === name); }

  cell(matrix, row, col) {
    return this.root.querySelector(`input.cell[data-matrix="${matrix}"][data-row="${row}"][data-col="${col}"]`);
  }

  build() {
    // Hidden (a read-only figure, a model's weights, `views` without "inputs"): no cells at all. Each input costs
    // layout and paint whether shown or not (1,045 of them at n = 1024); they are built when the grids show.
    if (this.root.hidden) {
      this.root.replaceChildren();
      return;
    }
    const grids = this.port.state.parts.inputs ?? [];
    const { tokens } = this.port.state.facts;
    this.note = null;
    const sets = grids.map((g) => {
      const { name, values: rows } = g;
      const [r0, c0] = g.window;
      this.windows.set(name, g.window);
      const r1 = r0 + rows.length;
      const c1 = c0 + (rows[0]?.length ?? 0);
      const texts = this.shownTexts(name, r0, r1, c0, c1);
      const cols = [];
      for (let j = c0; j < c1; j++) cols.push(j);
      // The corner is a td: an empty header cell names nothing for a screen reader.
      const head = el('tr', {}, el('td'), ...cols.map((j) => el('th', { scope: 'col', text: String(j) })));
      const chars = new Map(cols.map((j) => [j, MIN_CHARS])); // column → its longest text in the window
      const body = rows.map((row, k) => {
        const i = r0 + k;
        const label = g.tokens
          ? el('input', { class: 'token', type: 'text', 'data-token': String(i), value: tokens[i], 'aria-label': `name of token ${i}`, spellcheck: 'false' })
          : document.createTextNode(g.label || String(i));
        return el('tr', {}, el('th', { scope: 'row' }, label), ...cols.map((j) => {
          const x = row[j - c0];
          const typed = this.invalid.get(`${name}:${i}:${j}`)?.text;
          const shown = texts?.[(i - r0) * (c1 - c0) + (j - c0)] ?? String(x);
          const input = el('input', {
            class: 'cell', type: 'text', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false',
            'data-matrix': name, 'data-row': String(i), 'data-col': String(j), 'data-shown': shown,
            'aria-label': `${name} row ${i} column ${j}`, value: typed ?? shown, title: String(x),
          });
          if (typed !== undefined) input.setAttribute('aria-invalid', 'true');
          chars.set(j, Math.max(chars.get(j), Math.min(input.value.length, MAX_CHARS)));
          return el('td', {}, input);
        }));
      });
      const move = (label, dr, dc, on, enabled) => el('button', { type: 'button', 'data-window': `${name}:${dr}:${dc}`, 'aria-label': label, text: on, disabled: !enabled });
      const nav = [];
      const { rows: across, cols: down } = g.nav;
      if (across) nav.push(el('span', { text: across.text }), move('previous rows', -1, 0, '▲', across.prev), move('next rows', 1, 0, '▼', across.next));
      if (down) nav.push(el('span', { text: down.text }), move('previous columns', 0, -1, '◀', down.prev), move('next columns', 0, 1, '▶', down.next));
      const fieldset = el('fieldset', { class: 'matrix', 'data-name': name },
        el('legend', { text: g.legend }),
        nav.length ? el('div', { class: 'window', 'data-window-of': name }, ...nav) : null,
        el('table', { class: 'grid' }, el('thead', {}, head), el('tbody', {}, ...body)),
        el('div', { class: 'cell-msg', id: `msg-${name}`, role: 'alert' }));
      // Each column as wide as its longest value in the window: digits are never cut, short columns stay narrow.
      for (const input of fieldset.querySelectorAll('input.cell')) input.style.setProperty('--cell-chars', String(chars.get(Number(input.dataset.col))));
      return fieldset;
    });
    // Invalid cells that no longer exist (shape edits) are forgotten; those outside the window are kept.
    for (const k of [...this.invalid.keys()]) {
      const [m, r, c] = k.split(':');
      const shape = grids.find((g) => g.name === m)?.shape;
      if (!shape || Number(r) >= shape[0] || Number(c) >= shape[1]) this.invalid.delete(k);
    }
    this.root.replaceChildren(...sets);
    this.port.tell('decorateGrids', sets); // each grid's Import… button (importer.js)
    for (const key of this.invalid.keys()) {
      const cell = this.cell(...key.split(':'));
      if (cell) this.describe(cell);
    }
    for (const fieldset of sets) this.renderMessage(fieldset);
  }

  /** Widens a column of cells when a value longer than any in it arrives (typed, scrubbed, stepped), up to MAX_CHARS. */
  fit(cell) {
    // Typed text can be any length (100,000 digits): past MAX_CHARS the cell scrolls its text instead of growing.
    const chars = Math.min(cell.value.length, MAX_CHARS);
    if (chars <= Number(cell.style.getPropertyValue('--cell-chars'))) return;
    for (const c of this.root.querySelectorAll(`input.cell[data-matrix="${cell.dataset.matrix}"][data-col="${cell.dataset.col}"]`)) {
      c.style.setProperty('--cell-chars', String(chars));
    }
  }

  /**
   * The message line under a grid: a refused paste into it, else the newest invalid cell shown in it. The line
   * always has its height (style.js), so a message coming or going never moves the heatmaps.
   */
  renderMessage(fieldset) {
    const name = fieldset.dataset.name;
    let text = this.note?.matrix === name ? this.note.text : '';
    if (!text) {
      for (const [key, { message }] of this.invalid) {
        const [m, r, c] = key.split(':');
        if (m === name && this.cell(m, r, c)) text = say('invalid', { matrix: m, row: r, col: c }, message);
      }
    }
    const msg = fieldset.querySelector('.cell-msg');
    // Unchanged text is not rewritten: any DOM write makes the next canvas font lookup restyle the page.
    if (msg.textContent === text) return;
    msg.textContent = text;
    // Two lines are shown; the whole message is the title (and what a screen reader hears).
    if (text) msg.title = text; else msg.removeAttribute('title');
  }

  /** Clears a refused paste's message: the reader has moved on. */
  clearNote() {
    if (!this.note) return;
    const fieldset = this.root.querySelector(`fieldset[data-name="${this.note.matrix}"]`);
    this.note = null;
    if (fieldset) this.renderMessage(fieldset);
  }

  /** Moves a window a page at a time (▲▼◀▶) and shows the cells there. */
  moveWindow(button) {
    const [name, dr, dc] = button.dataset.window.split(':');
    const [r, c] = this.windows.get(name) ?? [0, 0];
    const [rows, cols] = this.grid(name).page;
    this.windows.set(name, [Math.max(0, r + Number(dr) * rows), Math.max(0, c + Number(dc) * cols)]);
    this.build();
    // Keep the keyboard where it was; at the last page that button is disabled: the window's first cell instead.
    (this.root.querySelector(`button[data-window="${button.dataset.window}"]:not([disabled])`)
      ?? this.root.querySelector(`input.cell[data-matrix="${name}"]`))?.focus();
  }

  /** The cell next to `cell`; past the edge of the window of cells, the window first moves one row or column. */
  neighbour(cell, dr, dc) {
    const { matrix } = cell.dataset;
    const [r, c] = [Number(cell.dataset.row) + dr, Number(cell.dataset.col) + dc];
    const { shape, page, window: [r0, c0] } = this.grid(matrix);
    if (this.cell(matrix, r, c) || r < 0 || c < 0 || r >= shape[0] || c >= shape[1]) return this.cell(matrix, r, c);
    const shift = (at, x, size) => (x < at ? x : x >= at + size ? x - size + 1 : at);
    this.windows.set(matrix, [shift(r0, r, page[0]), shift(c0, c, page[1])]);
    this.build();
    return this.cell(matrix, r, c);
  }

  /**
   * The texts the window [r0, r1) × [c0, c1) of `name` shows, row by row, when the author set `fmt`: the values as the
   * core writes that matrix's numbers with it (the heatmaps' annotations; seaborn's fmt), one call for the window;
   * null (the whole values) without `fmt`, for a vector, or when the core cannot write them so. A text that does not
   * read back as a number (`.1%`) leaves its cell the whole value. Either way each cell's title is its whole value,
   * and stepping or scrubbing starts from it.
   */
  shownTexts(name, r0, r1, c0, c1) {
    const { port } = this;
    const spec = port.state.fmtGiven && !this.grid(name)?.vector ? port.state.fmt : undefined;
    if (spec === undefined) return null;
    let texts;
    try { texts = port.ask({ kind: 'cellTexts', view: name, r0, r1, c0, c1, fmt: spec }); } catch { return null; }
    return texts.length === (r1 - r0) * (c1 - c0) ? texts.map((t) => (parseCell(t).error ? undefined : t)) : null;
  }

  /** The text cell (i, j) of `name` shows for its value x (see `shownTexts`). */
  shown(name, i, j, x) {
    return this.shownTexts(name, i, i + 1, j, j + 1)?.[0] ?? String(x);
  }

  /** The number a cell's text stands for: the valid state's value while it shows that (maybe rounded, see `shown`). */
  valueOf(cell) {
    if (cell.value === cell.dataset.shown) return { value: this.currentValue(cell) };
    return parseCell(cell.value);
  }

  /** The value of a cell in the valid state (not what is typed in it): its grid's window holds it. */
  currentValue(cell) {
    const { matrix, row, col } = cell.dataset;
    const { values, window: [r0, c0] } = this.grid(matrix);
    return values[Number(row) - r0][Number(col) - c0];
  }

  /** The core's step of a cell's matrix (read from the valid state, not from what is typed). */
  step(cell) {
    return this.grid(cell.dataset.matrix).step;
  }

  nudge(cell, steps, fine) {
    const p = this.valueOf(cell);
    if (p.error) return;
    const step = this.step(cell) * (fine ? 0.1 : 1);
    const decimals = Math.max(0, -Math.floor(Math.log10(step)));
    cell.value = String(Number((p.value + steps * step).toFixed(decimals)));
    this.setCell(cell, cell.value);
  }

  /** Applies the text of a cell: a valid number is one edit in Rust; anything else marks the cell. */
  setCell(cell, text) {
    this.clearNote();
    this.fit(cell);
    const parsed = parseCell(text);
    if (parsed.error) { this.markInvalid(cell, parsed.error); return; }
    const { port } = this;
    const { matrix } = cell.dataset;
    const [row, col] = [Number(cell.dataset.row), Number(cell.dataset.col)];
    if (port.dispatch({ value: [matrix, row, col, parsed.value] }, { cell })) {
      cell.title = String(parsed.value);
    }
  }

  /** A value the figure cannot take: the cell keeps the text and says why; the figure keeps the last valid state. */
  markInvalid(cell, message) {
    this.invalid.delete(cellKey(cell)); // re-inserted: the newest is the one the message line shows
    this.invalid.set(cellKey(cell), { text: cell.value, message });
    this.describe(cell);
    this.renderMessage(cell.closest('fieldset'));
    this.port.signal(say('said', cell, message));
  }

  describe(cell) {
    cell.setAttribute('aria-invalid', 'true');
    cell.setAttribute('aria-describedby', cell.closest('fieldset').querySelector('.cell-msg').id);
  }

  clearInvalid(cell) {
    if (!this.invalid.delete(cellKey(cell)) && !cell.hasAttribute('aria-invalid')) return;
    cell.removeAttribute('aria-invalid');
    cell.removeAttribute('aria-describedby');
    this.renderMessage(cell.closest('fieldset'));
  }

  /**
   * A paste that cannot be applied: the message line says why and `error` fires, but the cell is not marked —
   * its value is still valid, and it still holds it.
   */
  pasteFailed(cell, message) {
    this.note = { matrix: cell.dataset.matrix, text: say('paste', cell, message) };
    this.renderMessage(cell.closest('fieldset'));
    this.port.signal(say('said', cell, message));
  }

  // ---- events ---------------------------------------------------------------------------------

  onInput(e) {
    const cell = e.target.closest?.('input.cell');
    if (cell) this.setCell(cell, cell.value);
  }

  /** A token name is applied when its field is left or Enter is pressed. */
  onChange(e) {
    const t = e.target;
    if (t.dataset?.token === undefined) return;
    const { port } = this;
    const i = Number(t.dataset.token);
    if (t.value.trim() === '') { t.value = port.state.facts.tokens[i]; port.fail('A token needs a name; the old one is kept.'); return; }
    // The grids are not rebuilt: the name is already in its field, and Tab is on its way to the next one.
    port.dispatch(() => port.edit({ renameToken: [i, t.value] }), { rebuild: 'labels' });
  }

  onKey(e) {
    const cell = e.target.closest?.('input.cell');
    if (!cell) return;
    let target = null;
    if ((e.key === 'ArrowUp' || e.key === 'ArrowDown') && (e.altKey || e.metaKey)) {
      e.preventDefault();
      this.nudge(cell, e.key === 'ArrowUp' ? 1 : -1, e.shiftKey);
      return;
    }
    if (e.key === 'ArrowUp') target = this.neighbour(cell, -1, 0);
    else if (e.key === 'ArrowDown' || (e.key === 'Enter' && !e.shiftKey)) target = this.neighbour(cell, 1, 0);
    else if (e.key === 'Enter' && e.shiftKey) target = this.neighbour(cell, -1, 0);
    else if (e.key === 'ArrowLeft' && cell.selectionStart === 0 && cell.selectionEnd === 0) target = this.neighbour(cell, 0, -1);
    else if (e.key === 'ArrowRight' && cell.selectionStart === cell.value.length) target = this.neighbour(cell, 0, 1);
    else if (e.key === 'Escape') {
      const x = this.currentValue(cell);
      cell.value = String(x);
      this.setCell(cell, cell.value);
      // Back to the text the valid value shows as (rounded with `fmt`), as if never typed in.
      const { matrix, row, col } = cell.dataset;
      cell.value = cell.dataset.shown = this.shown(matrix, Number(row), Number(col), x);
      return;
    }
    if (target || e.key === 'Enter' || e.key.startsWith('Arrow')) e.preventDefault();
    if (target) { target.focus(); target.select(); }
  }

  onPointerDown(e) {
    const cell = e.target.closest?.('input.cell');
    if (!cell || e.button !== 0) return;
    const p = this.valueOf(cell);
    this.scrub = { cell, x0: e.clientX, v0: p.error ? this.currentValue(cell) : p.value, id: e.pointerId, active: false };
  }

  /** Dragging a cell sideways scrubs its value: a step per 6 px (Shift: a tenth of a step). */
  onPointerMove(e) {
    const s = this.scrub;
    if (!s || e.pointerId !== s.id) return;
    // Released outside the grids before the drag began (no capture yet, so no pointerup here): not a scrub.
    if (!s.active && !(e.buttons & 1)) { this.scrub = null; return; }
    const dx = e.clientX - s.x0;
    if (!s.active && Math.abs(dx) > 4) {
      s.active = true;
      s.cell.setPointerCapture?.(e.pointerId);
      s.cell.classList.add('scrubbing');
      s.step = this.step(s.cell);
      this.port.tell('scrubStart'); // the heatmaps keep their palettes until the release
    }
    if (!s.active) return;
    e.preventDefault();
    const step = s.step * (e.shiftKey ? 0.1 : 1);
    const decimals = Math.max(0, -Math.floor(Math.log10(step)));
    const value = Number((s.v0 + Math.round(dx / 6) * step).toFixed(decimals));
    if (String(value) !== s.cell.value) {
      s.cell.value = String(value);
      this.setCell(s.cell, s.cell.value);
    }
  }

  onPointerUp(e) {
    const s = this.scrub;
    if (!s || e.pointerId !== s.id) return;
    this.scrub = null;
    if (s.active) {
      s.cell.classList.remove('scrubbing');
      s.cell.releasePointerCapture?.(e.pointerId);
      e.preventDefault();
      this.port.tell('scrubEnd'); // palettes follow the values again; sizes are measured again
    }
  }

  onWheel(e) {
    const cell = e.target.closest?.('input.cell');
    if (!cell || !(e.altKey || e.metaKey)) return;
    e.preventDefault();
    this.nudge(cell, e.deltaY < 0 ? 1 : -1, e.shiftKey);
  }

  /**
   * Pasting a block of numbers (spreadsheet rows, a Python list, a NumPy or PyTorch array: see parseBlock) fills
   * cells from the target down and right, as one edit. A single value is left to the browser: it is typed text.
   */
  onPaste(e) {
    const cell = e.target.closest?.('input.cell');
    const text = e.clipboardData?.getData('text') ?? '';
    if (!cell) return;
    // Too long to read in one task, as a block or as one cell's text (which would be as wide as the text).
    const refused = tooLong(text);
    if (!refused && !isBlock(text)) return;
    e.preventDefault();
    this.clearNote();
    const block = refused ?? parseBlock(text);
    if (block.error) { this.pasteFailed(cell, say('unread', cell, block.error)); return; }
    const { rows } = block;
    const { matrix } = cell.dataset;
    const r0 = Number(cell.dataset.row);
    const c0 = Number(cell.dataset.col);
    const { port } = this;
    let width = 0;
    for (const row of rows) width = Math.max(width, row.length); // not Math.max(...rows): 200 000 rows overflow the stack
    // Whether the block fits from this cell is the core's to say, in its words.
    const misfit = port.ask({ kind: 'blockFit', matrix, row: r0, col: c0, rows: rows.length, cols: width });
    if (misfit !== undefined) {
      // Pasted into the first cell, an array of another shape replaces the whole matrix (importer.js: it asks first
      // when the other matrices no longer agree); anywhere else it is a block that does not fit.
      if (r0 === 0 && c0 === 0 && port.tell('importWhole', matrix, rows, { returnTo: cell })) return;
      this.pasteFailed(cell, misfit);
      return;
    }
    rows.forEach((row, i) => row.forEach((x, j) => {
      this.invalid.delete(`${matrix}:${r0 + i}:${c0 + j}`); // typed text there is replaced
    }));
    // One edit: the core writes the block and checks the config it makes (src/edits.rs with_block).
    port.dispatch(() => port.edit({ block: [matrix, r0, c0, rows] }), { rebuild: true });
  }
}
