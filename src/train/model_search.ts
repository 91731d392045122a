// Choosing a node classifier for the data at hand: a few configurations
// known to do well on graphs of its kind (the GCN paper's recipe, GraphSAGE
// and GAT over the features, learnable embeddings beside or instead of
// them), each trained on the first split and compared by validation accuracy
// alone (test accuracy is never looked at here), within a time budget.
import {NodeClassificationData} from '../graph/dataset';
import {NodeClassificationOptions, nodeModelName, RunResult, trainNodeClassification} from './node_classification';

export interface Candidate {
  /** How the search prints it. */
  name: string;
  options: Partial<NodeClassificationOptions>;
}

export interface CandidateResult {
  candidate: Candidate;
  /** Validation accuracy (smoothed where smoothing won on validation), or undefined when skipped. */
  valAcc?: number;
  seconds: number;
  smoothed?: boolean;
  skipped?: string;
}

export interface SearchResult {
  chosen: Candidate;
  results: CandidateResult[];
}

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
  // The GCN paper's training: Adam 0.01, dropout 0.5, weight decay 5e-4, early stopping on validation.
  const recipe: Partial<NodeClassificationOptions> = {
    fullBatch,
    epochs: 200,
    patience: 50,
    learningRate: 0.01,
    dropout: 0.5,
    weightDecay: 5e-4,
    hiddenDim: 64,
    fanouts: [25, 10],
    sampler: 'subgraph',
  };
  const c = (model: 'gcn' | 'sage' | 'gat', inputs: 'features' | 'embeddings' | 'both', extra: Partial<NodeClassificationOptions> = {}) => {
    const o = {...recipe, model, inputs, ...extra};
    const words = o.normalizeFeatures ? ', features normalised' : '';
    const reg =
      o.dropout !== recipe.dropout || o.weightDecay !== recipe.weightDecay ? `, dropout ${o.dropout}, weight decay ${o.weightDecay}` : '';
    return {name: `${nodeModelName(model)} on ${inputs}${words}${reg}`, options: o};
  };
  if (!data.features) return [c('sage', 'embeddings'), c('gcn', 'embeddings'), c('gat', 'embeddings', {heads: 4})];
  const normalize = nonNegative(data.features.values);
  return [
    c('gcn', 'features', {normalizeFeatures: normalize}),
    ...(normalize ? [c('gcn', 'features')] : []),
    c('sage', 'features', {normalizeFeatures: normalize}),
    c('gat', 'features', {normalizeFeatures: normalize, heads: 8}),
    c('gcn', 'features', {normalizeFeatures: normalize, dropout: 0.8, weightDecay: 5e-3}),
    c('sage', 'both', {normalizeFeatures: normalize}),
    c('gcn', 'both', {normalizeFeatures: normalize}),
  ];
}

/**
 * Trains each candidate on split `seed` and returns the one with the best
 * validation accuracy (the first on ties: the list's order is the
 * preference). Candidates that would start after `budgetSeconds` are skipped
 * and say so. `onResult` hears each one as it finishes.
 */
export async function searchNodeModel(
  data: NodeClassificationData,
  base: Partial<NodeClassificationOptions>,
  opts: {candidates?: Candidate[]; budgetSeconds?: number; seed?: number; onResult?: (r: CandidateResult) => void} = {},
): Promise<SearchResult> {
  const candidates = opts.candidates ?? nodeModelCandidates(data);
  if (candidates.length === 0) throw new RangeError('searchNodeModel: no candidates');
  const budget = opts.budgetSeconds ?? 120;
  if (!(budget > 0)) throw new RangeError(`searchNodeModel: budgetSeconds must be positive, got ${budget}`);
  const started = Date.now();
  const results: CandidateResult[] = [];
  let best: {candidate: Candidate; valAcc: number} | undefined;
  for (const candidate of candidates) {
    const elapsed = (Date.now() - started) / 1000;
    let r: CandidateResult;
    if (best && elapsed >= budget) {
      r = {candidate, seconds: 0, skipped: `the search's ${budget} s were spent`};
    } else {
      const t0 = Date.now();
      const run: RunResult = await trainNodeClassification(data, {...base, ...candidate.options, seed: opts.seed ?? 0, saveTo: undefined});
      r = {candidate, valAcc: run.valAcc, smoothed: run.smoothed, seconds: (Date.now() - t0) / 1000};
      if (!best || run.valAcc > best.valAcc) best = {candidate, valAcc: run.valAcc};
    }
    results.push(r);
    opts.onResult?.(r);
  }
  return {chosen: best!.candidate, results};
}
