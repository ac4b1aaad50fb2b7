// Owns the `persist` attribute: the state saved in localStorage a moment after the last edit (not on every scrub
// step), read back on load, forgotten on Reset. Storage the browser refuses (disabled, full, sandboxed) is said once
// in the status line; the edits then last until the reader leaves the page.
import { shareKey } from './share.js';

export class Persist {
  constructor(host) {
    this.host = host;
    this.timer = null;
    this.warned = false;
  }

  /** Per page and per figure (the share key), so two figures never overwrite each other. */
  key() { return `attention-viz:${location.pathname}:${shareKey(this.host)}`; }

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

  /** Saves a moment after the last edit. */
  schedule() {
    if (!this.host.persist) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.saveNow(), 250);
  }

  /** Leaving the page: only a save still pending is written. */
  flush() { if (this.timer) this.saveNow(); }

  saveNow() {
    clearTimeout(this.timer);
    this.timer = null;
    const { host } = this;
    if (!host.persist || !host._viz) return;
    const storage = this.storage();
    try {
      if (!storage) throw new Error('no storage');
      storage.setItem(this.key(), host._viz.shareState(host._showNaive));
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
}
