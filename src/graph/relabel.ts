// Distinct ids in order of first appearance, and each id's position among them: by hashing (uniqueAndRelabel: any
// ids), or through a mark per vertex of the id space (relabelThroughMarks: one read and write of a mark per id, where
// hashing probes a table twice the ids' size; natively, in parallel parts where the host has threads).
import {int32Ids} from '../util/arrays';
import {graphNative} from '../native/domains';

/** Distinct values of xs in order of first occurrence, and each x's position among them (C++ core). */
export function uniqueAndRelabel(ids: Int32Array | ArrayLike<number>): {unique: Int32Array; inverse: Int32Array} {
  const xs = int32Ids(ids, 'uniqueAndRelabel: ids');
  const values = new Int32Array(xs.length),
    inverse = new Int32Array(xs.length);
  const count = graphNative().uniqueInt32(xs, xs.length, values, inverse) as number;
  return {unique: values.slice(0, count), inverse};
}

// Id spaces past this many vertices relabel by hashing instead of holding 4 bytes per vertex.
const MAX_MARKED_VERTICES = 1 << 28;
// The marks of each graph (by id space: a typed graph's vertex types), all -1 between uses, freed with the graph.
const marksOf = new WeakMap<object, Map<string, Int32Array>>();

/**
 * uniqueAndRelabel of `all`, every id in [0, numVertices), through marks kept with `owner` (a graph) under `space`
 * (its vertex type, or '' for its one id space).
 */
export function relabelThroughMarks(
  owner: object,
  space: string,
  numVertices: number,
  all: Int32Array,
): {unique: Int32Array; inverse: Int32Array} {
  if (numVertices > MAX_MARKED_VERTICES) return uniqueAndRelabel(all);
  let bySpace = marksOf.get(owner);
  if (!bySpace) marksOf.set(owner, (bySpace = new Map()));
  let marks = bySpace.get(space);
  if (!marks) bySpace.set(space, (marks = new Int32Array(numVertices).fill(-1)));
  const unique = new Int32Array(all.length),
    inverse = new Int32Array(all.length);
  const distinct = graphNative().relabelByMarks(all, all.length, marks, numVertices, unique, inverse);
  return {unique: unique.slice(0, distinct), inverse};
}
