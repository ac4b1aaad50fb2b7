// Owns the one way a part of the figure reaches the element: a part (toolbar, variants, modern, inputs, importer,
// import-plan, figures, reader, breakdown, steps, steppers, model, peek) is given a Port, never the element itself,
// and sees only what is here. It renders from `state` (state.js: the core's view model and the look), changes the
// figure only by `dispatch` (a command for `Viz.edit`, or a mutation of `edit`s: index.js `_apply`), asks the core
// (`ask`, `draw`), speaks on the status line, and reaches another part only by name through the element's wiring
// (`tell`: index.js `_wiring`), so that what one part asks of another is listed in one place.
export class Port {
  #host;

  constructor(host, api) {
    this.#host = host;
    /** What the part reads: the snapshot's facts and models, the trace fields, the look (state.js). */
    this.state = host._state;
    /** The core's API (www/core.js through www/attention-viz.js): `callCore`, the facts, the presets. */
    this.api = api;
  }

  /** Whether there is a figure (the core's Viz is built). */
  get live() { return Boolean(this.#host._viz); }

  /** A command (src/web/command.rs) or a mutation making `edit`s; on success the figure repaints and `change`
   * fires; false when refused (said where the user looks). `options`: index.js `_apply`. */
  dispatch(command, options) { return this.#host._apply(command, options); }

  /** One edit inside a mutation that `dispatch` runs; throws the core's message when refused. */
  edit(command) { return this.#host._edit(command); }

  /** One question to the core about the figure (src/web/ask.rs). */
  ask(question) { return this.#host._ask(question); }

  /** Loads the whole core (a part only it answers: the importer, the exports) and moves the figure to it; a promise. */
  needWhole() { return this.#host._needWhole(); }

  /** Paints a canvas by the core (src/web/draw.rs: a heatmap, its layers, a line view). */
  draw(canvas, spec) { return this.api.callCore(() => this.#host._viz.draw(canvas, spec)); }

  /** The status line: a message (an error when `isError`), '' to clear it. */
  say(text, isError = false) { this.#host._status(text, isError); }

  /** An error in the status line and the element's `error` event. */
  fail(message) { this.#host._fail(message); }

  /** The element's `error` event alone: the message is shown beside the control it is about. */
  signal(message) { this.#host.dispatchEvent(new CustomEvent('error', { detail: { message } })); }

  /** A message with one button that acts on it. */
  offer(text, label, action, fn, isError = false) { this.#host._offer(text, label, action, fn, isError); }

  /** Listens to the element's own events (`error`, `change`) for a while. */
  listen(type, fn) { this.#host.addEventListener(type, fn); return () => this.#host.removeEventListener(type, fn); }

  /** Repaints what changed; rebuilds every part (index.js `_rebuild`). */
  repaint(options) { this.#host._repaint(options); }
  rebuild(options) { this.#host._rebuild(options); }

  /** The element's shadow root: where the part's nodes live and where the keyboard's focus is read. */
  get shadow() { return this.#host.shadowRoot; }

  /** What a part asks of another, by name (index.js `_wiring` lists them all): an action or a question. */
  tell(name, ...args) { return this.#host._wiring(name, ...args); }
}
