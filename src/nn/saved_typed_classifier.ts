// Typed node classifiers on disk: typed-classifier.json (the model's config, the schema of the graph it was
// trained on, each file's size and SHA-256), dense.bin (the dense variables, float32, in the model's order)
// and a table-<i>.bin per learnable-row table (float32 [rows, dim]). Files are written under a temporary
// name and renamed, the JSON last; loading checks the graph against the schema and every file before it
// builds anything. A loaded model predicts exactly what the saved one did.
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import {edgeTypeKey, HeteroGraph} from '../graph/hetero_graph';
import {ensureDir, sha256Hex as sha256, writeFileAtomically} from '../util/files';
import {FileRecord, readChecked, readManifest} from './saved_classifier';
import {TYPED_MODELS, TypedClassifierConfig, TypedNodeClassifier} from './typed_classifier';

export const TYPED_FORMAT = 'tfjs-wm-typed-node-classifier';
export const TYPED_MANIFEST = 'typed-classifier.json';
const MANIFEST = TYPED_MANIFEST;

/** What a typed model reads of its graph: any graph with the same schema serves (the same graph, or it regrown). */
export interface TypedSchema {
  nodeTypes: string[];
  numNodes: Record<string, number>;
  /** Edge type keys in the graph's order (each relation's weights follow it). */
  relations: string[];
  /** Feature width of each type that has features. */
  featureDims: Record<string, number>;
  labelType: string;
  numClasses: number;
}

export interface SavedTypedClassifierInfo {
  format: typeof TYPED_FORMAT;
  version: 1;
  config: TypedClassifierConfig;
  schema: TypedSchema;
  dense: {shapes: number[][]} & FileRecord;
  /** The learnable rows of each type without features, by type. */
  tables: Record<string, {rows: number; dim: number} & FileRecord>;
  /** The dataset folder the model was trained on, as given (predictions need its graph). */
  data?: string;
}

export function typedSchema(g: HeteroGraph): TypedSchema {
  const l = g.labels;
  if (!l) throw new RangeError('typedSchema: the graph has no labels');
  return {
    nodeTypes: [...g.nodeTypes],
    numNodes: {...g.numNodes},
    relations: g.edgeTypes.map(edgeTypeKey),
    featureDims: Object.fromEntries(Object.entries(g.features).map(([t, f]) => [t, f.dim])),
    labelType: l.type,
    numClasses: l.numClasses,
  };
}

/** Writes a trained typed classifier to `dir` (created if missing). */
export async function saveTypedClassifier(
  model: TypedNodeClassifier,
  dir: string,
  info: {data?: string} = {},
): Promise<SavedTypedClassifierInfo> {
  ensureDir(dir, 'saveTypedClassifier');
  const vars = model.variables();
  const dense = new Float32Array(vars.reduce((a, v) => a + v.size, 0));
  let at = 0;
  for (const v of vars) {
    dense.set(await v.data(), at);
    at += v.size;
  }
  const record = (file: string, data: Float32Array): FileRecord => {
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    writeFileAtomically(path.join(dir, file), bytes);
    return {file, bytes: bytes.length, sha256: sha256(bytes)};
  };
  const tables: SavedTypedClassifierInfo['tables'] = {};
  Object.entries(model.learnt).forEach(([t, e], i) => {
    const ids = tf.range(0, e.rows, 1, 'int32');
    const rows = e.read(ids);
    tables[t] = {rows: e.rows, dim: e.dim, ...record(`table-${i}.bin`, Float32Array.from(rows.dataSync()))};
    tf.dispose([ids, rows]);
  });
  const saved: SavedTypedClassifierInfo = {
    format: TYPED_FORMAT,
    version: 1,
    config: {...model.config},
    schema: typedSchema(model.graph),
    dense: {shapes: vars.map((v) => v.shape), ...record('dense.bin', dense)},
    tables,
    ...(info.data !== undefined ? {data: info.data} : {}),
  };
  writeFileAtomically(path.join(dir, MANIFEST), Buffer.from(JSON.stringify(saved, null, 2)));
  return saved;
}

/** typed-classifier.json of a saved typed classifier, its config checked before anything is built from it. */
export function readTypedClassifierInfo(dir: string): SavedTypedClassifierInfo {
  const info = readManifest<SavedTypedClassifierInfo>(dir, MANIFEST, TYPED_FORMAT, 'loadTypedClassifier');
  const bad = (rule: string) => new Error(`${path.join(dir, MANIFEST)}: ${rule}`);
  const c = info.config ?? ({} as TypedClassifierConfig);
  if (!TYPED_MODELS.includes(c.model) || c.model === 'flattened')
    throw bad(`config.model must be one of rgcn, rgat, sage, hgt, features, got ${c.model}`);
  const int = (v: unknown, lo: number, hi: number) => Number.isInteger(v) && (v as number) >= lo && (v as number) <= hi;
  if (!int(c.hidden, 1, 1 << 16)) throw bad(`config.hidden must be an integer in [1, 65536], got ${c.hidden}`);
  if (!int(c.layers, 0, 16)) throw bad(`config.layers must be an integer in [0, 16], got ${c.layers}`);
  if (!int(c.heads, 1, 1024) || ((c.model === 'rgat' || c.model === 'hgt') && c.hidden % c.heads !== 0))
    throw bad(`config.heads must be an integer in [1, 1024] that divides hidden for rgat and hgt, got ${c.heads}`);
  if (c.numBases !== undefined && c.numBases !== null && !int(c.numBases, 1, 1 << 16))
    throw bad(`config.numBases must be an integer in [1, 65536] when given, got ${c.numBases}`);
  if (c.featurelessInputs !== 'zeros' && c.featurelessInputs !== 'embeddings')
    throw bad(`config.featurelessInputs must be 'zeros' or 'embeddings', got ${c.featurelessInputs}`);
  if (!(Number.isFinite(c.learningRate) && c.learningRate >= 0) || !Number.isInteger(c.seed))
    throw bad(`config.learningRate must be a finite number >= 0 and config.seed an integer, got ${c.learningRate}, ${c.seed}`);
  const shapes = info.dense?.shapes;
  if (!Array.isArray(shapes) || !shapes.every((s) => Array.isArray(s) && s.every((d) => int(d, 0, 2 ** 31 - 1))))
    throw bad('dense.shapes must be a list of shapes of non-negative integers');
  for (const [t, r] of Object.entries(info.tables ?? {}))
    if (!int(r?.rows, 0, 2 ** 31 - 1) || !int(r?.dim, 1, 1 << 16)) throw bad(`tables.${t}: rows and dim must be integers`);
  return info;
}

/** The first way `g` differs from the schema a model was trained on, or undefined. */
function schemaDifference(s: TypedSchema, g: HeteroGraph): string | undefined {
  const here = typedSchema(g);
  if (here.nodeTypes.join(',') !== s.nodeTypes.join(','))
    return `vertex types [${here.nodeTypes.join(', ')}], the model's [${s.nodeTypes.join(', ')}]`;
  for (const t of s.nodeTypes)
    if (here.numNodes[t] !== s.numNodes[t]) return `${here.numNodes[t]} vertices of type '${t}', the model's ${s.numNodes[t]}`;
  if (here.relations.join(',') !== s.relations.join(','))
    return `relations [${here.relations.join(', ')}], the model's [${s.relations.join(', ')}]`;
  for (const t of s.nodeTypes)
    if ((here.featureDims[t] ?? 0) !== (s.featureDims[t] ?? 0))
      return `features ${here.featureDims[t] ?? 0} wide on type '${t}', the model's ${s.featureDims[t] ?? 0}`;
  if (here.labelType !== s.labelType || here.numClasses !== s.numClasses)
    return `${here.numClasses} classes on '${here.labelType}', the model's ${s.numClasses} on '${s.labelType}'`;
  return undefined;
}

/**
 * A typed classifier saveTypedClassifier wrote, over `graph` (the one it was trained on, or one of the same
 * schema: vertex types and counts, relations in order, feature widths, labelled type and classes). The
 * caller disposes it.
 */
export function loadTypedClassifier(dir: string, graph: HeteroGraph): TypedNodeClassifier {
  const info = readTypedClassifierInfo(dir);
  const differs = schemaDifference(info.schema, graph);
  if (differs) throw new Error(`loadTypedClassifier(${dir}): the graph has ${differs}`);
  const denseCount = info.dense.shapes.reduce((a, s) => a + s.reduce((x, y) => x * y, 1), 0);
  const dense = readChecked(dir, info.dense, denseCount * 4, MANIFEST, 'loadTypedClassifier');
  const tables = Object.fromEntries(
    Object.entries(info.tables).map(([t, r]) => [t, readChecked(dir, r, r.rows * r.dim * 4, MANIFEST, 'loadTypedClassifier')]),
  );
  const model = new TypedNodeClassifier(graph, info.config);
  try {
    const vars = model.variables();
    const shapes = vars.map((v) => v.shape);
    if (JSON.stringify(shapes) !== JSON.stringify(info.dense.shapes))
      throw new Error(
        `loadTypedClassifier(${dir}): the model's variables are ${JSON.stringify(shapes)}, ${MANIFEST} says ${JSON.stringify(info.dense.shapes)}`,
      );
    let at = 0;
    for (const v of vars) {
      tf.tidy(() => v.assign(tf.tensor(dense.subarray(at, at + v.size), v.shape)));
      at += v.size;
    }
    const learnt = Object.keys(model.learnt).sort().join(',');
    if (learnt !== Object.keys(tables).sort().join(','))
      throw new Error(
        `loadTypedClassifier(${dir}): the model learns rows of [${learnt}], ${MANIFEST} holds [${Object.keys(tables).join(', ')}]`,
      );
    for (const [t, rows] of Object.entries(tables)) {
      const e = model.learnt[t];
      e.write(
        Int32Array.from({length: e.rows}, (_, i) => i),
        rows,
      );
    }
    return model;
  } catch (e) {
    model.dispose();
    throw e;
  }
}
