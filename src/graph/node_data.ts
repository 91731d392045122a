// What a node-classification dataset holds once loaded or generated.
import type {CsrGraph} from './csr';
import type {Split} from './split';

export interface VertexFeatures {
  /** [numVertices, dim], row-major, float32. */
  values: Float32Array;
  dim: number;
  /** The file they came from and its element type there. */
  source: string;
  stored: 'float32' | 'float16' | 'float64';
}

export interface NodeClassificationData {
  name: string;
  /** Undirected: the largest connected component when the data has no fixed split, else every vertex. */
  graph: CsrGraph;
  /** Class of each vertex of `graph` (0..numClasses-1), -1 for a vertex without a label. */
  labels: Int32Array;
  numClasses: number;
  /** Each class's name as the data gives it (numbers as written), classes numbered in sorted order. */
  classNames: string[];
  /** Id in the original files of each vertex of `graph`. */
  originalIds: Int32Array;
  features?: VertexFeatures;
  /** A fixed split from the data (vertices of `graph`); without one, callers draw random splits. */
  split?: Split;
  /**
   * Without a fixed split only the largest connected component is kept (the literature's protocol: a
   * vertex cut off from every label cannot be classified from the graph): how many of the file's vertices
   * that is. Vertices outside it are in no split and get no prediction.
   */
  component?: {kept: number; of: number};
}
