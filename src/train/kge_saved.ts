// Saved knowledge-graph embeddings: a folder with `kge.json` (the model's configuration, the training
// options, the final metrics, each table file's size and SHA-256), `entity.npy` and `relation.npy`
// (float32 rows, written and read a block of rows at a time, so tables larger than memory pass through),
// and the name maps (`entities.tsv`, `relations.tsv`). Loading checks every file (a trusted folder,
// the sizes, the digests) before a row reaches the model; queries return the top-k candidates of
// (head, relation, ?) or (?, relation, tail) against every entity.
import {createHash} from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import {npyHeader, readNpyHeader} from '../data/npy';
import type {NameTable} from '../graph/name_table';
import {KnowledgeGraph, readNameMaps, writeNameMaps} from '../graph/triples';
import {Embedding, EmbeddingMemory} from '../nn/embedding';
import {groupScores, groupScoresPairBytes} from '../nn/kge/group_scores';
import {kgeModel} from '../nn/kge/index';
import {KgeConfig, KgeModel, KgeSide, KGE_MODELS} from '../nn/kge/kge_model';
import {ensureDir, writeFileAtomically, writeFileInPieces} from '../util/files';
import {int32Of} from '../util/arrays';
import {checkTrustedFile} from '../util/trusted_files';

const BLOCK_BYTES = 64 << 20;

interface TableFile {
  file: string;
  rows: number;
  dim: number;
  bytes: number;
  sha256: string;
}

export interface SavedKgeInfo {
  format: 'tfjs-wholememory-kge';
  version: 1;
  config: KgeConfig;
  entity: TableFile;
  relation: TableFile;
  /** What the caller records beside the model (training options, metrics). */
  extra?: object;
}

function rowsPerBlock(dim: number): number {
  return Math.max(1, Math.floor(BLOCK_BYTES / (4 * Math.max(dim, 1))));
}

/** A table's rows as float32 bytes, a block at a time (reads of a 'distributed' table are collectives: every rank reads alike). */
function* tableBlocks(table: Embedding): Generator<Uint8Array> {
  const step = rowsPerBlock(table.dim);
  for (let r0 = 0; r0 < table.rows; r0 += step) {
    const n = Math.min(step, table.rows - r0);
    const t = table.read(int32Of(n, (i) => r0 + i));
    const v = t.dataSync() as Float32Array;
    t.dispose();
    yield new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  }
}

/** Writes a table's rows as float32 .npy, a block at a time, durably (temporary name, then rename). */
function writeTable(table: Embedding, dir: string, name: string): TableFile {
  const hash = createHash('sha256');
  let bytes = 0;
  writeFileInPieces(
    path.join(dir, name),
    (put) => {
      const add = (b: Uint8Array) => {
        put(b);
        hash.update(b);
        bytes += b.length;
      };
      add(npyHeader('<f4', [table.rows, table.dim]));
      for (const b of tableBlocks(table)) add(b);
    },
    0o600,
  );
  return {file: name, rows: table.rows, dim: table.dim, bytes, sha256: hash.digest('hex')};
}

/**
 * Saves the model, the graph's name maps and `extra` (options, metrics) into `dir`. Tables in 'distributed'
 * memory are read by collectives: every rank of their group calls this, and `writer: false` (every rank but
 * one) only takes part in the reads.
 */
export function saveKgeModel(
  model: KgeModel,
  dir: string,
  names: Pick<KnowledgeGraph, 'numEntities' | 'numRelations' | 'entityNames' | 'relationNames'>,
  extra?: object,
  o: {writer?: boolean} = {},
): void {
  if (o.writer === false) {
    for (const table of [model.entity, model.relation]) for (const _ of tableBlocks(table));
    return;
  }
  ensureDir(dir, 'saveKgeModel', 0o700);
  const info: SavedKgeInfo = {
    format: 'tfjs-wholememory-kge',
    version: 1,
    config: model.config,
    entity: writeTable(model.entity, dir, 'entity.npy'),
    relation: writeTable(model.relation, dir, 'relation.npy'),
    extra,
  };
  writeNameMaps(dir, names);
  writeFileAtomically(path.join(dir, 'kge.json'), Buffer.from(JSON.stringify(info, null, 2)));
}

/** kge.json, read and checked. */
export function readKgeInfo(dir: string): SavedKgeInfo {
  const file = path.join(dir, 'kge.json');
  if (!fs.existsSync(file)) throw new Error(`loadKgeModel: ${dir} holds no kge.json (saveKgeModel writes one)`);
  checkTrustedFile(file, 'loadKgeModel');
  let info: SavedKgeInfo;
  try {
    info = JSON.parse(fs.readFileSync(file, 'utf8')) as SavedKgeInfo;
  } catch (e) {
    throw new Error(`${file}: not JSON: ${(e as Error).message}`);
  }
  if (info.format !== 'tfjs-wholememory-kge' || info.version !== 1)
    throw new Error(`${file}: not a saved knowledge-graph model of version 1`);
  if (!KGE_MODELS.includes(info.config?.name)) throw new Error(`${file}: unknown model '${info.config?.name}'`);
  return info;
}

/** Reads a table file into the model's table a block at a time: the size, the shape and the digest checked before any row is written. */
function readTable(dir: string, rec: TableFile, table: Embedding): void {
  const file = path.join(dir, path.basename(rec.file));
  if (!fs.existsSync(file)) throw new Error(`${file}: missing`);
  checkTrustedFile(file, 'loadKgeModel');
  const header = readNpyHeader(file);
  if (header.descr !== '<f4' || header.shape.length !== 2 || header.shape[0] !== table.rows || header.shape[1] !== table.dim)
    throw new Error(`${file}: holds ${header.descr} [${header.shape}], the model needs <f4 [${table.rows}, ${table.dim}]`);
  if (header.fileBytes !== rec.bytes) throw new Error(`${file}: ${header.fileBytes} bytes, kge.json says ${rec.bytes}`);
  const fd = fs.openSync(file, 'r');
  try {
    // The digest first: no row is written from a file that changed after saving.
    const hash = createHash('sha256');
    const buf = Buffer.alloc(Math.min(BLOCK_BYTES, rec.bytes));
    for (let at = 0; at < rec.bytes;) {
      const got = fs.readSync(fd, buf, 0, Math.min(buf.length, rec.bytes - at), at);
      if (got <= 0) throw new Error(`${file}: ends at byte ${at}`);
      hash.update(buf.subarray(0, got));
      at += got;
    }
    if (hash.digest('hex') !== rec.sha256) throw new Error(`${file}: its SHA-256 differs from kge.json's (the file changed after saving)`);
    const step = rowsPerBlock(table.dim);
    for (let r0 = 0; r0 < table.rows; r0 += step) {
      const n = Math.min(step, table.rows - r0);
      const values = new Float32Array(n * table.dim);
      fs.readSync(fd, new Uint8Array(values.buffer), 0, values.byteLength, header.dataStart + r0 * table.dim * 4);
      table.write(
        Int32Array.from({length: n}, (_, i) => r0 + i),
        values,
      );
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** A model saveKgeModel saved, its tables in `memory`, and the names of its entities and relations. */
export async function loadKgeModel(
  dir: string,
  opts: {memory?: EmbeddingMemory} = {},
): Promise<{model: KgeModel; info: SavedKgeInfo; entityNames: NameTable; relationNames: NameTable}> {
  const info = readKgeInfo(dir);
  const c = info.config;
  const names = await readNameMaps(dir);
  if (names.entityNames.length !== c.numEntities || names.relationNames.length !== c.numRelations)
    throw new Error(
      `${dir}: entities.tsv and relations.tsv name ${names.entityNames.length} entities and ${names.relationNames.length} relations; the model has ${c.numEntities} and ${c.numRelations}`,
    );
  const model = kgeModel(c.name, {
    numEntities: c.numEntities,
    numRelations: c.numRelations,
    dim: c.dim,
    margin: c.margin,
    pNorm: c.name === 'transE' ? c.pNorm : undefined,
    initScale: c.initScale,
    memory: opts.memory,
  });
  try {
    readTable(dir, info.entity, model.entity);
    readTable(dir, info.relation, model.relation);
  } catch (e) {
    model.dispose();
    throw e;
  }
  return {model, info, ...names};
}

/** The k best candidates of the query (fixed, relation) on `side`, best first, against every entity (a block at a time). */
export function topCandidates(
  model: KgeModel,
  fixed: number,
  relation: number,
  side: KgeSide,
  k: number,
): {ids: number[]; scores: number[]} {
  const {numEntities, numRelations} = model.config;
  if (!Number.isInteger(fixed) || fixed < 0 || fixed >= numEntities)
    throw new RangeError(`topCandidates: entity ${fixed} is not an id in [0, ${numEntities})`);
  if (!Number.isInteger(relation) || relation < 0 || relation >= numRelations)
    throw new RangeError(`topCandidates: relation ${relation} is not an id in [0, ${numRelations})`);
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`topCandidates: k must be a positive integer, got ${k}`);
  const w = model.entity.dim;
  const block = Math.max(k, Math.floor((64 << 20) / (4 + groupScoresPairBytes(model))));
  const q = tf.tidy(() => model.query(model.entity.read([fixed]) as tf.Tensor2D, model.relation.read([relation]) as tf.Tensor2D, side));
  const best: {id: number; score: number}[] = [];
  try {
    for (let e0 = 0; e0 < numEntities; e0 += block) {
      const m = Math.min(block, numEntities - e0);
      const c = model.entity.read(Int32Array.from({length: m}, (_, i) => e0 + i));
      const top = tf.tidy(() =>
        tf.topk(tf.reshape(groupScores(model, tf.reshape(q, [1, 1, w]), tf.reshape(c, [1, m, w])), [m]), Math.min(k, m)),
      );
      const [v, i] = [top.values.dataSync(), top.indices.dataSync()];
      tf.dispose([c, top.values, top.indices]);
      v.forEach((score, j) => best.push({id: e0 + i[j], score}));
    }
  } finally {
    q.dispose();
  }
  best.sort((a, b) => b.score - a.score || a.id - b.id);
  const kept = best.slice(0, k);
  return {ids: kept.map((b) => b.id), scores: kept.map((b) => b.score)};
}
