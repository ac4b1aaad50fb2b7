// Type declarations of attention-viz's single-file build (attention-viz.inline.js, `attention-viz/inline`).
//
// It is a classic script, not an ES module: loaded by `<script src="attention-viz.inline.js">` (or imported for its
// side effect, `import 'attention-viz/inline'`), it registers <attention-viz> and sets `globalThis.AttentionViz` to the
// module's exports. It exports nothing, so `import { ready } from 'attention-viz/inline'` is a type error: use
// `window.AttentionViz.ready`, or the ES module `attention-viz`.

declare global {
  /** The API of the ES module `attention-viz` (ready, presets, compute, normalizeConfig, renderSVG, RandomState). */
  var AttentionViz: typeof import('./attention-viz.js');
  interface Window {
    /** Set by the single-file build: the API of the ES module `attention-viz`. */
    AttentionViz: typeof import('./attention-viz.js');
  }
}

export {}; // a module only so that `declare global` is allowed; it has no exports
