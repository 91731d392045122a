// Checkpoints: embedding tables (rows and sparse optimizer state), dense
// variables, a tfjs optimizer's slots, the step and any JSON the caller
// adds. Each rank writes its own shard directory `rank-<r>`; a shard is
// written under a temporary name and renamed into place, so a save killed
// half way leaves the previous checkpoint whole.
import * as fs from 'fs';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import {Communicator} from '../memory/communicator';
import {Embedding} from '../nn/embedding';
import {writeFileSynced} from '../util/files';

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
}

function bytesOf(a: Float32Array | Int32Array | Uint8Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function readFloats(file: string): Float32Array {
  const b = fs.readFileSync(file);
  const out = new Float32Array(b.length / 4);
  new Uint8Array(out.buffer).set(b);
  return out;
}

function readValues(file: string, dtype: string): Float32Array | Int32Array {
  if (dtype === 'float32') return readFloats(file);
  if (dtype !== 'int32') throw new Error(`loadCheckpoint: ${file} has dtype ${dtype}; only float32 and int32 are saved`);
  const b = fs.readFileSync(file);
  const out = new Int32Array(b.length / 4);
  new Uint8Array(out.buffer).set(b);
  return out;
}

function shardDir(dir: string, rank: number): string {
  return path.join(dir, `rank-${rank}`);
}

export async function saveCheckpoint(dir: string, c: CheckpointContents): Promise<void> {
  const rank = c.communicator?.rank ?? 0, ranks = c.communicator?.size ?? 1;
  const final = shardDir(dir, rank);
  const tmp = `${final}.tmp-${process.pid}`;
  fs.rmSync(tmp, {recursive: true, force: true});
  fs.mkdirSync(tmp, {recursive: true});
  const meta: Meta = {step: c.step, rank, ranks, extra: c.extra ?? null, embeddings: {}, variables: {}, optimizer: []};
  for (const [name, emb] of Object.entries(c.embeddings ?? {})) {
    const st = emb.exportState();
    writeFileSynced(path.join(tmp, `emb-${name}.rows.bin`), bytesOf(st.rows));
    st.states.forEach((s, i) => writeFileSynced(path.join(tmp, `emb-${name}.state${i}.bin`), bytesOf(s)));
    meta.embeddings[name] = {rows: emb.rows, dim: emb.dim, dtype: emb.dtype, steps: st.steps, states: st.states.length};
  }
  for (const [name, v] of Object.entries(c.variables ?? {})) {
    writeFileSynced(path.join(tmp, `var-${name}.bin`), bytesOf((await v.data()) as Float32Array | Int32Array));
    meta.variables[name] = {shape: v.shape, dtype: v.dtype};
  }
  if (c.optimizer) {
    const weights = await c.optimizer.getWeights();
    for (let i = 0; i < weights.length; ++i) {
      const w = weights[i];
      writeFileSynced(path.join(tmp, `opt-${i}.bin`), bytesOf((await w.tensor.data()) as Float32Array | Int32Array));
      meta.optimizer.push({name: w.name, shape: w.tensor.shape, dtype: w.tensor.dtype});
    }
  }
  writeFileSynced(path.join(tmp, 'meta.json'), new TextEncoder().encode(JSON.stringify(meta, null, 1)));
  // Swap in: the old shard stays intact until the new one is complete.
  const old = `${final}.old-${process.pid}`;
  if (fs.existsSync(final)) fs.renameSync(final, old);
  fs.renameSync(tmp, final);
  fs.rmSync(old, {recursive: true, force: true});
  c.communicator?.barrier();
}

/** Restores a checkpoint into the given objects (same shapes); returns its step and extra. */
export async function loadCheckpoint(dir: string, c: Omit<CheckpointContents, 'step' | 'extra'>): Promise<{step: number; extra: unknown}> {
  const rank = c.communicator?.rank ?? 0, ranks = c.communicator?.size ?? 1;
  let shard = shardDir(dir, rank);
  if (!fs.existsSync(path.join(shard, 'meta.json'))) {
    // A save killed between its two renames leaves the previous shard as .old-<pid>.
    const parked = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.startsWith(`rank-${rank}.old-`)) : undefined;
    if (parked === undefined) throw new Error(`loadCheckpoint: ${shard} holds no checkpoint`);
    shard = path.join(dir, parked);
  }
  const meta = JSON.parse(fs.readFileSync(path.join(shard, 'meta.json'), 'utf8')) as Meta;
  if (meta.ranks !== ranks) throw new Error(`loadCheckpoint: saved by ${meta.ranks} rank(s), loading with ${ranks}`);
  for (const [name, emb] of Object.entries(c.embeddings ?? {})) {
    const m = meta.embeddings[name];
    if (!m) throw new Error(`loadCheckpoint: no embedding '${name}' in ${shard}`);
    if (m.rows !== emb.rows || m.dim !== emb.dim) throw new Error(`loadCheckpoint: embedding '${name}' is ${m.rows}x${m.dim} there, ${emb.rows}x${emb.dim} here`);
    emb.importState({
      rows: readFloats(path.join(shard, `emb-${name}.rows.bin`)),
      states: Array.from({length: m.states}, (_, i) => readFloats(path.join(shard, `emb-${name}.state${i}.bin`))),
      steps: m.steps,
    });
  }
  for (const [name, v] of Object.entries(c.variables ?? {})) {
    const m = meta.variables[name];
    if (!m) throw new Error(`loadCheckpoint: no variable '${name}' in ${shard}`);
    if (JSON.stringify(m.shape) !== JSON.stringify(v.shape)) throw new Error(`loadCheckpoint: variable '${name}' is [${m.shape}] there, [${v.shape}] here`);
    tf.tidy(() => v.assign(tf.tensor(readValues(path.join(shard, `var-${name}.bin`), m.dtype), m.shape, m.dtype as tf.DataType)));
  }
  if (c.optimizer) {
    const weights = meta.optimizer.map((w, i) => ({
      name: w.name,
      tensor: tf.tensor(readValues(path.join(shard, `opt-${i}.bin`), w.dtype), w.shape, w.dtype as tf.DataType),
    }));
    await c.optimizer.setWeights(weights);
    weights.forEach((w) => w.tensor.dispose());
  }
  c.communicator?.barrier();
  return {step: meta.step, extra: meta.extra};
}
