import {KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import {backendOf} from '../kernel_utils/kernel_utils';
import {graphNative} from '../native/domains';
import {sageOutputs} from './SageFixedLayer';

/**
 * One GraphSAGE layer (mean aggregator) over a CSR block sampled for one step, on the GPU:
 * act(x[:numDst] wSelf + the mean of x over each block row's entries · wNeigh + bias), ReLU when `relu`.
 * Inputs: x, the weights and bias, and the block's device arrays: rowPtr [numDst + 1], colIdx (positions among
 * x's rows) and rowScale [numDst] (each row's 1 / its entries, 0 for an empty row). Forward: the block's mean,
 * then SageFixedLayer's two GEMMs into one output and the bias + ReLU epilogue. Its gradient
 * (gradients/sage_block_layer_gradient.ts) scatters the mean's gradient into x's and adds the self part in place:
 * one [inputs, inDim] gradient written, where tfjs ops would pad the self part's, scatter the mean's and add them.
 * Only this backend has it, and only on the GPU (sage_layer.ts composes tfjs ops elsewhere).
 */
export const WM_SAGE_BLOCK_LAYER = 'WholeMemorySageBlockLayer';

export interface SageBlockLayerAttrs {
  relu: boolean;
  /** The block's entries (colIdx holds one where it has none). */
  entries: number;
}

export const sageBlockLayerConfig: KernelConfig = {
  kernelName: WM_SAGE_BLOCK_LAYER,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const b = backendOf(args);
    const {x, wSelf, wNeigh, bias, rowPtr, colIdx, rowScale} = args.inputs as {[k: string]: TensorInfo};
    const {relu} = args.attrs as unknown as SageBlockLayerAttrs;
    if (!b.gpu) throw new Error(`${WM_SAGE_BLOCK_LAYER} runs on the GPU only`);
    const numDst = rowScale.shape[0],
      inDim = x.shape[1],
      outDim = wSelf.shape[1];
    const {info, ptr: out} = b.makeDeviceOutput([numDst, outDim], 'float32');
    const mean = b.allocDevice(numDst * inDim * 4);
    try {
      const xp = b.devicePtr(x);
      blockMean(b.devicePtr(rowPtr), b.devicePtr(colIdx), b.devicePtr(rowScale), numDst, xp, inDim, mean);
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
 * out[r] = rowScale[r] x the sum of x's rows colIdx[rowPtr[r] .. rowPtr[r + 1]) on the GPU, every argument a device
 * address, x and out row-major `dim` wide: a block without rows longer than the product's chunk (a sampler's).
 */
export function blockMean(rowPtr: number, colIdx: number, rowScale: number, numDst: number, x: number, dim: number, out: number): void {
  graphNative().csrSpmm(rowPtr, colIdx, 0, rowScale, numDst, x, dim, out, 0, 0, 0, 0);
}
