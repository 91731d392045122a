// 2,000 small training steps leave tensor counts and memory (host and
// device) where they started.
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';

describe('no leaks over 2,000 training steps', () => {
  it('tensor count and bytes return to their starting values', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const x = tf.randomNormal([32, 16], 0, 1, 'float32', 1);
    const labels = tf.oneHot(
      tf.tensor1d(
        Array.from({length: 32}, (_, i) => i % 4),
        'int32',
      ),
      4,
    );
    const w1 = tf.variable(tf.randomNormal([16, 24], 0, 0.3, 'float32', 2));
    const w2 = tf.variable(tf.randomNormal([24, 4], 0, 0.3, 'float32', 3));
    const emb = tf.variable(tf.randomNormal([100, 16], 0, 0.1, 'float32', 4));
    const ids = tf.tensor1d(
      Array.from({length: 32}, (_, i) => (i * 7) % 100),
      'int32',
    );
    const opt = tf.train.adam(0.01);
    const step = () =>
      opt.minimize(() => {
        const h = tf.relu(tf.matMul(tf.add(x, tf.gather(emb, ids)), w1));
        return tf.losses.softmaxCrossEntropy(labels, tf.matMul(h, w2)) as tf.Scalar;
      }, true);
    // One step first: the optimizer creates its slots then, and they persist.
    step()!.dispose();
    await wm.synchronize();
    const before = wm.memoryInfo();
    let last = Infinity;
    for (let i = 0; i < 2000; ++i) {
      const loss = step()!;
      if (i === 1999) last = (await loss.data())[0];
      loss.dispose();
    }
    const after = wm.memoryInfo();
    expect(after.numTensors).to.equal(before.numTensors);
    expect(after.numBytes).to.equal(before.numBytes);
    expect(after.deviceBytesInUse).to.equal(before.deviceBytesInUse);
    expect(after.deviceAllocations).to.equal(before.deviceAllocations);
    expect(last).to.be.lessThan(1.0);
    tf.dispose([x, labels, w1, w2, emb, ids]);
    opt.dispose();
  });
});
