// Checkpoints: embedding tables (rows and sparse optimizer state), dense
// variables, a tfjs optimizer's slots, the step and any JSON the caller
// adds. Each rank writes its own shard of a set committed as one
// (util/committed_sets.ts): a save killed half way, on any rank, leaves the
// previous checkpoint whole and the one every rank loads. A shard's
// meta.json lists every file's size and SHA-256; loading checks every file
// and field first and changes nothing unless all of them hold.
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import {Communicator} from '../memory/communicator';
import {Embedding} from '../nn/embedding';
import {beginSet, hasCommit, loadSet, ShardRecord, SOLO} from '../util/committed_sets';
import {checkFile, FileDigest, readFileNamed, readRecorded, sha256Hex as sha256, writeFileSynced} from '../util/files';

export interface CheckpointContents {
  step: number;
  embeddings?: {[name: string]: Embedding};
  variables?: {[name: string]: tf.Variable};
  optimizer?: tf.Optimizer;
  /** Anything JSON the training loop needs to resume (RNG state, epoch, ...). */
  extra?: unknown;
  /** The group whose ranks each save their shard (default: this process alone). */
  communicator?: Communicator;
}

interface Meta {
  step: number;
  rank: number;
  ranks: number;
  extra: unknown;
  embeddings: {[name: string]: {rows: number; dim: number; dtype: string; steps: number; states: number}};
  variables: {[name: string]: {shape: number[]; dtype: string}};
  optimizer: {name: string; shape: number[]; dtype: string}[];
  /** Every data file of the shard: its size and SHA-256 (hex). */
  files?: {[file: string]: FileDigest};
}

function bytesOf(a: Float32Array | Int32Array | Uint8Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/**
 * Saves a checkpoint into `dir`: with a communicator, every rank its shard, committed as one set
 * (util/committed_sets.ts), so a rank that dies mid-save leaves the previous checkpoint the one loaded.
 * `dir` must be a folder only this user (or root) can write, up to / (docs/robustness.md).
 */
export async function saveCheckpoint(dir: string, c: CheckpointContents): Promise<void> {
  const group = c.communicator ?? SOLO;
  if (!Number.isSafeInteger(c.step) || c.step < 0)
    throw new RangeError(`saveCheckpoint: step must be a non-negative integer, got ${c.step}`);
  const meta: Meta = {
    step: c.step,
    rank: group.rank,
    ranks: group.size,
    extra: c.extra ?? null,
    embeddings: {},
    variables: {},
    optimizer: [],
    files: {},
  };
  const set = beginSet(dir, group, 'saveCheckpoint', c.step);
  try {
    const write = (file: string, data: Uint8Array) => {
      writeFileSynced(path.join(set.folder, file), data);
      meta.files![file] = {bytes: data.byteLength, sha256: sha256(data)};
    };
    for (const [name, emb] of Object.entries(c.embeddings ?? {})) {
      const st = emb.exportState();
      write(`emb-${name}.rows.bin`, bytesOf(st.rows));
      st.states.forEach((s, i) => write(`emb-${name}.state${i}.bin`, bytesOf(s)));
      meta.embeddings[name] = {rows: emb.rows, dim: emb.dim, dtype: emb.dtype, steps: st.steps, states: st.states.length};
    }
    for (const [name, v] of Object.entries(c.variables ?? {})) {
      write(`var-${name}.bin`, bytesOf((await v.data()) as Float32Array | Int32Array));
      meta.variables[name] = {shape: v.shape, dtype: v.dtype};
    }
    if (c.optimizer) {
      const weights = await c.optimizer.getWeights();
      for (let i = 0; i < weights.length; ++i) {
        const w = weights[i];
        write(`opt-${i}.bin`, bytesOf((await w.tensor.data()) as Float32Array | Int32Array));
        meta.optimizer.push({name: w.name, shape: w.tensor.shape, dtype: w.tensor.dtype});
      }
    }
  } catch (e) {
    set.abandon();
    throw e;
  }
  const metaBytes = new TextEncoder().encode(JSON.stringify(meta, null, 1));
  writeFileSynced(path.join(set.folder, 'meta.json'), metaBytes);
  set.commit({step: c.step, digest: sha256(metaBytes)});
}

/** Whether `dir` holds a committed checkpoint (what loadCheckpoint would try). */
export function hasCheckpoint(dir: string): boolean {
  return hasCommit(dir);
}

/**
 * Restores a checkpoint into the given objects (same shapes); returns its step and extra. With a
 * communicator, every rank loads the same committed set: the newest every rank holds whole.
 */
export async function loadCheckpoint(dir: string, c: Omit<CheckpointContents, 'step' | 'extra'>): Promise<{step: number; extra: unknown}> {
  const group = c.communicator ?? SOLO;
  const {value: plan} = loadSet(dir, group, 'loadCheckpoint', (shard, record) => readShard(shard, group.rank, group.size, record, c));
  // Everything was read and checked: only now does anything change.
  for (const [name, emb] of Object.entries(c.embeddings ?? {})) emb.importState(plan.embeddings[name]);
  for (const [name, v] of Object.entries(c.variables ?? {})) {
    const {values, shape, dtype} = plan.variables[name];
    tf.tidy(() => v.assign(tf.tensor(values, shape, dtype)));
  }
  if (c.optimizer) {
    const weights = plan.optimizer.map((w) => ({name: w.name, tensor: tf.tensor(w.values, w.shape, w.dtype)}));
    await c.optimizer.setWeights(weights);
    weights.forEach((w) => w.tensor.dispose());
  }
  return {step: plan.meta.step, extra: plan.meta.extra};
}

const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
const isShape = (x: unknown): x is number[] => Array.isArray(x) && x.every(isCount);
const DTYPES = ['float32', 'int32'];

/**
 * The dtype (and shape, where known) a tfjs optimizer's slot must have:
 * 'iter' is the int32 step count; every other slot is named
 * `<variable>/<slot>` and mirrors its float32 variable (its shape too when
 * that variable exists in this process).
 */
function slotRule(name: string): {dtype: string; shape?: number[]; why: string} {
  if (name === 'iter') return {dtype: 'int32', shape: [], why: "the optimizer's step count"};
  const cut = name.lastIndexOf('/');
  const variable = cut > 0 ? tf.engine().registeredVariables[name.slice(0, cut)] : undefined;
  if (variable) return {dtype: 'float32', shape: variable.shape, why: `it mirrors variable '${variable.name}'`};
  return {dtype: 'float32', why: 'optimizer state is float32'};
}

/**
 * Reads and checks a whole shard: meta.json's fields, each file's size
 * against the shape it holds and against the manifest, its SHA-256, and the
 * shapes the caller's objects have. Throws naming the file and the rule.
 */
function readShard(shard: string, rank: number, ranks: number, record: ShardRecord, c: Omit<CheckpointContents, 'step' | 'extra'>) {
  const metaFile = path.join(shard, 'meta.json');
  const metaBytes = readFileNamed(metaFile, 'loadCheckpoint');
  if (sha256(metaBytes) !== record.digest)
    throw new Error(`loadCheckpoint: ${metaFile} does not match its digest in the commit (damaged or replaced)`);
  let meta: Meta;
  try {
    meta = JSON.parse(metaBytes.toString('utf8')) as Meta;
  } catch (e) {
    throw new Error(`loadCheckpoint: ${metaFile} is not valid JSON (${(e as Error).message})`);
  }
  const bad = (what: string) => new Error(`loadCheckpoint: ${metaFile}: ${what}`);
  if (typeof meta !== 'object' || meta === null) throw bad('not an object');
  if (!isCount(meta.step) || meta.step !== record.step)
    throw bad(`step must be the commit's (${record.step}), got ${JSON.stringify(meta.step)}`);
  if (meta.ranks !== ranks) throw new Error(`loadCheckpoint: ${metaFile}: saved by ${meta.ranks} rank(s), loading with ${ranks}`);
  if (meta.rank !== rank) throw bad(`rank must be ${rank} (the shard's folder), got ${JSON.stringify(meta.rank)}`);
  for (const k of ['embeddings', 'variables'] as const) if (typeof meta[k] !== 'object' || meta[k] === null) throw bad(`${k} is missing`);
  if (!Array.isArray(meta.optimizer)) throw bad('optimizer is missing');
  if (meta.files !== undefined && (typeof meta.files !== 'object' || meta.files === null)) throw bad('files is not an object');
  for (const [name, f] of Object.entries(meta.files ?? {})) {
    if (!isCount(f?.bytes) || typeof f.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(f.sha256))
      throw bad(`files['${name}'] needs bytes (a count) and sha256 (64 hex digits), got ${JSON.stringify(f)}`);
  }
  // A file's bytes, checked against the manifest and the size its contents must have.
  const read = (name: string, expectBytes?: number): Uint8Array => {
    const file = path.join(shard, name);
    const listed = meta.files?.[name];
    if (meta.files && !listed) {
      checkFile(file, 'loadCheckpoint');
      throw new Error(`loadCheckpoint: ${file} is not in ${metaFile}'s file list`);
    }
    // A copy: the typed views below need their own aligned buffer.
    const data = new Uint8Array(readRecorded(file, listed, metaFile, 'loadCheckpoint'));
    if (expectBytes !== undefined && data.byteLength !== expectBytes) {
      throw new Error(`loadCheckpoint: ${file} holds ${data.byteLength} bytes; its shape needs ${expectBytes}`);
    }
    if (data.byteLength % 4) throw new Error(`loadCheckpoint: ${file} holds ${data.byteLength} bytes, not whole 4-byte values`);
    return data;
  };
  const floats = (b: Uint8Array) => new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  const typed = (b: Uint8Array, dtype: string) =>
    dtype === 'int32' ? new Int32Array(b.buffer, b.byteOffset, b.byteLength / 4) : floats(b);
  const embeddings: {[name: string]: {rows: Float32Array; states: Float32Array[]; steps: number}} = {};
  for (const [name, emb] of Object.entries(c.embeddings ?? {})) {
    const m = meta.embeddings[name];
    if (!m) throw new Error(`loadCheckpoint: no embedding '${name}' in ${shard}`);
    if (!isCount(m.rows) || !isCount(m.dim) || !isCount(m.steps) || !isCount(m.states) || m.states > 2) {
      throw bad(`embedding '${name}' needs whole rows, dim, steps and states (0 to 2), got ${JSON.stringify(m)}`);
    }
    if (m.rows !== emb.rows || m.dim !== emb.dim)
      throw new Error(`loadCheckpoint: embedding '${name}' is ${m.rows}x${m.dim} there, ${emb.rows}x${emb.dim} here`);
    if (m.dtype !== emb.dtype)
      throw new Error(`loadCheckpoint: embedding '${name}' was saved as ${m.dtype}, the table here is ${emb.dtype}`);
    const want = emb.exportStateShape();
    if (m.states !== want.states)
      throw new Error(`loadCheckpoint: embedding '${name}' has ${m.states} optimizer state(s) there, ${want.states} here`);
    embeddings[name] = {
      rows: floats(read(`emb-${name}.rows.bin`, want.elements * 4)),
      states: Array.from({length: m.states}, (_, i) => floats(read(`emb-${name}.state${i}.bin`, want.stateElements * 4))),
      steps: m.steps,
    };
  }
  const variables: {[name: string]: {values: Float32Array | Int32Array; shape: number[]; dtype: tf.DataType}} = {};
  for (const [name, v] of Object.entries(c.variables ?? {})) {
    const m = meta.variables[name];
    if (!m) throw new Error(`loadCheckpoint: no variable '${name}' in ${shard}`);
    if (!isShape(m.shape) || !DTYPES.includes(m.dtype))
      throw bad(`variable '${name}' needs a shape and dtype float32 or int32, got ${JSON.stringify(m)}`);
    if (JSON.stringify(m.shape) !== JSON.stringify(v.shape))
      throw new Error(`loadCheckpoint: variable '${name}' is [${m.shape}] there, [${v.shape}] here`);
    if (m.dtype !== v.dtype) throw new Error(`loadCheckpoint: variable '${name}' is ${m.dtype} there, ${v.dtype} here`);
    variables[name] = {values: typed(read(`var-${name}.bin`, v.size * 4), m.dtype), shape: m.shape, dtype: m.dtype as tf.DataType};
  }
  const optimizer = c.optimizer
    ? meta.optimizer.map((w, i) => {
        if (typeof w?.name !== 'string' || !isShape(w.shape) || !DTYPES.includes(w.dtype)) {
          throw bad(`optimizer slot ${i} needs a name, a shape and dtype float32 or int32, got ${JSON.stringify(w)}`);
        }
        const want = slotRule(w.name);
        if (w.dtype !== want.dtype || (want.shape && JSON.stringify(w.shape) !== JSON.stringify(want.shape))) {
          throw bad(
            `optimizer slot ${i} ('${w.name}') must be ${want.dtype}${want.shape ? ` [${want.shape}]` : ''} (${want.why}), ` +
              `got ${w.dtype} [${w.shape}]`,
          );
        }
        const size = w.shape.reduce((a, b) => a * b, 1);
        return {name: w.name, values: typed(read(`opt-${i}.bin`, size * 4), w.dtype), shape: w.shape, dtype: w.dtype as tf.DataType};
      })
    : [];
  return {meta, embeddings, variables, optimizer};
}
