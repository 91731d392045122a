// What `npm install` compiles from source: the GPUs the machine has (nvidia-smi's compute capabilities),
// the CPU core alone where it has none, WM_CUDA_ARCHS when set (TFJS_WHOLEMEMORY_BUILD_PLAN=1 prints the
// plan and compiles nothing).
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import {expect} from 'chai';
import {tempDir} from './temp_dirs';

const script = path.resolve(__dirname, '..', '..', 'scripts', 'install.js');

/** The plan line, with nvidia-smi printing `caps` (undefined: no nvidia-smi on PATH). */
function plan(caps: string[] | undefined, env: NodeJS.ProcessEnv = {}): string {
  const bin = tempDir('wm-plan-');
  try {
    if (caps) fs.writeFileSync(path.join(bin, 'nvidia-smi'), `#!/bin/sh\nprintf '${caps.join('\\n')}\\n'\n`, {mode: 0o755});
    // PATH: the fake nvidia-smi alone, and node's folder (no real nvidia-smi can answer).
    const r = spawnSync(process.execPath, [script], {
      encoding: 'utf8',
      env: {
        PATH: `${bin}:${path.dirname(process.execPath)}`,
        TFJS_WHOLEMEMORY_BUILD_FROM_SOURCE: '1',
        TFJS_WHOLEMEMORY_BUILD_PLAN: '1',
        ...env,
      },
    });
    expect(r.status, r.stderr).to.equal(0);
    return r.stdout.trim();
  } finally {
    fs.rmSync(bin, {recursive: true, force: true});
  }
}

describe('what npm install compiles from source', () => {
  it("the GPUs the machine has: Hopper's sm_90a, others' own machine code, newer ones compute_90 PTX", () => {
    expect(plan(['9.0', '8.6', '9.0'])).to.match(/CUDA targets 90a-real;86-real \(the GPUs here: compute capability 9\.0, 8\.6\)/);
    expect(plan(['12.0'])).to.match(/CUDA targets 90-virtual /);
  });

  it('no GPU: the CPU core alone, saying so and how to ask for GPU targets', () => {
    expect(plan(['6.1'])).to.match(/the CPU core alone: the GPUs here \(compute capability 6\.1\) are older than Turing/);
    // A GPU device without nvidia-smi takes every target instead.
    if (fs.existsSync('/dev/nvidia0')) expect(plan(undefined)).to.match(/a GPU device but no nvidia-smi .*every CUDA target/);
    else expect(plan(undefined)).to.match(/the CPU core alone: no NVIDIA GPU found .*set WM_CUDA_ARCHS \(e\.g\. WM_CUDA_ARCHS=90a-real\)/);
  });

  it('WM_CUDA_ARCHS, when set, is what is compiled', () => {
    expect(plan(['9.0'], {WM_CUDA_ARCHS: '75-virtual'})).to.match(/CUDA targets 75-virtual \(WM_CUDA_ARCHS\)/);
  });
});
