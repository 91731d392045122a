// Node classifiers on disk: classifier.json (kind, config, class names, the
// dataset it was trained on, each file's size and SHA-256), dense.bin (the
// dense variables, float32, in the model's order) and embedding.bin (the
// node-embedding table, float32 [numNodes, dim]). Files are written under a
// temporary name and renamed, classifier.json last; loading checks every file
// before it builds anything. A loaded model predicts exactly what the saved
// one did.
import * as tf from '@tensorflow/tfjs-core';
import * as fs from 'fs';
import * as path from 'path';

import {ensureDir, FileDigest, sha256Hex as sha256, writeFileAtomically} from '../util/files';
import {checkTrustedFile} from '../util/trusted_files';
import type {Embedding} from './embedding';
import type {FeatureSource} from './feature_source';
import {classesAndProbabilities, FullGraph, NodeModelConfig} from './node_model';
import type {LayerwiseGraph, LayerwiseOptions} from './layerwise';

/** What saving and predicting need of a node classifier (GraphSAGE, GAT and GCN have it). */
export interface SavableNodeClassifier {
  readonly kind: 'sage' | 'gat' | 'gcn' | 'mlp';
  readonly config: NodeModelConfig & {heads?: number};
  readonly denseVariables: tf.Variable[];
  readonly embedding: Embedding | undefined;
  forwardFull(g: FullGraph): tf.Tensor2D;
  /** Every vertex's logits layer by layer over full neighbourhoods. */
  inferLayerwise(graph: LayerwiseGraph, o?: LayerwiseOptions): Embedding;
}

export const FORMAT = 'tfjs-wm-node-classifier';

export interface FileRecord extends FileDigest {
  file: string;
}

export interface SavedClassifierInfo {
  format: typeof FORMAT;
  version: 1;
  kind: 'sage' | 'gat' | 'gcn' | 'mlp';
  heads?: number;
  config: Omit<NodeModelConfig, 'communicator' | 'embeddingMemory' | 'embeddingOptimizer'>;
  classNames: string[];
  /** The dataset the model was trained on, as given (predictions need its graph). */
  data?: string;
  /**
   * The graph a model with a learnable embedding per vertex was trained on (its checksum: CsrGraph /
   * NativeCsr.checksum()); loadNodeClassifier refuses another graph given to it.
   */
  graph?: {checksum: string};
  dense: {shapes: number[][]} & FileRecord;
  /** The learnable table (absent for a features-only model). */
  embedding?: {rows: number; dim: number} & FileRecord;
  /**
   * The model reads node features of this width (loadNodeClassifier needs them): the dataset's, row-normalised
   * when `normalized`, or the graph's structure features (`from: 'structure'`); wm.nn.inputFeatures makes them.
   */
  features?: {dim: number} & Partial<FeatureSource>;
}

/** Writes the classifier to `dir` (created if missing). */
export async function saveNodeClassifier(
  model: SavableNodeClassifier,
  dir: string,
  info: {classNames?: string[]; data?: string; features?: FeatureSource; graph?: {checksum(): string}} = {},
): Promise<SavedClassifierInfo> {
  ensureDir(dir, 'save');
  const c = model.config;
  const vars = model.denseVariables;
  const dense = new Float32Array(vars.reduce((a, v) => a + v.size, 0));
  let at = 0;
  for (const v of vars) {
    dense.set(await v.data(), at);
    at += v.size;
  }
  let rows: Float32Array | undefined;
  if (model.embedding) {
    const ids = tf.range(0, c.numNodes, 1, 'int32');
    const table = model.embedding.read(ids);
    rows = new Float32Array(await table.data());
    tf.dispose([ids, table]);
  }
  const record = (file: string, data: Float32Array): FileRecord => {
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    writeFileAtomically(path.join(dir, file), bytes);
    return {file, bytes: bytes.length, sha256: sha256(bytes)};
  };
  const meta: SavedClassifierInfo = {
    format: FORMAT,
    version: 1,
    kind: model.kind,
    ...(model.config.heads !== undefined ? {heads: model.config.heads} : {}),
    config: {
      numNodes: c.numNodes,
      numClasses: c.numClasses,
      embeddingDim: c.embeddingDim,
      hiddenDim: c.hiddenDim,
      numLayers: c.numLayers,
      dropout: c.dropout,
      seed: c.seed,
      embeddingLearningRate: c.embeddingLearningRate,
    },
    classNames: info.classNames ?? Array.from({length: c.numClasses}, (_, i) => String(i)),
    ...(info.data !== undefined ? {data: info.data} : {}),
    ...(info.graph && model.embedding ? {graph: {checksum: info.graph.checksum()}} : {}),
    dense: {shapes: vars.map((v) => v.shape), ...record('dense.bin', dense)},
    ...(rows ? {embedding: {rows: c.numNodes, dim: c.embeddingDim, ...record('embedding.bin', rows)}} : {}),
    ...(c.features ? {features: {dim: c.features.dim, ...(info.features ?? {})}} : {}),
  };
  writeFileAtomically(path.join(dir, 'classifier.json'), Buffer.from(JSON.stringify(meta, null, 2)));
  return meta;
}

/** A float32 file a manifest records (its size and SHA-256), checked against both before it is read. */
export function readChecked(
  dir: string,
  rec: FileRecord,
  wantBytes: number,
  manifest = 'classifier.json',
  what = 'loadNodeClassifier',
): Float32Array {
  const file = path.join(dir, rec.file);
  if (!fs.existsSync(file)) throw new Error(`${file}: missing`);
  checkTrustedFile(file, what);
  const b = fs.readFileSync(file);
  if (b.length !== rec.bytes || b.length !== wantBytes)
    throw new Error(`${file}: ${b.length} bytes, ${manifest} says ${rec.bytes} (the shapes ${wantBytes})`);
  if (sha256(b) !== rec.sha256) throw new Error(`${file}: its SHA-256 differs from ${manifest}'s (the file changed after saving)`);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** A saved model's JSON manifest `name` in `dir`, trusted and parsed, of version 1 of `format`. */
export function readManifest<T extends {format: string; version: number}>(dir: string, name: string, format: string, what: string): T {
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) throw new Error(`${file}: missing (not a saved ${format})`);
  checkTrustedFile(file, what);
  let info: T;
  try {
    info = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: not JSON (${(e as Error).message})`);
  }
  if (info.format !== format || info.version !== 1) throw new Error(`${file}: not a version-1 ${format}`);
  return info;
}

/** classifier.json of a saved classifier (what it needs to load: its kind, sizes, dataset, features). */
export function readClassifierInfo(dir: string): SavedClassifierInfo {
  return readManifest<SavedClassifierInfo>(dir, 'classifier.json', FORMAT, 'loadNodeClassifier');
}

/** Class ids and their probabilities for `vertices` (default: every vertex) over the whole graph. */
export function predictNodes(
  model: SavableNodeClassifier,
  graph: FullGraph | LayerwiseGraph,
  vertices?: Int32Array,
  o: LayerwiseOptions = {},
): {vertices: Int32Array; classes: Int32Array; probabilities: Float32Array} {
  const n = 'block' in graph ? graph.numNodes : graph.numVertices;
  const ids = vertices ?? Int32Array.from({length: n}, (_, i) => i);
  for (const v of ids) if (!(v >= 0 && v < n)) throw new RangeError(`predict: vertex ${v} is not in [0, ${n})`);
  const pick = classesAndProbabilities;
  if (!('block' in graph)) {
    // Layer by layer over full neighbourhoods: graphs of any size; the picked rows read a batch at a time.
    const table = model.inferLayerwise(graph, o);
    try {
      const classes = new Int32Array(ids.length),
        probabilities = new Float32Array(ids.length);
      const batch = o.batchSize ?? 65_536;
      for (let at = 0; at < ids.length; at += batch) {
        const part = ids.subarray(at, Math.min(ids.length, at + batch));
        const [c, p] = pick(() => table.read(part) as tf.Tensor2D);
        classes.set(c, at);
        probabilities.set(p, at);
      }
      return {vertices: ids, classes, probabilities};
    } finally {
      table.dispose();
    }
  }
  const [classes, probabilities] = pick(() => tf.gather(model.forwardFull(graph), tf.tensor1d(ids, 'int32')) as tf.Tensor2D);
  return {vertices: ids, classes, probabilities};
}
