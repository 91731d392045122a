// Node-classification datasets from a folder in the ../shared/datasets
// format: edges.tsv plus vertex_value.tsv with one class per vertex.
import * as fs from 'fs';
import * as path from 'path';

import {CsrGraph} from './csr';
import {readEdgeList, readVertexValues} from './edge_list';

export interface NodeClassificationData {
  name: string;
  /** Undirected largest connected component. */
  graph: CsrGraph;
  /** Class of each vertex of `graph` (0..numClasses-1). */
  labels: Int32Array;
  numClasses: number;
  /** Id in the original files of each vertex of `graph`. */
  originalIds: Int32Array;
}

export function loadNodeClassification(folder: string): NodeClassificationData {
  const edgesPath = path.join(folder, 'edges.tsv');
  const labelsPath = path.join(folder, 'vertex_value.tsv');
  for (const p of [edgesPath, labelsPath]) {
    if (!fs.existsSync(p)) throw new Error(`--data ${folder}: ${path.basename(p)} is missing (need edges.tsv and vertex_value.tsv)`);
  }
  const edges = readEdgeList(edgesPath);
  const values = readVertexValues(labelsPath, edges.numVertices);
  const full = CsrGraph.fromEdges(edges, {symmetric: true});
  const {vertices, graph} = full.largestComponent();
  // Classes are the distinct label values, numbered in ascending order.
  const distinct = [...new Set(Array.from(vertices, (v) => values[v]))].sort((a, b) => a - b);
  if (distinct.some((x) => Number.isNaN(x))) throw new Error(`${labelsPath}: some vertices of the largest component have no label`);
  const classOf = new Map(distinct.map((x, i) => [x, i]));
  const labels = Int32Array.from(vertices, (v) => classOf.get(values[v])!);
  return {name: path.basename(path.resolve(folder)), graph, labels, numClasses: distinct.length, originalIds: vertices};
}
