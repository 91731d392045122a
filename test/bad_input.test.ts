// Bad input, killed processes and edited files: each case either fails at
// once with an error that names the argument (or file) and the rule it broke,
// or is cleaned up; nothing crashes the process, hangs or is read silently.
import {spawn, spawnSync} from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';
import * as tfl from '@tensorflow/tfjs-layers';
import {expect} from 'chai';

import * as wm from '../src/index';
import {loadCheckpoint, saveCheckpoint} from '../src/train/checkpoint';
import {tempName, writeAll, writeFileAtomically} from '../src/util/files';
import {committedShard, recommit} from './helpers';
import {NativeCsr} from '../src/graph/native_csr';
import {tempDir} from './temp_dirs';

const root = path.resolve(__dirname, '..', '..');
const launcher = path.join(root, 'dist', 'bin', 'tfjs-wm-run.js');
const fixture = path.join(root, 'dist', 'test', 'fixtures', 'whole_memory_ranks.js');

function tmpDir(): string {
  return tempDir('wm-bad-');
}

/** A folder in the ../shared/datasets layout. */
function dataset(edges: string, labels = '0\ta\n1\tb\n'): string {
  const dir = tmpDir();
  fs.writeFileSync(path.join(dir, 'edges.tsv'), edges);
  fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), labels);
  return dir;
}

// The library's named local sockets (abstract names starting tfjs-wm-) as [inode, name] pairs, from /proc/net/unix.
function localSocketNames(): [string, string][] {
  return fs
    .readFileSync('/proc/net/unix', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length >= 8 && f[7].startsWith('@tfjs-wm-'))
    .map((f) => [f[6], f[7]]);
}

// The names of those sockets that the processes `pids` hold open.
function rankSocketNames(pids: number[]): string[] {
  const inodes = new Set<string>();
  for (const pid of pids)
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      let link = '';
      try {
        link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`, {encoding: 'utf8'});
      } catch {
        continue; // closed since the listing
      }
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m) inodes.add(m[1]);
    }
  return localSocketNames()
    .filter(([inode]) => inodes.has(inode))
    .map(([, name]) => name);
}

/** The pid of a process that has exited (a saver killed earlier). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {encoding: 'utf8'});
  return Number(r.stdout);
}

async function timed<T>(f: () => Promise<T> | T): Promise<{ms: number; error?: Error}> {
  const t0 = performance.now();
  try {
    await f();
    return {ms: performance.now() - t0};
  } catch (e) {
    return {ms: performance.now() - t0, error: e as Error};
  }
}

describe('bad input is refused, named and cleaned up', () => {
  describe('datasets', () => {
    it('a vertex id far past the edges present is refused at once, naming the file, line and bound', async () => {
      const dir = dataset('0\t1\n1\t500000000\n');
      const r = await timed(() => wm.graph.loadDataset(dir));
      expect(r.error?.message).to.match(/edges\.tsv: vertex id 500000000 \(line 2\) makes a graph of 500000001 vertices from 2 edges/);
      expect(r.error?.message).to.match(/number the vertices densely from 0/);
      expect(r.ms).to.be.below(2000);
    });

    it("a header's vertices= far past the edges present is refused too", async () => {
      const dir = dataset('# directed=0 vertices=500000000 edges=2\n0\t1\n1\t2\n');
      const r = await timed(() => wm.graph.loadDataset(dir));
      expect(r.error?.message).to.match(/the header's vertices=500000000 makes a graph of 500000000 vertices from 2 edges/);
    });

    it('the main job stops on such data with the message and a failure status, not a crash', () => {
      const dir = dataset('0\t1\n1\t500000000\n');
      const r = spawnSync(process.execPath, [path.join(root, 'dist', 'examples', 'node-classification.js'), '--data', dir], {
        encoding: 'utf8',
        timeout: 60_000,
        env: {...process.env, TFJS_WHOLEMEMORY_DEVICE: 'cpu'},
      });
      expect(r.signal).to.equal(null);
      expect(r.stderr + r.stdout).to.match(/vertex id 500000000 \(line 2\)/);
    });

    it('isolated vertices within the bound still load (ids numbered densely, some without edges)', async () => {
      const edges = Array.from({length: 20}, (_, i) => `${i}\t${(i + 1) % 20}`).join('\n') + '\n';
      const labels = Array.from({length: 40}, (_, i) => `${i}\t${i % 2 ? 'odd' : 'even'}`).join('\n');
      const g = wm.graph.readEdgeList(path.join(dataset(`# directed=0 vertices=40 edges=20\n${edges}`, labels), 'edges.tsv'));
      expect(g.numVertices).to.equal(40);
    });

    for (const bad of ['0x10', '1e1', '+3', '1.5', '-3', '12abc']) {
      it(`a vertex id written "${bad}" is refused, naming file and line`, () => {
        const dir = dataset(`0\t1\n1\t${bad}\n`);
        expect(() => wm.graph.readEdgeList(path.join(dir, 'edges.tsv'))).to.throw(
          /edges\.tsv:2: expected two vertex ids \(decimal integers/,
        );
      });
    }

    it('a second label line for a vertex is refused, naming both lines', async () => {
      const edges = Array.from({length: 12}, (_, i) => `${i}\t${(i + 1) % 12}`).join('\n');
      const labels = Array.from({length: 12}, (_, i) => `${i}\t${i % 2}`).join('\n') + '\n3\t0\n';
      const dir = dataset(edges, labels);
      const r = await timed(() => wm.graph.loadDataset(dir));
      expect(r.error?.message).to.match(/vertex_value\.tsv:13: vertex 3 has a second label line \(the first is line 4\)/);
    });

    it('a label file with an id written in hex is refused', async () => {
      const edges = Array.from({length: 12}, (_, i) => `${i}\t${(i + 1) % 12}`).join('\n');
      const dir = dataset(edges, '0x1\ta\n');
      const r = await timed(() => wm.graph.loadDataset(dir));
      expect(r.error?.message).to.match(/vertex_value\.tsv:1: vertex id "0x1" is not in \[0, 12\)/);
    });

    it('a folder in place of edges.tsv is named as such', async () => {
      const dir = tmpDir();
      fs.mkdirSync(path.join(dir, 'edges.tsv'));
      fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), '0\ta\n');
      const r = await timed(() => wm.graph.loadDataset(dir));
      expect(r.error?.message).to.match(/edges\.tsv is a folder, expected a file/);
    });
  });

  describe('generators and tables', () => {
    it('csbm refuses sizes it cannot hold before allocating, naming the numbers', async () => {
      // Past half of this machine's memory at degree 1 (3e8 vertices on the CPU box), within int32 counts.
      // A machine whose half memory holds 2^31 - 2 such vertices cannot be asked for too many: nothing is drawn there.
      const n = Math.max(3e8, Math.ceil(os.totalmem() / 2 / 56) + 1);
      if (n < 2 ** 31 - 2) {
        const huge = await timed(() => wm.graph.csbm({vertices: n, classes: 2, degree: 1}));
        expect(huge.error?.message).to.match(new RegExp(`csbm: ${n} vertices of degree 1 need about .* GiB of host memory`));
        expect(huge.ms).to.be.below(1000);
      }
      expect(() => wm.graph.csbm({vertices: 2 ** 31, classes: 2, degree: 1})).to.throw(
        /csbm: vertices must be an integer in \[10, 2147483647\]/,
      );
      expect(() => wm.graph.csbm({vertices: 2 ** 30, classes: 2, degree: 4})).to.throw(/csbm: vertices x degree is 4294967296/);
    });

    it('csbm with very wide features computes its class means without a stack overflow', () => {
      const d = wm.graph.csbm({vertices: 10, classes: 2, degree: 2, features: 300_000, seed: 3});
      expect(d.features!.dim).to.equal(300_000);
      expect(Number.isFinite(d.features!.values[12345])).to.equal(true);
    });

    it('NaN, Infinity, negative or fractional seeds and scales are refused', () => {
      for (const seed of [NaN, Infinity, -1, 1.5]) {
        expect(() => wm.graph.csbm({vertices: 20, classes: 2, seed})).to.throw(/csbm: seed must be a non-negative integer/);
        expect(() => wm.nn.embedding({rows: 4, dim: 2, init: {seed}})).to.throw(/embedding: init: seed must be a non-negative integer/);
      }
      for (const scale of [NaN, Infinity, -0.5]) {
        expect(() => wm.nn.embedding({rows: 4, dim: 2, init: {type: 'normal', scale}})).to.throw(
          /embedding: init\.scale must be a finite non-negative number/,
        );
      }
      expect(() => wm.graph.csbm({vertices: 20, classes: 2, features: 2, signal: NaN})).to.throw(/csbm: signal must be a finite/);
    });

    it("an Adam handed another set of variables says so instead of stepping one with the other's moments", () => {
      const opt = wm.train.adam(0.01);
      const w = tf.variable(tf.ones([8, 1])),
        v = tf.variable(tf.ones([3]));
      opt.minimize(() => tf.sum(w) as tf.Scalar, false, [w]);
      expect(() => opt.minimize(() => tf.sum(v) as tf.Scalar, false, [v])).to.throw(
        /adam: gradient 0 is for '.*' \[3\], but this optimizer's moments at that position are for '.*' \[8,1\]: .*one optimizer per set of variables/,
      );
      tf.dispose([w, v]);
      opt.dispose();
    });

    it('tf.tile with a negative count names the repetition', () => {
      expect(() => tf.tile(tf.ones([4, 10]), [-1, 1])).to.throw(/reps\[0\] must be a non-negative integer, got -1/);
      expect(tf.tile(tf.ones([2, 3]), [0, 2]).shape).to.deep.equal([0, 6]);
    });

    it('walks and samples take plain arrays of ids and refuse results past int32 counts', () => {
      const g = wm.graph.CsrGraph.fromEdges(
        {
          numVertices: 10,
          src: Int32Array.from([0, 1, 2]),
          dst: Int32Array.from([1, 2, 3]),
          directed: false,
        },
        {symmetric: true},
      );
      const walks = wm.graph.randomWalks(g, [0, 9], 5, {seed: 1});
      expect(walks.length).to.equal(10);
      expect(Array.from(walks.subarray(5))).to.deep.equal([9, 9, 9, 9, 9]); // an isolated vertex stays put
      expect(() => wm.graph.randomWalks(g, [0, 1.5], 5)).to.throw(/randomWalks: starts: indices\[1\] = 1.5/);
      expect(wm.graph.sampleNeighbors(g, [1, 2], 3, {seed: 1}).ids.length).to.equal(6);
      expect(() => wm.graph.sampleNeighbors(g, Int32Array.from([1, 2]), 2 ** 31)).to.throw(
        /sampleNeighbors: 2 seeds x fanout 2147483648 is 4294967296 samples, past the 2147483647/,
      );
    });
  });

  describe('saving into places that cannot hold it', () => {
    it('model.save into /proc fails at once naming the folder', async function () {
      if (!fs.existsSync('/proc/self')) this.skip();
      const m = tfl.sequential({layers: [tfl.layers.dense({units: 1, inputShape: [2]})]});
      for (const where of ['/proc/x', '/proc/self/x/y']) {
        const r = await timed(() => m.save(`file://${where}`));
        expect(r.error?.message).to.match(/model\.save: cannot create the folder \/proc\/.*ENOENT/);
        expect(r.ms).to.be.below(2000);
      }
      m.dispose();
    });

    it('model.save under a file fails naming the file in the way; loading with weights.bin a folder names it', async () => {
      const dir = tmpDir();
      fs.writeFileSync(path.join(dir, 'file'), 'x');
      const m = tfl.sequential({layers: [tfl.layers.dense({units: 1, inputShape: [2]})]});
      const r = await timed(() => m.save(`file://${dir}/file/model`));
      expect(r.error?.message).to.match(/model\.save: cannot create .*\/file\/model: .*\/file is not a folder/);
      await m.save(`file://${dir}/ok`);
      fs.rmSync(path.join(dir, 'ok', 'weights.bin'));
      fs.mkdirSync(path.join(dir, 'ok', 'weights.bin'));
      const l = await timed(() => tfl.loadLayersModel(`file://${dir}/ok/model.json`));
      expect(l.error?.message).to.match(/weight file: .*weights\.bin is a folder, expected a file/);
      m.dispose();
    });
  });

  describe('communicators and the launcher', () => {
    it('a communicator size past the bound is refused naming size, in the API and in the addon', () => {
      expect(() => wm.createCommunicator(wm.getUniqueId(), 0, 1e9)).to.throw(
        /createCommunicator: size must be in \[1, 65536\] ranks, got 1000000000/,
      );
      expect(() => wm.createCommunicator(wm.getUniqueId(), 3, 2)).to.throw(/rank must be below size \(2\), got 3/);
      const addon = path.join(root, 'build', 'Release', 'wholememory.node');
      if (!fs.existsSync(addon)) return; // a prebuilt install: the API's check above is what runs
      const {NativeCommunicator} = require(addon) as {NativeCommunicator: new (...a: unknown[]) => unknown};
      expect(() => new NativeCommunicator('127.0.0.1:1:n:00', 0, 1e9, 1000)).to.throw(/argument 2 \(size\) must be in \[1, 65536\] ranks/);
    });

    it('the launcher checks its options and prints no stack trace', () => {
      for (const [args, want] of [
        [['-n', '0', fixture], /-n must be a whole number of ranks from 1 to 65536, got "0"/],
        [['-n', '2', '--master-port', '99999', fixture], /--master-port must be a port from 0 to 65535, got "99999"/],
        [['-n', '2', '--grace', '-5', fixture], /--grace must be milliseconds/],
      ] as const) {
        const r = spawnSync(process.execPath, [launcher, ...args], {encoding: 'utf8', timeout: 20_000});
        expect(r.status).to.not.equal(0);
        expect(r.stderr).to.match(want);
        expect(r.stderr).to.not.match(/\n\s+at /);
      }
    });

    it('a collective mismatch names what each rank called', function () {
      const r = spawnSync(process.execPath, [launcher, '-n', '2', fixture, 'mismatch'], {
        encoding: 'utf8',
        timeout: 60_000,
        // The host all-reduce: on one GPU two ranks could not each have their own.
        env: {...process.env, WM_TEST_TIMEOUT_MS: '5000', TFJS_WHOLEMEMORY_DEVICE: 'cpu'},
      });
      const out = r.stdout + r.stderr;
      expect(out).to.match(/ERROR rank 0: collectives out of order: rank 1 called #\d+ malloc while rank 0 called #\d+ allReduce/);
      expect(out).to.match(/ERROR rank 1: collectives out of order/);
    });

    for (const busy of [false, true]) {
      it(`ranks end when their launcher is SIGKILLed${busy ? ' (ranks busy in a synchronous loop)' : ''}`, async () => {
        const child = spawn(process.execPath, [launcher, '-n', '3', fixture, 'hold'], {
          env: {...process.env, WM_TEST_BUSY: busy ? '1' : '0', WM_TEST_TIMEOUT_MS: '20000'},
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (out += d));
        const deadline = Date.now() + 60_000;
        while ((out.match(/HOLDING rank/g) ?? []).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        const pids = [...out.matchAll(/HOLDING rank \d pid (\d+)/g)].map((m) => Number(m[1]));
        expect(pids, out).to.have.length(3);
        // The ranks' own listening sockets, by inode: other test files running at once have theirs.
        const held = rankSocketNames(pids);
        expect(held, 'the ranks listen on named local sockets').to.not.be.empty;
        child.kill('SIGKILL');
        const alive = (pid: number) => {
          try {
            process.kill(pid, 0);
            return true;
          } catch {
            return false;
          }
        };
        const t0 = Date.now();
        while (pids.some(alive) && Date.now() - t0 < 15_000) await new Promise((r) => setTimeout(r, 20));
        expect(pids.filter(alive), 'ranks still running after their launcher died').to.deep.equal([]);
        const listed = new Set(localSocketNames().map(([, name]) => name));
        expect(
          held.filter((name) => listed.has(name)),
          'local sockets left behind',
        ).to.deep.equal([]);
      });
    }
  });

  describe('checkpoints and saved tensors', () => {
    it("a commit removes unfinished saves and older sets, leaves a live saver's set alone, and a torn set is never loaded", async () => {
      const dir = tmpDir();
      const v = tf.variable(tf.tensor1d([1, 2, 3]), true, `bad_input_v_${Math.random()}`);
      await saveCheckpoint(dir, {step: 1, variables: {v}});
      const first = path.basename(path.dirname(committedShard(dir)));
      // A dead saver's set (its shard never renamed into place) and a live saver's.
      const dead = path.join(dir, 'set-9-00000000000000aa');
      fs.mkdirSync(dead);
      const deadTmp = tempName(path.join(dead, 'rank-0'), 'tmp').replace(/-\d+$/, `-${deadPid()}`);
      fs.mkdirSync(deadTmp);
      fs.writeFileSync(path.join(deadTmp, 'var-v.bin'), Buffer.alloc(1 << 16));
      const sleeper = spawn('sleep', ['30']);
      const live = path.join(dir, 'set-8-00000000000000bb');
      fs.mkdirSync(live);
      fs.mkdirSync(tempName(path.join(live, 'rank-0'), 'tmp').replace(/-\d+$/, `-${sleeper.pid}`));
      try {
        await saveCheckpoint(dir, {step: 2, variables: {v}});
        const second = path.basename(path.dirname(committedShard(dir)));
        expect(fs.existsSync(dead)).to.equal(false);
        expect(fs.readdirSync(dir).sort()).to.deep.equal(['COMMIT.json', first, second, path.basename(live)].sort());
        // A whole shard that no commit names (a save whose other ranks never finished) is not loaded.
        fs.cpSync(path.join(dir, second), path.join(dir, 'set-3-00000000000000cc'), {recursive: true});
        v.assign(tf.tensor1d([0, 0, 0]));
        expect((await loadCheckpoint(dir, {variables: {v}})).step).to.equal(2);
        expect(Array.from(v.dataSync())).to.deep.equal([1, 2, 3]);
        await saveCheckpoint(dir, {step: 3, variables: {v}});
        const third = path.basename(path.dirname(committedShard(dir)));
        expect(fs.readdirSync(dir).sort()).to.deep.equal(['COMMIT.json', second, third, path.basename(live)].sort());
      } finally {
        sleeper.kill();
        v.dispose();
      }
    });

    it('a damaged newest checkpoint is passed over, with a warning naming its step, for the one before', async () => {
      const dir = tmpDir();
      const v = tf.variable(tf.tensor1d([1, 2, 3]), true, `bad_input_d_${Math.random()}`);
      await saveCheckpoint(dir, {step: 4, variables: {v}});
      v.assign(tf.tensor1d([5, 6, 7]));
      await saveCheckpoint(dir, {step: 5, variables: {v}});
      const f = path.join(committedShard(dir), 'var-v.bin');
      const b = fs.readFileSync(f);
      b[2] ^= 1;
      fs.writeFileSync(f, b);
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(w.message);
      process.on('warning', onWarning);
      try {
        expect((await loadCheckpoint(dir, {variables: {v}})).step).to.equal(4);
        await new Promise((r) => setImmediate(r));
        expect(Array.from(v.dataSync())).to.deep.equal([1, 2, 3]);
        expect(warnings.join('\n')).to.match(
          /loadCheckpoint: the save of step 5 is not whole \(rank 0: .*var-v\.bin does not match its SHA-256/,
        );
      } finally {
        process.off('warning', onWarning);
        v.dispose();
      }
    });

    it('an optimizer slot whose dtype or shape was edited in meta.json is refused, and nothing changes', async () => {
      const dir = tmpDir();
      const v = tf.variable(
        tf.tensor2d([
          [1, 2],
          [3, 4],
        ]),
        true,
        `bad_input_w_${Math.random()}`,
      );
      const opt = tf.train.adam(0.1);
      opt.minimize(() => tf.sum(tf.square(v)) as tf.Scalar, false, [v]);
      await saveCheckpoint(dir, {step: 1, variables: {v}, optimizer: opt});
      const metaFile = path.join(committedShard(dir), 'meta.json');
      const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
      const slot = meta.optimizer.findIndex((w: {name: string}) => w.name.endsWith('/m'));
      expect(slot).to.be.greaterThan(0);
      const before = JSON.stringify(await Promise.all((await opt.getWeights()).map((w) => w.tensor.array())));
      for (const edit of [
        (m: typeof meta) => (m.optimizer[slot].dtype = 'int32'),
        (m: typeof meta) => (m.optimizer[0].dtype = 'float32'),
        (m: typeof meta) => (m.optimizer[slot].shape = [4]),
        (m: typeof meta) => (m.rank = 1),
        (m: typeof meta) => (m.files['var-v.bin'].sha256 = 'zz'),
      ]) {
        const copy = JSON.parse(JSON.stringify(meta));
        edit(copy);
        fs.writeFileSync(metaFile, JSON.stringify(copy));
        recommit(dir);
        const r = await timed(() => loadCheckpoint(dir, {variables: {v}, optimizer: opt}));
        expect(r.error?.message).to.match(
          /loadCheckpoint: .*meta\.json: (optimizer slot \d+ \('.*'\) must be (float32|int32)|rank must be 0|files\['var-v\.bin'\] needs)/,
        );
      }
      expect(JSON.stringify(await Promise.all((await opt.getWeights()).map((w) => w.tensor.array())))).to.equal(before);
      fs.writeFileSync(metaFile, JSON.stringify(meta));
      recommit(dir);
      await loadCheckpoint(dir, {variables: {v}, optimizer: opt});
      opt.minimize(() => tf.sum(tf.square(v)) as tf.Scalar, false, [v]);
      v.dispose();
      opt.dispose();
    });

    it('WholeMemoryTensor.load refuses a bit-flipped part and a garbage meta.json, naming the file', () => {
      const dir = tmpDir();
      const t = wm.malloc({shape: [64, 8], dtype: 'float32'});
      const rows = Array.from({length: 64}, (_, i) => i);
      t.scatter(
        rows,
        Float32Array.from({length: 64 * 8}, (_, i) => Math.sin(i)),
      );
      t.save(dir);
      const part = path.join(committedShard(dir), 'part.bin');
      const bytes = fs.readFileSync(part);
      const flipped = Buffer.from(bytes);
      flipped[101] ^= 0x40;
      fs.writeFileSync(part, flipped);
      const u = wm.malloc({shape: [64, 8], dtype: 'float32'});
      u.scatter(rows, new Float32Array(64 * 8).fill(7));
      expect(() => u.load(dir)).to.throw(/load: .*part\.bin does not match its SHA-256 in .*meta\.json \(corrupted\)/);
      fs.writeFileSync(part, bytes.subarray(0, 100));
      expect(() => u.load(dir)).to.throw(/part\.bin holds 100 bytes/);
      fs.writeFileSync(part, bytes);
      const metaFile = path.join(committedShard(dir), 'meta.json');
      const meta = fs.readFileSync(metaFile);
      fs.writeFileSync(metaFile, '{"shape": [64, 8], "dt');
      expect(() => u.load(dir)).to.throw(/load: .*meta\.json does not match its digest in the commit/);
      recommit(dir);
      expect(() => u.load(dir)).to.throw(/load: .*meta\.json is not valid JSON/);
      expect(Array.from(u.gather([5]).dataSync())).to.deep.equal(new Array(8).fill(7)); // nothing loaded
      fs.writeFileSync(metaFile, meta);
      recommit(dir);
      u.load(dir);
      expect(Array.from(u.gather(rows).dataSync())).to.deep.equal(Array.from(t.gather(rows).dataSync()));
      t.free();
      u.free();
    });
  });

  describe('ids, graphs a model belongs to, bounds', () => {
    const g = () =>
      wm.graph.CsrGraph.fromEdges(
        {numVertices: 6, src: Int32Array.from([0, 1, 2, 3, 4]), dst: Int32Array.from([1, 2, 3, 4, 5]), directed: false},
        {symmetric: true},
      );

    it('ids given as a number, a Set, an object or a float tensor are refused by name; an int32 tensor is read', () => {
      const graph = g();
      const bad: [unknown, RegExp][] = [
        [5, /got number 5/],
        [new Set([1, 2]), /got a Set/],
        [{length: 2}, /got a Object/],
        [tf.tensor1d([1, 2], 'float32'), /a tensor of ids must be 1-D int32, got a 1-D float32 tensor/],
      ];
      for (const [ids, message] of bad) {
        expect(() => graph.degrees(ids as number[]), String(ids)).to.throw(/CsrGraph\.degrees: vertices: /);
        expect(() => graph.degrees(ids as number[]), String(ids)).to.throw(message);
        expect(() => new wm.nn.NeighborLoader(graph, ids as number[], {fanouts: [2], batchSize: 2}), String(ids)).to.throw(
          /NeighborLoader: seeds: /,
        );
        expect(() => new wm.nn.LinkNeighborLoader(graph, {src: ids as number[], dst: [1]}, {fanouts: [2], batchSize: 2})).to.throw(
          /LinkNeighborLoader: src: /,
        );
      }
      const emb = wm.nn.embedding({rows: 6, dim: 2});
      expect(() => emb.read(new Set([1]) as unknown as number[])).to.throw(/embedding\.read: ids must be an array/);
      expect(() => emb.read(3 as unknown as number[])).to.throw(/embedding\.read: ids must be an array/);
      emb.dispose();
      const ids = tf.tensor1d([0, 5, 2], 'int32');
      expect(Array.from(graph.degrees(ids))).to.deep.equal([1, 1, 2]);
      expect(new wm.nn.NeighborLoader(graph, ids, {fanouts: [2], batchSize: 2}).length).to.equal(2);
      expect(() => graph.degrees([6])).to.throw(/CsrGraph\.degrees: vertices\[0\] = 6 is not a vertex \(0 to 5\)/);
      ids.dispose();
    });

    it('a model with learnable embeddings refuses a graph other than its own (a relabelled one too)', async () => {
      const dir = tmpDir();
      const data = wm.graph.csbm({vertices: 60, classes: 3, features: 4, degree: 4, homophily: 0.9, signal: 2, seed: 5});
      const model = wm.train.createNodeClassifier('gcn', {numNodes: 60, numClasses: 3, embeddingDim: 4, hiddenDim: 8});
      await wm.nn.saveNodeClassifier(model, dir, {graph: data.graph});
      model.dispose();
      // The same edges with two vertices' ids swapped.
      const swap = (v: number) => (v === 0 ? 1 : v === 1 ? 0 : v);
      const {rowPtr, colIdx} = data.graph;
      const src: number[] = [],
        dst: number[] = [];
      for (let v = 0; v < 60; ++v) for (let i = rowPtr[v]; i < rowPtr[v + 1]; ++i) (src.push(swap(v)), dst.push(swap(colIdx[i])));
      const relabelled = wm.graph.CsrGraph.fromEdges(
        {numVertices: 60, src: Int32Array.from(src), dst: Int32Array.from(dst), directed: true},
        {symmetric: false},
      );
      expect(() => wm.nn.loadNodeClassifier(dir, {graph: relabelled})).to.throw(
        /learnable embedding per vertex of the graph it was trained on .* the graph given is another/,
      );
      const {model: back} = wm.nn.loadNodeClassifier(dir, {graph: data.graph});
      back.dispose();
      const native = NativeCsr.fromCsr(data.graph.rowPtr, data.graph.colIdx);
      expect(native.checksum()).to.equal(data.graph.checksum());
      native.free();
    });

    it('LinkNeighborLoader bounds negatives up front, naming them', () => {
      const started = Date.now();
      expect(() => new wm.nn.LinkNeighborLoader(g(), {src: [0, 1], dst: [1, 2]}, {fanouts: [2], batchSize: 512, negatives: 1e9})).to.throw(
        /LinkNeighborLoader: negatives \(1000000000\) with batchSize 512 make \d+ pairs a batch, past the 134217728/,
      );
      expect(Date.now() - started).to.be.below(1000);
    });

    it("a model.json's weight paths stay inside its folder", async () => {
      const dir = tmpDir();
      const m = tfl.sequential({layers: [tfl.layers.dense({units: 2, inputShape: [3]})]});
      await m.save(`file://${path.join(dir, 'model')}`);
      const outside = path.join(dir, 'outside.bin');
      const modelJson = path.join(dir, 'model', 'model.json');
      const j = JSON.parse(fs.readFileSync(modelJson, 'utf8'));
      const weights = path.join(dir, 'model', j.weightsManifest[0].paths[0]);
      fs.copyFileSync(weights, outside);
      j.weightsManifest[0].paths = ['../outside.bin'];
      fs.writeFileSync(modelJson, JSON.stringify(j));
      let error = '';
      await tfl.loadLayersModel(`file://${modelJson}`).catch((e) => (error = (e as Error).message));
      expect(error).to.match(/weight path "\.\.\/outside\.bin" must name a file inside the model's folder/);
      m.dispose();
    });

    it('a source edited in the middle with its size and modification time kept makes the cache stale (its change time moved)', async () => {
      const dir = tmpDir();
      const n = 200_000;
      const edges = Array.from({length: n}, (_, v) => `${v}\t${(v + 1) % n}`).join('\n') + '\n';
      fs.writeFileSync(path.join(dir, 'edges.tsv'), edges);
      expect(edges.length).to.be.above(2 << 20);
      fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), Array.from({length: n}, (_, v) => `${v}\t${v % 2}`).join('\n') + '\n');
      await wm.graph.loadDataset(dir, {cache: true});
      const file = path.join(dir, 'edges.tsv');
      const st = fs.statSync(file);
      const mid = Buffer.from(edges);
      const at = mid.indexOf('\n100000\t100001\n') + 1;
      mid.write('100000\t100002', at); // the same length
      fs.writeFileSync(file, mid);
      fs.utimesSync(file, st.atime, st.mtime);
      const said: string[] = [];
      const d = await wm.graph.loadDataset(dir, {cache: true, onProgress: (m) => said.push(m)});
      expect(said.join('\n')).to.match(/edges\.tsv changed since the cache was written/);
      expect(Array.from(d.graph.neighbors(100000))).to.include(100002);
    });

    it('a graph file of the earlier format says so, and how to make one', () => {
      const dir = tmpDir();
      const file = path.join(dir, 'g.wmcsr');
      const graph = NativeCsr.fromCsr(Int32Array.from([0, 1, 1]), Int32Array.from([1]));
      graph.save(file);
      graph.free();
      const b = fs.readFileSync(file);
      b[7] = 1;
      fs.writeFileSync(file, b);
      expect(() => NativeCsr.load(file)).to.throw(
        /a graph file of format 1; this version reads format 2 \(save the graph again from its source\)/,
      );
    });

    it('an atomic write that cannot rename into place (a folder there) leaves no temporary behind', () => {
      const dir = tmpDir();
      const target = path.join(dir, 'predictions.tsv');
      fs.mkdirSync(path.join(target, 'inside'), {recursive: true});
      expect(() => writeFileAtomically(target, Buffer.from('x'))).to.throw();
      expect(fs.readdirSync(dir)).to.deep.equal(['predictions.tsv']);
    });

    it('writes of any size go a piece at a time (Node refuses one write call of 2 GiB or more): every byte, in order', () => {
      const file = path.join(tmpDir(), 'pieces.bin');
      const bytes = Uint8Array.from({length: 100_003}, (_, i) => (i * 31 + 7) & 255);
      const fd = fs.openSync(file, 'w');
      try {
        writeAll(fd, bytes, 4_099);
        writeAll(fd, bytes.subarray(0, 0), 4_099);
      } finally {
        fs.closeSync(fd);
      }
      expect(Buffer.compare(fs.readFileSync(file), Buffer.from(bytes))).to.equal(0);
    });

    it('the launcher names a script that is not there, without a stack trace', () => {
      const r = spawnSync(process.execPath, [path.join(root, 'dist', 'bin', 'tfjs-wm-run.js'), '-n', '2', '/nonexistent/train.js'], {
        encoding: 'utf8',
      });
      expect(r.status).to.equal(2);
      expect(r.stderr).to.match(/tfjs-wm-run: the script \/nonexistent\/train\.js is not there/);
      expect(r.stderr).to.not.match(/\n\s+at /);
    });
  });

  describe('tools', () => {
    it('the doctor reports an invalid WM_THREADS as a problem line instead of a stack trace', () => {
      const r = spawnSync(process.execPath, [path.join(root, 'dist', 'bin', 'tfjs-wm-doctor.js')], {
        encoding: 'utf8',
        env: {...process.env, WM_THREADS: 'abc'},
      });
      expect(r.status).to.equal(0);
      expect(r.stdout).to.match(/problem\s+environment: WM_THREADS must be an integer from 1 to 1024, got 'abc'/);
      expect(r.stderr).to.not.match(/\n\s+at /);
    });

    it('the store refusing a default folder open to others says why, and connectStore() rejects rather than throws', async function () {
      if (process.getuid === undefined) this.skip();
      const tmp = tmpDir();
      const open = path.join(tmp, `tfjs-wm-${process.getuid!()}`);
      fs.mkdirSync(open, {mode: 0o777});
      fs.chmodSync(open, 0o777);
      const env = {...process.env, TMPDIR: tmp, XDG_RUNTIME_DIR: ''};
      const r = spawnSync(process.execPath, [path.join(root, 'dist', 'bin', 'tfjs-wm-store.js')], {encoding: 'utf8', env, timeout: 20_000});
      expect(r.status).to.equal(1);
      expect(r.stderr).to.match(/tfjs-wm-store: .*tfjs-wm-\d+ is open to other users \(mode 777\); refusing to use it/);
      expect(r.stderr).to.not.match(/\n\s+at /);
      const saved = {TMPDIR: process.env.TMPDIR, XDG: process.env.XDG_RUNTIME_DIR};
      process.env.TMPDIR = tmp;
      process.env.XDG_RUNTIME_DIR = '';
      try {
        let pending: Promise<unknown> | undefined;
        expect(() => (pending = wm.connectStore())).to.not.throw();
        await pending!.then(
          () => expect.fail('connected through a folder open to others'),
          (e: Error) => expect(e.message).to.match(/is open to other users/),
        );
      } finally {
        if (saved.TMPDIR === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved.TMPDIR;
        if (saved.XDG === undefined) delete process.env.XDG_RUNTIME_DIR;
        else process.env.XDG_RUNTIME_DIR = saved.XDG;
      }
    });
  });
});
