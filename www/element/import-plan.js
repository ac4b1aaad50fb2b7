// Owns an import's work, imported on demand (importer.js: the first import, the first paste of a whole array, or a
// grid's first focus; a figure nobody imports into never needs it): reading the files (www/arrays.js), the
// shape-mismatch alertdialog (resize with `np.random.seed(42)` + `rand` values, or cancel) and applying it (one
// `import` edit through port.dispatch). The core plans it (src/import.rs, asked as `importPlan`): which array goes to
// which input, what disagrees, the dialog's words and every message. Its methods (`Work`'s) are the Importer's:
// importer.js puts them on its prototype when this module arrives.
import { el, rememberFocus } from './dom.js';

/** Is this byte content a .npz (a zip), a .npy, or text? Read from the bytes: a file's name may say anything. */
function kindOf(bytes) {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return 'npz';
  if (bytes[0] === 0x93 && String.fromCharCode(...bytes.subarray(1, 6)) === 'NUMPY') return 'npy';
  return 'text';
}

/** The Importer's methods that do an import (`this` is the Importer: importer.js puts them on its prototype). */
export class Work {
  // ---- reading files ---------------------------------------------------------------------------

  /**
   * Reads `files` and imports them: into grid `target` (a single array), or every matrix a .npz (or the files'
   * own names: w_q.npy) names. Nothing changes until every file has been read.
   */
  async readFiles(files, target, returnTo = null) {
    this.say('', { near: target });
    const found = []; // {member, named, array}: every array of every file; {member, error}: a file not read
    const source = files.map((f) => f.name).join(', ');
    try {
      // Loaded on the first import: a figure nobody imports into never needs the parsers.
      const { parseArray, parseArrays, loadInflate } = await import('../arrays.js');
      await loadInflate(); // a compressed .npz's inflater
      for (const file of files) {
        const bytes = new Uint8Array(await file.arrayBuffer());
        const kind = kindOf(bytes);
        try {
          const text = kind === 'text' ? new TextDecoder().decode(bytes) : null;
          // A .npz, or a JSON object of arrays ({"embeddings": […], "w_q": […]}), names its arrays.
          if (kind === 'npz' || text?.trimStart().startsWith('{')) {
            for (const [member, array] of Object.entries(parseArrays(text ?? bytes))) found.push({ member, array, named: true });
          } else found.push({ member: file.name, array: parseArray(text ?? bytes), named: false });
        } catch (e) {
          this.importAll({ found: [{ member: file.name, error: String(e?.message ?? e) }], target, source }, returnTo);
          return;
        }
      }
    } catch (e) {
      this.importAll({ found: [{ member: source, error: String(e?.message ?? e) }], target, source }, returnTo);
      return;
    }
    this.importAll({ found, target, source }, returnTo);
  }

  /** A whole array pasted into the first cell of `matrix` (inputs.js): the same path as a file. */
  replaceNow(matrix, array, { source = 'the pasted array', returnTo = null } = {}) {
    this.say('', { near: matrix });
    this.importAll({ found: [{ member: source, array, named: false }], target: matrix, source }, returnTo);
  }

  /**
   * Imports `job` ({found, target, source}: the core's `import`): at once when the other inputs agree, else through
   * the dialog; or the core's refusal, said beside the grid.
   */
  importAll(job, returnTo) {
    const plan = this.plan(job);
    if (plan.error) { this.refuse(plan.error, job.target); return; }
    job.returnTo = returnTo;
    job.into = plan.into;
    if (plan.dialog) this.ask(plan.dialog, job);
    else this.apply(job);
  }

  /** The core's plan of `job` against the figure now: `{error}` or `{dialog, message, into}`. */
  plan({ found, target, source }) {
    return this.port.ask({ kind: 'importPlan', found, target: target ?? undefined, source });
  }

  // ---- the dialog ------------------------------------------------------------------------------

  /** The inline alertdialog: what disagrees, the fix (resize with seeded random values), or Cancel. */
  ask(dialog, job) {
    // A dialog already open gives way; the focus it was to give back is this one's to give back.
    const open = this.pending;
    const refocus = open?.panel.contains(job.returnTo) ? open.refocus : this.returnPoint(job);
    this.close({ refocus: false });
    const fix = el('button', { type: 'button', 'data-action': 'import-resize', text: dialog.resize });
    const cancel = el('button', { type: 'button', 'data-action': 'import-cancel', text: 'Cancel' });
    const panel = el('div', { class: 'import-dialog', role: 'alertdialog', 'aria-labelledby': 'import-title', 'aria-describedby': 'import-what import-fix' },
      el('p', { class: 'import-title', id: 'import-title', text: dialog.title }),
      el('p', { id: 'import-what', text: dialog.what }),
      el('p', { class: 'import-fix', id: 'import-fix', text: dialog.fix }),
      el('div', { class: 'import-buttons' }, fix, cancel));
    fix.addEventListener('click', () => { this.close(); this.apply(job); });
    cancel.addEventListener('click', () => this.close());
    panel.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      this.close();
    });
    this.pending = { panel, refocus };
    this.place(panel, job.target);
    fix.focus();
    panel.scrollIntoView?.({ block: 'nearest' });
  }

  /**
   * Where the keyboard goes when the dialog closes: the control of this figure that had it (the Import… button that
   * opened the picker, the cell pasted into), else — a file dropped from outside, while the page had the focus — the
   * Import… button of the grid the array was for.
   */
  returnPoint(job) {
    const root = this.port.shadow;
    if (job.returnTo && root.contains(job.returnTo)) return this.focusReturn(job.returnTo);
    const name = job.target ?? job.into[0];
    return () => root.querySelector(`button[data-action="import"][data-matrix="${name}"]`)?.focus({ preventScroll: true });
  }

  /** Gives the focus back to `node` (or, after a rebuild, to its replacement) when the dialog closes. */
  focusReturn(node) {
    const inside = node && this.port.shadow.contains(node);
    const again = inside ? rememberFocusOf(this.port.shadow, node) : () => {};
    return () => {
      if (node?.isConnected && typeof node.focus === 'function') node.focus({ preventScroll: true });
      else again();
    };
  }

  /** Closes the dialog; the focus goes back where it was. */
  close({ refocus = true } = {}) {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    const hadFocus = p.panel.contains(this.port.shadow.activeElement);
    p.panel.remove();
    if (this.root.childElementCount === 1) this.root.hidden = true;
    if (refocus && hadFocus) p.refocus();
  }

  // ---- applying --------------------------------------------------------------------------------

  /**
   * One `import` edit, planned again by the core against the config as it is now (the reader may have typed while
   * the dialog was open). A refusal keeps the figure and says why beside the grid.
   */
  apply(job) {
    const { port } = this;
    const { found, target, source } = job;
    const plan = this.plan(job);
    if (plan.error) { this.refuse(plan.error, target); return; }
    let refused = null;
    const ok = port.dispatch(() => {
      try { port.edit({ import: { found, target: target ?? undefined, source } }); } catch (e) { refused = e; throw e; }
    }, { rebuild: true });
    if (!ok) {
      // _apply has said it in the status line and fired `error`; say it where the reader is looking too.
      this.say(refused?.message ?? '', { near: target, error: true });
      return;
    }
    this.say(plan.message, { near: target });
  }

  // ---- messages --------------------------------------------------------------------------------

  /** A refusal: said beside the grid (or above the grids) and as an `error` event; nothing changed. */
  refuse(message, target) {
    this.say(message, { near: target, error: true });
    this.port.signal(message);
  }
}

/** rememberFocus (dom.js) for a node that has the focus or had it: its replacement after a rebuild. */
function rememberFocusOf(root, node) {
  if (root.activeElement === node) return rememberFocus(root);
  return () => {};
}
