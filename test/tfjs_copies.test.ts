// Two copies of tfjs-core in one process are refused by name, whichever loads first.
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import {expect} from 'chai';
import {tempDir} from './temp_dirs';

const root = path.resolve(__dirname, '..', '..');
const pkg = JSON.stringify(path.join(root, 'dist', 'src', 'index.js'));

/** A second copy of `name` (its package.json and Node bundle are all it needs) in a new folder; `dir` to remove after. */
function secondCopy(name: string, bundle: string): {dir: string; other: string} {
  const dir = tempDir(`wm-${name}-copy-`);
  const other = path.join(dir, 'node_modules', '@tensorflow', name);
  fs.mkdirSync(path.join(other, 'dist'), {recursive: true});
  const ours = path.join(root, 'node_modules', '@tensorflow', name);
  fs.copyFileSync(path.join(ours, 'package.json'), path.join(other, 'package.json'));
  fs.copyFileSync(path.join(ours, 'dist', bundle), path.join(other, 'dist', bundle));
  return {dir, other};
}

/** `script` in a new Node process that resolves packages from this checkout. */
const run = (script: string) =>
  spawnSync(process.execPath, ['-e', script], {encoding: 'utf8', env: {...process.env, NODE_PATH: path.join(root, 'node_modules')}});

describe('one copy of tfjs-core and of tfjs-layers', () => {
  it("a second copy loaded beside the package's is named, with both folders and how to merge them", function () {
    this.timeout(60_000);
    const {dir, other} = secondCopy('tfjs-core', 'tf-core.node.js');
    try {
      const first = run(`require(${JSON.stringify(other)}); require(${pkg});`);
      expect(first.status).to.not.equal(0);
      expect(first.stderr).to.match(/two copies of @tensorflow\/tfjs-core are loaded: .*\(this package's\)/);
      expect(first.stderr).to.include(fs.realpathSync(other));
      expect(first.stderr).to.match(/npm dedupe/);
      // The package first: the copy loaded after it is refused when the backend is made.
      const after = run(
        `const tf = require('@tensorflow/tfjs-core'); require(${pkg}); require(${JSON.stringify(other)});` +
          "tf.setBackend('wholememory').then((ok) => console.log('set', ok));",
      );
      expect(`${after.stdout}${after.stderr}`).to.match(/two copies of @tensorflow\/tfjs-core are loaded/);
      expect(after.stdout).to.match(/set false/);
      // One copy: loads and sets the backend.
      const one = run(
        `const tf = require('@tensorflow/tfjs-core'); require(${pkg}); tf.setBackend('wholememory').then((ok) => console.log('set', ok));`,
      );
      expect(one.stdout, one.stderr).to.match(/set true/);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });
  it('a second copy of tfjs-layers is named too', function () {
    this.timeout(60_000);
    const {dir, other} = secondCopy('tfjs-layers', 'tf-layers.node.js');
    try {
      const r = run(`require(${JSON.stringify(other)}); require(${pkg});`);
      expect(r.status).to.not.equal(0);
      expect(r.stderr).to.match(/two copies of @tensorflow\/tfjs-layers are loaded: .*\(this package's\)/);
      expect(r.stderr).to.include(fs.realpathSync(other));
      expect(r.stderr).to.match(/Layers of one are not layers to the other's models/);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });
});
