// Sharing tensors between processes by handle (wm.share / wm.open), host
// mirrors, and the object store daemon, with real processes: on host memory
// here, on GPU memory (CUDA IPC) too where there is a GPU.
import {spawn, spawnSync} from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {randomValues, SharePeer as Peer} from './fixtures/share_peer';

const root = path.resolve(__dirname, '..', '..');
const storeScript = path.join(root, 'dist', 'bin', 'tfjs-wm-store.js');

const shm = () => (fs.existsSync('/dev/shm') ? fs.readdirSync('/dev/shm').sort() : []);
const openFds = () => fs.readdirSync('/proc/self/fd').length;
const near = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  expect(a.length).to.equal(b.length);
  for (let i = 0; i < a.length; ++i) if (a[i] !== b[i]) throw new Error(`[${i}] ${a[i]} != ${b[i]}`);
};

const locations: wm.SharedLocation[] = ['host', 'device'];

describe('sharing tensors between processes (wm.share / wm.open)', function () {
  this.timeout(60_000);
  for (const location of locations) {
    describe(`${location} memory`, () => {
      before(function () {
        if (location === 'device' && !wm.deviceInfo().gpu) this.skip();
      });

      it('another process reads the shared data without a copy; mutable writes and mirrors reach the owner', async () => {
        const peer = await Peer.start();
        try {
          const n = 100003;
          const {descriptor: d} = await peer.ask({cmd: 'share', location, mutable: true, n, seed: 5});
          expect(JSON.parse(JSON.stringify(d))).to.deep.equal(d);
          expect(d!.location).to.equal(location);
          const t = wm.open(d!);
          near(await t.data(), randomValues(n, 5));
          const fresh = randomValues(n, 6);
          wm.update(t, fresh);
          near((await peer.ask({cmd: 'read', id: d!.id})).values!, fresh);
          const m = wm.mirror(t, {copyIn: true});
          near(m.data, fresh);
          m.data.fill(3);
          m.dispose();
          near((await peer.ask({cmd: 'read', id: d!.id})).values!, new Float32Array(n).fill(3));
          expect(wm.sharedDescriptorOf(t)?.id).to.equal(d!.id);
          wm.close(t);
        } finally {
          await peer.stop();
        }
      });

      it('read-only objects: update throws, a mirror needs copyIn and never writes back', async () => {
        const peer = await Peer.start();
        try {
          const n = 4099;
          const {descriptor: d} = await peer.ask({cmd: 'share', location, mutable: false, n, seed: 7});
          const t = wm.open(d!);
          expect(() => wm.update(t, new Float32Array(n))).to.throw(/read-only/);
          expect(() => wm.mirror(t)).to.throw(/needs copyIn: true/);
          const m = wm.mirror(t, {copyIn: true});
          expect(m.mutable).to.equal(false);
          m.data.fill(-1);
          m.dispose();
          near((await peer.ask({cmd: 'read', id: d!.id})).values!, randomValues(n, 7));
          // An ordinary tensor is immutable too.
          const plain = tf.ones([3]);
          expect(() => wm.mirror(plain)).to.throw(/immutable/);
          near(wm.mirror(plain, {copyIn: true}).data, [1, 1, 1]);
          plain.dispose();
          wm.close(t);
        } finally {
          await peer.stop();
        }
      });

      it('deleted, unknown and orphaned objects fail with clear errors', async () => {
        const peer = await Peer.start();
        const {descriptor: d} = await peer.ask({cmd: 'share', location, n: 10, seed: 1});
        await peer.ask({cmd: 'delete', id: d!.id});
        expect(() => wm.open(d!)).to.throw(/gone|deleted|could not be mapped/);
        const {descriptor: e} = await peer.ask({cmd: 'share', location, n: 10, seed: 1});
        await peer.stop();
        expect(() => wm.open(e!)).to.throw(/owner \(pid \d+\) exited/);
        expect(() => wm.open({...e!, owner: {pid: process.pid}})).to.throw(/unknown here or was deleted/);
        expect(() => wm.delete('no-such-id')).to.throw(/no shared object no-such-id/);
        expect(() => wm.open({...e!, bytes: 3})).to.throw(/bytes does not match/);
      });

      it('a consumer that crashes leaves nothing behind', async () => {
        const values = tf.tensor(randomValues(1 << 20, 9));
        wm.delete(wm.share(values, {location}).id); // the tensor is on the GPU and the pool warm before counting
        wm.synchronize();
        const shmBefore = shm();
        const fdsBefore = openFds();
        const free0 = location === 'device' ? wm.memoryInfo().deviceFreeBytes : 0;
        const d = wm.share(values, {location, mutable: true});
        const peer = await Peer.start();
        peer.child.send({cmd: 'open-and-crash', descriptor: d});
        const {signal} = await peer.exited;
        expect(signal).to.equal('SIGKILL');
        const t = wm.open(d);
        near(await t.data(), await values.data());
        wm.close(t);
        values.dispose();
        wm.delete(d.id);
        expect(shm()).to.deep.equal(shmBefore);
        expect(openFds()).to.equal(fdsBefore);
        // The shared buffer (4 MiB, cudaMalloc) went back to the driver. The
        // driver tears a killed process's context down (~0.5 GB) after it
        // exits, not at once: give it a few seconds.
        if (location === 'device') {
          const used = () => free0 - wm.memoryInfo().deviceFreeBytes;
          for (let i = 0; i < 100 && used() >= 2 << 20; ++i) await new Promise((r) => setTimeout(r, 100));
          expect(used()).to.be.lessThan(2 << 20);
        }
      });
    });
  }
});

describe('the object store (npx tfjs-wm-store)', function () {
  this.timeout(60_000);
  const socket = path.join(os.tmpdir(), `wm-store-test-${process.pid}.sock`);

  const startDaemon = async () => {
    const p = spawn(process.execPath, [storeScript, '--socket', socket], {stdio: ['ignore', 'pipe', 'inherit']});
    await new Promise<void>((resolve, reject) => {
      let out = '';
      p.stdout!.on('data', (c) => {
        out += c;
        if (out.includes('listening on')) resolve();
      });
      p.once('exit', (code) => reject(new Error(`the store exited with ${code}: ${out}`)));
    });
    return {p, exited: new Promise<number | null>((r) => p.once('exit', (code) => r(code)))};
  };

  for (const location of locations) {
    it(`objects outlive their maker, are listed, deleted and freed when the store stops (${location})`, async function () {
      if (location === 'device' && !wm.deviceInfo().gpu) this.skip();
      const daemon = await startDaemon();
      const maker = await Peer.start();
      const {descriptor: d} = await maker.ask({cmd: 'put', store: socket, location, mutable: false, n: 5000, seed: 3});
      await maker.stop(); // the object stays with the store
      const store = await wm.connectStore(socket);
      const list = await store.list();
      expect(list.map((o) => o.id)).to.deep.equal([d!.id]);
      // The CLI lists the same objects.
      const cli = spawnSync(process.execPath, [storeScript, '--socket', socket, '--list'], {encoding: 'utf8'});
      expect(cli.status, cli.stderr).to.equal(0);
      expect(
        cli.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).id),
      ).to.deep.equal([d!.id]);
      expect(list[0].mutable).to.equal(false);
      const t = await store.open(d!.id);
      near(await t.data(), randomValues(5000, 3));
      expect(() => wm.update(t, new Float32Array(5000))).to.throw(/read-only/);
      wm.close(t);
      await store.delete(d!.id);
      await store.open(d!.id).then(
        () => expect.fail('opened a deleted object'),
        (e) => expect(e.message).to.match(/holds no object/),
      );
      await store.get('nope').then(
        () => expect.fail(),
        (e) => expect(e.message).to.match(/holds no object nope/),
      );
      const kept = await store.put(tf.ones([7]), {location});
      await store.stop();
      store.close();
      expect(await daemon.exited).to.equal(0);
      expect(fs.existsSync(socket)).to.equal(false);
      expect(() => wm.open(kept)).to.throw(/exited|gone/);
    });
  }

  it('stops from the command line, freeing everything', async () => {
    const daemon = await startDaemon();
    const cli = spawnSync(process.execPath, [storeScript, '--socket', socket, '--stop'], {encoding: 'utf8'});
    expect(cli.status, cli.stderr).to.equal(0);
    expect(await daemon.exited).to.equal(0);
    expect(fs.existsSync(socket)).to.equal(false);
  });

  it('restarts cleanly after being killed (the stale socket is replaced)', async () => {
    const first = await startDaemon();
    first.p.kill('SIGKILL');
    await first.exited;
    expect(fs.existsSync(socket)).to.equal(true);
    const second = await startDaemon();
    const store = await wm.connectStore(socket);
    const d = await store.put(tf.tensor1d([1, 2, 3]), {location: 'host'});
    near(await (await store.open(d.id)).data(), [1, 2, 3]);
    await store.stop();
    store.close();
    expect(await second.exited).to.equal(0);
    await wm.connectStore(socket).then(
      () => expect.fail('connected to a stopped store'),
      (e) => expect(e.message).to.match(/no store answers/),
    );
  });

  it('refuses to start where a store is already running', async () => {
    const daemon = await startDaemon();
    const second = spawn(process.execPath, [storeScript, '--socket', socket], {stdio: ['ignore', 'pipe', 'pipe']});
    let err = '';
    second.stderr!.on('data', (c) => (err += c));
    const code = await new Promise<number | null>((r) => second.once('exit', (c) => r(c)));
    expect(code).to.equal(1);
    expect(err).to.match(/already running/);
    daemon.p.kill('SIGTERM');
    expect(await daemon.exited).to.equal(0);
  });
});
