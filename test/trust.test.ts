// What the library reads back that it wrote is trusted only where no other user can write it: the
// dataset cache, graph files, checkpoints and WholeMemory saves. Another user's writes are made as
// uid 65534 with setpriv where the machine allows (root), else those cases skip. Also: every byte of
// a graph file and of a cache's arrays file is covered by a check (each flipped in turn).
import {spawnSync} from 'child_process';
import {createHash} from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {loadDataset} from '../src/graph/dataset';
import {readCache, stampSources} from '../src/graph/dataset_cache';
import {NativeCsr} from '../src/graph/native_csr';
import {dataNative} from '../src/native/domains';
import {loadCheckpoint, saveCheckpoint} from '../src/train/checkpoint';
import {tempDir} from './temp_dirs';

const OTHER = 65534;

/** Whether this process can act as another user (root with setpriv). */
function canActAsOther(): boolean {
  return process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;
}

/** Runs a command as uid/gid 65534. */
function asOther(cmd: string[]): void {
  const r = spawnSync('setpriv', ['--reuid', String(OTHER), '--regid', String(OTHER), '--clear-groups', ...cmd], {encoding: 'utf8'});
  if (r.status !== 0) throw new Error(`as uid ${OTHER}: ${cmd.join(' ')}: ${r.stderr}`);
}

/** A small TSV dataset folder: a ring of n vertices, labels v % 3, a split. */
function datasetFolder(dir: string, n = 30): void {
  fs.writeFileSync(path.join(dir, 'edges.tsv'), Array.from({length: n}, (_, v) => `${v}\t${(v + 1) % n}`).join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), Array.from({length: n}, (_, v) => `${v}\t${v % 3}`).join('\n') + '\n');
}

function warningsDuring<T>(f: () => Promise<T>): Promise<{value: T; warnings: string[]}> {
  const warnings: string[] = [];
  const on = (w: Error) => warnings.push(w.message);
  process.on('warning', on);
  return f()
    .then(async (value) => {
      await new Promise((r) => setImmediate(r));
      return {value, warnings};
    })
    .finally(() => process.off('warning', on));
}

describe('what is read back is trusted only where no other user can write', () => {
  let root: string;
  let savedXdg: string | undefined;
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });
  beforeEach(() => {
    root = tempDir('wm-trust-');
    savedXdg = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = path.join(root, 'user-cache');
  });
  afterEach(() => {
    if (savedXdg === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = savedXdg;
    fs.rmSync(root, {recursive: true, force: true});
  });

  it('the cache is made private (folders 0700, files 0600) and a FIFO planted in it neither hangs nor is read', async () => {
    const data = path.join(root, 'data');
    fs.mkdirSync(data);
    datasetFolder(data);
    const first = await loadDataset(data, {cache: true});
    const cache = path.join(data, '.wmcache');
    expect(fs.statSync(cache).mode & 0o777).to.equal(0o700);
    for (const f of fs.readdirSync(cache)) expect(fs.statSync(path.join(cache, f)).mode & 0o777, f).to.equal(0o600);
    fs.rmSync(path.join(cache, 'arrays.wmdata'));
    spawnSync('mkfifo', [path.join(cache, 'arrays.wmdata')]);
    const said: string[] = [];
    const again = await loadDataset(data, {cache: true, onProgress: (m) => said.push(m)});
    expect(said.join('\n')).to.match(/cache not used: .*arrays\.wmdata is not a regular file/);
    expect(Array.from(again.labels)).to.deep.equal(Array.from(first.labels));
    expect(fs.statSync(path.join(cache, 'arrays.wmdata')).isFile()).to.equal(true);
  });

  it('a graph file that is a FIFO is refused at once, not waited on', () => {
    const fifo = path.join(root, 'g.wmcsr');
    spawnSync('mkfifo', [fifo]);
    expect(() => NativeCsr.load(fifo)).to.throw(/NativeCsr\.load: refusing .*g\.wmcsr: .*not a regular file/);
  });

  it('every byte of a graph file is checked: each flipped in turn is refused', () => {
    const g = NativeCsr.fromEdges(
      {numVertices: 9, src: Int32Array.from([0, 1, 2, 3, 4, 5, 8]), dst: Int32Array.from([1, 2, 3, 4, 5, 6, 0]), directed: true},
      {symmetric: false},
    );
    const file = path.join(root, 'g.wmcsr');
    g.save(file, 'note');
    g.free();
    const bytes = fs.readFileSync(file);
    let refused = 0;
    for (let i = 0; i < bytes.length; ++i) {
      bytes[i] ^= 0x10;
      fs.writeFileSync(file, bytes);
      try {
        NativeCsr.load(file).free();
      } catch {
        ++refused;
      }
      bytes[i] ^= 0x10;
    }
    expect(refused).to.equal(bytes.length);
    fs.writeFileSync(file, bytes);
    NativeCsr.load(file).free();
  });

  it('every byte of a cache arrays file is checked: each flipped in turn makes the cache unused', async () => {
    const data = path.join(root, 'data');
    fs.mkdirSync(data);
    datasetFolder(data, 12);
    await loadDataset(data, {cache: true});
    const cache = path.join(data, '.wmcache');
    const file = path.join(cache, 'arrays.wmdata');
    const sources = stampSources(data, ['edges.tsv', 'vertex_value.tsv']);
    const use = (): boolean => {
      const r = readCache(cache, sources, data);
      if ('parts' in r) r.parts.graph.free();
      return 'parts' in r;
    };
    // The stamps of the loader's own list: the ones the cache was written with.
    const bytes = fs.readFileSync(file);
    const stamps = (JSON.parse(bytes.toString('utf8', 80, 80 + bytes.readUInt32LE(8))) as {sources: ReturnType<typeof stampSources>})
      .sources;
    sources.splice(0, sources.length, ...stamps);
    expect(use()).to.equal(true);
    let used = 0;
    for (let i = 0; i < bytes.length; ++i) {
      bytes[i] ^= 0x04;
      fs.writeFileSync(file, bytes);
      if (use()) ++used;
      bytes[i] ^= 0x04;
    }
    expect(used, 'loads of a changed file').to.equal(0);
    fs.writeFileSync(file, bytes);
    expect(use()).to.equal(true);
  });

  describe('another user (uid 65534)', () => {
    before(function () {
      if (!canActAsOther()) this.skip(); // needs root and setpriv to act as another user
    });

    /**
     * A shared sticky folder (like /tmp) holding a dataset folder with a forged cache (labels changed, its
     * digests and header made to agree, so every other check passes: loaded while the folder is still
     * root's, it is read), then handed to the other user, as if that user had written it.
     */
    async function forgedShared(): Promise<{data: string}> {
      const shared = path.join(root, 'shared');
      fs.mkdirSync(shared);
      fs.chmodSync(shared, 0o1777);
      fs.chmodSync(root, 0o755);
      const data = path.join(shared, 'data');
      fs.mkdirSync(data);
      datasetFolder(data);
      await loadDataset(data, {cache: true});
      const file = path.join(data, '.wmcache', 'arrays.wmdata');
      const b = fs.readFileSync(file);
      const n = b.readUInt32LE(8);
      const h = JSON.parse(b.toString('utf8', 80, 80 + n));
      const s = h.sections.labels;
      const labels = new Int32Array(s.length);
      for (let v = 0; v < s.length; ++v) labels[v] = (b.readInt32LE(s.offset + 4 * v) + 1) % 3;
      Buffer.from(labels.buffer).copy(b, s.offset);
      s.digest = dataNative().digest(labels, 11);
      const json = Buffer.from(JSON.stringify(h));
      expect(json.length).to.equal(n);
      json.copy(b, 80);
      b.write(createHash('sha256').update(json).digest('hex'), 16, 'latin1');
      fs.writeFileSync(file, b);
      const forged = await loadDataset(data, {cache: true});
      expect(Array.from(forged.labels.slice(0, 3)), 'the forgery passes every other check').to.deep.equal([1, 2, 0]);
      spawnSync('chown', ['-R', `${OTHER}:${OTHER}`, data]);
      return {data};
    }

    it("a forged .wmcache in another user's dataset folder is never read: a warning, and the cache goes to the user's own place", async () => {
      const {data} = await forgedShared();
      const {value, warnings} = await warningsDuring(() => loadDataset(data, {cache: true}));
      expect(Array.from(value.labels.slice(0, 6))).to.deep.equal([0, 1, 2, 0, 1, 2]);
      expect(warnings.join('\n')).to.match(/loadDataset: dataset cache .*data\/\.wmcache not used: .*belongs to uid 65534/);
      const own = path.join(root, 'user-cache', 'tfjs-backend-wholememory', 'datasets');
      expect(fs.readdirSync(own).length).to.equal(1);
    });

    it('a cache folder named by the caller that another user owns is passed over with a warning', async () => {
      const data = path.join(root, 'data');
      fs.mkdirSync(data);
      datasetFolder(data);
      const theirs = path.join(root, 'theirs');
      fs.mkdirSync(theirs);
      fs.chownSync(theirs, OTHER, OTHER);
      fs.chmodSync(root, 0o755);
      const {value, warnings} = await warningsDuring(() => loadDataset(data, {cache: theirs}));
      expect(value.labels[4]).to.equal(1);
      expect(warnings.join('\n')).to.match(/dataset cache .*theirs not used: .*belongs to uid 65534/);
      expect(fs.readdirSync(theirs)).to.deep.equal([]);
    });

    it('a .wmcache link planted in a shared dataset folder is not followed: nothing is written where it points', async () => {
      const shared = path.join(root, 'shared');
      fs.mkdirSync(shared);
      fs.chmodSync(shared, 0o1777);
      fs.chmodSync(root, 0o755);
      const data = path.join(shared, 'data');
      asOther(['mkdir', data]);
      datasetFolder(root); // sources written by root, copied in by the other user
      for (const f of ['edges.tsv', 'vertex_value.tsv']) asOther(['cp', path.join(root, f), path.join(data, f)]);
      const target = path.join(root, 'target');
      fs.mkdirSync(target);
      fs.writeFileSync(path.join(target, 'arrays.wmdata'), 'precious');
      asOther(['ln', '-s', target, path.join(data, '.wmcache')]);
      const {warnings} = await warningsDuring(() => loadDataset(data, {cache: true}));
      expect(fs.readFileSync(path.join(target, 'arrays.wmdata'), 'utf8')).to.equal('precious');
      expect(warnings.join('\n')).to.match(/\.wmcache not used/);
    });

    it('checkpoints and WholeMemory saves refuse a folder another user owns, on save and on load', async () => {
      const theirs = path.join(root, 'theirs');
      fs.mkdirSync(theirs);
      fs.chmodSync(root, 0o755);
      const v = tf.variable(tf.tensor1d([1, 2, 3]), true, `trust_v_${Math.random()}`);
      try {
        // A checkpoint written there while the folder was root's, then handed to the other user: a forgery's place.
        await saveCheckpoint(theirs, {step: 9999, variables: {v}});
        spawnSync('chown', ['-R', `${OTHER}:${OTHER}`, theirs]);
        let error = '';
        await loadCheckpoint(theirs, {variables: {v}}).catch((e) => (error = (e as Error).message));
        expect(error).to.match(/loadCheckpoint: .*theirs is not a folder only you can write \(.*belongs to uid 65534/);
        error = '';
        await saveCheckpoint(theirs, {step: 1, variables: {v}}).catch((e) => (error = (e as Error).message));
        expect(error).to.match(/saveCheckpoint: .*theirs is not a folder only you can write/);
        const t = wm.malloc({shape: [4, 2], dtype: 'float32'});
        expect(() => t.save(theirs)).to.throw(/save: .*theirs is not a folder only you can write/);
        expect(() => t.load(theirs)).to.throw(/load: .*theirs is not a folder only you can write/);
        t.free();
        // A graph file another user wrote is refused too.
        const g = NativeCsr.fromEdges(
          {numVertices: 3, src: Int32Array.from([0, 1]), dst: Int32Array.from([1, 2]), directed: true},
          {symmetric: false},
        );
        const file = path.join(root, 'g.wmcsr');
        g.save(file);
        g.free();
        fs.chownSync(file, OTHER, OTHER);
        expect(() => NativeCsr.load(file)).to.throw(/NativeCsr\.load: refusing .*g\.wmcsr: .*belongs to uid 65534/);
      } finally {
        v.dispose();
      }
    });
  });
});
