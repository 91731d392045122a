// Sparse optimizers for embedding tables: they update only the rows a step
// touched, in place, with their state stored beside the table.
//
// Adam is lazy, as in WholeGraph and PyTorch's SparseAdam: a row's moments
// move only in steps that touch the row, while bias correction uses the
// global step count. Gradients of duplicate indices in one step are summed
// first. Non-finite gradient elements (NaN, ±Inf) are skipped: the element
// and its state keep their values, and Embedding.skippedGradients() counts them.
import {NativeOptimizerParams} from '../native/addon';

/**
 * 'rowAdagrad': AdaGrad with one state per row, the mean of its squared gradients (PyTorch-BigGraph's and
 * DGL-KE's optimizer for tables of tens of millions of rows: a float per row instead of one per element).
 */
export type SparseOptimizerName = 'sgd' | 'adam' | 'adagrad' | 'rmsprop' | 'rowAdagrad';

/** The optimizer and its hyperparameters: the native step's parameters less the bias corrections, which depend on the step. */
export interface SparseOptimizerConfig extends Omit<NativeOptimizerParams, 'biasCorrection1' | 'biasCorrection2'> {
  name: SparseOptimizerName;
}

const CODES: {[k in SparseOptimizerName]: number} = {sgd: 0, adam: 1, adagrad: 2, rmsprop: 3, rowAdagrad: 4};
const STATES: {[k in SparseOptimizerName]: number} = {sgd: 0, adam: 2, adagrad: 1, rmsprop: 1, rowAdagrad: 1};

function make(name: SparseOptimizerName, o: Partial<SparseOptimizerConfig>): SparseOptimizerConfig {
  const c: SparseOptimizerConfig = {
    name,
    lr: 0.01,
    beta1: 0.9,
    beta2: 0.999,
    rho: 0.9,
    eps: name === 'adagrad' || name === 'rowAdagrad' ? 1e-10 : 1e-8,
    weightDecay: 0,
    ...o,
  };
  for (const k of ['lr', 'eps', 'weightDecay'] as const) {
    if (!(Number.isFinite(c[k]) && c[k] >= 0)) throw new RangeError(`${name}: ${k} must be a finite number >= 0, got ${c[k]}`);
  }
  for (const k of ['beta1', 'beta2', 'rho'] as const) {
    if (!(c[k] >= 0 && c[k] < 1)) throw new RangeError(`${name}: ${k} must be in [0, 1), got ${c[k]}`);
  }
  return c;
}

export const sgd = (o: {lr?: number; weightDecay?: number} = {}) => make('sgd', o);
export const adam = (o: {lr?: number; beta1?: number; beta2?: number; eps?: number; weightDecay?: number} = {}) => make('adam', o);
export const adagrad = (o: {lr?: number; eps?: number; weightDecay?: number} = {}) => make('adagrad', o);
export const rowAdagrad = (o: {lr?: number; eps?: number; weightDecay?: number} = {}) => make('rowAdagrad', o);
export const rmsprop = (o: {lr?: number; rho?: number; eps?: number; weightDecay?: number} = {}) => make('rmsprop', o);

export function optimizerCode(c: SparseOptimizerConfig): number {
  return CODES[c.name];
}

export function stateCount(c: SparseOptimizerConfig): number {
  return STATES[c.name];
}

/** Floats per row in each state array for rows `dim` wide: one for rowAdagrad, else dim (wm/embedding.h's stateWidth). */
export function stateWidth(c: SparseOptimizerConfig, dim: number): number {
  return c.name === 'rowAdagrad' ? 1 : dim;
}

/** Parameters for step t (1-based). */
export function stepParams(c: SparseOptimizerConfig, t: number): NativeOptimizerParams {
  return {
    lr: c.lr,
    beta1: c.beta1,
    beta2: c.beta2,
    rho: c.rho,
    eps: c.eps,
    weightDecay: c.weightDecay,
    biasCorrection1: c.name === 'adam' ? 1 - Math.pow(c.beta1, t) : 1,
    biasCorrection2: c.name === 'adam' ? 1 - Math.pow(c.beta2, t) : 1,
  };
}
