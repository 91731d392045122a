// The package as users get it: npm pack with the compiled addon inside as the prebuilt one
// (scripts/pack-prebuilt.sh), installed into a new project where no compiler, CMake or nvcc is on
// PATH, beside the project's own @tensorflow/tfjs (a peer: the install keeps the user's copy), and
// the README's snippets run there as written. Dependencies come from this checkout's node_modules, so
// the install needs no registry.
import {expect} from 'chai';
import {spawnSync, SpawnSyncReturns} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import * as wm from '../src/index';
import {addonLocation} from '../src/native/addon';
import {readmeSnippets} from './snippets';
import {tempDir} from './temp_dirs';

const root = path.join(__dirname, '..', '..');
const TOOLCHAIN = ['g++', 'gcc', 'cc', 'c++', 'clang', 'cmake', 'nvcc', 'make', 'ninja'];

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, {cwd, env, encoding: 'utf8', timeout: 240000});
}

function which(tool: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${tool}`], {encoding: 'utf8'});
  return r.status === 0 ? r.stdout.trim() : undefined;
}

describe('prebuilt package', () => {
  let dir = '';
  after(() => {
    if (dir) fs.rmSync(dir, {recursive: true, force: true});
  });

  it('installs from its tarball with no compiler on PATH and loads the prebuilt addon', function () {
    this.timeout(300000);
    const addon = addonLocation();
    if (addon === undefined) this.skip();
    dir = tempDir('wm-install-');

    const packed = run('bash', [path.join(root, 'scripts', 'pack-prebuilt.sh'), addon!, dir], root, process.env);
    expect(packed.status, packed.stderr).to.equal(0);
    const tarball = packed.stdout.trim().split('\n').pop()!;
    expect(fs.existsSync(tarball), tarball).to.equal(true);

    // A PATH with node, npm and a shell only.
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.symlinkSync(process.execPath, path.join(bin, 'node'));
    for (const tool of ['npm', 'sh', 'bash']) fs.symlinkSync(which(tool)!, path.join(bin, tool));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: bin,
      npm_config_cache: path.join(dir, 'npm-cache'),
      npm_config_update_notifier: 'false',
    };
    delete env.TFJS_WHOLEMEMORY_ADDON;
    const hidden = run('sh', ['-c', TOOLCHAIN.map((t) => `command -v ${t}`).join('; ')], dir, env);
    expect(hidden.stdout.trim(), 'a compiler is still on PATH').to.equal('');

    const app = path.join(dir, 'app');
    fs.mkdirSync(app);
    const pkg = {name: 'app', version: '1.0.0', private: true, allowScripts: {'tfjs-backend-wholememory': true}};
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify(pkg));
    // The dependencies, hard-linked from this checkout (no registry, no cache): npm keeps what satisfies.
    let linked = run('cp', ['-al', path.join(root, 'node_modules'), path.join(app, 'node_modules')], app, process.env);
    if (linked.status !== 0) {
      // Another file system: copy instead of linking.
      fs.rmSync(path.join(app, 'node_modules'), {recursive: true, force: true});
      linked = run('cp', ['-a', path.join(root, 'node_modules'), path.join(app, 'node_modules')], app, process.env);
    }
    expect(linked.status, linked.stderr).to.equal(0);

    const npm = path.join(bin, 'npm');
    const installed = run(npm, ['install', tarball, '--offline', '--no-audit', '--no-fund', '--foreground-scripts'], app, env);
    expect(installed.status, installed.stdout + installed.stderr).to.equal(0);
    expect(installed.stdout).to.match(/using the prebuilt addon prebuilds\/linux-x64\/wholememory\.glibc\.napi\.node/);
    const pkgDir = path.join(app, 'node_modules', 'tfjs-backend-wholememory');
    expect(fs.existsSync(path.join(pkgDir, 'build')), 'the install compiled').to.equal(false);

    const probe = `
      const tf = require('@tensorflow/tfjs-core');
      const wm = require('tfjs-backend-wholememory');
      tf.setBackend('wholememory').then(() => {
        const x = tf.tensor2d([[1.5, -2], [3, 4.25]]);
        const r = wm.installReport();
        console.log(JSON.stringify({origin: r.addon.origin, path: r.addon.path, targets: r.addon.cudaTargets,
          gpu: wm.deviceInfo().gpu, kernels: r.gpu && r.gpu.kernels, y: Array.from(x.matMul(x).add(1).dataSync())}));
      });`;
    const loaded = run(path.join(bin, 'node'), ['-e', probe], app, env);
    expect(loaded.status, loaded.stderr).to.equal(0);
    const out = JSON.parse(loaded.stdout.trim().split('\n').pop()!);
    expect(out.origin).to.equal('prebuilt');
    expect(out.path).to.equal(path.join(fs.realpathSync(pkgDir), 'prebuilds', 'linux-x64', 'wholememory.glibc.napi.node'));
    expect(out.targets).to.equal(wm.installReport().addon!.cudaTargets);
    expect(out.gpu).to.equal(wm.deviceInfo().gpu);
    // [[1.5,-2],[3,4.25]]^2 + 1
    expect(out.y).to.deep.equal([1.5 * 1.5 - 2 * 3 + 1, 1.5 * -2 - 2 * 4.25 + 1, 3 * 1.5 + 4.25 * 3 + 1, 3 * -2 + 4.25 * 4.25 + 1]);
    if (wm.deviceInfo().gpu) expect(out.kernels).to.be.a('string');

    // One copy of tfjs-core and of tfjs-layers: the project's, which the package uses.
    for (const pkg of ['tfjs-core', 'tfjs-layers']) {
      const copies = run('find', [app, '-path', `*/@tensorflow/${pkg}/package.json`], app, process.env)
        .stdout.trim()
        .split('\n');
      expect(copies, pkg).to.deep.equal([path.join(app, 'node_modules', '@tensorflow', pkg, 'package.json')]);
    }
    // The README's snippets (they require the user's '@tensorflow/tfjs'), as written, in the project.
    const snippets = readmeSnippets(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));
    expect(snippets.length).to.be.at.least(2);
    for (const [k, snippet] of snippets.entries()) {
      const file = path.join(app, `readme-${k}.js`);
      fs.writeFileSync(file, snippet.code);
      const r = run(path.join(bin, 'node'), [file], app, env);
      expect(r.status, `README.md:${snippet.line}\n${r.stdout}${r.stderr}`).to.equal(0);
      expect(r.stderr, `README.md:${snippet.line}`).to.not.match(/already registered|Error/);
    }

    // The doctor, as the installed package runs it.
    const doctor = run(path.join(bin, 'node'), [path.join(pkgDir, 'dist', 'bin', 'tfjs-wm-doctor.js')], app, env);
    expect(doctor.status, doctor.stderr).to.equal(0);
    expect(doctor.stdout).to.match(/^addon origin +prebuilt$/m);
    console.log(doctor.stdout.replace(/^/gm, '      '));
  });

  it('compiles instead when the prebuilt addon does not load, and says what the compile needs when it cannot', function () {
    this.timeout(120000);
    const pkg = tempDir('wm-broken-prebuilt-');
    try {
      fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({name: 'tfjs-backend-wholememory', version: '0.0.0'}));
      fs.mkdirSync(path.join(pkg, 'scripts'));
      fs.copyFileSync(path.join(root, 'scripts', 'install.js'), path.join(pkg, 'scripts', 'install.js'));
      const tuple = `${process.platform}-${process.arch}`;
      fs.mkdirSync(path.join(pkg, 'prebuilds', tuple), {recursive: true});
      fs.writeFileSync(path.join(pkg, 'prebuilds', tuple, 'wholememory.glibc.napi.node'), 'not a shared object');
      fs.symlinkSync(path.join(root, 'node_modules'), path.join(pkg, 'node_modules'));
      const bin = path.join(pkg, 'bin');
      fs.mkdirSync(bin);
      fs.symlinkSync(process.execPath, path.join(bin, 'node'));
      const r = run(process.execPath, [path.join(pkg, 'scripts', 'install.js')], pkg, {...process.env, PATH: bin});
      expect(r.stderr).to.match(/the prebuilt addon \S+wholememory\.glibc\.napi\.node does not load here .*; compiling from source/);
      expect(r.status).to.not.equal(0);
      expect(r.stderr).to.match(/compiling the addon failed .*CMake 3\.18 or newer and a C\+\+17 compiler/);
      expect(fs.existsSync(path.join(pkg, 'build', 'Release', 'wholememory.node'))).to.equal(false);
    } finally {
      fs.rmSync(pkg, {recursive: true, force: true});
    }
  });
});
