// Type declarations of attention-viz's public JavaScript API (www/attention-viz.js): the ES module
// `attention-viz`. The single-file build, `attention-viz/inline`, is typed by attention-viz.inline.d.ts.

export type Matrix = number[][];
export type Vector = number[];

export interface SelfConfig {
  mechanism?: 'self';
  embeddings: Matrix;
  w_q?: Matrix; w_k?: Matrix; w_v?: Matrix;
  tokens?: string[];
  scale?: 'sqrt_dk' | 'none' | number;
  query?: number;
}

export interface CrossConfig {
  mechanism?: 'cross';
  decoder_state: Vector;
  annotations: Matrix;
  tokens?: string[];
  scale?: 'sqrt_dk' | 'none' | number;
  query?: number;
}

export type Config = SelfConfig | CrossConfig;

export interface SelfTrace {
  mechanism: 'self';
  q: Matrix; k: Matrix; v: Matrix;
  scores: Matrix; scaled: Matrix; weights: Matrix; naive_weights: Matrix; context: Matrix;
  scale: number;
  /**
   * The followed query step by step: `exp[j]` = exp(scaled_j − max scaled) (the stable softmax's), `sum` = [Σ_j exp[j]]
   * (a one-element vector), `weights[j]` = exp[j] / sum, `terms[j]` = w_j·v_j.
   */
  query: { index: number; scores: Vector; scaled: Vector; exp: Vector; sum: Vector; weights: Vector; terms: Matrix; context: Vector };
}

export interface CrossTrace {
  mechanism: 'cross';
  scores: Vector; scaled: Vector; weights: Vector; naive_weights: Vector;
  /** d × m: annotation j times its weight, one encoder state per column. */
  applied: Matrix;
  context: Vector;
  scale: number;
}

export type Trace = SelfTrace | CrossTrace;

export type ViewName =
  | 'embeddings' | 'w_q' | 'w_k' | 'w_v' | 'q' | 'k' | 'v' | 'scores' | 'scaled' | 'weights' | 'naive_weights'
  | 'context' | 'decoder_state' | 'annotations' | 'applied';

export type PresetName = 'seed-000' | 'seed-001' | 'seed-002' | 'seed-003';

/** Resolves once the WASM core is initialised; `presets` is filled then. */
export const ready: Promise<void>;
/** The four seed documents' configs, by name. */
export const presets: Record<PresetName, Config>;
/** Runs one attention computation; throws an Error naming the bad field. */
export function compute(config: Config): Trace;
/** The config with every default filled in. */
export function normalizeConfig(config: Config): Config;
/**
 * A standalone SVG of one heatmap. `palette` overrides the view's colormap; `fmt` writes the numbers as seaborn's
 * `heatmap(fmt=…)` does: ".2g" (the default), ".3g", ".2f", "d", ".1%", ".2e"…
 */
export function renderSVG(config: Config, view: ViewName, palette?: string, fmt?: string): string;

type NestedNumbers = number | NestedNumbers[];

/**
 * NumPy's legacy RandomState: `randint` and `rand` bit for bit; `randn` within 1 ulp of NumPy's,
 * differing in about 0.03 % of values (NumPy's result depends on the platform's `log`).
 * At most 131 072 values per call; bad seeds, bounds and shapes throw an Error.
 */
export class RandomState {
  constructor(seed?: number);
  seed(seed: number): void;
  randint(low: number, high?: number | null, size?: number | number[] | null): NestedNumbers;
  rand(...shape: number[]): NestedNumbers;
  randn(...shape: number[]): NestedNumbers;
}

/** The saved state of a figure: `toJSON()` returns it, `.config = state` restores it. */
export interface FigureState {
  v: 1;
  config: Config;
  naive: boolean;
  random: { seed: number; dist: 'randint' | 'rand' | 'randn'; high: number } | null;
}

/** The `<attention-viz>` element. */
export interface AttentionVizElement extends HTMLElement {
  config: Config | FigureState | null;
  readonly trace: Trace | null;
  views: string | null;
  editable: boolean;
  height: number | null;
  palette: string | null;
  /** Keep the reader's edits in localStorage and bring them back on reload (attribute `persist`: present, or `false`). */
  persist: boolean;
  /** Number format of the cell annotations, seaborn's heatmap `fmt` spec such as `.3g`, `.2f`, `d` (attribute `fmt`; default `.2g`). */
  fmt: string;
  /** Colour scheme: `light`, `dark`, or `auto` to follow the reader's `prefers-color-scheme` (attribute `theme`). */
  theme: 'light' | 'dark' | 'auto';
  /** Annotation text colour against the cell: `seaborn` (its light/dark rule), or `more` for higher contrast (attribute `contrast`). */
  contrast: 'seaborn' | 'more';
  toSVG(view: ViewName): string;
  toPNG(view?: ViewName): Promise<Blob>;
  toJSON(): FigureState;
  toNumPy(): string;
  shareURL(): string;
  addEventListener(type: 'change', listener: (e: CustomEvent<{ config: Config; trace: Trace }>) => void): void;
  addEventListener(type: 'error', listener: (e: CustomEvent<{ message: string }>) => void): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject): void;
}

// `window.AttentionViz` is not here: only the single-file build defines it (see attention-viz.inline.d.ts).
declare global {
  interface HTMLElementTagNameMap { 'attention-viz': AttentionVizElement }
}
