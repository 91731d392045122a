// Every ```js snippet of the README and docs/api.md runs as written: each is saved as a file
// in a new project folder whose node_modules holds this package (and its
// tfjs), then run with node (or under tfjs-wm-run when its first line says
// `tfjs-wm-run -n N`). A snippet that fails, or prints an error, fails here.
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import {expect} from 'chai';

import * as wm from '../src/index';
import {readmeSnippets} from './snippets';
import {tempDir} from './temp_dirs';

const root = path.resolve(__dirname, '..', '..');

describe('README snippets run as written', function () {
  this.timeout(180_000);
  const snippets = ['README.md', path.join('docs', 'api.md')].flatMap((doc) =>
    readmeSnippets(fs.readFileSync(path.join(root, doc), 'utf8')).map((s) => ({...s, doc})),
  );
  let project: string;

  before(() => {
    project = tempDir('wm-readme-');
    fs.mkdirSync(path.join(project, 'node_modules'));
    fs.symlinkSync(root, path.join(project, 'node_modules', 'tfjs-backend-wholememory'));
    fs.symlinkSync(path.join(root, 'node_modules', '@tensorflow'), path.join(project, 'node_modules', '@tensorflow'));
    fs.mkdirSync(path.join(project, 'runtime'), {mode: 0o700});
  });

  after(() => fs.rmSync(project, {recursive: true, force: true}));

  it('finds the snippets', () => expect(snippets.length).to.be.at.least(8));

  for (const [k, s] of snippets.entries()) {
    const ranks = /tfjs-wm-run -n (\d+)/.exec(s.code.split('\n')[0]);
    it(`${s.doc}:${s.line}${ranks ? ` (under tfjs-wm-run -n ${ranks[1]})` : ''}`, () => {
      const file = path.join(project, `snippet-${k}.js`);
      fs.writeFileSync(file, s.code);
      const args = ranks ? [path.join(root, 'dist', 'bin', 'tfjs-wm-run.js'), '-n', ranks[1], file] : [file];
      // Ranks that would share a GPU run on the CPU path instead (one rank per GPU is the rule).
      const cpu = ranks && wm.deviceInfo().gpu && wm.deviceInfo().deviceCount < Number(ranks[1]);
      const r = spawnSync(process.execPath, args, {
        cwd: project,
        encoding: 'utf8',
        timeout: 150_000,
        env: {...process.env, XDG_RUNTIME_DIR: path.join(project, 'runtime'), ...(cpu ? {TFJS_WHOLEMEMORY_DEVICE: 'cpu'} : {})},
      });
      const out = `${r.stdout}\n${r.stderr}`;
      expect(r.status, `${s.doc}:${s.line} exited ${r.status} ${r.signal ?? ''}:\n${out}`).to.equal(0);
      expect(out).to.not.match(/Error:|UnhandledPromiseRejection/);
    });
  }
});
