// The GPU all-reduce's JavaScript side without a GPU: what AllReducer hands the addon (one plan per
// call, src/memory/allreduce_plan.ts, read by native/include/wm/allreduce_plan.h, whose reader the
// native tests check on the same layout) and how it turns the addon's answer into tensors. The addon
// and the backend's device buffers are stand-ins here; the GPU suite runs the real ones.
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import {WholeMemoryBackend} from '../src/backend/backend_wholememory';
import * as wm from '../src/index';
import {AllReducer} from '../src/memory/allreduce';
import {ALLREDUCE_PATHS, AllReducePlan, PLAN_HEADER} from '../src/memory/allreduce_plan';
import type {Group} from '../src/memory/group';
import type {NativeCommunicator} from '../src/native/addon';

describe('GPU all-reduce plan (the addon stubbed)', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  it('lays out header, inputs, outputs, counts and parameters as the native reader expects', () => {
    const p = new AllReducePlan(2);
    p.header(2, true, 1, true, 0.5);
    p.tensor(0, 4096, 0, 5, 65536);
    p.tensor(1, 8192, 0, 7, 131072);
    expect(Array.from(p.data)).to.deep.equal([2, 2, 1, 1, 0.5, 3, 4096, 8192, 0, 0, 5, 7, 65536, 131072]);
    p.header(0, false, 0, false);
    p.tensor(0, 4096, 12288, 5);
    expect(Array.from(p.data.subarray(0, PLAN_HEADER))).to.deep.equal([2, 0, 0, 0, 0, 0]);
    expect(p.output(0)).to.equal(12288);
    expect(ALLREDUCE_PATHS).to.deep.equal(['one-shot', 'two-shot', 'nccl']);
  });

  // An AllReducer on the device path over a one-rank group whose addon records each plan and answers as
  // `answer` says; the backend's device buffers are host stand-ins (addresses from a counter, freed into a list).
  function harness(answer: (plan: Float64Array) => number) {
    const b = tf.backend() as WholeMemoryBackend;
    const plans: number[][] = [];
    const freed: number[] = [];
    const adopted: number[] = [];
    let next = 1 << 20;
    const addressOf = new Map<object, number>();
    const saved = {devicePtr: b.devicePtr, makeDeviceOutput: b.makeDeviceOutput, adoptDeviceAllocation: b.adoptDeviceAllocation};
    const buffer = (ptr: number) => ({ptr, bytes: 0, managed: false, release: () => freed.push(ptr)});
    b.devicePtr = (t) => {
      if (!addressOf.has(t.dataId)) addressOf.set(t.dataId, (next += 4096));
      return addressOf.get(t.dataId)!;
    };
    b.makeDeviceOutput = (shape, dtype) => {
      const ptr = (next += 4096);
      return {info: b.adoptBuffer(shape, dtype, buffer(ptr)), ptr};
    };
    b.adoptDeviceAllocation = (shape, dtype, ptr) => {
      adopted.push(ptr);
      return b.adoptBuffer(shape, dtype, buffer(ptr));
    };
    const nativeComm = {
      allReduceDevice: (plan: Float64Array) => {
        plans.push(Array.from(plan));
        return answer(plan);
      },
    } as unknown as NativeCommunicator;
    const group = {rank: 0, size: 1, timeoutMs: 1000, nativeComm, allgatherJson: <T>(mine: T) => [mine]} as unknown as Group;
    const reducer = new AllReducer(group);
    (reducer as unknown as {gpu: boolean}).gpu = true;
    const restore = () => Object.assign(b, saved);
    return {b, reducer, plans, freed, adopted, restore};
  }

  it('sends live tensors only, lets the addon allocate their outputs and adopts the addresses it wrote', () => {
    const h = harness((plan) => {
      const n = plan[0];
      for (let k = 0; k < n; ++k) plan[PLAN_HEADER + n + k] = 0x7000000 + k * 256;
      return 1;
    });
    try {
      const x = tf.tensor1d([1, 2, 3]),
        empty = tf.zeros([0, 4]),
        y = tf.tensor2d([[4, 5]]);
      const outs = h.reducer.allReduce([x, empty, y], {op: 'mean', wire: 'bfloat16', algorithm: 'two-shot'});
      expect(h.reducer.lastPath).to.equal('two-shot');
      const px = h.b.devicePtr(x),
        py = h.b.devicePtr(y);
      // n = 2 live tensors; bfloat16 (2), mean, two-shot (2), the addon allocates (flag 1); counts 3 and 2.
      expect(h.plans).to.deep.equal([[2, 2, 1, 2, 0, 1, px, py, 0, 0, 3, 2, 0, 0]]);
      expect(h.adopted).to.deep.equal([0x7000000, 0x7000100]);
      expect(outs.map((o) => o.shape)).to.deep.equal([[3], [0, 4], [1, 2]]);
      tf.dispose(outs);
      expect(h.freed).to.include.members([0x7000000, 0x7000100]);
      tf.dispose([x, empty, y]);
    } finally {
      h.restore();
    }
  });

  it("passes the fused SGD step: the parameters' addresses and the learning rate", () => {
    const h = harness(() => 0);
    try {
      const g = tf.tensor1d([1, 2]),
        w = tf.tensor1d([10, 20]);
      const outs = h.reducer.allReduce([g], {sgd: {params: [w], lr: 0.5}});
      expect(h.reducer.lastPath).to.equal('one-shot');
      // One tensor, float32, sum, auto; the addon allocates (1) and steps (2); count 2.
      expect(h.plans[0]).to.deep.equal([1, 0, 0, 0, 0.5, 3, h.b.devicePtr(g), 0, 2, h.b.devicePtr(w)]);
      expect(outs.map((o) => o.shape)).to.deep.equal([[2]]);
      tf.dispose(outs);
      tf.dispose([g, w]);
    } finally {
      h.restore();
    }
  });

  it('frees the outputs it made itself when the addon throws, and makes every output itself under UVM', () => {
    const h = harness(() => {
      throw new Error('allReduce: rank 1 did not reach the all-reduce');
    });
    try {
      const x = tf.tensor1d([1, 2]),
        empty = tf.zeros([0]);
      expect(() => h.reducer.allReduce([x, empty])).to.throw(/rank 1 did not reach/);
      expect(h.freed).to.have.length(1); // the empty tensor's output; the addon frees what it allocated
      h.b.uvm = true;
      try {
        expect(() => h.reducer.allReduce([x, empty])).to.throw(/rank 1 did not reach/);
        const last = h.plans[h.plans.length - 1];
        expect(last[5]).to.equal(0); // not allocated by the addon
        expect(last[PLAN_HEADER + 1]).to.be.greaterThan(0); // an output address made here
        expect(h.freed).to.have.length(3);
      } finally {
        h.b.uvm = false;
      }
      tf.dispose([x, empty]);
    } finally {
      h.restore();
    }
  });
});
