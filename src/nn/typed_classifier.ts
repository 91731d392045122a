// A node classifier over a typed graph: a stack of rgcnConv, rgatConv, heteroConv(sageConv) or hgtConv layers
// (ReLU between, HGT's own gelu and gate), or for the features-alone baseline a linear map; learnable rows for
// the types without features where asked. Its forward pass over a TypedNeighborLoader batch trains it; its
// exact pass over every vertex (a layer at a time, every neighbour) predicts. trainTypedNodeClassification
// trains one; saved_typed_classifier.ts writes and reads one.
import * as tf from '@tensorflow/tfjs-core';

import {edgeTypeKey, HeteroGraph} from '../graph/hetero_graph';
import type {TypedLayer} from '../graph/typed_sampling';
import {tfSeed} from '../util/random';
import {sageConv} from './conv/sage_conv';
import {Embedding, embedding} from './embedding';
import {HeteroConv} from './hetero/hetero_conv';
import {classesAndProbabilities} from './node_model';
import {HgtConv} from './hetero/hgt_conv';
import {RgatConv} from './hetero/rgat_conv';
import {RgcnConv} from './hetero/rgcn_conv';
import {adam as sparseAdam} from './sparse_optimizer';
import {typedLayerwise} from './typed_layerwise';
import {FeatureTables, featureTablesFor, TypedBatch, TypedFeatureStorage, TypedNeighborLoader} from './typed_neighbor_loader';

/**
 * 'sage': PyG's HeteroConv of SAGEConv (a SAGE layer per relation, summed); 'hgt': HGT layers (hidden wide, its
 * heads) and a linear map of the labelled type's rows to the classes, as PyG's HGT example; 'flattened': the
 * graph as one vertex type and one relation (a baseline); 'features': the labelled type's features alone.
 */
export type TypedModelKind = 'rgcn' | 'rgat' | 'sage' | 'hgt' | 'flattened' | 'features';
export const TYPED_MODELS: TypedModelKind[] = ['rgcn', 'rgat', 'sage', 'hgt', 'flattened', 'features'];

/** What a typed classifier is made from (with the graph whose schema it reads). */
export interface TypedClassifierConfig {
  model: TypedModelKind;
  hidden: number;
  /** Layers: one per hop of the fan-outs it trains with (0 for 'features'). */
  layers: number;
  numBases?: number;
  heads: number;
  featurelessInputs: 'zeros' | 'embeddings';
  /** The learnable rows' sparse Adam learning rate. */
  learningRate: number;
  seed: number;
}

export class TypedNodeClassifier {
  /** The width every type's inputs are padded to (the widest features). */
  readonly inputDim: number;
  readonly labelType: string;
  readonly numClasses: number;
  readonly convs: (RgcnConv | RgatConv | HeteroConv | HgtConv)[];
  /** The learnable rows of each type without features (featurelessInputs 'embeddings'). */
  readonly learnt: Record<string, Embedding>;
  /** The linear map to the classes: the features-alone model, and HGT's last step. */
  readonly head?: tf.Variable;
  private vars?: tf.Variable[];

  constructor(
    readonly graph: HeteroGraph,
    readonly config: TypedClassifierConfig,
  ) {
    const c = config;
    const l = graph.labels;
    if (!l) throw new RangeError('TypedNodeClassifier: the graph needs labels on one vertex type');
    this.labelType = l.type;
    this.numClasses = l.numClasses;
    this.inputDim = Math.max(1, ...Object.values(graph.features).map((f) => f.dim));
    const layers = c.model === 'features' ? 0 : c.layers;
    const widths = [this.inputDim, ...Array.from({length: Math.max(layers - 1, 0)}, () => c.hidden)].slice(0, layers);
    const relations = graph.edgeTypes.map(edgeTypeKey);
    this.convs = widths.map((w, i) => {
      const last = i === widths.length - 1,
        seed = c.seed * 31 + i;
      if (c.model === 'hgt') return new HgtConv({inDim: w, units: c.hidden, heads: c.heads, nodeTypes: graph.nodeTypes, relations, seed});
      if (c.model === 'sage')
        return new HeteroConv(
          Object.fromEntries(relations.map((key, r) => [key, sageConv({units: last ? l.numClasses : c.hidden, seed: seed * 1009 + r})])),
        );
      if (c.model === 'rgat')
        return new RgatConv({inDim: w, units: last ? l.numClasses : c.hidden / c.heads, heads: c.heads, concat: !last, relations, seed});
      return new RgcnConv({inDim: w, units: last ? l.numClasses : c.hidden, relations, numBases: c.numBases, seed});
    });
    this.learnt =
      c.featurelessInputs === 'embeddings' && layers > 0
        ? Object.fromEntries(
            graph.nodeTypes
              .filter((t) => !graph.features[t] && graph.numNodes[t] > 0)
              .map((t, i) => [
                t,
                embedding({
                  rows: graph.numNodes[t],
                  dim: this.inputDim,
                  optimizer: sparseAdam({lr: c.learningRate}),
                  init: {seed: c.seed * 131 + i + 1},
                }),
              ]),
          )
        : {};
    const headIn = layers === 0 ? this.inputDim : c.model === 'hgt' ? c.hidden : 0;
    if (headIn) this.head = tf.tidy(() => tf.variable(tf.randomNormal([headIn, l.numClasses], 0, 0.1, 'float32', tfSeed(c.seed))));
  }

  /** The layers' count (0: the features-alone model). */
  get layers(): number {
    return this.convs.length;
  }

  /** The class scores of a batch's seeds. */
  forward(b: TypedBatch): tf.Tensor2D {
    if (this.layers === 0) return tf.matMul(b.x[this.labelType], this.head!);
    let h = b.x;
    const ids = b.sub.layers[0].src;
    for (const [t, e] of Object.entries(this.learnt)) if (ids[t]?.length) h = {...h, [t]: e.lookup(ids[t]) as tf.Tensor2D};
    b.sub.layers.forEach((layer, i) => (h = this.applyLayer(i, h, layer)));
    return this.head ? tf.matMul(h[this.labelType], this.head) : h[this.labelType];
  }

  /**
   * The dense variables in a fixed order. heteroConv's layers make their weights on their first call (their
   * widths are the inputs'): a sage model without them yet runs one batch of up to 1,024 training vertices
   * (so every type a layer reads is there), sampled with `fanouts` (its features kept as `features` says), through its
   * layers first.
   */
  variables(fanouts: number[] = Array.from({length: this.layers}, () => 4), features?: TypedFeatureStorage | FeatureTables): tf.Variable[] {
    if (!this.vars) {
      if (this.config.model === 'sage') {
        const train = this.graph.labels!.split?.train;
        const seeds = train?.length ? train.slice(0, 1024) : Int32Array.of(0);
        const loader = new TypedNeighborLoader(this.graph, {seeds, fanouts, batchSize: seeds.length, features});
        const b = loader.batch(seeds, 0);
        try {
          tf.dispose(tf.tidy(() => this.forward(b)));
        } finally {
          b.dispose();
          loader.dispose();
        }
      }
      this.vars = [...this.convs.flatMap((c) => c.variables), ...(this.head ? [this.head] : [])];
    }
    return this.vars;
  }

  /** The sparse steps of the learnable rows (after each dense step). */
  stepTables(): void {
    for (const e of Object.values(this.learnt)) e.step();
  }

  /**
   * Every labelled vertex's class scores' argmax and probability, exactly (every neighbour), a layer at a time;
   * `features`: how the features are kept meanwhile, or the training loader's FeatureTables (shared).
   */
  predictAll(features?: TypedFeatureStorage | FeatureTables): {classes: Int32Array; probabilities: Float32Array} {
    const g = this.graph,
      l = this.labelType;
    const {tables: feats, owned} = featureTablesFor(g, features);
    feats.inputs({}); // its tables made here, outside the tidy scopes that read them
    const pick = classesAndProbabilities;
    try {
      const inputsOf = (t: string, ids: Int32Array): tf.Tensor2D =>
        this.learnt[t] ? (this.learnt[t].read(ids) as tf.Tensor2D) : feats.inputs({[t]: ids})[t];
      const n = g.numNodes[l];
      if (this.layers === 0) {
        const classes = new Int32Array(n),
          probabilities = new Float32Array(n);
        for (let b = 0; b < n; b += 4096) {
          const ids = Int32Array.from({length: Math.min(4096, n - b)}, (_, i) => b + i);
          const [c, p] = pick(() => tf.matMul(inputsOf(l, ids), this.head!));
          classes.set(c, b);
          probabilities.set(p, b);
        }
        return {classes, probabilities};
      }
      const layers = this.convs.map((_, i) => (x: Record<string, tf.Tensor2D>, layer: TypedLayer) => this.applyLayer(i, x, layer));
      const last = typedLayerwise(g, inputsOf, layers, {batchSize: 1024, lastTypes: [l]});
      try {
        const [classes, probabilities] = pick(() => (this.head ? tf.matMul(last[l], this.head) : last[l]));
        return {classes, probabilities};
      } finally {
        tf.dispose(Object.values(last));
      }
    } finally {
      if (owned) feats.dispose();
    }
  }

  dispose(): void {
    this.convs.forEach((c) => c.dispose());
    Object.values(this.learnt).forEach((e) => e.dispose());
    this.head?.dispose();
  }

  // Layer i over a typed layer; HGT's layers end in their own gelu and gate, the others take a ReLU between layers.
  private applyLayer(i: number, x: Record<string, tf.Tensor2D>, layer: TypedLayer): Record<string, tf.Tensor2D> {
    const out = this.convs[i].apply(x, layer);
    const between = i < this.convs.length - 1 && this.config.model !== 'hgt';
    return between ? Object.fromEntries(Object.entries(out).map(([t, v]) => [t, tf.relu(v) as tf.Tensor2D])) : out;
  }
}
