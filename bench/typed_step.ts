// One training step over a typed batch, as bench:hetero and bench:mag240m train: each layer over its sampled
// layer, an activation between them, softmax cross-entropy on the labelled type's rows, the optimizer's update;
// and the logits alone (bench:hetero's accuracy).
import * as tf from '@tensorflow/tfjs-core';

import {softmaxCrossEntropy} from '../src/nn/softmax_cross_entropy';
import type {TypedSubgraph} from '../src/graph/typed_subgraph';
import type {TypedBatch} from '../src/nn/typed_neighbor_loader';

type TypedLayer = {apply(x: Record<string, tf.Tensor2D>, l: TypedBatch['sub']['layers'][number]): Record<string, tf.Tensor2D>};

/** The target type's logits for a batch: each layer over its sampled layer, the activation between them. */
export function typedLogits(
  layers: TypedLayer[],
  b: TypedBatch,
  target: string,
  activation: (x: tf.Tensor2D) => tf.Tensor2D = tf.relu,
): tf.Tensor2D {
  let h = b.x;
  b.sub.layers.forEach((layer, i) => {
    const out = layers[i].apply(h, layer);
    h = i < layers.length - 1 ? Object.fromEntries(Object.entries(out).map(([t, x]) => [t, activation(x)])) : out;
  });
  return h[target];
}

export function typedStep(
  layers: TypedLayer[],
  opt: {minimize(f: () => tf.Scalar, returnCost: boolean, vars: tf.Variable[]): unknown},
  vars: tf.Variable[],
  target: string,
  activation: (x: tf.Tensor2D) => tf.Tensor2D = tf.relu,
): (b: TypedBatch) => void {
  return (b) => {
    opt.minimize(() => softmaxCrossEntropy(b.y!, typedLogits(layers, b, target, activation)), false, vars);
  };
}

/**
 * A sampled subgraph's blocks on the device before its step, both directions (the transposes the backward pass reads,
 * unless the block's gradient is scattered): what the PyG side of a benchmark does to its batches before its clock.
 */
export function stageBlocks(sub: TypedSubgraph): void {
  for (const layer of sub.layers)
    for (const block of Object.values(layer.blocks))
      for (const backward of block.scatters ? [false] : [false, true]) block.productSplits(block.product('mean', backward));
}
