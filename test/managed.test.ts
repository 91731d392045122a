// Managed (unified) memory: the UVM switch, manage/unmanage, to() without
// copies, the caching allocator's counters, and (on a GPU) a residency budget
// smaller than the table being trained.
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {randomInput} from './helpers';

describe('managed memory (UVM)', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });
  afterEach(() => {
    wm.setEnabledUVM(false);
    wm.setManagedBudget(null);
  });

  it('is off by default and switches on and off', () => {
    expect(process.env.TFJS_WHOLEMEMORY_UVM === '1').to.equal(wm.getEnabledUVM());
    wm.setEnabledUVM(true);
    expect(wm.getEnabledUVM()).to.equal(true);
    const a = tf.tensor1d([1, 2, 3]);
    const b = tf.add(a, 1);
    expect(wm.isManaged(b)).to.equal(true);
    expect(Array.from(b.dataSync())).to.deep.equal([2, 3, 4]);
    wm.setEnabledUVM(false);
    const c = tf.add(a, 1);
    expect(wm.isManaged(c)).to.equal(false);
    tf.dispose([a, b, c]);
  });

  it('manage() makes a managed copy, unmanage() an ordinary one, values intact', () => {
    const input = randomInput([33, 7], 'float32', 4);
    const t = tf.tensor(input.values, input.shape);
    const m = wm.manage(t);
    expect(wm.isManaged(m)).to.equal(true);
    expect(wm.isManaged(t)).to.equal(false);
    const u = wm.unmanage(m);
    expect(wm.isManaged(u)).to.equal(false);
    for (const x of [m, u]) expect(Array.from(x.dataSync())).to.deep.equal(Array.from(input.values));
    // Kernels read managed inputs like any other.
    expect(tf.sum(m).dataSync()[0]).to.be.closeTo(tf.sum(t).dataSync()[0], 1e-3);
    tf.dispose([t, m, u]);
  });

  it('to() moves a managed tensor without a copy; dtype changes and unmanaged tensors copy', () => {
    const t = wm.manage(
      tf.tensor2d([
        [1, 2],
        [3, 4],
      ]),
    );
    const before = wm.memoryInfo();
    const onCpu = wm.to(t, 'cpu');
    expect(onCpu.dataId).to.equal(t.dataId);
    const after = wm.memoryInfo();
    expect(after.managedHits + after.managedMisses).to.equal(before.managedHits + before.managedMisses);
    expect(after.deviceAllocations).to.equal(before.deviceAllocations);
    if (wm.deviceInfo().gpu) {
      const back = wm.to(onCpu, `cuda:${wm.deviceInfo().device}`, {nonBlocking: true});
      expect(back.dataId).to.equal(t.dataId);
      wm.synchronize();
      expect(Array.from(back.dataSync())).to.deep.equal([1, 2, 3, 4]);
      back.dispose();
      const plain = tf.add(tf.tensor1d([1, 2]), 0);
      const copied = wm.to(plain, 'cpu');
      expect(copied.dataId).to.not.equal(plain.dataId);
      expect(Array.from(copied.dataSync())).to.deep.equal([1, 2]);
      tf.dispose([plain, copied]);
    } else {
      expect(() => wm.to(t, 'cuda:0')).to.throw(/needs a GPU/);
    }
    const asInt = wm.to(t, 'cpu', {dtype: 'int32'});
    expect(asInt.dtype).to.equal('int32');
    expect(asInt.dataId).to.not.equal(t.dataId);
    expect(() => wm.to(t, 'tpu')).to.throw(/device must be 'cpu' or 'cuda:N'/);
    tf.dispose([t, onCpu, asInt]);
  });

  it('the caching allocator reuses freed blocks (hits) and counts new ones (misses)', function () {
    if (!wm.deviceInfo().gpu) this.skip();
    wm.setEnabledUVM(true);
    const first = tf.fill([1000, 1000], 2);
    const m0 = wm.memoryInfo();
    first.dispose();
    const again = tf.fill([1000, 1000], 3); // same size class: served from the cache
    const m1 = wm.memoryInfo();
    expect(m1.managedHits).to.equal(m0.managedHits + 1);
    expect(m1.managedMisses).to.equal(m0.managedMisses);
    again.dispose();
  });

  it('refuses a managed allocation larger than the free GPU memory, allocating nothing', function () {
    if (!wm.deviceInfo().gpu) this.skip();
    const before = wm.memoryInfo();
    const tooBig = before.deviceFreeBytes + 1024 ** 3;
    expect(() => wm.backend().allocManaged(tooBig)).to.throw(
      /managed allocation of \d+ bytes refused: only \d+ bytes of GPU memory are free/,
    );
    const after = wm.memoryInfo();
    expect(after.managedMisses).to.equal(before.managedMisses);
    expect(after.managedBytesInUse).to.equal(before.managedBytesInUse);
  });

  it('rejects a bad budget by name', () => {
    expect(() => wm.setManagedBudget(-5)).to.throw(/bytes must be a non-negative number or null/);
  });

  it('trains a 4 GiB managed table under a 1 GiB residency budget (GPU)', function () {
    if (!wm.deviceInfo().gpu) this.skip();
    const GiB = 1024 ** 3;
    const free = wm.memoryInfo().deviceFreeBytes;
    if (free < 8 * GiB) this.skip();
    wm.setManagedBudget(GiB);
    const rows = 8 * 1024 * 1024,
      dim = 128; // 4 GiB of float32
    const usedBefore = wm.memoryInfo().deviceTotalBytes - wm.memoryInfo().deviceFreeBytes;
    const emb = wm.nn.embedding({
      rows,
      dim,
      memory: 'managed',
      optimizer: wm.nn.sgd({lr: 0.5}),
      init: {type: 'uniform', scale: 1, seed: 2},
    });
    const w = tf.variable(tf.ones([dim, 1]));
    const opt = tf.train.sgd(0.0);
    const ids = tf.tensor1d(
      Int32Array.from({length: 4096}, (_, i) => (i * 2039) % rows),
      'int32',
    );
    const probe = [0, 2039, rows - 1];
    const start = emb.read(probe).arraySync() as number[][];
    for (let step = 0; step < 5; ++step) {
      opt.minimize(() => tf.sum(tf.matMul(emb.lookup(ids), w)) as tf.Scalar);
      emb.step();
    }
    // d(sum(x w))/dx = 1 for every element: rows 0 and 2039 moved by -0.5 per step.
    const end = emb.read(probe).arraySync() as number[][];
    expect(end[0][0]).to.be.closeTo(start[0][0] - 2.5, 1e-4);
    expect(end[1][5]).to.be.closeTo(start[1][5] - 2.5, 1e-4);
    expect(end[2][3]).to.equal(start[2][3]); // never touched
    const info = wm.managedMemoryInfo();
    expect(info.residentBytes).to.be.at.most(GiB);
    const usedDuring = wm.memoryInfo().deviceTotalBytes - wm.memoryInfo().deviceFreeBytes;
    expect(usedDuring - usedBefore, 'GPU memory taken while training').to.be.lessThan(2.5 * GiB);
    tf.dispose([w, ids]);
    opt.dispose();
    emb.dispose();
    wm.emptyCache();
  });
});
