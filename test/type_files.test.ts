// The package's type files compile with the oldest TypeScript users have (5.0, strict, skipLibCheck off):
// a consumer program in its own folder, resolving the package as an installed one does. Errors inside
// tfjs' own type files (tfjs-layers', @webgpu/types') are theirs and left out; none may name ours.
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import {expect} from 'chai';
import {tempDir} from './temp_dirs';

const root = path.resolve(__dirname, '..', '..');

const PROGRAM = `import * as tf from '@tensorflow/tfjs-core';
import * as wm from 'tfjs-backend-wholememory';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const data = wm.graph.csbm({vertices: 100, classes: 3, features: 8, degree: 4, homophily: 0.9, signal: 2, seed: 1});
  const block: wm.graph.CsrBlock = wm.graph.CsrBlock.fromGraph(data.graph);
  const h = wm.nn.gcnConv({units: 4}).apply(tf.ones([100, 8]), {graph: block}) as tf.Tensor2D;
  const table = wm.nn.embedding({rows: 10, dim: 4});
  const rows: tf.Tensor = table.read([1, 2]);
  const info: wm.DeviceInfo = wm.deviceInfo();
  console.log(h.shape, rows.shape, info.gpu);
}
void main();
`;

describe('type files', () => {
  it('a strict consumer program compiles against them with TypeScript 5.0 (skipLibCheck off)', function () {
    this.timeout(120_000);
    const tsc = path.join(root, 'node_modules', 'typescript-5.0', 'bin', 'tsc');
    // Needs the devDependency typescript-5.0 with its lib files and the package's type files (a copy made
    // for a run elsewhere may leave .d.ts files out).
    const needed = [
      tsc,
      path.join(root, 'node_modules', 'typescript-5.0', 'lib', 'lib.es5.d.ts'),
      path.join(root, 'dist', 'src', 'index.d.ts'),
    ];
    if (!needed.every((f) => fs.existsSync(f))) this.skip();
    const dir = tempDir('wm-types-');
    try {
      fs.mkdirSync(path.join(dir, 'node_modules', '@tensorflow'), {recursive: true});
      fs.symlinkSync(root, path.join(dir, 'node_modules', 'tfjs-backend-wholememory'));
      fs.symlinkSync(
        path.join(root, 'node_modules', '@tensorflow', 'tfjs-core'),
        path.join(dir, 'node_modules', '@tensorflow', 'tfjs-core'),
      );
      fs.writeFileSync(path.join(dir, 'main.ts'), PROGRAM);
      const options = {strict: true, skipLibCheck: false, noEmit: true, module: 'commonjs', target: 'es2020', moduleResolution: 'node'};
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({compilerOptions: {...options, types: ['node']}, files: ['main.ts']}),
      );
      fs.symlinkSync(path.join(root, 'node_modules', '@types'), path.join(dir, 'node_modules', '@types'));
      const r = spawnSync(process.execPath, [tsc, '-p', dir], {encoding: 'utf8'});
      const errors = r.stdout.split('\n').filter((l) => /error TS\d+/.test(l));
      const theirs = /node_modules\/(@tensorflow|@webgpu)\//;
      const ours = errors.filter((l) => !theirs.test(l));
      expect(ours, r.stdout).to.deep.equal([]);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });
});
