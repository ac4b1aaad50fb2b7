// Type declarations of attention-viz's public JavaScript API (www/attention-viz.js): the ES module
// `attention-viz`. The single-file build, `attention-viz/inline`, is typed by attention-viz.inline.d.ts.

export type Matrix = number[][];
export type Vector = number[];

/** Which keys each query may attend: "causal" (key j ≤ query i), or n × m of 0/1 or booleans, 1/true = may attend. */
export type Mask = 'none' | 'causal' | (number | boolean)[][];
/** What a query whose every key is masked gets: weights 0 and context 0; 1/m over all keys; or NaN (0/0). */
export type MaskedRow = 'zero' | 'uniform' | 'nan';

/** How queries are compared with keys, and the matrices each scoring needs. */
interface ScoringFields {
  /**
   * "dot" q·k (default); "general" q·W_a·kᵀ (Luong 2015; `w_a` d_q × d_k); "additive" v_a·tanh(q·W_a + k·U_a)
   * (Bahdanau 2015; `w_a` d_q × d_a, `u_a` d_k × d_a, `v_a` d_a); "cosine" q·k / max(‖q‖·‖k‖, 1e-8).
   */
  scoring?: 'dot' | 'general' | 'additive' | 'cosine';
  w_a?: Matrix; u_a?: Matrix; v_a?: Vector;
  /** scaled = scores / scale / temperature; > 0, default 1. */
  temperature?: number;
  masked_row?: MaskedRow;
}

export interface SelfConfig extends ScoringFields {
  mechanism?: 'self';
  embeddings: Matrix;
  /** d_model × heads·d_k (W_V: d_model × heads·d_v); head i uses columns i·d_k … (i+1)·d_k − 1. */
  w_q?: Matrix; w_k?: Matrix; w_v?: Matrix;
  tokens?: string[];
  /** Default "sqrt_dk" (√ of the per-head d_k) for dot scoring with projections, else "none". */
  scale?: 'sqrt_dk' | 'none' | number;
  query?: number;
  /** Heads, ≥ 1 (default 1); more than one needs w_q, w_k, w_v whose widths it divides. */
  heads?: number;
  /** The head the breakdown and the stage views follow (default 0). */
  head?: number;
  /** (heads·d_v) × d_out: output = the heads' contexts side by side · W_O. */
  w_o?: Matrix;
  mask?: Mask;
  /** One per query: query i attends keys 0 … valid_lens[i] − 1 (combined with `mask`). */
  valid_lens?: number[];
  /** How word order enters: absent (none), sinusoidal (X + PE), RoPE (q and k rotated) or ALiBi (a distance bias). */
  position?: Position;
  /** Key/value heads, dividing `heads` (default `heads`; 1 = multi-query): W_K and W_V have kv_heads·d_k (d_v) columns. */
  kv_heads?: number;
  /** [left, right], ≥ 0: query i attends keys i − left … i + right only (JAX's `local_window_size`). */
  window?: [number, number];
  /** Keys 0 … sinks − 1 are attended where the window alone forbids them (StreamingLLM); ≥ 0, default 0. */
  sinks?: number;
  /** Generation at step t (needs `mask: "causal"`, t < n): the trace's `decode`. */
  decode_step?: number;
  /** [rows, cols], ≥ 1: FlashAttention-2's blocks; the trace's `flash`. */
  tiles?: [number, number];
}

/**
 * Positions (README "Config"): sinusoidal PE[p, j] = sin/cos(p / base^(2⌊j/2⌋/d_model)) added to X; RoPE rotates pair i
 * of each head's q and k rows by p·base^(−2i/d_k), pairs (x_2i, x_2i+1) ("interleaved", RoFormer) or (x_i, x_i+d_k/2)
 * ("halves", LLaMA), d_k even; ALiBi adds −m_h·|i − j| to each head's scaled scores (default m_h = 2^(−8(h+1)/H)).
 * `base` (≥ 1) defaults to 10000. `offset` (a whole number ≥ 0, default 0; sinusoidal and RoPE) shifts every
 * position: token r is at position r + offset ("Shift positions": RoPE's scores stay the same, sinusoidal's change).
 */
export type Position =
  | { kind: 'sinusoidal'; base?: number; offset?: number }
  | { kind: 'rope'; base?: number; pairs?: 'interleaved' | 'halves'; offset?: number }
  | { kind: 'alibi'; slopes?: number[] };

export interface CrossConfig extends ScoringFields {
  mechanism?: 'cross';
  decoder_state: Vector;
  annotations: Matrix;
  tokens?: string[];
  scale?: 'sqrt_dk' | 'none' | number;
  query?: number;
  /** One 0/1 (or boolean) per encoder state; 1 = may attend. */
  mask?: 'none' | (number | boolean)[];
  /** One number: the decoder state attends encoder states 0 … valid_lens[0] − 1. */
  valid_lens?: [number];
}

/**
 * A model's attention, shown as given (README "A model's attention"): n × m, heads × n × m or layers × heads × n × m
 * weights, each finite and ≥ 0; at most 2^23 values. Read-only but for the head shown (`layer`, `head`).
 */
export interface WeightsConfig {
  mechanism?: 'weights';
  attention: number[][] | number[][][] | number[][][][];
  /** The n queries' names (default t_1 …). */
  tokens?: string[];
  /** The m keys' names (default: `tokens` when m = n, else k_1 …). */
  key_tokens?: string[];
  layer?: number;
  head?: number;
  query?: number;
}

export type Config = SelfConfig | CrossConfig | WeightsConfig;

/**
 * One head's slices of Q, K, V (with `kv_heads`, K and V are its kv head's) and its stages; masked entries of `scaled`
 * are -Infinity, their weights 0. RoPE: `q_rot`, `k_rot` (n × d_k), and `scores` are theirs; ALiBi: `bias` (n × n),
 * scaled = scores / scale / temperature + bias.
 */
export interface HeadTrace {
  q: Matrix; k: Matrix; v: Matrix;
  scores: Matrix; scaled: Matrix; weights: Matrix; context: Matrix;
  q_rot?: Matrix; k_rot?: Matrix; bias?: Matrix;
}

/**
 * Generation at `decode_step` t, for head `head`: the query of token t, the KV cache of tokens 0 … t (rotated with
 * RoPE), and row t of the attention (`weights` has t + 1 entries and equals row t of the causal weights; `context` row
 * t of the head's context). `cache_size`: numbers the cache holds, (t + 1)·kv_heads·(d_k + d_v); `recompute_cost`:
 * multiply-adds recomputing them without a cache, (t + 1)·d_model·kv_heads·(d_k + d_v).
 */
export interface DecodeTrace {
  step: number;
  q: Vector; k_cache: Matrix; v_cache: Matrix;
  scores: Vector; scaled: Vector; weights: Vector; context: Vector;
  cache_size: number; recompute_cost: number;
}

/**
 * FlashAttention-2 (Algorithm 1) for head `head`: `steps` in order, query blocks outer, key blocks inner; after each
 * tile, per query row of the block, `m` the running maximum of the scaled scores (-Infinity while every key so far is
 * masked), `l` = Σ exp(scaled − m), `o` = Σ exp(scaled − m)·v (rows × d_v). After a block's last tile, o / l is its context.
 */
export interface FlashTrace {
  tiles: [number, number];
  steps: { q_block: number; k_block: number; m: Vector; l: Vector; o: Matrix }[];
}

export interface SelfTrace {
  mechanism: 'self';
  /** The whole projections, n × heads·d_k (v: n × heads·d_v). */
  q: Matrix; k: Matrix; v: Matrix;
  /** Every head, also when there is one. */
  heads: HeadTrace[];
  /** With one head only (equal to heads[0]'s); absent with several. */
  scores?: Matrix; scaled?: Matrix; weights?: Matrix; naive_weights?: Matrix;
  /** n × heads·d_v: the heads' contexts side by side. */
  context: Matrix;
  /** context · W_O, when the config has `w_o`. */
  output?: Matrix;
  scale: number;
  /**
   * The followed query (of head `head`) step by step: `exp[j]` = exp(scaled_j − max scaled) (the stable softmax's),
   * `sum` = [Σ_j exp[j]] (a one-element vector), `weights[j]` = exp[j] / sum, `terms[j]` = w_j·v_j; `masked[j]`: 0 attended,
   * else the sum of the rules that masked key j: 1 `mask`, 2 beyond `valid_lens`, 4 outside the `window` (not a sink);
   * `features` (additive scoring): tanh(q·W_a + k_j·U_a), m × d_a.
   */
  query: {
    index: number; scores: Vector; scaled: Vector; exp: Vector; sum: Vector; weights: Vector; terms: Matrix;
    context: Vector; masked: Vector; features?: Matrix;
  };
  /** With `position` "sinusoidal": the table added to the embeddings, n × d_model. */
  pe?: Matrix;
  /** With `decode_step`. */
  decode?: DecodeTrace;
  /** With `tiles`. */
  flash?: FlashTrace;
}

export interface CrossTrace {
  mechanism: 'cross';
  scores: Vector; scaled: Vector; weights: Vector; naive_weights: Vector;
  /** d × m: annotation j times its weight, one encoder state per column. */
  applied: Matrix;
  context: Vector;
  scale: number;
  /** `masked[j]` as in SelfTrace; `features` for additive scoring (m × d_a). */
  query: { masked: Vector; features?: Matrix };
}

/** Each head's summary (layers × heads): means over its queries of their weights as shares of their sum. */
export interface WeightsSummary {
  /** −Σ p log₂ p, bits: 0 for one key, log₂ m for uniform weights. */
  entropy: Matrix;
  /** Σ_j p_j·|i − j|: the distance to the diagonal. */
  distance: Matrix;
  /** p_{i−1}: the share on the previous token (queries 1 … n − 1). */
  previous: Matrix;
  /** p_0: the share on the first token. */
  first: Matrix;
  /** max over the queries of |Σ_j w_ij − 1|. */
  row_sum_error: Matrix;
}

export interface WeightsTrace {
  mechanism: 'weights';
  /** layers × heads × n × m (shorter inputs gain leading axes of 1). */
  attention: number[][][][];
  tokens: string[];
  key_tokens: string[];
  summary: WeightsSummary;
}

export type Trace = SelfTrace | CrossTrace | WeightsTrace;

/**
 * A tiny attention-only transformer (README "Trained models"), as `models` holds it and `train()` resolves with it:
 * every matrix a list of rows. Head h of a layer uses columns h·d/heads … of W_Q, W_K, W_V and those rows of W_O.
 */
export interface TrainedModel {
  /** The task it was trained on. */
  task?: string;
  vocab: number; seq_len: number; d_model: number; layers: number; heads: number;
  /** Whether position i attends only to positions ≤ i. */
  causal?: boolean;
  /** The names of token ids 0 … vocab − 1. */
  tokens?: string[];
  /** Where the weights came from: `train({task, seed})` after `steps` steps. */
  trained?: { seed: number; steps: number };
  params: {
    /** vocab × d_model. */
    tok_emb: Matrix;
    /** seq_len × d_model. */
    pos_emb: Matrix;
    /** Each d_model × d_model. */
    layers: { w_q: Matrix; w_k: Matrix; w_v: Matrix; w_o: Matrix }[];
    /** d_model × vocab. */
    w_u: Matrix;
  };
}

export type ModelName = 'reversal' | 'induction';

/** A trained model's forward pass: a shipped one by name, or a model object (an edited copy, train()'s result). */
export interface ModelConfig {
  mechanism: 'model';
  model: ModelName | TrainedModel;
  /** 1 … seq_len token ids, each below vocab. */
  input: number[];
}

export interface ModelTrace {
  mechanism: 'model';
  /** The model's task (null for a model object without one). */
  model: string | null;
  input: number[];
  /** The input ids' names ("3", or "D" for induction's id 3). */
  tokens: string[];
  /** The most probable token id at each position (reversal: the input reversed). */
  prediction: number[];
  /** n × vocab. */
  probabilities: Matrix;
  logits: Matrix;
  /**
   * Every layer: `residual`, the stream entering it (n × d_model: token plus position embeddings at layer 0, then
   * each layer's input plus its heads' contexts times W_O), and its heads; masked (causal) entries of `scaled` are
   * -Infinity, their weights 0.
   */
  layers: { residual: Matrix; heads: HeadTrace[] }[];
  /**
   * Where the input repeats and what the heads do there (an induction head's measures): per position, the first
   * earlier position of its token (null for a first occurrence), the token that followed it then, and whether the
   * prediction is that token; how many positions have an earlier occurrence (`scored`) and how many the prediction
   * copies (`copied`); per layer and head (`[layer][head]`), the mean weight on the previous token (`previous`), the
   * same at a first run's positions (`first_run`), and a repeated position's weight on the token after its earlier
   * occurrence (`copy`), null where no position counts.
   */
  repeats: {
    earlier: (number | null)[];
    next: (number | null)[];
    copies: (boolean | null)[];
    scored: number;
    copied: number;
    previous: (number | null)[][];
    first_run: (number | null)[][];
    copy: (number | null)[][];
  };
}

export interface TrainProgress {
  step: number;
  /** The number of steps this training runs to. */
  steps: number;
  /** The mean cross-entropy of the step's batch. */
  loss: number;
  /** The fraction of 200 held-out sequences' positions predicted right. */
  accuracy: number;
  /** The model after `step` steps. */
  model: TrainedModel;
}

export interface TrainOptions {
  task: ModelName;
  /** 0 … 2**32 − 1; default 0 (which gives `models[task]`). */
  seed?: number;
  /** Default: the shipped model's (reversal 1,000, induction 1,500). */
  steps?: number;
  /** onProgress at step 0, every `every` steps (default 25) and at the last. */
  every?: number;
  onProgress?: ((progress: TrainProgress) => void) | null;
  /** Aborting it cancels the training. */
  signal?: AbortSignal | null;
}

/** train()'s result: the trained model, and the training's controls. A cancel rejects with an Error named "AbortError". */
export interface Training extends Promise<TrainedModel> {
  pause(): void;
  resume(): void;
  cancel(): void;
  readonly paused: boolean;
}

export type ViewName =
  | 'embeddings' | 'w_q' | 'w_k' | 'w_v' | 'q' | 'k' | 'v' | 'scores' | 'scaled' | 'weights' | 'naive_weights'
  | 'context' | 'decoder_state' | 'annotations' | 'applied'
  | 'w_o' | 'w_a' | 'u_a' | 'v_a' | 'mask' | 'output' | 'query.features' | `heads.${number}.${keyof HeadTrace}`
  | 'pe' | 'q_rot' | 'k_rot' | 'bias'
  /** With `decode_step`: the decode panel's heatmaps (toSVG and renderSVG draw them; the stage heatmaps do not repeat them). */
  | 'decode.q' | 'decode.k_cache' | 'decode.v_cache' | 'decode.scores' | 'decode.weights' | 'decode.context'
  | 'attention';

export type PresetName = 'seed-000' | 'seed-001' | 'seed-002' | 'seed-003';

/**
 * Resolves once the WASM core is initialised (`presets` is filled then) and the inflater a compressed `.npz` needs is
 * loaded (after the core: figures do not wait for it).
 */
export const ready: Promise<void>;
/** The four seed documents' configs, by name. */
export const presets: Record<PresetName, SelfConfig | CrossConfig>;
/**
 * The shipped trained models by name, readable once `loadModels()` has resolved (reading one before throws an Error
 * saying to await it): `ready` does not fetch them.
 */
export const models: Record<ModelName, TrainedModel>;
/**
 * Fetches the shipped models' file (`pkg/attention_viz_models.bin` beside the module) on the first call; resolves
 * with `models` once they can be read (also when the fetch failed: reading a model then says why).
 */
export function loadModels(): Promise<Record<ModelName, TrainedModel>>;
/**
 * A vector or matrix of a typed trace: its values row-major (a copy: it stays valid after later calls), and its shape.
 * With one head, heads[0]'s fields share `data` with the top-level q, k, v, scores, scaled, weights and context, and
 * `naive_weights` shares `weights`' `data` when their values are the same bits (no row near float64's limits).
 */
export interface TypedField {
  shape: number[];
  data: Float64Array;
}

/**
 * The trace of a large figure (a read-only self-attention figure over the page's cost bound, computed by a Worker): only
 * the followed head's stages the figure shows (its `views`: scores, scaled, weights, context), each a TypedField whose
 * `data` is the array the figure reads its tooltips from (not a copy: copy it before writing to it). `note` is the
 * core's sentence saying so. Null while the worker computes.
 */
export interface LargeTrace {
  mechanism: 'self';
  large: true;
  /** What the scores were divided by (√d_k by default). */
  scale: number;
  /** The followed head (config `head`). */
  head: number;
  tokens: string[];
  note: string;
  scores?: TypedField;
  scaled?: TypedField;
  weights?: TypedField;
  context?: TypedField;
}

/**
 * A trace as `compute(config, {arrays: "typed"})` returns it: every vector and matrix (of any rank) a TypedField;
 * numbers, strings, lists of names and nested objects (heads, query, layers, summary) as in T.
 */
export type Typed<T> =
  T extends number[] | number[][] | number[][][] | number[][][][] ? TypedField
  : T extends string[] ? T
  : T extends (infer U)[] ? Typed<U>[]
  : T extends object ? { [K in keyof T]: Typed<T[K]> }
  : T;

/** compute()'s options. */
export interface ComputeOptions {
  /** "nested" (default): vectors and matrices as nested arrays; "typed": each as `{shape, data: Float64Array}`. */
  arrays?: 'nested' | 'typed';
}

/** The options that make compute() return a typed trace. */
export interface TypedOptions extends ComputeOptions {
  arrays: 'typed';
}

/** The options that make compute() return nested arrays (the default). */
export interface NestedOptions extends ComputeOptions {
  arrays?: 'nested';
}

/**
 * Runs one attention computation; throws an Error naming the bad field (a TypeError for bad `options`). With
 * `{arrays: "typed"}` every vector and matrix of the trace is `{shape, data: Float64Array}` (see Typed).
 */
export function compute(config: ModelConfig, options: TypedOptions): Typed<ModelTrace>;
export function compute(config: WeightsConfig, options: TypedOptions): Typed<WeightsTrace>;
export function compute(config: SelfConfig | CrossConfig, options: TypedOptions): Typed<SelfTrace> | Typed<CrossTrace>;
export function compute(config: Config, options: TypedOptions): Typed<Trace>;
export function compute(config: ModelConfig, options?: NestedOptions): ModelTrace;
export function compute(config: WeightsConfig, options?: NestedOptions): WeightsTrace;
export function compute(config: SelfConfig | CrossConfig, options?: NestedOptions): SelfTrace | CrossTrace;
export function compute(config: Config, options?: NestedOptions): Trace;
export function compute(config: Config | ModelConfig, options?: ComputeOptions): Trace | ModelTrace | Typed<Trace | ModelTrace>;
/**
 * Trains a model for `task` in a Web Worker (the page stays responsive); bad options throw an Error at once. The same
 * seed and steps give the same weights bit for bit: `train({task: "reversal"})` resolves with `models.reversal`.
 */
export function train(options: TrainOptions): Training;
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

/**
 * Reads one array: nested arrays of numbers, or a number for a 0-d array. `input` is the bytes of a .npy file
 * (versions 1.0–3.0; float16/32/64, int8–64, uint8–64, bool as 0/1, either byte order, C or Fortran order), or text:
 * NumPy's repr (`array([[…]], dtype=float32)`) or print form, PyTorch's `tensor([[…]], …)`, JSON, or rows separated by
 * tabs, commas, semicolons or spaces (a first row with no number in it, column names, is skipped; `#` lines too).
 * int64/uint64 values beyond 2^53 become the nearest double; NaN and ±Infinity are kept. Throws an Error saying what
 * is wrong and where (`byte 128` in a file, `line 2:7` in text); complex, object, structured, string and datetime
 * dtypes are refused by name ("complex128 arrays are not supported: …").
 */
export function parseArray(input: Uint8Array | ArrayBuffer | string): NestedNumbers;
/**
 * Reads named arrays: a .npz archive (np.savez, np.savez_compressed) gives `{name: array}` with the names np.load
 * gives (no `.npy`); text holding a JSON object of arrays gives its names. Anything holding one unnamed array (a .npy
 * file, other text) gives `{arr_0: array}`. Errors as parseArray's, prefixed with the member's name.
 */
export function parseArrays(input: Uint8Array | ArrayBuffer | string): Record<string, NestedNumbers>;

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
  /** The figure's trace; a large figure's is a LargeTrace (null until its worker's views are drawn). */
  readonly trace: Trace | LargeTrace | null;
  /**
   * Which panels show, comma-separated (attribute `views`): heatmap view names, `inputs`, `steps`, `breakdown`,
   * `controls`, the variants' `heads`, `mask`, `temperature`, `scoring`, and the modern panels `position`, `kv`,
   * `window`, `decode`, `flash`; null: every stage, with each panel whose feature the config uses.
   */
  views: string | null;
  editable: boolean;
  height: number | null;
  palette: string | null;
  /** Keep the reader's edits in localStorage and bring them back on reload (attribute `persist`: present, or `false`). */
  persist: boolean;
  /**
   * Number format of the cell annotations, seaborn's heatmap `fmt` spec such as `.3g`, `.2f`, `d` (attribute `fmt`;
   * default `.2g`). When set, the input cells show their values so too, each cell's title keeping the whole value.
   */
  fmt: string;
  /** Colour scheme: `light`, `dark`, or `auto` to follow the reader's `prefers-color-scheme` (attribute `theme`). */
  theme: 'light' | 'dark' | 'auto';
  /** Annotation text colour against the cell: `seaborn` (its light/dark rule), or `more` for higher contrast (attribute `contrast`). */
  contrast: 'seaborn' | 'more';
  /**
   * One heatmap as a standalone SVG. A large figure's: one of the views it shows, its image (≤ 512 px a side, as on
   * the page) embedded as a PNG, with its title, colour bar, ticks and caption.
   * @throws Error with the core's message for a view the figure does not show, or while a large figure computes.
   */
  toSVG(view: ViewName): string;
  /** A PNG of one heatmap, or of the whole figure (a large figure's: its images, colour bars and texts as shown). */
  toPNG(view?: ViewName): Promise<Blob>;
  toJSON(): FigureState;
  toNumPy(): string;
  /**
   * A link to this page that restores this figure exactly (its state in the URL fragment).
   * @throws Error with the Share menu's message ("This figure is too large for a link …") when the link would be
   * longer than browsers open (2,000,000 characters); `toJSON()` holds the figure then.
   */
  shareURL(): string;
  addEventListener(type: 'change', listener: (e: CustomEvent<{ config: Config; trace: Trace }>) => void): void;
  addEventListener(type: 'error', listener: (e: CustomEvent<{ message: string }>) => void): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject): void;
}

// `window.AttentionViz` is not here: only the single-file build defines it (see attention-viz.inline.d.ts).
declare global {
  interface HTMLElementTagNameMap { 'attention-viz': AttentionVizElement }
}
