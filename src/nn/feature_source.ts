// Where a node classifier's feature table comes from: recorded with a saved
// model, so predictions read the same rows the model was trained on.
export interface FeatureSource {
  /** The dataset's features, or features computed from the graph (wm.graph.structureFeatures). */
  from: 'data' | 'structure';
  /** Each row scaled to sum to 1 (bag-of-words preprocessing). */
  normalized: boolean;
}
