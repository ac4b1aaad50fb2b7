// Owns the `persist` attribute: the state saved in localStorage a moment after the last edit (not on every scrub
// step), read back on load, forgotten on Reset. Storage the browser refuses (disabled, full, sandboxed) is said once
// in the status line; the edits then last until the reader leaves the page.
//
// The key is the page (its path, `/dir/` and `/dir/index.html` alike), the figure (its id, else its position) and a
// short hash of the figure's starting config as its author wrote it: saved edits of another config (the page changed
// the figure, or a figure without an id moved) never apply. A state longer than a share state may be (MAX_LEN of
// src/share.rs) is never saved: it could not be restored. Another tab saving this figure is said on the figure.
import { shareKey } from './share.js';

/** The longest state the core restores (src/share.rs MAX_LEN): a longer one is never saved. */
export const MAX_STATE = 4_000_000;

/** FNV-1a (32 bits) of a string, in base 36: a short name of the author's config in the storage key. */
export function shortHash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 16777619); }
  return (h >>> 0).toString(36);
}

/** `/dir/index.html` and `/dir/` are the same page. */
export function pagePath() {
  return location.pathname.replace(/\/index\.html?$/, '/');
}

export class Persist {
  constructor(host) {
    this.host = host;
    this.timer = null;
    this.warned = false;
    this.tooLong = false;
    this.cached = null;
    this.onStorage = (e) => this.fromOtherTab(e);
  }

  /**
   * Per page, per figure and per starting config. Fixed at each load (`reset`): a figure that is taken out of the
   * page still saves under the name it was loaded with.
   */
  key() {
    if (!this.cached) this.cached = `attention-viz:${pagePath()}:${shareKey(this.host)}:${this.host._configHash ?? '0'}`;
    return this.cached;
  }

  /** A new load (new config, or the element's place may have changed): the key is computed again. */
  reset() { this.cached = null; }

  /** Connected: other tabs' saves of this figure are watched. */
  start() { window.addEventListener('storage', this.onStorage); }

  stop() { window.removeEventListener('storage', this.onStorage); }

  /** localStorage, or null when the browser refuses it (disabled, sandboxed, private mode). */
  storage() {
    try {
      return window.localStorage;
    } catch {
      return null;
    }
  }

  problem() {
    if (this.warned) return;
    this.warned = true;
    this.host._status('Your edits cannot be saved in this browser (storage is full or turned off); they last until you leave the page.', true);
  }

  /** A reader's edit: saved a moment later. The figure's state in the URL (a link) is older than it from now on. */
  schedule() {
    if (!this.host.persist) return;
    this.host._share?.leaveURL();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.saveNow(), 250);
  }

  /** Leaving the page (or the element leaving it): only a save still pending is written. */
  flush() { if (this.timer) this.saveNow(); }

  saveNow() {
    clearTimeout(this.timer);
    this.timer = null;
    const { host } = this;
    if (!host.persist || !host._viz) return;
    const storage = this.storage();
    const state = host._viz.shareState(host._showNaive);
    if (state.length > MAX_STATE) {
      // It could not be restored: saving it would only lose it on the next load. The older saved edits go too, or
      // a reload would bring back edits older than the ones on screen.
      try { storage?.removeItem(this.key()); } catch { /* nothing saved */ }
      this.lastWritten = null;
      if (!this.tooLong) {
        this.tooLong = true;
        this.host._status(`This figure is too large to save (its state is ${state.length.toLocaleString('en')} characters, more than the ${MAX_STATE.toLocaleString('en')} that can be restored); your edits last until you leave the page.`, true);
      }
      return;
    }
    this.tooLong = false;
    try {
      if (!storage) throw new Error('no storage');
      storage.setItem(this.key(), state);
      this.lastWritten = state;
    } catch {
      this.problem();
    }
  }

  /** The saved state (share-link text), or null. */
  saved() {
    const storage = this.storage();
    try {
      return storage ? storage.getItem(this.key()) : null;
    } catch {
      this.problem();
      return null;
    }
  }

  forget() {
    clearTimeout(this.timer);
    this.timer = null;
    if (!this.host.persist) return;
    try { this.storage()?.removeItem(this.key()); } catch { /* nothing saved */ }
  }

  /** Another tab saved edits of this figure: said on the figure, with the way to load them; never applied silently. */
  fromOtherTab(e) {
    const { host } = this;
    if (!host.persist || !host._viz || e.key !== this.key() || e.newValue === null || e.storageArea !== this.storage()) return;
    if (e.newValue === host._viz.shareState(host._showNaive)) return;
    host._offer('This figure was changed in another tab.', 'Load those edits', 'load-other-tab', () => {
      const text = this.saved();
      if (text === null) { host._status('Those edits are gone (the other tab reset them).'); return; }
      host._restoreFrom(text, 'Showing the edits made in another tab.');
    });
  }
}
