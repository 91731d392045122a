// Checkpoints: an interrupted run resumed from a checkpoint continues with
// the same losses as the uninterrupted run; a killed save leaves the
// previous checkpoint loadable.
import {spawn} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {loadCheckpoint, saveCheckpoint} from '../src/train/checkpoint';
import {tempDir} from './temp_dirs';

function model(denseOptimizer: 'sgd' | 'adam', dtype: wm.nn.EmbeddingDType, memory?: wm.nn.EmbeddingMemory) {
  const emb = wm.nn.embedding({
    rows: 300,
    dim: 8,
    dtype,
    memory,
    optimizer: wm.nn.adam({lr: 0.05}),
    init: {type: 'normal', scale: 0.3, seed: 7},
  });
  const w = tf.variable(tf.randomNormal([8, 1], 0, 0.3, 'float32', 5), true, `w_${Math.random()}`);
  const opt = denseOptimizer === 'sgd' ? tf.train.sgd(0.1) : tf.train.adam(0.01);
  // Batches depend only on the step number, so both runs see the same data.
  const step = (t: number): number => {
    const ids = tf.tensor1d(
      Int32Array.from({length: 64}, (_, i) => (i * 37 + t * 11) % 300),
      'int32',
    );
    const y = tf.tidy(() => tf.sin(tf.reshape(tf.cast(ids, 'float32'), [64, 1])));
    const loss = opt.minimize(() => tf.losses.meanSquaredError(y, tf.matMul(emb.lookup(ids), w)) as tf.Scalar, true, [emb.anchor, w])!;
    emb.step();
    const l = loss.dataSync()[0];
    tf.dispose([ids, y, loss]);
    return l;
  };
  return {
    emb,
    w,
    opt,
    step,
    dispose: () => {
      emb.dispose();
      w.dispose();
      opt.dispose();
    },
  };
}

describe('checkpoints', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  for (const [dense, dtype, memory] of [
    ['sgd', 'float32', undefined],
    ['adam', 'bfloat16', undefined],
    ['sgd', 'float32', 'distributed'],
  ] as const) {
    it(`resuming continues the run: embeddings, sparse Adam state, dense ${dense}, ${dtype} table${memory ? `, ${memory}` : ''}`, async () => {
      const dir = tempDir('wm-ckpt-');
      const a = model(dense, dtype, memory);
      const uninterrupted: number[] = [];
      for (let t = 1; t <= 10; ++t) {
        uninterrupted.push(a.step(t));
        if (t === 5)
          await saveCheckpoint(dir, {step: t, embeddings: {nodes: a.emb}, variables: {w: a.w}, optimizer: a.opt, extra: {note: 'x'}});
      }
      a.dispose();
      const b = model(dense, dtype, memory);
      b.step(99); // move away from the saved state first: loading must overwrite everything
      const {step, extra} = await loadCheckpoint(dir, {embeddings: {nodes: b.emb}, variables: {w: b.w}, optimizer: b.opt});
      expect(step).to.equal(5);
      expect(extra).to.deep.equal({note: 'x'});
      expect(b.emb.stepCount).to.equal(5);
      const resumed: number[] = [];
      for (let t = 6; t <= 10; ++t) resumed.push(b.step(t));
      b.dispose();
      const tail = uninterrupted.slice(5);
      // SGD replays bit for bit; tfjs' Adam recomputes beta^t on load (pow, not a running product): float rounding only.
      resumed.forEach((l, i) => expect(l).to.be.closeTo(tail[i], dense === 'sgd' ? 0 : 1e-6 * Math.max(1, tail[i])));
      fs.rmSync(dir, {recursive: true, force: true});
    });
  }

  it('rejects a checkpoint that does not fit, by name', async () => {
    const dir = tempDir('wm-ckpt-');
    const a = wm.nn.embedding({rows: 10, dim: 4});
    await saveCheckpoint(dir, {step: 1, embeddings: {nodes: a}});
    const b = wm.nn.embedding({rows: 11, dim: 4});
    let err = '';
    try {
      await loadCheckpoint(dir, {embeddings: {nodes: b}});
    } catch (e) {
      err = (e as Error).message;
    }
    expect(err).to.match(/embedding 'nodes' is 10x4 there, 11x4 here/);
    a.dispose();
    b.dispose();
    fs.rmSync(dir, {recursive: true, force: true});
  });

  it('a save killed half way leaves the previous checkpoint loadable', async function () {
    this.timeout(60000);
    const dir = tempDir('wm-ckpt-');
    const small = wm.nn.embedding({rows: 16, dim: 4, init: {type: 'uniform', scale: 1, seed: 3}});
    await saveCheckpoint(dir, {step: 1, embeddings: {nodes: small}});
    const want = Array.from(small.read([0, 15]).dataSync());
    small.dispose();
    // A child writes a large checkpoint into the same place and is killed mid-write.
    const script = `
      const tf = require('@tensorflow/tfjs-core');
      const wm = require(${JSON.stringify(path.resolve(__dirname, '..', 'src', 'index.js'))});
      const {saveCheckpoint} = require(${JSON.stringify(path.resolve(__dirname, '..', 'src', 'train', 'checkpoint.js'))});
      (async () => {
        await tf.setBackend('wholememory');
        const big = wm.nn.embedding({rows: 16, dim: 4, init: {type: 'zeros'}});
        const vars = {};
        for (let i = 0; i < 40; ++i) vars['v' + i] = tf.variable(tf.ones([1 << 20]));
        process.stdout.write('saving\\n');
        await saveCheckpoint(${JSON.stringify(dir)}, {step: 2, embeddings: {nodes: big}, variables: vars});
        process.stdout.write('saved\\n');
      })();`;
    const child = spawn(process.execPath, ['-e', script], {cwd: path.resolve(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'inherit']});
    await new Promise<void>((resolve) =>
      child.stdout!.on('data', (d) => {
        if (String(d).includes('saving'))
          setTimeout(() => {
            child.kill('SIGKILL');
            resolve();
          }, 30);
      }),
    );
    await new Promise((r) => child.on('exit', r));
    const back = wm.nn.embedding({rows: 16, dim: 4});
    const {step} = await loadCheckpoint(dir, {embeddings: {nodes: back}});
    // Either the old checkpoint (killed in time) or the complete new one: never a torn one.
    const got = Array.from(back.read([0, 15]).dataSync());
    if (step === 1) expect(got).to.deep.equal(want);
    else expect(got).to.deep.equal(new Array(8).fill(0));
    back.dispose();
    fs.rmSync(dir, {recursive: true, force: true});
  });
});
