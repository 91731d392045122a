// What crosses a process boundary is untrusted: strangers on the bootstrap's
// sockets (another user's processes where this machine allows running one:
// `setpriv --reuid=65534`), forged descriptors of shared objects, the object
// store's socket, and the ranks' secret.
import {spawn, spawnSync} from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

import {expect} from 'chai';

import * as wm from '../src/index';

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
    it(`an intruder (${who}) with the port and the local sockets gets nothing, and the launch goes on`, async function() {
      const intruder = path.join(root, 'test', 'fixtures', 'intruder.py');
      const as = who === 'this user' ? {prefix: []} : otherUser(python, [intruder, '127.0.0.1', '1', '0']);
      if ('why' in as) {
        console.log(`      skipped: ${as.why}`);
        this.skip();
      }
      const port = await freePort();
      const started = Date.now();
      const ranks = run([process.execPath, launcher, '-n', '2', '--master-port', String(port),
                         path.join(fixtures, 'bootstrap_ranks.js')], {WM_TEST_JOIN_DELAY_MS: '2500'});
      const attack = run([...as.prefix, python, intruder, '127.0.0.1', String(port), '4']);
      const [r, i] = await Promise.all([ranks, attack]);
      expect(r.out, r.out).to.include('OK rank 0').and.include('OK rank 1');
      expect(r.status).to.equal(0);
      const seen = JSON.parse(i.out.trim().split('\n').pop()!) as {attempts: number; local: number; leaked: string[]; errors: string[]};
      expect(seen.attempts, i.out).to.be.greaterThanOrEqual(5);  // 4 TCP connections, at least one local socket
      expect(seen.local, i.out).to.be.greaterThanOrEqual(1);
      expect(seen.leaked).to.deep.equal([]);
      expect(seen.errors).to.deep.equal([]);
      // Rank 0 said whom it dropped, and why.
      expect(r.out).to.match(/dropped a connection from .*: it failed authentication/);
      expect(r.out).to.match(/dropped a connection from .*: it announced a greeting longer than 4096 bytes/);
      expect(r.out).to.match(who === 'another user' ? /dropped a connection from local pid \d+ uid 65534: it belongs to another user/
                                                    : /dropped a connection from local pid \d+ uid \d+: it failed authentication on the local socket/);
      // The silent connection cost rank 0 no more than the handshake bound.
      expect(Date.now() - started).to.be.lessThan(15_000);
    });
  }

  it('a unique id without the secret, or with a wrong one, cannot join; rank 0 goes on waiting for the real rank', async () => {
    const id = wm.getUniqueId();
    expect(id.split(':')).to.have.length(4);
    expect(id.split(':')[3]).to.match(/^[0-9a-f]{64}$/);
    const [host, port, nonce] = id.split(':');
    expect(() => wm.createCommunicator(`${host}:${port}:${nonce}`, 1, 2, {timeoutMs: 2000})).to.throw(/secret/);
    const index = JSON.stringify(path.join(root, 'dist', 'src', 'index.js'));
    const rank0 = spawn(process.execPath, ['-e', `
      const wm = require(${index});
      const id = wm.getUniqueId(); console.log('ID ' + id);
      try { wm.createCommunicator(id, 0, 2, {timeoutMs: 4000}); console.log('CREATED'); }
      catch (e) { console.log('RANK0 ' + e.message); }`]);
    let out0 = '';
    rank0.stderr.on('data', (d) => (out0 += d));
    const realId = await new Promise<string>((resolve) => rank0.stdout.on('data', (d) => {
      out0 += d;
      const m = /ID (\S+)/.exec(out0);
      if (m) resolve(m[1]);
    }));
    const forged = realId.replace(/:[0-9a-f]+$/, `:${'0'.repeat(64)}`);
    const peer = await run([process.execPath, '-e', `
      const wm = require(${index});
      try { wm.createCommunicator(${JSON.stringify(forged)}, 1, 2, {timeoutMs: 3000}); console.log('JOINED'); }
      catch (e) { console.log('REFUSED ' + e.message); }`]);
    await new Promise((resolve) => rank0.on('exit', resolve));
    expect(peer.out, peer.out).to.match(/REFUSED .*failed authentication \(it does not know the group's secret\)/);
    expect(out0).to.match(/dropped a connection from 127.0.0.1:\d+: it failed authentication/);
    expect(out0).to.include('RANK0 createCommunicator: rank(s) 1 did not join within 4000 ms');
  });

  it('the launcher hands the secret through the environment only: not in arguments or socket names', async () => {
    const port = await freePort();
    const probe = path.join(os.tmpdir(), `wm-secret-probe-${process.pid}.js`);
    fs.writeFileSync(probe, `
      const s = process.env.WM_RUN_SECRET;
      const inArgs = process.argv.join(' ').includes(s);
      const wm = require(${JSON.stringify(path.join(root, 'dist', 'src', 'index.js'))});
      const c = wm.communicatorFromEnv({timeoutMs: 10000});
      const names = require('fs').readFileSync('/proc/net/unix', 'utf8');
      console.log(JSON.stringify({len: s.length, inArgs, inNames: names.includes(s) || names.includes(process.env.WM_RUN_ID)}));
      c.barrier(); wm.finalize();`);
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
    const [a, b] = await Promise.all([run([process.execPath, '-e', script], {...env, RANK: '0'}),
                                      run([process.execPath, '-e', script], {...env, RANK: '1'})]);
    expect(a.out, a.out).to.include('OK 0');
    expect(b.out, b.out).to.include('OK 1');
    const {privateDir} = await import('../src/dist/group_secret');
    const dir = privateDir();
    expect(fs.statSync(dir).mode & 0o777).to.equal(0o700);
    expect(fs.readdirSync(dir).filter((f) => f.includes(`t${process.pid}`))).to.deep.equal([]);
  });
});
