// The Freebase-shaped setting bench:kge-freebase and the KGE profile probe share: a graph that fraction of
// Freebase's size (1: 86,054,151 entities, 14,824 relations, 338,586,276 triples), and the rows trained on it:
// transE (dim 400; L1, and L2 as DGL-KE's TransE_l2) and complEx (dim 200: 400 stored numbers), bfloat16 tables,
// 256 negatives per chunk of 256, batch BENCH_KGE_FREEBASE_BATCH (default 8192), the sparse optimizer
// BENCH_KGE_FREEBASE_OPTIMIZER (sgd: no state; rowAdagrad: a float per row), learning rate 0.1, one epoch.
import {freebaseShapedKg} from '../src/graph/kg_patterns';
import {KnowledgeGraph} from '../src/graph/triples';
import {KgeTrainOptions} from '../src/train/kge';
import {envChoice, envPositiveInt} from './bench_util';

export const FREEBASE_ROWS = [
  {name: 'transE', model: 'transE', dim: 400, pNorm: 1},
  {name: 'transE2', model: 'transE', dim: 400, pNorm: 2},
  {name: 'complEx', model: 'complEx', dim: 200},
] as const;
export type FreebaseRow = (typeof FREEBASE_ROWS)[number];

export function freebaseKg(fraction: number): KnowledgeGraph {
  return freebaseShapedKg({
    entities: Math.round(86054151 * fraction),
    relations: 14824,
    triples: Math.round(338586276 * fraction),
    seed: 1,
  });
}

export function freebaseOptions(row: FreebaseRow): Partial<KgeTrainOptions> {
  return {
    model: row.model,
    dim: row.dim,
    ...('pNorm' in row ? {pNorm: row.pNorm} : {}),
    dtype: 'bfloat16',
    epochs: 1,
    batchSize: envPositiveInt('BENCH_KGE_FREEBASE_BATCH', 8192),
    chunkSize: 256,
    negatives: 256,
    optimizer: envChoice('BENCH_KGE_FREEBASE_OPTIMIZER', ['sgd', 'rowAdagrad'] as const, 'sgd'),
    learningRate: 0.1,
  };
}
