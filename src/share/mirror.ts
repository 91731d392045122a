// Host mirrors of tensors and shared buffers (the semantics of Vineyard's
// CUDABufferMirror): mirror.data is a host TypedArray; disposing the mirror
// copies it back into a mutable shared buffer. An immutable buffer (any
// ordinary tfjs tensor, or an object shared with mutable: false) needs
// copyIn and is never written back.
import * as tf from '@tensorflow/tfjs-core';

import {typedArrayFor} from '../backend/backend_wholememory';
import {openedInfo, update} from './shared_objects';
import {shareNative} from '../native/domains';

type Typed = Float32Array | Int32Array | Uint8Array;

// Symbol.dispose where the runtime has it (Node 20.4+), so `using m = wm.mirror(t)` works.
const disposeSymbol: symbol = (Symbol as unknown as {dispose?: symbol}).dispose ?? Symbol.for('Symbol.dispose');

export class Mirror<T extends Typed = Typed> {
  private done = false;

  /** @internal */
  constructor(
    readonly data: T,
    private readonly writeBack: ((data: T) => void) | undefined,
  ) {}

  /** Whether disposing writes data back. */
  get mutable(): boolean {
    return this.writeBack !== undefined;
  }

  dispose(): void {
    if (this.done) return;
    this.done = true;
    this.writeBack?.(this.data);
  }
}

// Set on the prototype rather than declared in the class: the type files then need no computed symbol
// key, which TypeScript before 5.2 cannot read.
(Mirror.prototype as unknown as Record<symbol, () => void>)[disposeSymbol] = function (this: Mirror) {
  this.dispose();
};

/**
 * A host copy of a tensor's data. copyIn: start from the current contents
 * (else zeros). For a tensor opened from a mutable shared object, dispose()
 * writes the data back into the shared memory.
 */
export function mirror(target: tf.Tensor, opts: {copyIn?: boolean} = {}): Mirror {
  if (!(target instanceof tf.Tensor)) throw new TypeError('mirror: expected a tensor (an ordinary one, or one from wm.open)');
  const info = openedInfo(target);
  const mutable = info?.writable ?? false;
  const copyIn = opts.copyIn ?? false;
  if (!mutable && !copyIn) {
    throw new Error(
      'mirror: the buffer is immutable (an ordinary tensor, or shared with mutable: false), so the mirror needs ' +
        'copyIn: true; it is never written back',
    );
  }
  let data: Typed;
  if (!copyIn) data = typedArrayFor(target.dtype, target.size);
  else if (info?.ptr !== undefined) {
    data = typedArrayFor(target.dtype, target.size);
    if (target.size) shareNative().download(info.ptr, data);
  } else if (info?.view !== undefined) data = info.view.slice();
  else data = (target.dataSync() as Typed).slice();
  return new Mirror(data, mutable ? (d) => update(target, d) : undefined);
}
