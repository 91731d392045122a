import {KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import type {WholeMemoryBackend} from '../backend/backend_wholememory';
import {backendOf} from '../kernel_utils/kernel_utils';
import {layerNative} from '../native/domains';

/**
 * One GraphSAGE layer (mean aggregator) over a fixed fan-out, on the GPU:
 * act(x[:numDst] wSelf + mean of each row's `fanout` neighbours in x · wNeigh + bias), ReLU when `relu`.
 * Forward: the neighbour mean, two GEMMs into one output (the second accumulates), the bias + ReLU epilogue.
 * A tfjs kernel rather than a customGrad so that tfjs asks for each input's gradient on its own
 * (sage_fixed_layer_gradient.ts): x's gradient, the neighbour scatter over every input row, is then computed
 * only when x leads back to what is differentiated, never for rows read from a fixed feature table.
 * Only this backend has it, and only on the GPU (sage_layer.ts composes tfjs ops elsewhere).
 */
export const WM_SAGE_FIXED_LAYER = 'WholeMemorySageFixedLayer';

export interface SageFixedLayerAttrs {
  numDst: number;
  fanout: number;
  relu: boolean;
}

export const sageFixedLayerConfig: KernelConfig = {
  kernelName: WM_SAGE_FIXED_LAYER,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const b = backendOf(args);
    const {x, wSelf, wNeigh, bias, neighbors} = args.inputs as {[k: string]: TensorInfo};
    const {numDst, fanout, relu} = args.attrs as unknown as SageFixedLayerAttrs;
    const ns = fanoutNeighbours(b, neighbors, numDst, fanout, x.shape[1], x.shape[0]);
    return sageForward(b, WM_SAGE_FIXED_LAYER, {x, wSelf, wNeigh, bias}, numDst, relu, ns.mean);
  },
};

/**
 * How a fused layer reads its neighbours, device addresses throughout: `mean(x, out)` writes the [numDst, inDim] mean
 * of each output row's neighbours among x's rows, `meanGrad(dMean, dx)` carries the mean's gradient back into every
 * row of dx [inputs, inDim].
 */
export interface SageNeighbours {
  mean(x: number, out: number): void;
  meanGrad(dMean: number, dx: number): void;
}

/** A fixed fan-out's neighbours (`neighbors`: numDst x fanout positions among x's `inputs` rows). */
export function fanoutNeighbours(
  b: WholeMemoryBackend,
  neighbors: TensorInfo,
  numDst: number,
  fanout: number,
  inDim: number,
  inputs: number,
): SageNeighbours {
  const ln = layerNative();
  return {
    mean: (x, out) => ln.neighborMean(b.devicePtr(neighbors), numDst, fanout, x, inDim, out),
    meanGrad: (dMean, dx) => ln.neighborMeanGrad(b.devicePtr(neighbors), numDst, fanout, dMean, inDim, dx, inputs),
  };
}

/**
 * A fused GraphSAGE layer's forward on the GPU (`kernel` names it): the neighbours' mean (SageNeighbours.mean), then
 * sageOutputs over x's first numDst rows and that mean. The output's TensorInfo, freed if a call throws.
 */
export function sageForward(
  b: WholeMemoryBackend,
  kernel: string,
  t: {x: TensorInfo; wSelf: TensorInfo; wNeigh: TensorInfo; bias: TensorInfo},
  numDst: number,
  relu: boolean,
  mean: SageNeighbours['mean'],
): TensorInfo {
  if (!b.gpu) throw new Error(`${kernel} runs on the GPU only`);
  const inDim = t.x.shape[1],
    outDim = t.wSelf.shape[1];
  const {info, ptr: out} = b.makeDeviceOutput([numDst, outDim], 'float32');
  const meanAt = b.allocDevice(numDst * inDim * 4);
  try {
    const xp = b.devicePtr(t.x);
    mean(xp, meanAt);
    // x's first numDst rows are the layer's own vertices.
    sageOutputs(xp, meanAt, b.devicePtr(t.wSelf), b.devicePtr(t.wNeigh), b.devicePtr(t.bias), numDst, inDim, outDim, relu, out);
  } catch (e) {
    b.disposeData(info.dataId, true);
    throw e;
  } finally {
    b.freeDevice(meanAt); // stream-ordered: reused only after the GEMM that reads it
  }
  return info;
}

/**
 * out = act(self wSelf + mean wNeigh + bias) on the GPU, every argument a device address: row-major [numDst, inDim]
 * inputs and [inDim, outDim] weights, two GEMMs into one output (the second accumulates) and the bias + ReLU epilogue.
 */
export function sageOutputs(
  self: number,
  mean: number,
  wSelf: number,
  wNeigh: number,
  bias: number,
  numDst: number,
  inDim: number,
  outDim: number,
  relu: boolean,
  out: number,
): void {
  const ln = layerNative();
  ln.batchMatMul(self, wSelf, out, 1, numDst, outDim, inDim, false, false, 0, 0, 0);
  ln.batchMatMul(mean, wNeigh, out, 1, numDst, outDim, inDim, false, false, 0, 0, 1);
  ln.biasActivation(out, bias, numDst, outDim, relu);
}
