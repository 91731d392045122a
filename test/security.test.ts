// What crosses a process boundary is untrusted: strangers on the bootstrap's
// sockets (another user's processes where this machine allows running one:
// `setpriv --reuid=65534`), forged descriptors of shared objects, the object
// store's socket, and the ranks' secret.
import * as crypto from 'crypto';
import {spawn, spawnSync} from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {SharePeer} from './fixtures/share_peer';
import {committedShard, recommit} from './helpers';
import {tempDir} from './temp_dirs';

const root = path.resolve(__dirname, '..', '..');
const launcher = path.join(root, 'dist', 'bin', 'tfjs-wm-run.js');
const fixtures = path.join(root, 'dist', 'test', 'fixtures');

const AS_NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];

/** Runs a program as another user (uid 65534) where this machine allows, else says why not. */
export function otherUser(program: string, probe: string[]): {prefix: string[]} | {why: string} {
  if (process.getuid!() !== 0) return {why: 'not root: cannot start a process under another uid'};
  const r = spawnSync(AS_NOBODY[0], [...AS_NOBODY.slice(1), program, ...probe], {encoding: 'utf8'});
  if (r.status !== 0) return {why: `setpriv cannot run ${program} as uid 65534 here: ${(r.stderr || r.error?.message || '').trim()}`};
  return {prefix: AS_NOBODY};
}

// The system's python (a per-user one, e.g. pyenv's under /root, is closed to other users).
const python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A Slurm job id from `from` on whose derived port (20000 + (job * 7 + step) mod 20000, step 0) nothing listens here. */
async function slurmJob(from: number): Promise<number> {
  const bindable = (port: number) =>
    new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
  let job = from + (process.pid % 2000);
  while (!(await bindable(20000 + ((job * 7) % 20000)))) ++job;
  return job;
}

/**
 * A fresh folder holding a group secret only this user can read (`secretFile`) and a rank's program (`probe`: joins
 * the group, and prints "OK <rank> of <size> local <LOCAL_RANK>"); the caller removes the folder.
 */
function secretFolder(prefix: string): {dir: string; secretFile: string; probe: string} {
  const dir = tempDir(prefix);
  const secretFile = path.join(dir, 'secret');
  fs.writeFileSync(secretFile, crypto.randomBytes(32).toString('hex') + '\n', {mode: 0o600});
  const probe = path.join(dir, 'probe.js');
  fs.writeFileSync(
    probe,
    `const wm = require(${JSON.stringify(path.join(root, 'dist', 'src', 'index.js'))});
     const c = wm.communicatorFromEnv({timeoutMs: 15000}); c.barrier();
     console.log('OK ' + c.rank + ' of ' + c.size + ' local ' + process.env.LOCAL_RANK); wm.finalize();`,
  );
  return {dir, secretFile, probe};
}

interface Run {
  status: number | null;
  out: string;
}

function run(cmd: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(cmd[0], cmd.slice(1), {env: {...process.env, ...env}});
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({status, out});
    });
  });
}

describe('security: the bootstrap lets in only ranks that know the secret', () => {
  for (const who of ['this user', 'another user'] as const) {
    it(`an intruder (${who}) with the port and the local sockets gets nothing, and the launch goes on`, async function () {
      const intruder = path.join(root, 'test', 'fixtures', 'intruder.py');
      const as = who === 'this user' ? {prefix: []} : otherUser(python, [intruder, '127.0.0.1', '1', '0']);
      if ('why' in as) {
        console.log(`      skipped: ${as.why}`);
        this.skip();
      }
      const port = await freePort();
      const ranks = run([process.execPath, launcher, '-n', '2', '--master-port', String(port), path.join(fixtures, 'bootstrap_ranks.js')], {
        WM_TEST_JOIN_DELAY_MS: '2500',
      });
      const attack = run([...as.prefix, python, intruder, '127.0.0.1', String(port), '4']);
      const [r, i] = await Promise.all([ranks, attack]);
      expect(r.out, r.out).to.include('OK rank 0').and.include('OK rank 1');
      expect(r.status).to.equal(0);
      const seen = JSON.parse(i.out.trim().split('\n').pop()!) as {attempts: number; local: number; leaked: string[]; errors: string[]};
      expect(seen.attempts, i.out).to.be.greaterThanOrEqual(5); // 4 TCP connections, at least one local socket
      expect(seen.local, i.out).to.be.greaterThanOrEqual(1);
      expect(seen.leaked).to.deep.equal([]);
      expect(seen.errors).to.deep.equal([]);
      // Rank 0 said whom it dropped, and why.
      expect(r.out).to.match(/dropped a connection from .*: it failed authentication/);
      expect(r.out).to.match(/dropped a connection from .*: it announced a greeting longer than 4096 bytes/);
      expect(r.out).to.match(
        who === 'another user'
          ? /dropped a connection from local pid \d+ uid 65534: it belongs to another user/
          : /dropped a connection from local pid \d+ uid \d+: it failed authentication on the local socket/,
      );
      // Rank 1, joining 2.5 s late, waited on none of the strangers' connections (it joins in tens of ms, on a loaded
      // machine too): rank 0 drops the silent one only after the handshake bound, 5 s from when it began listening,
      // so had rank 0 served them one at a time, rank 1 would have waited about 2.5 s.
      const joined = /OK rank 1 joined in (\d+) ms/.exec(r.out);
      expect(joined, r.out).to.not.equal(null);
      expect(Number(joined![1]), r.out).to.be.lessThan(1000);
    });
  }

  it('a unique id without the secret, or with a wrong one, cannot join; rank 0 goes on waiting for the real rank', async () => {
    const id = wm.getUniqueId();
    expect(id.split(':')).to.have.length(4);
    expect(id.split(':')[3]).to.match(/^[0-9a-f]{64}$/);
    const [host, port, nonce] = id.split(':');
    expect(() => wm.createCommunicator(`${host}:${port}:${nonce}`, 1, 2, {timeoutMs: 2000})).to.throw(/secret/);
    const index = JSON.stringify(path.join(root, 'dist', 'src', 'index.js'));
    const rank0 = spawn(process.execPath, [
      '-e',
      `
      const wm = require(${index});
      const id = wm.getUniqueId(); console.log('ID ' + id);
      try { wm.createCommunicator(id, 0, 2, {timeoutMs: 4000}); console.log('CREATED'); }
      catch (e) { console.log('RANK0 ' + e.message); }`,
    ]);
    let out0 = '';
    rank0.stderr.on('data', (d) => (out0 += d));
    const realId = await new Promise<string>((resolve) =>
      rank0.stdout.on('data', (d) => {
        out0 += d;
        const m = /ID (\S+)/.exec(out0);
        if (m) resolve(m[1]);
      }),
    );
    const forged = realId.replace(/:[0-9a-f]+$/, `:${'0'.repeat(64)}`);
    const peer = await run([
      process.execPath,
      '-e',
      `
      const wm = require(${index});
      try { wm.createCommunicator(${JSON.stringify(forged)}, 1, 2, {timeoutMs: 3000}); console.log('JOINED'); }
      catch (e) { console.log('REFUSED ' + e.message); }`,
    ]);
    await new Promise((resolve) => rank0.on('exit', resolve));
    expect(peer.out, peer.out).to.match(/REFUSED .*failed authentication \(it does not know the group's secret\)/);
    expect(out0).to.match(/dropped a connection from 127.0.0.1:\d+: it failed authentication/);
    expect(out0).to.include('RANK0 createCommunicator: rank(s) 1 did not join within 4000 ms');
  });

  it('the launcher hands the secret through the environment only: not in arguments or socket names', async () => {
    const port = await freePort();
    const probe = path.join(os.tmpdir(), `wm-secret-probe-${process.pid}.js`);
    fs.writeFileSync(
      probe,
      `
      const s = process.env.WM_RUN_SECRET;
      const inArgs = process.argv.join(' ').includes(s);
      const wm = require(${JSON.stringify(path.join(root, 'dist', 'src', 'index.js'))});
      const c = wm.communicatorFromEnv({timeoutMs: 10000});
      const names = require('fs').readFileSync('/proc/net/unix', 'utf8');
      console.log(JSON.stringify({len: s.length, inArgs, inNames: names.includes(s) || names.includes(process.env.WM_RUN_ID)}));
      c.barrier(); wm.finalize();`,
    );
    const r = await run([process.execPath, launcher, '-n', '2', '--master-port', String(port), probe]);
    fs.rmSync(probe);
    expect(r.status, r.out).to.equal(0);
    for (const rank of [0, 1]) expect(r.out).to.include(`[${rank}] {"len":64,"inArgs":false,"inNames":false}`);
  });

  it('without WM_RUN_SECRET (torchrun, mpirun) rank 0 shares a secret through a private 0600 file, removed once all joined', async () => {
    const port = await freePort();
    const env = {WORLD_SIZE: '2', MASTER_ADDR: '127.0.0.1', MASTER_PORT: String(port), WM_RUN_ID: `t${process.pid}`, WM_RUN_SECRET: ''};
    const script = `
      const wm = require(${JSON.stringify(path.join(root, 'dist', 'src', 'index.js'))});
      const c = wm.communicatorFromEnv({timeoutMs: 10000}); c.barrier(); console.log('OK ' + c.rank); wm.finalize();`;
    const [a, b] = await Promise.all([
      run([process.execPath, '-e', script], {...env, RANK: '0'}),
      run([process.execPath, '-e', script], {...env, RANK: '1'}),
    ]);
    expect(a.out, a.out).to.include('OK 0');
    expect(b.out, b.out).to.include('OK 1');
    const {privateDir} = await import('../src/util/private_files');
    const dir = privateDir();
    expect(fs.statSync(dir).mode & 0o777).to.equal(0o700);
    expect(fs.readdirSync(dir).filter((f) => f.includes(`t${process.pid}`))).to.deep.equal([]);
  });

  it('tfjs-wm-run over two hosts (--nnodes 2, one launcher per node rank) starts one group of 2 x 2 ranks, given one secret file; without a secret or a port it says what each host needs', async () => {
    const port = await freePort();
    const {dir, secretFile, probe} = secretFolder('wm-nodes-');
    const nodes = (node: number, env: NodeJS.ProcessEnv = {WM_RUN_SECRET: '', WM_RUN_SECRET_FILE: secretFile}, extra: string[] = []) =>
      run(
        [
          process.execPath,
          launcher,
          '-n',
          '2',
          '--nnodes',
          '2',
          '--node-rank',
          String(node),
          ...extra,
          '--master-port',
          String(port),
          probe,
        ],
        env,
      );
    try {
      const [a, b] = await Promise.all([nodes(0), nodes(1)]);
      expect(a.status, a.out).to.equal(0);
      expect(b.status, b.out).to.equal(0);
      for (const [r, local] of [
        [0, 0],
        [1, 1],
      ])
        expect(a.out).to.include(`[${r}] OK ${r} of 4 local ${local}`);
      for (const [r, local] of [
        [2, 0],
        [3, 1],
      ])
        expect(b.out).to.include(`[${r}] OK ${r} of 4 local ${local}`);
      const noSecret = await nodes(0, {WM_RUN_SECRET: '', WM_RUN_SECRET_FILE: ''});
      expect(noSecret.status).to.equal(2);
      expect(noSecret.out).to.match(/--nnodes 2: every host needs the group's secret: set WM_RUN_SECRET_FILE/);
      const noPort = spawnSync(process.execPath, [launcher, '-n', '1', '--nnodes', '2', probe], {encoding: 'utf8'});
      expect(noPort.stderr).to.match(/--nnodes 2: give every host the same --master-port/);
      const badNode = spawnSync(process.execPath, [launcher, '-n', '1', '--nnodes', '2', '--node-rank', '2', probe], {encoding: 'utf8'});
      expect(badNode.stderr).to.match(/--node-rank 2 must be below --nnodes 2/);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it("tfjs-wm-run as one srun task per node (Slurm's variables only) starts its node's share of one group: the nodes, its place, the master and the port from the job", async () => {
    const job = await slurmJob(3000);
    const {dir, secretFile, probe} = secretFolder('wm-srun-nodes-');
    const task = (node: number) =>
      run([process.execPath, launcher, '-n', '2', probe], {
        SLURM_STEP_NUM_NODES: '2',
        SLURM_STEP_NUM_TASKS: '2',
        SLURM_NODEID: String(node),
        SLURM_PROCID: String(node),
        SLURM_JOB_NODELIST: '127.0.0.1',
        SLURM_JOB_ID: String(job),
        SLURM_STEP_ID: '0',
        WM_RUN_SECRET: '',
        WM_RUN_SECRET_FILE: secretFile,
      });
    try {
      const [a, b] = await Promise.all([task(0), task(1)]);
      expect(a.status, a.out).to.equal(0);
      expect(b.status, b.out).to.equal(0);
      for (const r of [0, 1]) expect(a.out).to.include(`[${r}] OK ${r} of 4`);
      for (const r of [2, 3]) expect(b.out).to.include(`[${r}] OK ${r} of 4`);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it("ranks started as srun starts them (Slurm's variables only) find each other, authenticated by a secret file only this user can read; one others can read is refused", async () => {
    const job = await slurmJob(1000);
    const {dir, secretFile} = secretFolder('wm-slurm-');
    const env = {
      SLURM_NTASKS: '2',
      SLURM_NODEID: '0',
      SLURM_TASKS_PER_NODE: '2',
      SLURM_JOB_NODELIST: '127.0.0.1',
      SLURM_JOB_ID: String(job),
      SLURM_STEP_ID: '0',
      WM_RUN_SECRET: '',
      WM_RUN_SECRET_FILE: secretFile,
    };
    const script = `
      const wm = require(${JSON.stringify(path.join(root, 'dist', 'src', 'index.js'))});
      const c = wm.communicatorFromEnv({timeoutMs: 10000}); c.barrier();
      console.log('OK ' + c.rank + ' of ' + c.size); wm.finalize();`;
    try {
      const [a, b] = await Promise.all([
        run([process.execPath, '-e', script], {...env, SLURM_PROCID: '0', SLURM_LOCALID: '0'}),
        run([process.execPath, '-e', script], {...env, SLURM_PROCID: '1', SLURM_LOCALID: '1'}),
      ]);
      expect(a.out, a.out).to.include('OK 0 of 2');
      expect(b.out, b.out).to.include('OK 1 of 2');
      fs.chmodSync(secretFile, 0o644);
      const open = await run([process.execPath, '-e', script], {...env, SLURM_PROCID: '0', SLURM_LOCALID: '0'});
      expect(open.status).to.not.equal(0);
      expect(open.out).to.match(/secret is open to other users \(mode 644\); refusing to use it/);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });
});

describe('security: shared objects and the object store', () => {
  const storeScript = path.join(root, 'dist', 'bin', 'tfjs-wm-store.js');

  const peer = () => SharePeer.start();

  it('a read-only object stays read-only whatever the descriptor says (the owner seals it)', async () => {
    const owner = await peer();
    try {
      const {descriptor: d} = await owner.ask({cmd: 'share', n: 64, seed: 5, location: 'host', mutable: false});
      const before = Array.from(await wm.open(d!).data());
      const forged = wm.open({...d!, mutable: true});
      expect(() => wm.update(forged, new Float32Array(64).fill(7))).to.throw(/read-only \(its owner shared it with mutable: false\)/);
      // Even the native write path refuses: the seal, not our bookkeeping, holds.
      const {native} = await import('../src/native/device');
      expect(() => native().sharedHostWrite(d!.fdPath!, d!.inode!, 0, new Float32Array(4))).to.throw(/read-only|Operation not permitted/);
      expect(Array.from(await wm.open(d!).data())).to.deep.equal(before);
      wm.close(forged);
    } finally {
      await owner.stop();
    }
  });

  it('a forged descriptor larger than its object is refused on open, before any read (no SIGBUS)', async () => {
    const owner = await peer();
    try {
      const {descriptor: d} = await owner.ask({cmd: 'share', n: 4, seed: 1, location: 'host', mutable: false});
      const forged = {...d!, shape: [1 << 20], bytes: 4 << 20};
      expect(() => wm.open(forged)).to.throw(/says 4194304 bytes but the shared segment holds 16/);
      expect(Array.from(await wm.open(d!).data())).to.have.length(4);
    } finally {
      await owner.stop();
    }
    const mine = wm.share(tf.ones([4]));
    expect(() => wm.open({...mine, shape: [1 << 20], bytes: 4 << 20})).to.throw(/says 4194304 bytes/);
    wm.delete(mine.id);
  });

  it('sizes past the machine are refused with the numbers, and refused creates leak no descriptor', () => {
    const fds = () => fs.readdirSync('/proc/self/fd').length;
    const before = fds();
    for (let i = 0; i < 200; ++i) {
      expect(() => wm.share(tf.ones([1]), {location: 'host'})).to.not.throw();
      expect(() => wm.share(tf.zeros([0]), {location: 'host'})).to.not.throw();
    }
    const {allocateShared, ownedShared} = require('../src/share/shared_objects') as typeof import('../src/share/shared_objects');
    for (const id of ownedShared().map((d) => d.id)) wm.delete(id);
    expect(fds()).to.equal(before);
    for (let i = 0; i < 200; ++i) {
      expect(() => allocateShared({shape: [2 ** 40, 1024], location: 'host'})).to.throw(/of host memory asked for, and this machine has/);
      expect(() => allocateShared({shape: [2 ** 30, 2 ** 30]})).to.throw(/more than 2\^53 elements/);
    }
    expect(fds()).to.equal(before);
  });

  it('a process near its descriptor limit is refused a new object with a message naming ulimit -n', () => {
    const script = `
      const tf = require(${JSON.stringify(require.resolve('@tensorflow/tfjs-core'))});
      const wm = require(${JSON.stringify(path.join(root, 'dist', 'src', 'index.js'))});
      let made = 0, first;
      try { for (;;) { const d = wm.share(tf.ones([2]), {location: 'host'}); first = first || d; ++made; } }
      catch (e) { console.log('REFUSED after ' + made + ': ' + e.message); }
      const t = wm.open(first); console.log('STILL WORKS ' + t.dataSync()[0]);`;
    const r = spawnSync('bash', ['-c', `ulimit -n 256 && exec ${process.execPath} -e "$0"`, script], {encoding: 'utf8', cwd: root});
    expect(r.stdout, r.stdout + r.stderr).to.match(
      /REFUSED after \d+: share: this process has \d+ open descriptors of its limit 256 \(ulimit -n\)/,
    );
    expect(r.stdout).to.include('STILL WORKS 1');
  });

  describe('the store', () => {
    let store: ReturnType<typeof spawn> | undefined;
    let logged = '';
    const storeLog = () => logged;
    const socket = path.join(os.tmpdir(), `wm-sec-store-${process.pid}.sock`);
    async function startStore(env: NodeJS.ProcessEnv = {}, umask?: string): Promise<string> {
      const cmd = umask
        ? ['bash', '-c', `umask ${umask} && exec "$0" "$@"`, process.execPath, storeScript, '--socket', socket]
        : [process.execPath, storeScript, '--socket', socket];
      store = spawn(cmd[0], cmd.slice(1), {stdio: ['ignore', 'pipe', 'pipe'], env: {...process.env, ...env}});
      let out = '';
      logged = '';
      store.stderr!.on('data', (d) => {
        out += d;
        logged += d;
      });
      await new Promise<void>((resolve, reject) => {
        store!.stdout!.on('data', (d) => {
          out += d;
          if (out.includes('listening')) resolve();
        });
        store!.once('exit', (code) => reject(new Error(`the store exited with ${code}: ${out}`)));
      });
      return out;
    }
    afterEach(async () => {
      if (store && store.exitCode === null) {
        store.kill('SIGTERM');
        await new Promise((resolve) => store!.once('exit', resolve));
      }
      fs.rmSync(socket, {force: true});
    });

    it('its socket is 0600 even under umask 000, and another user can neither connect nor get served', async function () {
      const log = await startStore({}, '000');
      expect(fs.statSync(socket).mode & 0o777).to.equal(0o600);
      const as = otherUser(python, ['-c', 'pass']);
      if ('why' in as) {
        console.log(`      skipped the other-user half: ${as.why}`);
        return;
      }
      const tryAs = (code: string) => spawnSync(as.prefix[0], [...as.prefix.slice(1), python, '-c', code], {encoding: 'utf8'});
      const connect = `import socket; s = socket.socket(socket.AF_UNIX); s.connect(${JSON.stringify(socket)}); s.sendall(b'{"op":"list"}\\n'); print("GOT", s.recv(4096))`;
      expect(tryAs(connect).stderr).to.match(/PermissionError|Permission denied/);
      // Even with the socket opened to all, the store checks the client's uid.
      fs.chmodSync(socket, 0o666);
      const r = tryAs(connect);
      expect(r.stdout + r.stderr).to.match(/GOT b''|ConnectionResetError|BrokenPipeError/);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(log + storeLog()).to.match(/refused a client of uid 65534/);
      // Our own client refuses a socket others may use; closed again, it is served.
      await wm.connectStore(socket).then(
        () => expect.fail('used a socket open to all'),
        (e) => expect(e.message).to.match(/open to other users/),
      );
      fs.chmodSync(socket, 0o600);
      const client = await wm.connectStore(socket);
      expect(await client.list()).to.deep.equal([]);
      client.close();
    });

    it('a socket path that another user took first is refused by the store and by clients', function () {
      const as = otherUser(python, ['-c', 'pass']);
      if ('why' in as) {
        console.log(`      skipped: ${as.why}`);
        this.skip();
      }
      const squat = spawnSync(
        as.prefix[0],
        [...as.prefix.slice(1), python, '-c', `import socket; s = socket.socket(socket.AF_UNIX); s.bind(${JSON.stringify(socket)})`],
        {encoding: 'utf8'},
      );
      expect(squat.status, squat.stderr).to.equal(0);
      expect(fs.statSync(socket).uid).to.equal(65534);
      const r = spawnSync(process.execPath, [storeScript, '--socket', socket], {encoding: 'utf8', timeout: 20_000});
      expect(r.status).to.not.equal(0);
      expect(r.stderr).to.match(/belongs to uid 65534, not to this user/);
      return wm.connectStore(socket).then(
        () => expect.fail("connected to another user's socket"),
        (e) => expect(e.message).to.match(/belongs to uid 65534/),
      );
    });

    it('the default socket lives in a 0700 directory of this user', async () => {
      const {defaultStorePath} = await import('../src/share/store');
      const p = defaultStorePath();
      const st = fs.statSync(path.dirname(p));
      expect(st.uid).to.equal(process.getuid!());
      expect(st.mode & 0o777).to.equal(0o700);
    });

    it('a read-only object put in the store cannot be written by a holder with a forged descriptor', async () => {
      await startStore();
      const client = await wm.connectStore(socket);
      const d = await client.put(tf.tensor1d([1, 2, 3]), {location: 'host'});
      expect(d.mutable).to.equal(false);
      const t = wm.open({...d, mutable: true});
      expect(() => wm.update(t, [9, 9, 9])).to.throw(/read-only/);
      expect(Array.from(await (await client.open(d.id)).data())).to.deep.equal([1, 2, 3]);
      const m = await client.put(tf.tensor1d([1, 2, 3]), {location: 'host', mutable: true});
      const tm = wm.open(m);
      wm.update(tm, [4, 5, 6]);
      expect(Array.from(await (await client.open(m.id)).data())).to.deep.equal([4, 5, 6]);
      client.close();
    });

    it('refused creates leave the store no descriptor behind', async () => {
      await startStore();
      const fdsOfStore = () => fs.readdirSync(`/proc/${store!.pid}/fd`).length;
      const client = await wm.connectStore(socket);
      await client.list();
      const before = fdsOfStore();
      for (let i = 0; i < 200; ++i) {
        await client.create({shape: [2 ** 40, 1024], location: 'host'}).then(
          () => expect.fail('created'),
          (e) => expect(e.message).to.match(/host memory asked for/),
        );
      }
      expect(fdsOfStore()).to.equal(before);
      client.close();
    });
  });
});

describe('robustness: bad inputs are refused by name, nothing crashes', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  it('tf.transpose with a perm that is not a permutation', () => {
    for (const shape of [
      [10, 4],
      [64, 1 << 12],
    ]) {
      const x = tf.ones(shape);
      expect(() => tf.transpose(x, [0, 0])).to.throw(/perm \[0,0\] is not a permutation of the 2 axes/);
      expect(() => tf.transpose(x, [1, 1])).to.throw(/not a permutation/);
      expect(tf.transpose(x, [1, 0]).shape).to.deep.equal([shape[1], shape[0]]);
      x.dispose();
    }
  });

  it("a CsrBlock's arrays changed after construction do not reach the product", async () => {
    const rowPtr = Int32Array.from([0, 2, 3]),
      colIdx = Int32Array.from([0, 1, 1]);
    const block = new wm.graph.CsrBlock(rowPtr, colIdx, 2);
    colIdx[1] = 1 << 30;
    rowPtr[2] = 1 << 20;
    const y = wm.graph.aggregate(
      tf.tensor2d([
        [1, 2],
        [3, 4],
      ]),
      block,
      'sum',
    );
    expect(Array.from(await y.data())).to.deep.equal([4, 6, 3, 4]);
  });

  it("a CsrGraph's arrays changed after it was checked: sampling, walks and negative pairs throw, never read past them", () => {
    const g = wm.graph.CsrGraph.fromEdges(
      {numVertices: 4, src: Int32Array.from([0, 1, 2, 3]), dst: Int32Array.from([1, 2, 3, 0]), directed: false},
      {symmetric: true},
    );
    const starts = Int32Array.from([0, 1, 2, 3]);
    expect(wm.graph.randomWalks(g, starts, 5)).to.have.length(20);
    g.colIdx[3] = 1 << 30;
    expect(() => wm.graph.randomWalks(g, starts, 50)).to.throw(
      /randomWalks: the graph's rowPtr \/ colIdx changed after the graph was checked/,
    );
    g.colIdx[3] = 0;
    g.rowPtr[2] = 1 << 28;
    expect(() => wm.graph.sampleNeighbors(g, starts, 3)).to.throw(/sampleNeighbors: the graph's rowPtr \/ colIdx changed/);
    expect(() => wm.graph.sampleNeighbors(g, starts, 3, {replace: false})).to.throw(/changed after the graph was checked/);
    expect(() => wm.graph.sampleNegativePairs(g, 200)).to.throw(/negativePairs: the graph's rowPtr \/ colIdx changed/);
  });

  it('ids given as plain arrays must be integers int32 holds (no wrapping, truncation or NaN)', () => {
    const emb = wm.nn.embedding({rows: 8, dim: 2, memory: 'host'});
    for (const bad of [2 ** 32 + 1, 1.7, NaN, -(2 ** 31) - 1, Infinity]) {
      expect(() => emb.read([0, bad])).to.throw(new RegExp(`embedding.read: indices\\[1\\] = ${bad} is not an integer id`));
      expect(() => emb.write([bad], new Float32Array(2))).to.throw(/embedding.write: indices\[0\] = .* is not an integer id/);
    }
    expect(() => emb.read([8])).to.throw(/outside/);
    const before = Array.from(emb.read([2]).dataSync());
    expect(() => emb.write([2 ** 32 + 2], new Float32Array([9, 9]))).to.throw(/not an integer id/);
    expect(Array.from(emb.read([2]).dataSync())).to.deep.equal(before);
    emb.dispose();
    const t = wm.malloc({type: 'continuous', location: 'host', shape: [4, 2]});
    expect(() => t.gather([2 ** 32 + 1])).to.throw(/gather: indices\[0\] = 4294967297 is not an integer id/);
    expect(() => t.scatter([0.5], new Float32Array(2))).to.throw(/indices\[0\] = 0.5 is not an integer id/);
    t.free();
  });

  it('sizes past what the memory or int32 ids can hold are refused with the numbers, nothing allocated', () => {
    const before = fs.readdirSync('/proc/self/fd').length;
    expect(() => wm.nn.embedding({rows: 2 ** 40, dim: 16, memory: 'continuous'})).to.throw(/2\^31 - 1\), the most int32 ids can address/);
    expect(() => wm.nn.embedding({rows: 2 ** 30, dim: 1 << 12, memory: 'host'})).to.throw(/of host memory asked for, and this machine has/);
    expect(() => wm.malloc({type: 'continuous', location: 'host', shape: [2 ** 40, 1]})).to.throw(
      /malloc: 1099511627776 rows is more than 2147483647/,
    );
    expect(() => wm.malloc({type: 'continuous', location: 'host', shape: [2 ** 30, 2 ** 12]})).to.throw(/of host memory asked for/);
    expect(fs.readdirSync('/proc/self/fd').length).to.equal(before);
  });

  it('a failed lookup inside optimizer.minimize leaves no tensor behind', () => {
    const emb = wm.nn.embedding({rows: 16, dim: 4, memory: 'host', optimizer: wm.nn.sgd({lr: 0.1})});
    const opt = tf.train.sgd(0.1);
    const w = tf.variable(tf.ones([4, 1]));
    const run = (ids: number[]) => opt.minimize(() => tf.sum(tf.matMul(emb.lookup(ids), w)) as tf.Scalar);
    run([1, 2]);
    emb.step();
    const before = tf.memory().numTensors;
    for (let i = 0; i < 20; ++i) expect(() => run([1, 99])).to.throw(/outside/);
    expect(tf.memory().numTensors).to.equal(before);
    w.dispose();
    emb.dispose();
  });

  it('allReduce with different shapes on different ranks throws on every rank, naming them', async function () {
    // Each rank needs its own GPU where there is one (the GPU path), else the host path runs.
    if (wm.deviceInfo().gpu && wm.deviceInfo().deviceCount < 2) this.skip();
    const script = `
      const tf = require(${JSON.stringify(require.resolve('@tensorflow/tfjs-core'))});
      const wm = require(${JSON.stringify(path.join(root, 'dist', 'src', 'index.js'))});
      const c = wm.communicatorFromEnv({timeoutMs: 10000});
      const attempt = (what, n) => {
        try { console.log(what + ' RETURNED ' + c.allReduce(tf.ones([n]))[0].dataSync()[0]); }
        catch (e) { console.log(what + ' THREW ' + e.message); }
      };
      attempt('first', c.rank === 0 ? 10 : 20);
      console.log('AGREED ' + c.allReduce(tf.ones([10]))[0].dataSync()[0]);
      attempt('later', c.rank === 0 ? 10 : 20);
      attempt('after', 10);
      wm.finalize();`;
    const file = path.join(root, 'dist', 'test', `wm-ar-mismatch-${process.pid}.js`);
    fs.writeFileSync(file, script);
    const r = await run([process.execPath, launcher, '-n', '2', file]);
    fs.rmSync(file);
    for (const rank of [0, 1]) {
      // Both ranks' shapes are new: compared, and refused on every rank.
      expect(r.out, r.out).to.match(
        new RegExp(`\\[${rank}\\] first THREW allReduce: ranks disagree .* rank 0: sum float32 +\\[10\\]; rank 1: sum float32 +\\[20\\]`),
      );
      expect(r.out).to.include(`[${rank}] AGREED 2`);
      // Once a call failed, the communicator's all-reduce stays unusable: no later call pairs with a stale one.
      expect(r.out, r.out).to.match(new RegExp(`\\[${rank}\\] after THREW .*(unusable|rank ${1 - rank})`));
    }
    if (wm.deviceInfo().gpu) {
      // Rank 1 changes alone. Rank 0, whose shapes did not change, is already in the GPU's exchange, which waits
      // for rank 1 until the timeout: its result is NaN (never a sum of stale data), and its next call names rank 1.
      expect(r.out, r.out).to.match(/\[0\] later (RETURNED NaN|THREW .*rank 1)/);
      expect(r.out, r.out).to.match(/\[0\] after THREW allReduce: rank 1 did not reach the all-reduce/);
      expect(r.out, r.out).to.match(/\[1\] later THREW allReduce \(shapes\): rank 0/);
    } else {
      // On the host, rank 1's check meets rank 0's next exchange, and both throw naming the call.
      for (const rank of [0, 1])
        expect(r.out).to.match(new RegExp(`\\[${rank}\\] later THREW .*rank 1 called #\\d+ allReduce \\(shapes\\)`));
    }
    // A result is the agreed sum or NaN, never one rank's own tensor.
    expect(r.out, r.out).to.not.match(/(later|after) RETURNED (?!NaN)/);
  });
});

describe('robustness: corrupt files are refused by name before anything changes', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  it('checkpoints: truncated, empty, longer, bit-flipped files and bad fields', async () => {
    const {loadCheckpoint, saveCheckpoint} = await import('../src/train/checkpoint');
    const dir = tempDir('wm-ckpt-');
    const make = () => ({
      emb: wm.nn.embedding({rows: 50, dim: 8, memory: 'host', optimizer: wm.nn.adam({lr: 0.01}), init: {seed: 3}}),
      w: tf.variable(tf.randomNormal([8, 3], 0, 1, 'float32', 4)),
      opt: tf.train.adam(0.01),
    });
    const a = make();
    a.emb.applyGradients([1, 2, 3], tf.ones([3, 8]));
    a.opt.minimize(() => tf.sum(tf.matMul(tf.ones([2, 8]), a.w)) as tf.Scalar);
    await saveCheckpoint(dir, {step: 7, embeddings: {e: a.emb}, variables: {w: a.w}, optimizer: a.opt});
    const shard = committedShard(dir);
    const pristine = new Map(fs.readdirSync(shard).map((f) => [f, fs.readFileSync(path.join(shard, f))]));
    const commit = fs.readFileSync(path.join(dir, 'COMMIT.json'));
    const restore = () => {
      pristine.forEach((b, f) => fs.writeFileSync(path.join(shard, f), b));
      fs.writeFileSync(path.join(dir, 'COMMIT.json'), commit);
    };
    const meta = () => JSON.parse(pristine.get('meta.json')!.toString());
    const b = make();
    const snapshot = () => [Array.from(b.emb.read([0, 1, 2, 49]).dataSync()), Array.from(b.w.dataSync())];
    const before = snapshot();
    const state = 'emb-e.state0.bin';
    const cases: [string, () => void, RegExp][] = [
      [
        'truncated state',
        () => fs.truncateSync(path.join(shard, state), 100),
        /emb-e\.state0\.bin holds 100 bytes, .*meta\.json says 1600 \(truncated or replaced\)/,
      ],
      ['empty state', () => fs.writeFileSync(path.join(shard, state), ''), /emb-e\.state0\.bin holds 0 bytes/],
      ['longer state', () => fs.appendFileSync(path.join(shard, state), Buffer.alloc(64)), /emb-e\.state0\.bin holds 1664 bytes/],
      [
        'bit flip',
        () => {
          const f = path.join(shard, 'emb-e.rows.bin');
          const buf = fs.readFileSync(f);
          buf[41] ^= 0x40;
          fs.writeFileSync(f, buf);
        },
        /emb-e\.rows\.bin does not match its SHA-256 .* \(corrupted\)/,
      ],
      [
        'steps "abc"',
        () =>
          fs.writeFileSync(
            path.join(shard, 'meta.json'),
            JSON.stringify({...meta(), embeddings: {e: {...meta().embeddings.e, steps: 'abc'}}}),
          ),
        /meta\.json: embedding 'e' needs whole rows, dim, steps/,
      ],
      [
        'steps -1',
        () => fs.writeFileSync(path.join(shard, 'meta.json'), JSON.stringify({...meta(), step: -1})),
        /meta\.json: step must be the commit's \(7\), got -1/,
      ],
      [
        'wrong slot dtype',
        () => {
          const m = meta();
          m.optimizer[0].dtype = 'complex64';
          fs.writeFileSync(path.join(shard, 'meta.json'), JSON.stringify(m));
        },
        /meta\.json: optimizer slot 0 needs a name, a shape and dtype float32 or int32/,
      ],
      ['meta not JSON', () => fs.writeFileSync(path.join(shard, 'meta.json'), '{"step": 7,'), /meta\.json is not valid JSON/],
      ['variable file missing', () => fs.rmSync(path.join(shard, 'var-w.bin')), /var-w\.bin is missing/],
    ];
    for (const [what, corrupt, message] of cases) {
      corrupt();
      recommit(dir); // the commit made to agree with an edited meta.json: its fields are checked next
      let error: Error | undefined;
      await loadCheckpoint(dir, {embeddings: {e: b.emb}, variables: {w: b.w}, optimizer: b.opt}).catch((e) => (error = e as Error));
      expect(error?.message, what).to.match(message);
      expect(error!.message, what).to.include(shard);
      expect(snapshot(), `${what}: nothing changed`).to.deep.equal(before);
      restore();
    }
    const {step} = await loadCheckpoint(dir, {embeddings: {e: b.emb}, variables: {w: b.w}, optimizer: b.opt});
    expect(step).to.equal(7);
    expect(Array.from(b.emb.read([1]).dataSync())).to.deep.equal(Array.from(a.emb.read([1]).dataSync()));
    fs.rmSync(dir, {recursive: true, force: true});
  });

  it('data files: ids past int32 name the file and line; graphs too small to split are refused', async () => {
    const {readEdgeList} = await import('../src/graph/edge_list');
    const {loadDataset} = await import('../src/graph/dataset');
    const dir = tempDir('wm-data-');
    const file = path.join(dir, 'edges.tsv');
    fs.writeFileSync(file, `0\t1\n1\t2\n${2 ** 31}\t3\n`);
    expect(() => readEdgeList(file)).to.throw(`${file}:3: vertex id 2147483648 is past 2147483646`);
    // An id whose per-vertex arrays would take half this machine's memory (where int32 ids reach that far).
    const far = Math.ceil(os.totalmem() / 32) + 1;
    if (far < 2 ** 31 - 1) {
      fs.writeFileSync(file, `0\t1\n1\t${far}\n`);
      expect(() => readEdgeList(file)).to.throw(
        new RegExp(`${file}: vertex id ${far} \\(line 2\\) makes a graph of ${far + 1} vertices from 2 edges`),
      );
    }
    const graphs: [string, string][] = [
      ['empty', ''],
      ['self loops only', '0\t0\n1\t1\n2\t2\n'],
      ['two vertices', '0\t1\n'],
    ];
    for (const [what, edges] of graphs) {
      fs.writeFileSync(file, edges);
      fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), what === 'two vertices' ? '0\t0\n1\t1\n' : '0\t0\n');
      const err = await loadDataset(dir).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message, what).to.match(/needs at least 10 connected(, labelled)? vertices/);
    }
    // The main job says so and exits non-zero, instead of printing NaN.
    const r = spawnSync(process.execPath, [path.join(root, 'dist', 'examples', 'node-classification.js'), '--data', dir, '--epochs', '1'], {
      encoding: 'utf8',
    });
    expect(r.status).to.not.equal(0);
    expect(r.stdout + r.stderr)
      .to.match(/needs at least 10 connected(, labelled)? vertices/)
      .and.not.match(/NaN/);
    fs.rmSync(dir, {recursive: true, force: true});
  });
});
