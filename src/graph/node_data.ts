// What a node-classification dataset holds once loaded or generated: in JavaScript arrays (CsrGraph,
// Float32Array features), or with the graph and features left in native memory (any size).
import type {NativeGraph} from '../native/addon';
import type {CsrGraph} from './csr';
import type {NativeCsr} from './native_csr';
import type {NativeFeatures} from './native_features';
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
  /**
   * The weight of each entry of `graph`, in entry order, when the data has them (a third column of
   * edges.tsv, or OGB's one-column edge-feat.csv.gz): duplicate edges add up, and an undirected edge's two
   * entries carry its weight. `CsrBlock.withWeights` hands them to the layers.
   */
  edgeWeights?: Float32Array;
  /** A fixed split from the data (vertices of `graph`); without one, callers draw random splits. */
  split?: Split;
  /**
   * Without a fixed split only the largest connected component is kept (the literature's protocol: a
   * vertex cut off from every label cannot be classified from the graph): how many of the file's vertices
   * that is. Vertices outside it are in no split and get no prediction.
   */
  component?: {kept: number; of: number};
}

/** The same dataset with the graph and features in native memory (loadDataset(folder, {into: 'native'})). */
export interface NativeNodeClassificationData extends Omit<NodeClassificationData, 'graph' | 'features'> {
  /** int64 offsets: any number of edges. The caller frees it (graph.free()) when done. */
  graph: NativeCsr;
  /** Read a window of rows at a time, or into a feature table with wm.nn.featureTable(data.features). */
  features?: NativeFeatures;
}

/** @internal A dataset as the loader and its cache hold it before it is handed over in either form. */
export interface LoadedParts {
  vertices: Omit<NodeClassificationData, 'graph' | 'features'>;
  /** Owned: viewed (then freed) for the 'arrays' form, adopted by the 'native' one. */
  graph: NativeGraph;
  features?: NativeFeatures;
}
