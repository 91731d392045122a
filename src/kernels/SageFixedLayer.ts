import {KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

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
    if (!b.gpu) throw new Error(`${WM_SAGE_FIXED_LAYER} runs on the GPU only`);
    const inDim = x.shape[1],
      outDim = wSelf.shape[1];
    const {info, ptr: out} = b.makeDeviceOutput([numDst, outDim], 'float32');
    const mean = b.allocDevice(numDst * inDim * 4);
    try {
      const xp = b.devicePtr(x);
      layerNative().neighborMean(b.devicePtr(neighbors), numDst, fanout, xp, inDim, mean);
      // x's first numDst rows are the layer's own vertices.
      sageOutputs(xp, mean, b.devicePtr(wSelf), b.devicePtr(wNeigh), b.devicePtr(bias), numDst, inDim, outDim, relu, out);
    } catch (e) {
      b.disposeData(info.dataId, true);
      throw e;
    } finally {
      b.freeDevice(mean); // stream-ordered: reused only after the GEMM that reads it
    }
    return info;
  },
};

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
