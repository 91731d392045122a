import {expect} from 'chai';
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import * as wm from '../src/index';
import {describeKernels, describePeerAccess, fallbackAdvice, fallbackCause, InstallReport} from '../src/native/install_report';

const doctor = path.join(__dirname, '..', 'bin', 'tfjs-wm-doctor.js');

describe('tfjs-wm-doctor', () => {
  it('reports the addon and its CUDA targets, the CUDA versions, the GPUs, NCCL, and the reason and fix on the CPU', function () {
    this.timeout(60000);
    const r = spawnSync(process.execPath, [doctor, '--json'], {encoding: 'utf8'});
    expect(r.status, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    const info = wm.deviceInfo();
    expect(fs.existsSync(report.addon.path)).to.equal(true);
    expect(report.addon.origin).to.be.oneOf(['prebuilt', 'compiled', 'chosen']);
    if (info.builtWithCuda) {
      expect(report.addon.cudaTargets).to.match(/^\d+a?-(real|virtual)(,\d+a?-(real|virtual))*$/);
      expect(report.cudaRuntime).to.match(/^\d+\.\d$/);
    } else {
      expect(report.addon.cudaTargets).to.equal('');
    }
    expect(report.nccl).to.be.a('string');
    expect(report.cpuThreads).to.equal(info.hostThreads);
    expect(report.gpus.length).to.equal(info.deviceCount);
    if (info.gpu) {
      expect(report.gpu.name).to.equal(info.name);
      expect(report.gpus[report.gpu.index].computeCapability).to.match(/^\d+\.\d$/);
      expect(report.gpus[0].peerAccess.length).to.equal(info.deviceCount);
      expect(report.gpu.kernels).to.match(/machine code for sm_\d+a? inside the addon|PTX compiled by the driver/);
      expect(report.cudaDriver).to.match(/^\d+\.\d$/);
      expect(report.fallback).to.equal(null);
    } else {
      expect(report.gpu).to.equal(null);
      expect(report.fallback.reason).to.equal(info.runtimeReason ?? info.reason);
      // deviceInfo() says why in a user's terms: a machine without a driver has no GPU.
      // An addon compiled without CUDA (what npm install builds where there is no GPU) says so instead.
      if (!info.builtWithCuda) expect(info.reason).to.match(/without CUDA/);
      else if (report.cudaDriver === null) expect(info.reason).to.match(/^no GPU: no NVIDIA driver on this machine/);
      expect(report.fallback.advice).to.match(/install|compile|unset|update|check/);
    }
    const text = spawnSync(process.execPath, [doctor], {encoding: 'utf8'});
    expect(text.stdout).to.match(/^addon +\S+wholememory(\.glibc\.napi)?\.node$/m);
    expect(text.stdout).to.match(/^CUDA driver +\S/m);
  });

  it('names the kernel image a GPU runs: machine code built in, or PTX the driver compiled', () => {
    const all = '75-real,80-real,86-real,89-real,90a-real,90-virtual';
    expect(describeKernels(all, 90, 90)).to.equal('machine code for sm_90a inside the addon');
    expect(describeKernels(all, 86, 86)).to.equal('machine code for sm_86 inside the addon');
    // A Blackwell GPU runs the compute_90 PTX.
    expect(describeKernels(all, 100, 90)).to.match(/^compute_90 PTX compiled by the driver for sm_100/);
    expect(describeKernels('75-virtual', 90, 75)).to.match(/^compute_75 PTX compiled by the driver for sm_90/);
  });

  it('says what to do for each reason the GPU is not used', () => {
    const gpu = {
      name: 'Tesla P100',
      computeCapability: '6.0',
      totalBytes: 16e9,
      multiprocessors: 56,
      pciBusId: '0000:01:00.0',
      peerAccess: [true],
      peerAtomics: [true],
    };
    const base: Omit<InstallReport, 'fallback'> = {
      node: 'v20',
      napi: '9',
      platform: 'linux-x64',
      addon: {path: '/x/wholememory.node', origin: 'prebuilt', cudaTargets: '75-real,90-virtual'},
      cudaRuntime: '13.0',
      cudaDriver: '13.0',
      gpus: [],
      gpu: null,
      nccl: 'unavailable',
      cpuThreads: 2,
      problems: [],
    };
    expect(fallbackAdvice({...base, addon: null, platform: 'linux-arm64'}, 'no addon', false)).to.match(
      /no prebuilt addon for linux-arm64.*npm rebuild/,
    );
    expect(fallbackAdvice(base, 'built without CUDA', false)).to.match(/without nvcc: install the CUDA toolkit/);
    expect(fallbackAdvice({...base, cudaDriver: null}, 'cudaErrorInsufficientDriver', true)).to.match(/install the NVIDIA driver/);
    expect(fallbackAdvice({...base, cudaDriver: '12.8'}, 'cudaErrorInsufficientDriver', true)).to.match(
      /supports CUDA 12\.8, the addon needs 13\.0: update/,
    );
    expect(fallbackAdvice({...base, gpus: [{index: 0, ...gpu}]}, 'no kernel image', true)).to.match(
      /Tesla P100 \(compute capability 6\.0\) is older than Turing/,
    );
    expect(fallbackAdvice(base, 'no CUDA device', true)).to.match(/sees no GPU.*CUDA_VISIBLE_DEVICES/);
    expect(fallbackAdvice(base, 'TFJS_WHOLEMEMORY_DEVICE=cpu', true)).to.match(/unset TFJS_WHOLEMEMORY_DEVICE/);
    // The cause in a user's words, beside the runtime's own reason.
    expect(fallbackCause({...base, cudaDriver: null}, 'cudaErrorInsufficientDriver', true)).to.equal(
      'no NVIDIA driver on this machine (libcuda.so.1 not found)',
    );
    expect(fallbackCause({...base, cudaDriver: '12.8'}, 'x', true)).to.match(/supports CUDA 12\.8, older than the 13\.0/);
    expect(fallbackCause({...base, gpus: [{index: 0, ...gpu}]}, 'x', true)).to.equal('Tesla P100 is older than Turing');
    expect(fallbackCause(base, 'built without CUDA', false)).to.equal('the addon was compiled without CUDA');
  });

  it('draws the peer-access matrix a line long', () => {
    const gpus = [
      {index: 0, peerAccess: [true, true, false]},
      {index: 1, peerAccess: [true, true, false]},
      {index: 2, peerAccess: [false, false, true]},
    ];
    expect(describePeerAccess(gpus)).to.equal('0→[- 1 x]  1→[0 - x]  2→[x x -]');
  });
});
