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

const MIN_VERTICES = 10;

export function loadNodeClassification(folder: string): NodeClassificationData {
  const edgesPath = path.join(folder, 'edges.tsv');
  const labelsPath = path.join(folder, 'vertex_value.tsv');
  for (const p of [edgesPath, labelsPath]) {
    if (!fs.existsSync(p)) throw new Error(`--data ${folder}: ${path.basename(p)} is missing (need edges.tsv and vertex_value.tsv)`);
  }
  const edges = readEdgeList(edgesPath);
  if (edges.src.length === 0) {
    throw new Error(
      `--data ${folder}: ${edgesPath} has no edges; node classification needs at least ${MIN_VERTICES} connected vertices to split into train, validation and test`,
    );
  }
  const values = readVertexValues(labelsPath, edges.numVertices);
  const full = CsrGraph.fromEdges(edges, {symmetric: true});
  const {vertices, graph} = full.largestComponent();
  // Classes are the distinct label values, numbered in ascending order.
  const distinct = [...new Set(Array.from(vertices, (v) => values[v]))].sort((a, b) => a - b);
  if (distinct.some((x) => Number.isNaN(x))) throw new Error(`${labelsPath}: some vertices of the largest component have no label`);
  // Train, validation and test each need vertices, and accuracy needs two classes.
  if (graph.numVertices < MIN_VERTICES || graph.numEdges === 0) {
    throw new Error(
      `--data ${folder}: the largest connected component has ${graph.numVertices} vertices and ${graph.numEdges} edges; ` +
        `node classification needs at least ${MIN_VERTICES} connected vertices to split into train, validation and test`,
    );
  }
  if (distinct.length < 2)
    throw new Error(`${labelsPath}: every vertex of the largest component has the same label (${distinct[0]}); nothing to classify`);
  const classOf = new Map(distinct.map((x, i) => [x, i]));
  const labels = Int32Array.from(vertices, (v) => classOf.get(values[v])!);
  return {name: path.basename(path.resolve(folder)), graph, labels, numClasses: distinct.length, originalIds: vertices};
}
