// WholeMemory across real processes started by tfjs-wm-run (host memory on
// this machine): every type with 1, 2 and 4 ranks, a rank killed with
// SIGKILL mid-collective, a rank that never arrives, and the single-process API.
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import {expect} from 'chai';

import * as wm from '../src/index';
import {seededRng} from '../src/util/random';
import {roundToWire} from './wire_rounding';
import {tempDir} from './temp_dirs';

const root = path.resolve(__dirname, '..', '..');
const launcher = path.join(root, 'dist', 'bin', 'tfjs-wm-run.js');
const fixture = path.join(root, 'dist', 'test', 'fixtures', 'whole_memory_ranks.js');

function launch(n: number, mode: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 90_000) {
  const dir = tempDir('wm-test-');
  const r = spawnSync(process.execPath, [launcher, '-n', String(n), fixture, mode], {
    encoding: 'utf8',
    timeout: timeoutMs,
    env: {...process.env, WM_TEST_DIR: dir, ...env},
  });
  fs.rmSync(dir, {recursive: true, force: true});
  return {status: r.status, out: `${r.stdout}${r.stderr}`};
}

/**
 * The environment for n ranks on the GPU: a GPU each where there are n, else ranks sharing the GPUs
 * (WM_SHARE_GPU=1: CUDA IPC, VMM and the peer all-reduce between processes of one GPU); undefined on the CPU.
 */
function gpuRanks(n: number): NodeJS.ProcessEnv | undefined {
  const {gpu, deviceCount} = wm.deviceInfo();
  if (!gpu) return undefined;
  return deviceCount >= n ? {} : {WM_SHARE_GPU: '1'};
}

const shmEntries = () => (fs.existsSync('/dev/shm') ? fs.readdirSync('/dev/shm').sort() : []);

// The all-reduce fixture checks 16-bit wires against this reference: check the reference first.
describe('all-reduce wire rounding reference', () => {
  it('rounds to nearest, ties to even, past float16 to infinity', () => {
    const cases: [number, 'bfloat16' | 'float16', number][] = [
      [1 + 2 ** -8, 'bfloat16', 1],
      [1 + 3 * 2 ** -8, 'bfloat16', 1 + 2 ** -6],
      [1 + 2 ** -8 + 2 ** -20, 'bfloat16', 1 + 2 ** -7],
      [-(1 + 2 ** -8), 'bfloat16', -1],
      [3.3895313892515355e38, 'bfloat16', 3.3895313892515355e38],
      [2049, 'float16', 2048],
      [2051, 'float16', 2052],
      [2050, 'float16', 2050],
      [65519, 'float16', 65504],
      [65520, 'float16', Infinity],
      [-7e4, 'float16', -Infinity],
      [6e-8, 'float16', 2 ** -24],
      [2 ** -25, 'float16', 0],
      [3 * 2 ** -25, 'float16', 2 ** -23],
      [1e-40, 'float16', 0],
      [2 ** -14 * 1.5, 'float16', 2 ** -14 * 1.5],
      [0.1, 'float16', 0.0999755859375],
    ];
    for (const [x, wire, want] of cases) expect(roundToWire(Math.fround(x), wire), `${x} to ${wire}`).to.equal(want);
    expect(Number.isNaN(roundToWire(NaN, 'bfloat16'))).to.equal(true);
  });
});

describe('WholeMemory across processes (tfjs-wm-run)', () => {
  for (const n of [1, 2, 4]) {
    it(`every type, every rank reads and writes the whole tensor: ${n} rank(s)`, () => {
      const {status, out} = launch(n, 'check');
      expect(status, out).to.equal(0);
      for (let r = 0; r < n; ++r) expect(out).to.include(`[${r}] OK rank ${r}`);
    });
    it(`GPU memory (continuous via CUDA VMM, chunked via CUDA IPC; distributed via NCCL with a GPU per rank): ${n} rank(s)`, function () {
      const env = gpuRanks(n);
      if (!env) this.skip();
      const {status, out} = launch(n, 'check', {WM_TEST_LOCATION: 'device', ...env});
      expect(status, out).to.equal(0);
      const types = env.WM_SHARE_GPU ? 'continuous, chunked' : 'continuous, chunked, distributed';
      for (let r = 0; r < n; ++r) expect(out).to.include(`[${r}] OK rank ${r} (device: ${types})`);
    });
  }

  for (const n of [1, 2, 4]) {
    it(`a graph stored once in WholeMemory, sampled whole by every rank: ${n} rank(s), host memory`, () => {
      const {status, out} = launch(n, 'graph');
      expect(status, out).to.equal(0);
      for (let r = 0; r < n; ++r) expect(out).to.include(`[${r}] OK graph rank ${r} (host)`);
    });
    it(`a graph stored once in WholeMemory over the GPUs, sampled whole by every rank: ${n} rank(s)`, function () {
      const env = gpuRanks(n);
      if (!env) this.skip();
      const {status, out} = launch(n, 'graph', {WM_TEST_LOCATION: 'device', ...env});
      expect(status, out).to.equal(0);
      for (let r = 0; r < n; ++r) expect(out).to.include(`[${r}] OK graph rank ${r} (device)`);
    });
  }

  for (const n of [2, 4]) {
    // NCCL's network transport over loopback stands in for ranks on several hosts.
    it(`GPU distributed memory over NCCL's network path (P2P and SHM off): ${n} ranks`, function () {
      if (wm.deviceInfo().deviceCount < n) this.skip();
      const {status, out} = launch(n, 'check', {
        WM_TEST_LOCATION: 'device',
        WM_TEST_TYPES: 'distributed',
        NCCL_P2P_DISABLE: '1',
        NCCL_SHM_DISABLE: '1',
      });
      expect(status, out).to.equal(0);
      for (let r = 0; r < n; ++r) expect(out).to.include(`[${r}] OK rank ${r} (device: distributed)`);
    });
  }

  for (const n of [2, 4]) {
    it(`one embedding table shared by ${n} ranks: writes and sparse steps seen by all, steps together as one process's step (Adagrad at the rows' owners, SGD added by every rank); each rank's own read-only cache`, () => {
      const {status, out} = launch(n, 'embedding', gpuRanks(n));
      expect(status, out).to.equal(0);
      for (let r = 0; r < n; ++r) expect(out).to.include(`[${r}] OK embedding rank ${r}`);
    });
  }

  for (const n of [1, 2, 4]) {
    it(`all-reduce and data-parallel training match single-process results: ${n} rank(s)`, () => {
      const {status, out} = launch(n, 'allreduce', gpuRanks(n));
      expect(status, out).to.equal(0);
      for (let r = 0; r < n; ++r) expect(out).to.include(`[${r}] OK allreduce rank ${r}`);
    });
  }

  for (const n of [2, 4]) {
    it(`GPU all-reduce: one-shot, two-shot, NCCL (a GPU per rank); float32/bfloat16/float16 wire; 1 element to 64 MiB; calls back to back: ${n} ranks`, function () {
      const env = gpuRanks(n);
      if (!env) this.skip();
      this.timeout(300_000);
      const {status, out} = launch(n, 'allreduce-gpu', env, 280_000);
      expect(status, out).to.equal(0);
      for (let r = 0; r < n; ++r) expect(out).to.include(`[${r}] OK allreduce-gpu rank ${r}`);
    });
  }

  // 3 ranks: a pushed two-shot round is a multiple of the rank count (65,535 of a 1 MiB buffer's 65,536
  // vectors), so a message's rounds and segments fall where no power of two puts them; in three stages
  // (every two-shot round, whatever its size), its stages and their segments too. A GPU per rank
  // (three ranks taking turns on fewer GPUs would make this run long).
  for (const [n, stages] of [
    [2, ''],
    [3, ''],
    [3, '3'],
  ] as const) {
    it(`GPU all-reduce in rounds: 1 MiB buffers that may not grow, every path and wire type: ${n} ranks${stages ? `, the two-shot in ${stages} stages` : ''}`, function () {
      const env = gpuRanks(n);
      if (!env || (n > 2 && env.WM_SHARE_GPU)) this.skip();
      this.timeout(300_000);
      const staged = stages ? {WM_AR_TWO_SHOT_STAGES: stages, WM_AR_TWO_SHOT_STAGED_FROM: '0'} : {};
      const {status, out} = launch(
        n,
        'allreduce-gpu',
        {WM_AR_BUFFER_BYTES: String(1 << 20), WM_AR_BUFFER_MAX: String(1 << 20), ...staged, ...env},
        280_000,
      );
      expect(status, out).to.equal(0);
      for (let r = 0; r < n; ++r) expect(out).to.include(`[${r}] OK allreduce-gpu rank ${r}`);
    });
  }

  it('CPU all-reduce: a rank killed between calls makes the others fail naming it, without waiting out the timeout', function () {
    if (wm.deviceInfo().gpu) this.skip();
    const {status, out} = launch(3, 'allreduce-die');
    expect(status).to.not.equal(0);
    for (const r of [0, 2]) {
      expect(out).to.match(new RegExp(`ERROR rank ${r} after \\d+ ms: allReduce: rank 1 exited or was killed before reaching it`));
    }
    const waited = [...out.matchAll(/ERROR rank \d after (\d+) ms/g)].map((m) => Number(m[1]));
    expect(Math.max(...waited)).to.be.below(1500);
    expect(out).to.not.include('UNEXPECTED');
  });

  it("a barrier given its own timeout waits past the communicator's, which holds again for the next barrier", () => {
    const {out} = launch(2, 'barrier-wait');
    for (const r of [0, 1]) expect(out, out).to.include(`WAITED rank ${r}, timeout back to 800 ms`);
    expect(out).to.match(/ERROR rank 1: barrier: rank 0 did not answer within 800 ms/);
    expect(out).to.not.include('UNEXPECTED');
  });

  it('CPU all-reduce: a rank that is alive but late is named once the timeout is up', function () {
    if (wm.deviceInfo().gpu) this.skip();
    const {out} = launch(2, 'allreduce-late');
    const m = out.match(/ERROR rank 0 after (\d+) ms: allReduce: rank 1 did not reach it within 800 ms/);
    expect(m, out).to.not.equal(null);
    expect(Number(m![1])).to.be.at.least(800);
  });

  it('GPU all-reduce: a rank killed between calls makes the other fail naming it within the timeout', function () {
    const env = gpuRanks(2);
    if (!env) this.skip();
    const {status, out} = launch(2, 'allreduce-die', env);
    expect(status).to.not.equal(0);
    expect(out).to.match(/ERROR rank 0 after \d+ ms: .*rank 1 did not reach the all-reduce within 1500 ms/);
    expect(out).to.not.include('UNEXPECTED');
  });

  it('data parallel on 1, 2 and 4 ranks gives the single-process loss curve (same global batch, distributed table)', function () {
    if (wm.deviceInfo().gpu && wm.deviceInfo().deviceCount < 4) this.skip();
    this.timeout(120_000);
    const curves = [1, 2, 4].map((n) => {
      const {status, out} = launch(n, 'dp-exact');
      expect(status, out).to.equal(0);
      const line = out.split('\n').find((l) => l.includes('LOSSES '))!;
      return JSON.parse(line.slice(line.indexOf('LOSSES ') + 7)) as number[];
    });
    expect(curves[0][14]).to.be.lessThan(curves[0][0]); // it learns
    for (const c of curves.slice(1)) c.forEach((l, i) => expect(l).to.be.closeTo(curves[0][i], 1e-4 * Math.max(1, curves[0][i])));
  });

  it('the data-parallel example trains with its table in WholeMemory on 2 ranks', () => {
    const r = spawnSync(
      process.execPath,
      [launcher, '-n', '2', path.join(root, 'dist', 'examples', 'data-parallel.js'), '--epochs', '3', '--out', tempDir('wm-dp-')],
      {encoding: 'utf8', timeout: 120_000, env: {...process.env, ...gpuRanks(2)}},
    );
    expect(r.status, r.stdout + r.stderr).to.equal(0);
    expect(r.stdout).to.match(/\[0\] GraphSAGE, 2 rank\(s\), table in continuous WholeMemory: test accuracy \d+\.\d+ %/);
  });

  it('the data-parallel example trains with a distributed table and compact subgraphs on 2 ranks', function () {
    if (wm.deviceInfo().gpu && wm.deviceInfo().deviceCount < 2) this.skip();
    const r = spawnSync(
      process.execPath,
      [
        launcher,
        '-n',
        '2',
        path.join(root, 'dist', 'examples', 'data-parallel.js'),
        '--epochs',
        '3',
        '--memory',
        'distributed',
        '--sampler',
        'subgraph',
        '--out',
        tempDir('wm-dp-'),
      ],
      {encoding: 'utf8', timeout: 120_000},
    );
    expect(r.status, r.stdout + r.stderr).to.equal(0);
    expect(r.stdout).to.match(/\[0\] GraphSAGE, 2 rank\(s\), table in distributed WholeMemory: test accuracy \d+\.\d+ %/);
  });

  // Epoch lines of the data-parallel example with --exact, without their timings, and the summary's accuracy.
  const exactEpochs = (ranks: number, epochs: number, extra: string[] = []) => {
    const r = spawnSync(
      process.execPath,
      [
        launcher,
        '-n',
        String(ranks),
        path.join(root, 'dist', 'examples', 'data-parallel.js'),
        '--exact',
        '--epochs',
        String(epochs),
        '--batch-size',
        '48',
        ...extra,
        '--out',
        tempDir('wm-dp-'),
      ],
      {encoding: 'utf8', timeout: 120_000},
    );
    expect(r.status, r.stdout + r.stderr).to.equal(0);
    return r.stdout
      .split('\n')
      .filter((l) => /epoch +\d+\/\d+/.test(l))
      .map((l) => l.replace(/\|.*$/, '').trim())
      .concat(r.stdout.match(/test accuracy [\d.]+ %/g) ?? []);
  };

  it('the data-parallel example with --exact logs the same epochs on 1 and 4 ranks', function () {
    if (wm.deviceInfo().gpu && wm.deviceInfo().deviceCount < 4) this.skip();
    const one = exactEpochs(1, 4);
    expect(one).to.have.length(5);
    expect(exactEpochs(4, 4)).to.deep.equal(one);
  });

  it('the data-parallel example with --exact and --model gcn / gat logs the same epochs on 1 and 2 ranks', function () {
    if (wm.deviceInfo().gpu && wm.deviceInfo().deviceCount < 2) this.skip();
    for (const model of ['gcn', 'gat']) {
      const one = exactEpochs(1, 3, ['--model', model]);
      expect(one, model).to.have.length(4);
      expect(exactEpochs(2, 3, ['--model', model]), model).to.deep.equal(one);
    }
  });

  it('ranks on one GPU: refused by name unless WM_SHARE_GPU=1, and then NCCL paths refuse them by name', function () {
    if (!wm.deviceInfo().gpu) this.skip();
    const one = {WM_TEST_LOCATION: 'device', WM_DEVICE: '0'};
    let r = launch(2, 'check', {...one, WM_TEST_TYPES: 'continuous'});
    expect(r.status).to.not.equal(0);
    expect(r.out).to.match(/malloc: ranks 0 and 1 use the same GPU 0 \(WM_SHARE_GPU=1 lets ranks share a GPU/);
    r = launch(2, 'check', {...one, WM_TEST_TYPES: 'distributed', WM_SHARE_GPU: '1'});
    expect(r.status).to.not.equal(0);
    expect(r.out).to.match(/NCCL init: ranks 0 and 1 use the same GPU 0; NCCL needs a GPU per rank/);
    expect(r.out).to.not.include('UNEXPECTED');
  });

  it('groups split off the launched one (splitCommunicator, hostCommunicators): their own collectives and shared tensors; a bad color named on every rank', () => {
    const {status, out} = launch(4, 'split', gpuRanks(4));
    expect(status, out).to.equal(0);
    for (const r of [0, 1, 2, 3]) expect(out).to.include(`OK split rank ${r}`);
  });

  it('a rank killed with SIGKILL mid-collective: the others fail naming it, nothing leaks', () => {
    const before = shmEntries();
    const {status, out} = launch(4, 'die', {WM_TEST_TIMEOUT_MS: '5000'});
    expect(status).to.not.equal(0);
    expect(out).to.include('rank 1 was killed by SIGKILL');
    expect(out).to.match(/ERROR rank [023]: barrier: rank 1 disconnected \(it exited or was killed\)/);
    expect(out).to.not.include('UNEXPECTED');
    expect(shmEntries()).to.deep.equal(before);
  });

  // Two ranks on a GPU each: SGD's steps added by every rank (atomic adds on GPUs that reach each other); four, on
  // fewer GPUs: through the communicator.
  for (const n of [2, 4]) {
    it(`a rank killed while the others step a shared table together: they fail naming it, nothing leaks: ${n} ranks`, () => {
      const before = shmEntries();
      const {status, out} = launch(n, 'die', {WM_TEST_TIMEOUT_MS: '5000', WM_TEST_DIE_IN: 'stepTogether', ...gpuRanks(n)});
      expect(status).to.not.equal(0);
      expect(out).to.include('rank 1 was killed by SIGKILL');
      expect(out).to.match(
        /ERROR rank [023]: embedding\.stepTogether \((sizes|indices)\): rank 1 disconnected \(it exited or was killed\)/,
      );
      expect(out).to.not.include('UNEXPECTED');
      expect(shmEntries()).to.deep.equal(before);
    });
  }

  it('a checkpoint is one commit over the ranks: a rank behind loads the newest set all hold, a rank dead mid-save commits nothing', function () {
    this.timeout(120_000);
    const {out} = launch(2, 'ckpt-torn', {WM_TEST_TIMEOUT_MS: '5000'});
    for (const r of [0, 1]) expect(out, out).to.match(new RegExp(`LOADED rank ${r} step 5 values 5,5,5,5 `));
    expect(out).to.match(
      /loadCheckpoint: the ranks' newest saves disagree \(rank 0 step 10, rank 1 step 5\); using the newest all of them hold/,
    );
    expect(out).to.match(/SAVE FAILED rank 0: .*rank 1/);
    expect(out).to.match(/COMMITTED rank 0 step 10/);
    expect(out).to.not.match(/UNEXPECTED/);
  });

  it('a WholeMemory save a rank dies in leaves the previous save whole: the next launch loads it on every rank', function () {
    this.timeout(120_000);
    const dir = tempDir('wm-torn-');
    try {
      const torn = launch(2, 'save-torn', {WM_TEST_TIMEOUT_MS: '5000', WM_TEST_DIR: dir});
      expect(torn.out, torn.out).to.match(/SAVE FAILED rank 0: .*rank 1/);
      const back = launch(2, 'save-load', {WM_TEST_DIR: dir});
      expect(back.status, back.out).to.equal(0);
      for (const r of [0, 1]) expect(back.out).to.match(new RegExp(`LOADED rank ${r} rows 1\n`));
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('GPU memory: a rank killed mid-collective leaves no device memory behind', function () {
    if (wm.deviceInfo().deviceCount < 2) this.skip();
    wm.synchronize();
    const before = wm.memoryInfo().deviceFreeBytes;
    const {status, out} = launch(2, 'die', {WM_TEST_TIMEOUT_MS: '5000', WM_TEST_LOCATION: 'device'});
    expect(status).to.not.equal(0);
    expect(out).to.match(/ERROR rank 0: barrier: rank 1 disconnected/);
    // The driver frees a dead process's memory asynchronously: give it a moment.
    let after = wm.memoryInfo().deviceFreeBytes;
    for (let i = 0; i < 50 && before - after > 64 * 2 ** 20; ++i) {
      spawnSync('sleep', ['0.1']);
      after = wm.memoryInfo().deviceFreeBytes;
    }
    expect(before - after, 'device bytes still taken after the ranks ended').to.be.lessThan(64 * 2 ** 20);
  });

  it('GPU distributed memory: a rank killed before a gather makes the others fail naming it', function () {
    if (wm.deviceInfo().deviceCount < 2) this.skip();
    const {status, out} = launch(2, 'die', {WM_TEST_TIMEOUT_MS: '5000', WM_TEST_LOCATION: 'device', WM_TEST_TYPE: 'distributed'});
    expect(status).to.not.equal(0);
    expect(out).to.match(/ERROR rank 0: gather \(counts\): rank 1 disconnected/);
    expect(out).to.not.include('UNEXPECTED');
  });

  it('a rank that never arrives: the others time out with its name', () => {
    const started = Date.now();
    const {status, out} = launch(3, 'late', {WM_TEST_TIMEOUT_MS: '2000'});
    expect(status).to.not.equal(0);
    expect(out).to.match(/ERROR rank [01]: barrier: rank\(s\) 2 did not arrive within 2000 ms/);
    expect(Date.now() - started).to.be.lessThan(30_000);
  });
});

describe('WholeMemory in one process', () => {
  it('malloc, write, gather, free; freed and bad use throw clear errors', () => {
    const t = wm.malloc({shape: [10, 3], location: 'host', type: 'chunked'});
    expect(t.rows).to.equal(10);
    expect(t.stride).to.deep.equal([3, 1]);
    t.scatter([2, 9], Float32Array.from([1, 2, 3, 4, 5, 6]));
    expect(Array.from(t.gather([9, 2]).dataSync())).to.deep.equal([4, 5, 6, 1, 2, 3]);
    expect(() => t.gather([10])).to.throw(/index 10 at position 0 is outside the tensor's 10 rows/);
    expect(() => t.scatter([0], Float32Array.from([1]))).to.throw(/values hold 1 elements/);
    t.free();
    expect(() => t.gather([0])).to.throw(/freed/);
    expect(() => t.free()).to.throw(/freed/);
  });

  it('rejects bad allocation arguments by name', () => {
    expect(() => wm.malloc({shape: [-1, 2], location: 'host'})).to.throw(/shape must be/);
    expect(() => wm.malloc({shape: [4], location: 'host', type: 'striped' as never})).to.throw(/type must be/);
    expect(() => wm.malloc({shape: [4], location: 'host', dtype: 'bool'})).to.throw(/dtype must be float32 or int32/);
    if (!wm.deviceInfo().gpu) expect(() => wm.malloc({shape: [4], location: 'device'})).to.throw(/needs a GPU/);
  });

  it('one tensor over every GPU of the machine (wm.malloc devices): each GPU holds a part, GPU 0 reads them all', function () {
    const count = wm.deviceInfo().deviceCount;
    if (count < 2) this.skip();
    const rows = 1000 * count + 37,
      dim = 33;
    for (const type of ['continuous', 'chunked'] as const) {
      const t = wm.malloc({shape: [rows, dim], type});
      expect(t.localRange).to.deep.equal({first: 0, count: rows});
      const rnd = seededRng(11);
      const data = Float32Array.from({length: rows * dim}, () => rnd() * 2 - 1);
      t.writeLocal(data);
      const idx = Int32Array.from({length: 4097}, () => Math.floor(rnd() * rows));
      idx[0] = rows - 1;
      const got = t.gather(idx).dataSync();
      idx.forEach((r, k) => {
        for (let c = 0; c < dim; ++c)
          if (got[k * dim + c] !== data[r * dim + c])
            throw new Error(`${type} row ${r} col ${c}: ${got[k * dim + c]} != ${data[r * dim + c]}`);
      });
      const back = t.localSlice().dataSync();
      expect(back.length).to.equal(data.length);
      expect(back.every((v, i) => v === data[i])).to.equal(true);
      t.scatter(
        [5, rows - 1],
        Float32Array.from({length: 2 * dim}, (_, i) => i),
      );
      expect(Array.from(t.gather([rows - 1]).dataSync())).to.deep.equal(Array.from({length: dim}, (_, i) => dim + i));
      t.free();
    }
    expect(() => wm.malloc({shape: [4, 4], devices: [0, 0]})).to.throw(/lists GPU 0 twice/);
    expect(() => wm.malloc({shape: [4, 4], devices: [count]})).to.throw(/is not a GPU here/);
    expect(() => wm.malloc({shape: [4, 4], devices: [0], type: 'distributed'})).to.throw(/spans processes/);
  });

  it('finalize frees what is left', () => {
    const t = wm.malloc({shape: [4, 4], location: 'host'});
    wm.finalize();
    expect(t.freed).to.equal(true);
  });
});
