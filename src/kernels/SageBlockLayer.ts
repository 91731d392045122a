import {KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import type {WholeMemoryBackend} from '../backend/backend_wholememory';
import {backendOf} from '../kernel_utils/kernel_utils';
import {graphNative} from '../native/domains';
import {SageNeighbours, sageForward} from './SageFixedLayer';

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
    const {relu, entries} = args.attrs as unknown as SageBlockLayerAttrs;
    const ns = blockNeighbours(b, {rowPtr, colIdx, rowScale}, entries, x.shape[1], x.shape[0]);
    return sageForward(b, WM_SAGE_BLOCK_LAYER, {x, wSelf, wNeigh, bias}, rowScale.shape[0], relu, ns.mean);
  },
};

/**
 * A block's neighbours: its device arrays (rowScale [numDst]) over x's `inputs` rows, `entries` of them; the product
 * without long-row splits (a block whose rows are no longer than the product's chunk, as a sampler's).
 */
export function blockNeighbours(
  b: WholeMemoryBackend,
  block: {rowPtr: TensorInfo; colIdx: TensorInfo; rowScale: TensorInfo},
  entries: number,
  inDim: number,
  inputs: number,
): SageNeighbours {
  const numDst = block.rowScale.shape[0];
  const arrays = () => [block.rowPtr, block.colIdx, block.rowScale].map((t) => b.devicePtr(t));
  return {
    mean: (x, out) => {
      const [rp, ci, rs] = arrays();
      graphNative().csrSpmm(rp, ci, 0, rs, numDst, x, inDim, out, 0, 0, 0, 0);
    },
    meanGrad: (dMean, dx) => {
      const [rp, ci, rs] = arrays();
      graphNative().csrSpmmScatter(rp, ci, 0, rs, numDst, entries, dMean, inDim, dx, inputs);
    },
  };
}
