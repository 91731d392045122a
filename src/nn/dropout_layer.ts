// Dropout as a tfjs layer, in one native pass each way (dropout.ts): in training calls each call draws
// a new mask, the sequence fixed by the seed; inference passes the input through. tf.layers.dropout
// draws its mask in JavaScript, and with a seed draws the same mask at every call.
import * as tf from '@tensorflow/tfjs-core';
import {layers, Shape} from '@tensorflow/tfjs-layers';

import {dropout} from './dropout';

export interface DropoutLayerArgs {
  /** The fraction of inputs zeroed in training, in [0, 1). */
  rate: number;
  /** The masks' sequence: the same seed gives the same masks call after call (default: drawn at random). */
  seed?: number;
  name?: string;
  inputShape?: Shape;
}

export class DropoutLayer extends layers.Layer {
  static readonly className = 'WmDropout';
  readonly rate: number;
  readonly seed: number;
  private calls = 0;

  constructor(args: DropoutLayerArgs) {
    super(args);
    if (!(typeof args?.rate === 'number' && args.rate >= 0 && args.rate < 1))
      throw new RangeError(`dropoutLayer: rate must be in [0, 1), got ${args?.rate}`);
    if (args.seed !== undefined && !(Number.isSafeInteger(args.seed) && args.seed >= 0))
      throw new RangeError(`dropoutLayer: seed must be an integer from 0 to 2^53 - 1, got ${args.seed}`);
    this.rate = args.rate;
    this.seed = args.seed ?? Math.floor(Math.random() * 2 ** 31);
  }

  override computeOutputShape(inputShape: Shape | Shape[]): Shape | Shape[] {
    return inputShape;
  }

  override call(inputs: tf.Tensor | tf.Tensor[], kwargs: {training?: boolean}): tf.Tensor {
    const x = Array.isArray(inputs) ? inputs[0] : inputs;
    if (kwargs?.training !== true || this.rate === 0) return x.clone();
    // Each training call its own mask: the call count is mixed into the seed.
    return dropout(x, this.rate, (this.seed * 1_000_003 + this.calls++) % 2 ** 53);
  }

  override getConfig(): tf.serialization.ConfigDict {
    return {...super.getConfig(), rate: this.rate, seed: this.seed};
  }
}
tf.serialization.registerClass(DropoutLayer);

/** Dropout as a layer: `wm.nn.dropoutLayer({rate, seed})` in a tf.sequential, a new mask per training call. */
export function dropoutLayer(args: DropoutLayerArgs): DropoutLayer {
  return new DropoutLayer(args);
}
