// Owns the `persist` attribute: the state saved in localStorage a moment after the last edit (not on every scrub
// step), read back on load, forgotten on Reset. Storage the browser refuses (disabled, full, sandboxed) is said once
// in the status line; the edits then last until the reader leaves the page.
//
// The key is the page (its path, `/dir/` and `/dir/index.html` alike), the figure and a short hash of the figure's
// starting config as its author gave it (attribute, inline JSON, preset, or the `config` property): saved edits of
// another config never apply. The figure is its id; a figure without one is its `views` and its place among the
// page's persisted figures without an id that show the same config and the same views, and how many there are of
// those ("~views~k/N"): adding, removing or moving other figures leaves its key alone, and when a figure like it is
// added or removed (N changes) its saved edits are set aside rather than shown on the wrong figure. Such twins cannot
// be told apart by anything but their order, which the author is told once (console.warn). Saved edits that no figure
// of the page claims and that look like a figure's (its name, or its config) are offered on it, never shown silently
// or dropped without a word.
//
// What is saved and whether it can be is the core's call (its `savedState`): a model's weights figure saves only its
// selection (the stack is the page's), and a state longer than the core restores is never written out, nor saved.
// Another tab saving this figure is said on the figure.

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

/** The author was told once per page that persisted figures without ids cannot be told apart. */
let twinsWarned = false;

/** A figure's name in its storage key: its id, else `~views~k/N` (see the top of this file). */
export function persistName(host) {
  if (host.id) return host.id;
  const views = host.getAttribute('views') ?? '';
  const hash = host._authorHash();
  const twins = [...document.querySelectorAll('attention-viz')].filter((e) => e === host
    || (e.persist && !e.id && (e.getAttribute('views') ?? '') === views && typeof e._authorHash === 'function' && e._authorHash() === hash));
  if (twins.length > 1 && !twinsWarned) {
    twinsWarned = true;
    console.warn(`attention-viz: ${twins.length} figures with \`persist\` show the same config and views and have no id, so only their order tells their saved edits apart; when a figure like them is added or removed, their saved edits are set aside (and offered to the reader). Give each persisted figure an id.`);
  }
  return `~${encodeURIComponent(views)}~${Math.max(0, twins.indexOf(host))}/${twins.length}`;
}

/** Whether the figure named `name` in a key (`~views~k/N`, or an id: any) showed the views `host` shows. */
function sameViews(name, host) {
  if (!name.startsWith('~')) return true;
  try { return decodeURIComponent(name.slice(1, name.indexOf('~', 1))) === (host.getAttribute('views') ?? ''); } catch { return false; }
}

/** [name, hash] of a storage key of this page, or null for another page's or another library's key. */
function parseKey(key, prefix) {
  if (!key?.startsWith(prefix)) return null;
  const rest = key.slice(prefix.length);
  const cut = rest.lastIndexOf(':');
  return cut < 0 ? null : [rest.slice(0, cut), rest.slice(cut + 1)];
}

export class Persist {
  constructor(host) {
    this.host = host;
    this.timer = null;
    this.warned = false;
    /** The core's message while the state is too long to save (said again on each edit), else null. */
    this.tooLong = null;
    this.cached = null;
    this.onStorage = (e) => this.fromOtherTab(e);
  }

  /**
   * Per page, per figure and per starting config. Fixed at each load (`reset`): a figure that is taken out of the
   * page still saves under the name it was loaded with.
   */
  key() {
    if (!this.cached) this.cached = `attention-viz:${pagePath()}:${persistName(this.host)}:${this.host._authorHash()}`;
    return this.cached;
  }

  /** A new load or starting config (the element's place may have changed too): the key is computed again. */
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
    // Each edit clears the status line: a figure too large to save says so again until it is not.
    if (this.tooLong) this.host._status(this.tooLong, true);
    this.host._share?.leaveURL();
    // Saving is the whole core's (src/share.rs): a figure that became `persist` after it loaded moves to it now.
    this.host._needWhole().catch(() => {});
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
    let state;
    try {
      // The core decides from the sizes before writing anything out (a weights figure: its selection only).
      state = host._ask({ kind: 'savedState', naive: host._state.naive });
    } catch (e) {
      // It could not be restored: saving it would only lose it on the next load. The older saved edits go too, or
      // a reload would bring back edits older than the ones on screen.
      try { storage?.removeItem(this.key()); } catch { /* nothing saved */ }
      this.lastWritten = null;
      this.tooLong = e.message;
      host._status(e.message, true);
      return;
    }
    if (this.tooLong) { this.tooLong = null; host._status(''); }
    try {
      if (!storage) throw new Error('no storage');
      storage.setItem(this.key(), state);
      this.lastWritten = state;
    } catch {
      this.problem();
    }
  }

  /** What would be saved now (null when it cannot be): to tell another tab's save from this one's. */
  current() {
    try { return this.host._ask({ kind: 'savedState', naive: this.host._state.naive }); } catch { return null; }
  }

  /**
   * Saved edits of this page that no figure of it claims and that look like this figure's: saved under its name for
   * another config (the page changed the figure), or for its config under another name (figures like it were added
   * or removed). `{key, text, sameName}` of the first such, or null.
   */
  orphan() {
    const storage = this.storage();
    if (!storage) return null;
    const prefix = `attention-viz:${pagePath()}:`;
    const mine = parseKey(this.key(), prefix);
    try {
      const claimed = new Set([...document.querySelectorAll('attention-viz')]
        .filter((e) => e.persist && e._persist).map((e) => e._persist.key()));
      // A name several figures bear (`~~0/1`: each figure without an id, alone of its config) says nothing of which.
      const named = [...claimed].filter((k) => parseKey(k, prefix)?.[0] === mine[0]).length === 1;
      for (let i = 0; i < storage.length; i++) {
        const key = storage.key(i);
        const parts = parseKey(key, prefix);
        if (!parts || claimed.has(key) || !((named && parts[0] === mine[0]) || (parts[1] === mine[1] && sameViews(parts[0], this.host)))) continue;
        const text = storage.getItem(key);
        if (text !== null) return { key, text, sameName: named && parts[0] === mine[0] };
      }
    } catch { /* storage refused: nothing to offer */ }
    return null;
  }

  /** Removes one saved entry (an orphan taken or discarded). */
  drop(key) {
    try { this.storage()?.removeItem(key); } catch { /* nothing saved */ }
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
    if (e.newValue === this.current()) return;
    host._offer('This figure was changed in another tab.', 'Load those edits', 'load-other-tab', () => {
      const text = this.saved();
      if (text === null) { host._status('Those edits are gone (the other tab reset them).'); return; }
      host._restoreFrom(text, 'Showing the edits made in another tab.');
    });
  }
}
