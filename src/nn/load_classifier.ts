// Loading saved node classifiers (saved_classifier.ts writes them): every
// file checked against classifier.json before the model is built.
import * as tf from '@tensorflow/tfjs-core';
import * as path from 'path';

import type {Embedding, EmbeddingMemory} from './embedding';
import {GatClassifier} from './gat_classifier';
import {GcnClassifier} from './gcn_classifier';
import {MlpClassifier} from './mlp_classifier';
import {GraphSageClassifier} from './graphsage';
import {NodeModelConfig} from './node_model';
import {readChecked, readClassifierInfo, SavedClassifierInfo} from './saved_classifier';

export type NodeClassifierModel = GraphSageClassifier | GatClassifier | GcnClassifier | MlpClassifier;

/**
 * Reads a classifier saved by saveNodeClassifier; every file is checked before the model is built. A model
 * that reads features only (no learnable embeddings) is inductive: given the feature table of another graph,
 * of any size, it predicts that graph's vertices. A model with a learnable embedding per vertex belongs to the
 * graph it was trained on: given `graph`, another graph (a relabelled one too) is refused.
 */
export function loadNodeClassifier(
  dir: string,
  opts: {embeddingMemory?: EmbeddingMemory; features?: Embedding; graph?: {checksum(): string}} = {},
): {model: NodeClassifierModel; info: SavedClassifierInfo} {
  const metaFile = path.join(dir, 'classifier.json');
  const info = readClassifierInfo(dir);
  if (!['sage', 'gat', 'gcn', 'mlp'].includes(info.kind)) throw new Error(`${metaFile}: unknown kind '${info.kind}'`);
  const c = info.config;
  if (info.classNames.length !== c.numClasses)
    throw new Error(`${metaFile}: ${info.classNames.length} class names for ${c.numClasses} classes`);
  if (info.embedding && info.graph && opts.graph && opts.graph.checksum() !== info.graph.checksum) {
    throw new Error(
      `${metaFile}: the model holds a learnable embedding per vertex of the graph it was trained on (checksum ${info.graph.checksum}); ` +
        `the graph given is another (checksum ${opts.graph.checksum()}): its vertices are not the ones the embeddings belong to`,
    );
  }
  const denseCount = info.dense.shapes.reduce((a, s) => a + s.reduce((x, y) => x * y, 1), 0);
  const dense = readChecked(dir, info.dense, denseCount * 4);
  const rows = info.embedding ? readChecked(dir, info.embedding, c.numNodes * c.embeddingDim * 4) : undefined;
  if (info.features && !opts.features) {
    throw new Error(
      `${metaFile}: the model reads ${info.features.dim} node features; pass {features: wm.nn.featureTable(...)} of its dataset`,
    );
  }
  if (info.features && opts.features!.dim !== info.features.dim) {
    throw new Error(`${metaFile}: the model reads ${info.features.dim} features, the table given has ${opts.features!.dim}`);
  }
  // A model without a learnable table reads features only: it applies to any graph, of the features' size.
  if (info.embedding && opts.features && opts.features.rows !== c.numNodes) {
    throw new Error(
      `${metaFile}: the model holds a learnable embedding per vertex of its graph (${c.numNodes}); the feature table given has ${opts.features.rows} rows`,
    );
  }
  const numNodes = !info.embedding && opts.features ? opts.features.rows : c.numNodes;
  const config: NodeModelConfig = {
    ...c,
    numNodes,
    embeddingMemory: opts.embeddingMemory,
    features: info.features ? opts.features : undefined,
  };
  const model =
    info.kind === 'sage'
      ? new GraphSageClassifier(config)
      : info.kind === 'gat'
        ? new GatClassifier({...config, heads: info.heads ?? 4})
        : info.kind === 'mlp'
          ? new MlpClassifier(config)
          : new GcnClassifier(config);
  try {
    const vars = model.denseVariables;
    // Axes of one are dropped before comparing: they do not move a value ([1, heads, dim] holds what [heads, dim] does).
    const squeezed = (s: number[][]) => s.map((d) => d.filter((x) => x !== 1).join('x')).join(', ');
    const shapes = vars.map((v) => v.shape.join('x')).join(', ');
    if (squeezed(vars.map((v) => v.shape)) !== squeezed(info.dense.shapes)) {
      throw new Error(
        `${metaFile}: dense shapes ${info.dense.shapes.map((s) => s.join('x')).join(', ')} differ from the model's ${shapes}`,
      );
    }
    let at = 0;
    for (const v of vars) {
      v.assign(tf.tensor(dense.subarray(at, at + v.size), v.shape, 'float32'));
      at += v.size;
    }
    if (rows && model.embedding) {
      model.embedding.write(
        Int32Array.from({length: c.numNodes}, (_, i) => i),
        rows,
      );
    }
  } catch (e) {
    model.dispose();
    throw e;
  }
  return {model, info};
}
