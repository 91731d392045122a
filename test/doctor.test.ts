import {expect} from 'chai';
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import * as wm from '../src/index';

describe('tfjs-wm-doctor', () => {
  it('reports the addon it loaded, the GPU or the reason there is none with what to install, NCCL and the CPU threads', function () {
    this.timeout(60000);
    const r = spawnSync(process.execPath, [path.join(__dirname, '..', 'bin', 'tfjs-wm-doctor.js'), '--json'], {encoding: 'utf8'});
    expect(r.status, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    const info = wm.deviceInfo();
    expect(report.builtWithCuda).to.equal(info.builtWithCuda);
    expect(fs.existsSync(report.addon)).to.equal(true);
    expect(report.nccl).to.be.a('string');
    expect(report.cpuThreads).to.equal(info.hostThreads);
    if (info.gpu) {
      expect(report.gpu.name).to.equal(info.name);
      expect(report.fallback).to.equal(null);
    } else {
      expect(report.gpu).to.equal(null);
      expect(report.fallback.reason).to.equal(info.reason);
      expect(report.fallback.advice).to.match(/install|build|unset/);
    }
    const text = spawnSync(process.execPath, [path.join(__dirname, '..', 'bin', 'tfjs-wm-doctor.js')], {encoding: 'utf8'});
    expect(text.stdout).to.match(/^addon +\S+wholememory\.node$/m);
  });
});
