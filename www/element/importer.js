// Owns the import controls of the input grids: a file dropped on a grid (a .npz, or several files named after the
// matrices, anywhere on the figure), the "Import…" button of each grid, and a whole array of another shape pasted
// into a grid's first cell (inputs.js hands it over), and the import's messages. The work of an import (reading the
// files, the shape dialog, applying: one `import` edit through port.dispatch) is import-plan.js, imported on the first
// import, paste of a whole array or focus of a grid (a figure nobody imports into never needs it). Every word said
// about an import is the core's (src/import.rs; the buttons' from src/controls.rs `inputs`).
import { el } from './dom.js';

const ACCEPT = '.npy,.npz,.json,.csv,.tsv,.txt';

/** import-plan.js, once (its methods put on Importer.prototype); a failed import is tried again next time. */
let work = null;
function loadWork() {
  work ??= import('./import-plan.js').then((m) => {
    for (const name of Object.getOwnPropertyNames(m.Work.prototype)) {
      if (name !== 'constructor') Object.defineProperty(Importer.prototype, name, Object.getOwnPropertyDescriptor(m.Work.prototype, name));
    }
  }, (e) => { work = null; throw e; });
  return work;
}

export class Importer {
  constructor(port, api) {
    this.port = port;
    this.api = api;
    this.target = null; // the grid the file picker was opened for
    this.returnTo = null; // and its button, which gets the focus back
    this.pending = null; // the open dialog: {panel, refocus (gives the focus back where it was)}
    this.file = el('input', { type: 'file', accept: ACCEPT, multiple: true, hidden: true, 'data-role': 'import-file', tabindex: '-1', 'aria-hidden': 'true' });
    this.file.addEventListener('change', () => {
      const files = [...this.file.files];
      this.file.value = ''; // the same file picked again is a new import
      if (files.length) this.importFiles(files, this.target, this.returnTo);
    });
    // Above the grids: what a drop outside them (a .npz) says, and its dialog.
    this.root = el('div', { class: 'imports', hidden: true }, this.file);
    const shadow = port.shadow;
    shadow.addEventListener('dragenter', (e) => this.onDrag(e));
    shadow.addEventListener('dragover', (e) => this.onDrag(e));
    shadow.addEventListener('dragleave', (e) => { if (!e.relatedTarget || !shadow.contains(e.relatedTarget)) this.highlight(null, false); });
    shadow.addEventListener('drop', (e) => this.onDrop(e));
    // A reader in the grids may paste a whole array next: the import's work is fetched then, not at the paste.
    port.tell('inputsRoot').addEventListener('focusin', () => this.prepare(), { once: true });
  }

  /** Imports need the grids: a figure that is not editable, or shows no inputs, takes no file. */
  get enabled() { return this.port.state.editable && !this.port.tell('inputsRoot').hidden; }

  /** An input grid's model (the core's, src/controls.rs `inputs`): its import words among it. */
  grid(name) { return this.port.state.parts.inputs?.find((g) => g.name === name); }

  /** Each grid gets its "Import…" button (inputs.js calls this after building them). */
  decorate(fieldsets) {
    if (this.pending && !this.pending.panel.isConnected) this.pending = null; // the grids were rebuilt, its dialog with them
    // A message above the grids is about the figure as it was: it goes with the grids' messages.
    for (const old of this.root.querySelectorAll('.import-msg')) old.remove();
    if (this.root.childElementCount === 1) this.root.hidden = true;
    if (!this.port.state.editable) return;
    for (const fieldset of fieldsets) {
      const name = fieldset.dataset.name;
      const words = this.grid(name).import;
      const button = el('button', {
        type: 'button', class: 'import', 'data-action': 'import', 'data-matrix': name, text: 'Import…',
        'aria-label': words.label, title: words.title,
      });
      button.addEventListener('click', () => this.pick(name, button));
      fieldset.querySelector('legend').after(el('div', { class: 'import-tools' }, button));
    }
  }

  /** Opens the file picker for grid `name`. */
  pick(name, button) {
    this.target = name;
    this.returnTo = button;
    this.file.click();
  }

  // ---- drag and drop ---------------------------------------------------------------------------

  onDrag(e) {
    if (!this.enabled || !e.dataTransfer?.types?.includes('Files')) return;
    e.preventDefault(); // a drop is allowed here
    e.dataTransfer.dropEffect = 'copy';
    this.highlight(e.target.closest?.('fieldset.matrix') ?? null, true);
  }

  /** Outlines the grid under the pointer and, faintly, every grid while files are dragged over the figure. */
  highlight(fieldset, dragging) {
    const inputs = this.port.tell('inputsRoot');
    inputs.classList.toggle('dragging', dragging);
    for (const f of inputs.querySelectorAll('fieldset.drop-target')) if (f !== fieldset) f.classList.remove('drop-target');
    if (fieldset) {
      fieldset.classList.add('drop-target');
      fieldset.dataset.dropLabel = this.grid(fieldset.dataset.name)?.import.drop ?? '';
    }
  }

  onDrop(e) {
    if (!this.enabled || !e.dataTransfer?.types?.includes('Files')) return;
    e.preventDefault();
    const fieldset = e.target.closest?.('fieldset.matrix') ?? null;
    this.highlight(null, false);
    const files = [...(e.dataTransfer.files ?? [])];
    if (files.length) this.importFiles(files, fieldset?.dataset.name ?? null, this.focused());
  }

  /** The control that has the keyboard now: the dialog gives it back. */
  focused() {
    return this.port.shadow.activeElement ?? document.activeElement;
  }

  // ---- the import's work (import-plan.js) ------------------------------------------------------------------

  /** Imports the parts that do an import ahead of the reader (a grid's first focus): nothing waits for it. */
  prepare() { loadWork().catch(() => {}); }

  /**
   * Reads `files` and imports them: into grid `target` (a single array), or every matrix a .npz (or the files'
   * own names: w_q.npy) names. Nothing changes until every file has been read.
   */
  async importFiles(files, target, returnTo = null) {
    if (!await this.working(target)) return;
    await this.readFiles(files, target, returnTo);
  }

  /**
   * A whole array pasted into the first cell of `matrix` (inputs.js): the same path as a file. Before import-plan.js
   * has arrived (the grids' first focus asked for it), it waits for it; edits typed meanwhile go first.
   */
  replace(matrix, array, options = {}) {
    if (this.replaceNow) { this.replaceNow(matrix, array, options); return; }
    this.working(matrix).then((ok) => { if (ok) this.replaceNow(matrix, array, options); });
  }

  /** Whether import-plan.js is there (imported now if need be); if it cannot be, says so beside grid `near`. */
  async working(near) {
    try {
      // Planning an import is the whole core's (src/import.rs): the figure moves to it first.
      await Promise.all([loadWork(), this.port.needWhole()]);
      return true;
    } catch (e) {
      const message = `The importer could not be loaded (${e?.message ?? e}): reload the page to try again.`;
      this.say(message, { near, error: true });
      this.port.signal(message);
      return false;
    }
  }

  /**
   * The import's message, under grid `near` (or above the grids): kept until the next import or the next rebuild
   * of the grids. An empty text removes it.
   */
  say(text, { near = null, error = false } = {}) {
    for (const old of this.port.shadow.querySelectorAll('.import-msg')) old.remove();
    if (this.root.childElementCount === 1) this.root.hidden = true;
    if (!text) return;
    const msg = el('div', { class: `import-msg${error ? ' error' : ''}`, role: error ? 'alert' : 'status', text });
    this.place(msg, near);
  }

  /** Puts a message or the dialog right after grid `near` (where the reader is looking), else above the grids. */
  place(node, near) {
    const fieldset = near && this.port.tell('inputsRoot').querySelector(`fieldset[data-name="${near}"]`);
    if (fieldset) { fieldset.after(node); return; }
    this.root.append(node);
    this.root.hidden = false;
  }
}
