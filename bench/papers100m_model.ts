// The model bench:papers100m and bench:papers100m-accuracy train: WholeGraph's papers100M setting, a 3-layer
// GraphSAGE (fan-out 30/30/30, hidden 256, 172 classes) over a feature table, no embedding table, no dropout.
import type * as wm from '../src/index';
import {GraphSageClassifier} from '../src/nn/graphsage';

export const FANOUTS = [30, 30, 30];
export const HIDDEN = 256;
export const CLASSES = 172;

/** The model over `features` (a row per vertex of the graph's `n`), `classes` outputs, weights drawn from `seed`. */
export function papersSage(n: number, features: wm.nn.Embedding, classes = CLASSES, seed = 3): GraphSageClassifier {
  return new GraphSageClassifier({
    numNodes: n,
    numClasses: classes,
    embeddingDim: 0,
    features,
    hiddenDim: HIDDEN,
    numLayers: FANOUTS.length,
    dropout: 0,
    seed,
    embeddingLearningRate: 0,
  });
}
