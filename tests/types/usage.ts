// A typed use of the published package: the ES module, the element and the single-file build's global.
// Checked by tests/types/types.test.mjs against dist/ (strict, no emit).
import { compute, loadModels, models, normalizeConfig, parseArray, parseArrays, presets, ready, RandomState, renderSVG, train } from 'attention-viz';
import type { AttentionVizElement, Config, FigureState, LargeTrace, SelfTrace, Trace, ViewName } from 'attention-viz';
// The single-file build, imported for its side effect: it types window.AttentionViz.
import 'attention-viz/inline';

export async function module(): Promise<string> {
  await ready;
  const config: Config = presets['seed-001'];
  // Any config (widened: presets are self or cross, and compute() of those gives SelfTrace | CrossTrace).
  const trace: Trace = compute(config as Config);
  if (trace.mechanism === 'self') {
    const self: SelfTrace = trace;
    // With one head `weights` equals heads[0].weights; with several it is absent.
    const first: number = (self.weights ?? self.heads[0].weights)[0][0] + self.query.weights[0];
    const masked: number = self.query.masked[0] + self.heads.length + (self.output?.[0][0] ?? 0);
    void masked;
    // The softmax in its two steps: exp(scaled − max) and their sum (a 1-element vector).
    const steps: number = self.query.exp[0] / self.query.sum[0];
    void first;
    // The modern fields' traces: positions, the decode step and FlashAttention's tiles (present when the config sets them).
    const rotated: number = (self.heads[0].q_rot?.[0][0] ?? 0) + (self.heads[0].bias?.[0][0] ?? 0) + (self.pe?.[0][0] ?? 0);
    const step: number = (self.decode?.step ?? 0) + (self.decode?.weights[0] ?? 0) + (self.decode?.cache_size ?? 0);
    const tile = self.flash?.steps[0];
    const l: number = (tile?.l[0] ?? 1) + (tile?.q_block ?? 0) + (self.flash?.tiles[1] ?? 0);
    void steps; void rotated; void step; void l;
  } else if (trace.mechanism === 'cross') {
    const context: number[] = trace.context;
    void context;
  } else {
    // A model's weights: layers × heads × n × m, and each head's summaries (layers × heads).
    const w: number = trace.attention[0][0][0][0] + trace.summary.entropy[0][0];
    const names: string[] = [...trace.tokens, ...trace.key_tokens];
    void w; void names;
  }
  const modern: Config = {
    embeddings: [[1, 0], [0, 1], [1, 1]], w_q: [[1, 0, 0, 1], [0, 1, 1, 0]], w_k: [[1, 0], [0, 1]], w_v: [[1], [1]], heads: 2,
    kv_heads: 1,
    position: { kind: 'rope', pairs: 'halves' }, window: [1, 0], sinks: 1, mask: 'causal', decode_step: 2, tiles: [2, 2],
  };
  void compute(modern);
  // @ts-expect-error not a position kind
  const learned: Config = { embeddings: [[1]], position: { kind: 'learned' } };
  void learned;
  const model: Config = { mechanism: 'weights', attention: [[[0.5, 0.5], [0, 1]]], tokens: ['a', 'b'], layer: 0, head: 0 };
  void compute(model);
  // Trained models: fetched on request (loadModels()), compute() of a model config, and train() in a worker.
  const shipped: Record<'reversal' | 'induction', { params: { w_u: number[][] } }> = await loadModels();
  void shipped.reversal.params.w_u;
  const predicted: number[] = compute({ mechanism: 'model', model: 'reversal', input: [1, 2, 3, 4, 5, 6] }).prediction;
  const job = train({ task: 'reversal', onProgress: (p) => { void p.model.params.w_u; void p.accuracy; } });
  job.pause(); job.resume();
  void predicted; void models.reversal; void job.then((m) => m.params.tok_emb);
  // Typed results: every vector and matrix as {shape, data: Float64Array}; numbers and names as they were.
  const typed = compute(config as Config, { arrays: 'typed' });
  if (typed.mechanism === 'self') {
    const scores: Float64Array = typed.heads[0].scores.data;
    const shape: number[] = typed.query.weights.shape;
    const index: number = typed.query.index + typed.scale + (typed.output?.data[0] ?? 0);
    // @ts-expect-error a typed matrix is not a list of rows
    const row: number[] = typed.heads[0].weights[0];
    void scores; void shape; void index; void row;
  }
  const typedWeights = compute({ attention: [[0.5, 0.5], [0, 1]] }, { arrays: 'typed' });
  const entropy: Float64Array = typedWeights.summary.entropy.data;
  const keys: string[] = typedWeights.key_tokens;
  const typedModel = compute({ mechanism: 'model', model: 'reversal', input: [3, 1, 4] }, { arrays: 'typed' });
  const logits: Float64Array = typedModel.layers[0].heads[0].weights.data;
  const ids: Float64Array = typedModel.prediction.data;
  const tokens: string[] = typedModel.tokens;
  const task: string | null = typedModel.model;
  const nestedAgain: Trace = compute(config as Config, { arrays: 'nested' });
  // The trace on request: only the fields asked for, as views over WASM memory.
  const lean = compute(config as Config, { fields: ['weights', 'output'], arrays: 'views' });
  if (lean.mechanism === 'self') {
    const leanWeights: Float64Array | undefined = lean.weights?.data;
    void leanWeights;
  }
  const leanNested = compute(config as Config, { fields: ['context'] });
  if (leanNested.mechanism !== 'weights') void leanNested.context;
  // @ts-expect-error not a trace field
  compute(config as Config, { fields: ['wieghts'] });
  void entropy; void keys; void logits; void ids; void tokens; void task; void nestedAgain;
  // @ts-expect-error not a value of `arrays`
  compute(config, { arrays: 'flat' });
  // @ts-expect-error not an option
  compute(config, { array: 'typed' });
  const arr = parseArray('[[1, 2]]');
  const named: Record<string, unknown> = parseArrays(new Uint8Array(0));
  void arr; void named;
  const full: Config = normalizeConfig({ embeddings: [[1, 0], [0, 1]] });
  const transformer: Config = {
    embeddings: [[1, 0], [0, 1]], w_q: [[1, 0], [0, 1]], w_k: [[1, 0], [0, 1]], w_v: [[1, 0], [0, 1]],
    heads: 2, head: 1, w_o: [[1], [1]], mask: 'causal', valid_lens: [1, 2], masked_row: 'uniform', temperature: 0.5,
    scoring: 'cosine',
  };
  const luong: Config = { decoder_state: [1, 2], annotations: [[1, 0]], scoring: 'general', w_a: [[1, 0], [0, 1]], mask: [true] };
  // @ts-expect-error not a scoring
  const bad: Config = { embeddings: [[1]], scoring: 'bilinear' };
  void transformer; void luong; void bad;
  renderSVG(transformer, 'heads.1.weights');
  void full;
  const rng = new RandomState(42);
  const drawn = rng.randint(3, null, [3, 3]);
  void drawn;
  rng.seed(7);
  void rng.randn(2, 2);
  const view: ViewName = 'weights';
  // @ts-expect-error not a view
  renderSVG(config, 'weight');
  renderSVG(config, view, undefined, '.3g');
  return renderSVG(config, view, 'rocket');
}

export function element(): FigureState {
  const el: AttentionVizElement = document.querySelector('attention-viz')!;
  el.persist = true;
  el.fmt = '.3g';
  el.theme = 'dark';
  el.contrast = 'more';
  el.palette = 'vlag';
  el.height = null;
  const persisting: boolean = el.persist;
  const theme: 'light' | 'dark' | 'auto' = el.theme;
  void persisting;
  void theme;
  // @ts-expect-error not a theme
  el.theme = 'sepia';
  // @ts-expect-error not a contrast
  el.contrast = 'high';
  // @ts-expect-error fmt is a string spec
  el.fmt = 3;
  el.addEventListener('change', (e) => { const w: Trace = e.detail.trace; void w; });
  el.addEventListener('error', (e) => { const m: string = e.detail.message; void m; });
  // A large (worker-computed) figure's trace: the shown stages, typed, and the core's note.
  const t = el.trace;
  if (t && 'large' in t) {
    const large: LargeTrace = t;
    const weights: Float64Array | undefined = large.weights?.data;
    const note: string = large.note;
    void weights;
    void note;
  }
  const created = document.createElement('attention-viz');
  created.persist = false;
  return el.toJSON();
}

export async function inline(): Promise<number[][]> {
  const av = window.AttentionViz;
  await av.ready;
  const trace = av.compute(av.presets['seed-002']);
  const again = AttentionViz.compute(AttentionViz.presets['seed-003']);
  void again;
  void new window.AttentionViz.RandomState(1).rand(3);
  // @ts-expect-error not exported by the module, so not on window.AttentionViz either
  void window.AttentionViz.defineElement;
  return trace.mechanism === 'self' ? trace.heads[0].weights : [trace.weights];
}
