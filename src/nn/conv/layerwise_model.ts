// Exact inference over every vertex for a model of graph layers (a tf.sequential, or any LayersModel whose
// layers run in order), a layer at a time over full neighbourhoods (layerwise.ts): each graph layer and
// the layers after it up to the next graph layer form one step over a batch's block; layers before the
// first graph layer shape the inputs. The graph may be past what the full-graph apply can hold.
import * as tf from '@tensorflow/tfjs-core';
import type {LayersModel} from '@tensorflow/tfjs-layers';

import type {CsrBlock} from '../../graph/aggregate';
import type {Embedding} from '../embedding';
import {LayerwiseGraph, layerwiseInference, LayerwiseModel, LayerwiseOptions, predictLayerwiseClasses} from '../layerwise';
import {GraphConv} from './graph_conv';

/** What gives the model's inputs for a run of vertices: a feature table, an embedding, NodeInputs. */
export interface LayerwiseInputs {
  read(ids: Int32Array | tf.Tensor1D): tf.Tensor;
}

type AnyLayer = LayersModel['layers'][number];

/** The model as a layer-wise pass: its steps (a graph layer and its followers) and their widths. */
export function modelLayerwise(model: LayersModel, inputs: LayerwiseInputs): LayerwiseModel {
  const prefix: AnyLayer[] = [];
  const steps: AnyLayer[][] = [];
  for (const l of model.layers) {
    if (l instanceof GraphConv) steps.push([l]);
    else if (steps.length) steps[steps.length - 1].push(l);
    else prefix.push(l);
  }
  if (steps.length === 0) throw new TypeError('layer-wise inference: the model has no graph layer (gcnConv, sageConv, ginConv, gatConv)');
  const widthOf = (l: AnyLayer): number => {
    const s = l.outputShape as number[];
    if (!Array.isArray(s) || s.length !== 2 || !Number.isInteger(s[1]))
      throw new TypeError(`layer-wise inference: layer ${l.name} must output a matrix of known width, got [${s}]`);
    return s[1];
  };
  const run = (ls: AnyLayer[], x: tf.Tensor, first?: {graph: CsrBlock}) =>
    ls.reduce((h, l, i) => l.apply(h, i === 0 && first ? first : {}) as tf.Tensor, x);
  return {
    widths: steps.map((s) => widthOf(s[s.length - 1])),
    inputs: (ids) => run(prefix, inputs.read(ids)) as tf.Tensor2D,
    layer: (l, h, block) => run(steps[l], h, {graph: block}) as tf.Tensor2D,
  };
}

/**
 * Every vertex's outputs of `model` (a model of graph layers), layer by layer over full neighbourhoods:
 * equal to the model applied to the whole graph, for graphs of any size. A table the caller disposes.
 */
export function inferLayerwise(model: LayersModel, graph: LayerwiseGraph, inputs: LayerwiseInputs, o: LayerwiseOptions = {}): Embedding {
  return layerwiseInference(graph, modelLayerwise(model, inputs), o);
}

/** Every vertex's predicted class (the last layer's highest output), its logits read a batch at a time, never kept. */
export function predictLayerwise(model: LayersModel, graph: LayerwiseGraph, inputs: LayerwiseInputs, o: LayerwiseOptions = {}): Int32Array {
  return predictLayerwiseClasses(graph, modelLayerwise(model, inputs), o);
}
