// Choosing a node classifier for the data at hand: a few configurations
// known to do well on graphs of its kind (the GCN paper's recipe, GraphSAGE
// and GAT over the features, learnable embeddings beside or instead of
// them), each trained on the first splits and compared by validation accuracy
// alone (test accuracy is never looked at here), within a time budget: the
// epoch and smoothing are chosen on one half of the validation vertices and
// the configurations compared on the other half.
import {NodeClassificationData} from '../graph/dataset';
import {NodeClassificationOptions, nodeModelName, RunResult, trainNodeClassification} from './node_classification';

export interface Candidate {
  /** How the search prints it. */
  name: string;
  options: Partial<NodeClassificationOptions>;
}

export interface CandidateResult {
  candidate: Candidate;
  /**
   * Mean accuracy over the search's splits on the validation half not used to choose the epoch (smoothed
   * where smoothing won on the other half), or undefined when skipped.
   */
  valAcc?: number;
  seconds: number;
  smoothed?: boolean;
  skipped?: string;
}

export interface SearchResult {
  chosen: Candidate;
  results: CandidateResult[];
}

/**
 * The GCN paper's training: 2 layers, hidden 64, Adam 0.01, dropout 0.5, weight decay 5e-4, full batch,
 * the best validation epoch of 200 (stopping after 50 without a better one); over compact subgraphs where
 * the graph is trained in mini-batches.
 */
export const GCN_RECIPE: Readonly<Partial<NodeClassificationOptions>> = {
  fullBatch: true,
  epochs: 200,
  patience: 50,
  learningRate: 0.01,
  dropout: 0.5,
  weightDecay: 5e-4,
  hiddenDim: 64,
  fanouts: [25, 10],
  sampler: 'subgraph',
};

/** The largest graph trained full-batch in the search (beyond it: sampled mini-batches). */
export const FULL_BATCH_MAX_VERTICES = 200_000;

/** Every feature is 0 or more: a bag-of-words (or counts) the GCN recipe row-normalises. */
function nonNegative(values: Float32Array): boolean {
  for (const x of values) if (x < 0) return false;
  return true;
}

/** The configurations tried on `data`, the GCN recipe first. */
export function nodeModelCandidates(data: NodeClassificationData): Candidate[] {
  const fullBatch = data.graph.numVertices <= FULL_BATCH_MAX_VERTICES;
  const recipe: Partial<NodeClassificationOptions> = {...GCN_RECIPE, fullBatch};
  const c = (
    model: 'gcn' | 'sage' | 'gat' | 'mlp',
    inputs: NonNullable<NodeClassificationOptions['inputs']>,
    extra: Partial<NodeClassificationOptions> = {},
  ) => {
    const o = {...recipe, model, inputs, ...extra};
    const words = o.normalizeFeatures ? ', features normalised' : '';
    const reg =
      o.dropout !== recipe.dropout || o.weightDecay !== recipe.weightDecay ? `, dropout ${o.dropout}, weight decay ${o.weightDecay}` : '';
    // One layer of an MLP is a logistic regression, or with fit 'class-means' the nearest class mean.
    const kind =
      model === 'mlp' && o.fanouts!.length === 1
        ? o.fit === 'class-means'
          ? 'nearest class mean'
          : 'logistic regression'
        : nodeModelName(model);
    return {name: `${kind} on ${inputs}${words}${reg}`, options: o};
  };
  if (!data.features) {
    // Without features: learnable embeddings, or the graph's structure features (wm.graph.structureFeatures).
    return [
      c('gcn', 'structure'),
      c('sage', 'structure'),
      c('sage', 'embeddings'),
      c('gcn', 'embeddings'),
      c('gat', 'embeddings', {heads: 4}),
    ];
  }
  const normalize = nonNegative(data.features.values);
  return [
    c('gcn', 'features', {normalizeFeatures: normalize}),
    ...(normalize ? [c('gcn', 'features')] : []),
    // The graph unused: where neighbours mostly differ in class (heterophily), the features alone do best.
    // Before the costlier models, so they win their ties: the list's order is the preference.
    c('mlp', 'features', {fanouts: [25], fit: 'class-means', normalizeFeatures: false}),
    c('mlp', 'features', {normalizeFeatures: normalize, fanouts: [25]}),
    c('mlp', 'features', {normalizeFeatures: normalize}),
    c('sage', 'features', {normalizeFeatures: normalize}),
    c('gat', 'features', {normalizeFeatures: normalize, heads: 8}),
    c('gcn', 'features', {normalizeFeatures: normalize, dropout: 0.8, weightDecay: 5e-3}),
    c('sage', 'both', {normalizeFeatures: normalize}),
    c('gcn', 'both', {normalizeFeatures: normalize}),
  ];
}

/**
 * Trains each candidate on the splits of `seeds` (default 0 and 1: a
 * validation set of ~100 vertices moves in steps of 1 %, so one split alone
 * picks by noise) and returns the one with the best mean validation accuracy
 * (the first on ties: the list's order is the preference). `budgetSeconds`
 * bounds the search (past it by at most one epoch): a candidate is skipped when
 * the slowest so far would not fit in what is left, and one the budget stops
 * before its epochs are done is not chosen; each says so. The first candidate
 * always runs whole. `onResult` hears each one as it finishes.
 */
export async function searchNodeModel(
  data: NodeClassificationData,
  base: Partial<NodeClassificationOptions>,
  opts: {candidates?: Candidate[]; budgetSeconds?: number; seeds?: number[]; onResult?: (r: CandidateResult) => void} = {},
): Promise<SearchResult> {
  const candidates = opts.candidates ?? nodeModelCandidates(data);
  if (candidates.length === 0) throw new RangeError('searchNodeModel: no candidates');
  const budget = opts.budgetSeconds ?? 120;
  if (!(budget > 0)) throw new RangeError(`searchNodeModel: budgetSeconds must be positive, got ${budget}`);
  const seeds = opts.seeds ?? [0, 1];
  if (seeds.length === 0) throw new RangeError('searchNodeModel: seeds must list at least one split');
  const started = Date.now();
  const results: CandidateResult[] = [];
  let best: {candidate: Candidate; valAcc: number} | undefined;
  let slowest = 0;
  const deadline = started + budget * 1000;
  for (const candidate of candidates) {
    const elapsed = (Date.now() - started) / 1000;
    let r: CandidateResult;
    if (best && elapsed + slowest > budget) {
      r = {candidate, seconds: 0, skipped: `it would not end within the search's ${budget} s (${(budget - elapsed).toFixed(0)} s left)`};
    } else {
      const t0 = Date.now();
      const runs: RunResult[] = [];
      for (const seed of seeds) {
        const run = await trainNodeClassification(data, {
          ...base,
          ...candidate.options,
          seed,
          saveTo: undefined,
          baselines: false,
          heldOutScore: true,
          ...(best ? {deadline} : {}),
        });
        runs.push(run);
        if (run.cutShort) break;
      }
      const seconds = (Date.now() - t0) / 1000;
      slowest = Math.max(slowest, seconds);
      if (runs.some((run) => run.cutShort)) r = {candidate, seconds, skipped: `the search's ${budget} s ran out before it finished`};
      else {
        // Scored on the validation half its epoch and smoothing were not chosen on.
        const valAcc = runs.reduce((a, run) => a + run.heldOutValAcc!, 0) / runs.length;
        r = {candidate, valAcc, smoothed: runs.some((run) => run.smoothed), seconds};
        if (!best || valAcc > best.valAcc) best = {candidate, valAcc};
      }
    }
    results.push(r);
    opts.onResult?.(r);
  }
  return {chosen: best!.candidate, results};
}
