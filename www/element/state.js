// What the parts of the figure read of it (the snapshot contract: the top of index.js): one object per element,
// `host._state`, the parts' one way in to the state and the look. Its getters are the current snapshot's — the facts and the parts' models,
// the trace fields (the tables' rows come with the snapshot: reading them makes no call), each view's size and drawing
// key — and the current look's (device pixels, theme, fmt, width), read when asked, so a part never keeps a stale one.
// The parts change the state only through their Port's `dispatch` (port.js).
export class State {
  constructor(host) { this.host = host; }

  /** A number that changes with every state (a new config, an edit). */
  get version() { return this.host._version; }

  /** Whether the naive softmax's lesson (naive_weights) is shown. */
  get naive() { return this.host._showNaive; }

  /** Map view → {key: what it draws}: the last snapshot's (an edit's), else asked once. */
  get views() { return this.host._snapshot().views; }

  /** The same with each view's `size`, [w, h], its natural CSS size for the fmt: measured when an edit's had none. */
  get sized() { return this.host._snapshot({ sizes: true }).views; }

  /** A trace field {shape, data}, row i of one (a plain array), element (i, j), a shape: the snapshot's, else read. */
  field(name) { return this.host._field(name); }
  row(name, i = 0) { return this.host._row(name, i); }
  at(name, i, j) { return this.host._at(name, i, j); }
  shape(name) { return this.host._shape(name); }

  /** The fmt the core is given (undefined: its default, or the attribute's when the core refused it). */
  get fmt() { return this.host._fmtSpec(); }

  /** Whether the heatmaps are drawn for a dark background. */
  get dark() { return this.host._darkMode(); }

  /** Device pixels per CSS pixel of the canvases: the screen's, or print resolution on paper. */
  get dpr() { return (window.devicePixelRatio || 1) * this.host._printScale; }
  /** Whether the figure is on paper (every heatmap is then drawn, on screen or not). */
  get printing() { return Boolean(this.host._printing); }

  /** The element's content width (CSS px), undefined until it was measured. */
  get width() { return this.host._width; }

  /** The modern panels the config uses, the core's rule (views::modern_panels), as a set: the snapshot's `panels`. */
  get used() { return this.host._snapshot().used; }

  /**
   * What the variants and modern panels show (the core's panels.rs: choices, their words, reasons, entropies): the
   * snapshot's `parts`, one entry per panel the parts ask (variants.js `asked`), and `modern`.
   */
  get parts() { return this.host._snapshot().parts; }

  /** The facts every part follows (src/controls.rs `facts`): mechanism, query, head, heads, layer, tokens, masks. */
  get facts() { return this.host._snapshot().parts.facts; }

  /** The `views` attribute as a set, or null for "everything". */
  get panels() { return this.host._panels(); }

  /** The element's public look (its attributes, read through its getters: the defaults are the element's). */
  get editable() { return this.host.editable; }
  get palette() { return this.host.palette; }
  get contrast() { return this.host.contrast; }
  get height() { return this.host.height; }
  get persist() { return this.host.persist; }

  /** Whether the page set `fmt` (an input grid's cells then follow it; else they show what was typed). */
  get fmtGiven() { return this.host.hasAttribute('fmt'); }

  /** The name downloads start with: the element's id, else "attention-viz". */
  get fileName() { return this.host.id || 'attention-viz'; }
}
