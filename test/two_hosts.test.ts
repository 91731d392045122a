// Ranks on two hosts: two simulated hosts on this machine (test/two_hosts.ts: network namespaces joined by a
// veth pair, each with its own host name, IPC and /dev/shm), one tfjs-wm-run --nnodes 2 on each, one group
// of four ranks on the CPU path. Needs root (CI has it); skipped, saying why, elsewhere.
import * as fs from 'fs';
import * as path from 'path';
import {spawnSync} from 'child_process';

import {expect} from 'chai';

import {TwoHosts} from './two_hosts';
import {polblogsWithFeatures} from './fixtures/polblogs_features';
import {tempDir} from './temp_dirs';

const root = path.resolve(__dirname, '..', '..');
const launcher = path.join(root, 'dist', 'bin', 'tfjs-wm-run.js');
const ranks = path.join(root, 'dist', 'test', 'fixtures', 'cross_host_ranks.js');

describe('two hosts (network namespaces, tfjs-wm-run --nnodes 2)', function () {
  this.timeout(180_000);
  let hosts: TwoHosts | undefined;
  let dir = '';

  before(function () {
    const made = TwoHosts.make();
    if (!(made instanceof TwoHosts)) {
      console.log(`      (skipped: ${made.why})`);
      this.skip();
    }
    hosts = made as TwoHosts;
    dir = tempDir('wm-two-hosts-');
  });

  after(() => {
    hosts?.dispose();
    if (dir) fs.rmSync(dir, {recursive: true, force: true});
  });

  // Host `node`'s launcher of its two ranks of the four, and the environment every host's ranks get.
  const command = (node: 0 | 1, port: number, script = ranks, args: string[] = []) => hosts!.launcherCommand(node, port, script, args);
  const hostEnv = (env: NodeJS.ProcessEnv = {}) => hosts!.rankEnv(env);

  const launch = (port: number, args: string[] = [], env: NodeJS.ProcessEnv = {}, script = ranks) =>
    Promise.all(([0, 1] as const).map((node) => hosts!.run(node, command(node, port, script, args), hostEnv(env))));

  it('one group of four ranks over both: collectives, a distributed tensor and table across hosts; descriptor-shared memory refused across them, shared within groups split by host (a tensor, a graph)', async () => {
    const [a, b] = await launch(29611);
    expect(a.status, a.out).to.equal(0);
    expect(b.status, b.out).to.equal(0);
    for (const r of [0, 1]) expect(a.out).to.include(`[${r}] OK rank ${r} on ${hosts!.names[0]}`);
    for (const r of [2, 3]) expect(b.out).to.include(`[${r}] OK rank ${r} on ${hosts!.names[1]}`);
  });

  it("the multi-rank suite's all-reduce (odd sizes, several tensors, 16-bit wires bit for bit, data parallel), distributed WholeMemory (both dtypes, save and load), exact data-parallel training (the single process's loss curve) and distributed and hierarchical embedding tables (writes, reads, sparse steps merged across ranks, steps together as one process's) across the two hosts", async () => {
    const suite = path.join(root, 'dist', 'test', 'fixtures', 'whole_memory_ranks.js');
    for (const [port, mode, env] of [
      [29613, 'allreduce', {}],
      [29614, 'check', {WM_TEST_TYPES: 'distributed', WM_TEST_DIR: dir}],
      [29616, 'dp-exact', {}],
      [29621, 'embedding', {WM_TEST_MEMORIES: 'distributed,hierarchical'}],
    ] as const) {
      const [a, b] = await launch(port, [mode], env, suite);
      expect(a.status, `${mode}: ${a.out}`).to.equal(0);
      expect(b.status, `${mode}: ${b.out}`).to.equal(0);
      for (const r of [0, 1]) expect(a.out, mode).to.match(new RegExp(`\\[${r}\\] OK (${mode} )?rank ${r}`));
      for (const r of [2, 3]) expect(b.out, mode).to.match(new RegExp(`\\[${r}\\] OK (${mode} )?rank ${r}`));
      if (mode === 'dp-exact') {
        // Four ranks over two hosts train as one process does on the same global batch.
        const one = spawnSync(process.execPath, [launcher, '-n', '1', suite, 'dp-exact'], {
          encoding: 'utf8',
          timeout: 120_000,
          env: {...process.env, CUDA_VISIBLE_DEVICES: ''},
        });
        const curve = (out: string) => JSON.parse(out.slice(out.indexOf('LOSSES ') + 7).split('\n')[0]) as number[];
        const want = curve(one.stdout),
          got = curve(a.out);
        expect(got.length).to.equal(want.length);
        got.forEach((l, i) => expect(l, `step ${i}`).to.be.closeTo(want[i], 1e-4 * Math.max(1, want[i])));
      }
    }
  });

  it("a barrier's own timeout across hosts, and a checkpoint committed over the ranks of both (a rank behind loads the newest set all hold, a rank dead mid-save commits nothing)", async () => {
    const suite = path.join(root, 'dist', 'test', 'fixtures', 'whole_memory_ranks.js');
    const [a, b] = await launch(29619, ['barrier-wait'], {}, suite);
    const waited = a.out + b.out;
    for (const r of [0, 1, 2, 3]) expect(waited, waited).to.include(`WAITED rank ${r}, timeout back to 800 ms`);
    expect(waited).to.match(/ERROR rank [123]: barrier: rank 0 did not answer within 800 ms/);
    expect(waited).to.not.include('UNEXPECTED');
    const [c, d] = await launch(29620, ['ckpt-torn'], {WM_TEST_TIMEOUT_MS: '5000', WM_TEST_DIR: dir}, suite);
    const torn = c.out + d.out;
    for (const r of [0, 1, 2, 3]) expect(torn, torn).to.match(new RegExp(`LOADED rank ${r} step 5 values 5,5,5,5 `));
    expect(torn).to.match(/loadCheckpoint: the ranks' newest saves disagree/);
    expect(torn).to.match(/SAVE FAILED rank [023]: .*rank 1/);
    expect(torn).to.match(/COMMITTED rank [023] step 10/);
    expect(torn).to.not.match(/UNEXPECTED|COMMITTED rank [023] step 15/);
  });

  it('an all-reduce across hosts: a rank killed between calls is named by the ranks of both hosts, within the timeout; a rank busy past it is named', async () => {
    const suite = path.join(root, 'dist', 'test', 'fixtures', 'whole_memory_ranks.js');
    const [a, b] = await launch(29622, ['allreduce-die'], {}, suite);
    const died = a.out + b.out;
    for (const r of [0, 2, 3]) expect(died, died).to.match(new RegExp(`ERROR rank ${r} after (\\d+) ms: .*rank 1`));
    const waited = [...died.matchAll(/ERROR rank \d after (\d+) ms/g)].map((m) => Number(m[1]));
    expect(Math.max(...waited), died).to.be.below(1500 + 1000);
    expect(died).to.not.include('UNEXPECTED');
    const [c, d] = await launch(29623, ['allreduce-late'], {}, suite);
    const late = c.out + d.out;
    for (const r of [0, 2, 3]) {
      const m = late.match(
        new RegExp(`ERROR rank ${r} after (\\d+) ms: allReduce \\(across hosts\\): rank\\(s\\) 1 did not arrive within 800 ms`),
      );
      expect(m, late).to.not.equal(null);
      expect(Number(m![1]), 'named once the timeout is up (a rank starts its clock a moment after the deadline is set)').to.be.at.least(
        700,
      );
    }
  });

  it("a GPU per host (two GPUs, or one both hosts drive): the GPUs told apart by host though each is its host's GPU 0, the all-reduce through NCCL over the hosts' sockets (exact, odd sizes), a distributed GPU table written on one host and read on both, a hierarchical one read across them through NCCL (cached and not; none read through it when every other host's row is cached), continuous GPU memory refused across hosts", async function () {
    const gpus = spawnSync('nvidia-smi', ['-L'], {encoding: 'utf8'});
    const count = gpus.status === 0 ? gpus.stdout.split('\n').filter((l) => l.startsWith('GPU ')).length : 0;
    if (count < 1) {
      console.log('      (skipped: no GPU here)');
      this.skip();
    }
    const gpuRanks = path.join(root, 'dist', 'test', 'fixtures', 'cross_host_gpu_ranks.js');
    // Each host sees one GPU as its GPU 0; NCCL between them over the veth pair (the only interface but loopback).
    const [a, b] = await Promise.all(
      ([0, 1] as const).map((node) =>
        hosts!.run(
          node,
          hosts!.launcherCommand(node, 29630, gpuRanks, [], 1),
          hostEnv({CUDA_VISIBLE_DEVICES: TwoHosts.gpuOf(node, count), ...TwoHosts.ncclEnv}),
          150_000,
        ),
      ),
    );
    expect(a.status, a.out + b.out).to.equal(0);
    expect(b.status, b.out).to.equal(0);
    console.log(
      a.out
        .split('\n')
        .filter((l) => l.includes('allreduce '))
        .map((l) => `      ${l.trim()}`)
        .join('\n'),
    );
    expect(a.out).to.include(`[0] OK rank 0 on ${hosts!.names[0]}`);
    expect(b.out).to.include(`[1] OK rank 1 on ${hosts!.names[1]}`);
  });

  it('data-parallel training across hosts: the features stored once per host, the dense gradients all-reduced over both; learned embeddings in memory one host holds refused by name, trained in a table split between the hosts', async () => {
    // polblogs with 8 features a vertex (its label, noisy, and noise): the folder the example reads.
    const data = polblogsWithFeatures(dir, 8);
    const example = path.join(root, 'dist', 'examples', 'data-parallel.js');
    const args = ['--data', data, '--epochs', '2', '--out', path.join(dir, 'dp-runs')];
    const [a, b] = await launch(29624, [...args, '--inputs', 'features'], {}, example);
    expect(a.status, a.out + b.out).to.equal(0);
    expect(b.status, b.out).to.equal(0);
    const acc = a.out.match(/\[0\] .*4 rank\(s\), table in continuous WholeMemory: test accuracy ([\d.]+) %/);
    expect(acc, a.out).to.not.equal(null);
    expect(Number(acc![1]), 'the features carry the label').to.be.above(60);
    const [c, d] = await launch(29625, [...args, '--inputs', 'both'], {}, example);
    expect(c.status).to.not.equal(0);
    expect(c.out + d.out).to.include('--memory continuous: the ranks run on 2 hosts and continuous memory stays on one');
    // Learned embeddings and the features in one table split between the hosts, shared within each.
    const [e, f] = await launch(29626, [...args, '--inputs', 'both', '--memory', 'hierarchical'], {}, example);
    expect(e.status, e.out + f.out).to.equal(0);
    expect(f.status, f.out).to.equal(0);
    const both = e.out.match(/\[0\] .*4 rank\(s\), table in hierarchical WholeMemory: test accuracy ([\d.]+) %/);
    expect(both, e.out).to.not.equal(null);
    expect(Number(both![1]), 'the features carry the label').to.be.above(60);
  });

  it('a stranger on the other host connecting to the master port first is dropped and reported; the group forms and runs', async () => {
    // The second host's ranks join 6 s late; the stranger keeps trying until rank 0 listens.
    const env = hostEnv({WM_TEST_JOIN_DELAY_MS: '6000'});
    const [a, b, stranger] = await Promise.all([
      hosts!.run(0, command(0, 29618), env),
      hosts!.run(1, command(1, 29618), env),
      // From the second host, while its ranks wait: a connection that knows no secret, with bytes of its own.
      hosts!.run(1, [
        process.execPath,
        '-e',
        `const net = require('net');
         const attempt = () => {
           const s = net.connect(29618, '${hosts!.addresses[0]}', () => { s.write('hello, rank 0'); setTimeout(() => process.exit(0), 3000); });
           s.on('error', () => setTimeout(attempt, 100));
         };
         attempt();
         setTimeout(() => process.exit(4), 30000);`,
      ]),
    ]);
    expect(stranger.status).to.equal(0);
    expect(a.status, a.out).to.equal(0);
    expect(b.status, b.out).to.equal(0);
    expect(a.out).to.match(new RegExp(`tfjs-wm bootstrap: dropped a connection from ${hosts!.addresses[1].replace(/\./g, '\\.')}`));
    for (const r of [2, 3]) expect(b.out).to.include(`[${r}] OK rank ${r} on ${hosts!.names[1]}`);
  });

  it('a host that never arrives: the ranks on the one that did name the missing ranks within the timeout, and end', async () => {
    const t0 = Date.now();
    const a = await hosts!.run(0, command(0, 29615), hostEnv({WM_TEST_TIMEOUT_MS: '4000'}));
    expect(a.status, a.out).to.not.equal(0);
    expect(a.out, a.out).to.match(/rank\(s\) 2, 3 did not join within 4000 ms/);
    expect(Date.now() - t0).to.be.below(60_000);
  });

  it('a whole host killed (its launcher and ranks at once): the ranks on the other name the ranks that left, within the timeout, and end', async () => {
    const env = hostEnv({WM_TEST_TIMEOUT_MS: '4000'});
    const a = hosts!.start(0, command(0, 29617, ranks, ['wait']), env);
    const b = hosts!.start(1, command(1, 29617, ranks, ['wait']), env);
    // Until the group has formed and waits at its barriers.
    for (let waited = 0; !/READY rank 0/.test(a.output()); waited += 100) {
      if (waited > 60_000) throw new Error(`the group did not form: ${a.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const t0 = Date.now();
    b.kill();
    const [ra] = await Promise.all([a.done, b.done]);
    expect(ra.status, ra.out).to.not.equal(0);
    expect(ra.out, ra.out).to.match(/ERROR rank [01]: .*rank [23]/);
    expect(Date.now() - t0, 'named within the timeout and a few seconds').to.be.below(20_000);
  });

  it('a rank that dies on one host is named by the ranks on the other, within the timeout', async () => {
    const t0 = Date.now();
    const [a, b] = await launch(29612, ['die'], {WM_TEST_DIE: '3', WM_TEST_TIMEOUT_MS: '5000'});
    expect(b.status, b.out).to.not.equal(0);
    expect(a.status, a.out).to.not.equal(0);
    expect(a.out, a.out).to.match(/rank 3/);
    expect(Date.now() - t0).to.be.below(60_000);
  });
});
