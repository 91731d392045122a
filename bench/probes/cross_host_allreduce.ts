// The GPU all-reduce across two simulated hosts (test/two_hosts.ts: network namespaces joined by a veth pair,
// one GPU a host, NCCL between them over the pair's sockets; needs root and two GPUs), ours against PyTorch's
// NCCL all-reduce on the same pair in the same run: float32, 4 KiB to 64 MiB, the median of 20 calls after 5,
// and the bus bandwidth at two ranks (bytes / time).
// `node dist/bench/probes/cross_host_allreduce.js` (the launcher); each host's rank runs this file again with RANK set.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {TwoHosts} from '../../test/two_hosts';
import {median} from '../bench_util';

const SIZES = [4 << 10, 64 << 10, 512 << 10, 4 << 20, 64 << 20];
const CALLS = 20,
  WARM = 5;

// One rank of ours: each size's median time, printed by rank 0 as "ours BYTES US".
async function rank(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const comm = wm.communicatorFromEnv({timeoutMs: 60000});
  for (const bytes of SIZES) {
    const x = tf.fill([bytes / 4], comm.rank + 1);
    const times: number[] = [];
    for (let k = 0; k < WARM + CALLS; ++k) {
      wm.synchronize();
      const t0 = performance.now();
      comm.allReduce(x, {op: 'sum'})[0].dispose();
      wm.synchronize();
      if (k >= WARM) times.push(performance.now() - t0);
    }
    if (comm.rank === 0) console.log(`ours ${bytes} ${(median(times) * 1000).toFixed(1)} path ${comm.lastAllReducePath}`);
    x.dispose();
  }
  wm.finalize();
}

const TORCH = `
import os, sys, time, statistics, torch, torch.distributed as dist
dist.init_process_group('nccl')
torch.cuda.set_device(0)
for nbytes in [${SIZES.join(', ')}]:
    x = torch.full((nbytes // 4,), float(dist.get_rank() + 1), device='cuda')
    times = []
    for k in range(${WARM + CALLS}):
        torch.cuda.synchronize(); t0 = time.perf_counter()
        dist.all_reduce(x)
        torch.cuda.synchronize()
        if k >= ${WARM}: times.append(time.perf_counter() - t0)
    if dist.get_rank() == 0: print(f'torch {nbytes} {statistics.median(times) * 1e6:.1f}', flush=True)
dist.destroy_process_group()
`;

async function main(): Promise<void> {
  const hosts = TwoHosts.make();
  if (!(hosts instanceof TwoHosts)) throw new Error(`cross_host_allreduce: no simulated hosts here (${hosts.why})`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-cross-ar-'));
  try {
    const torchScript = path.join(dir, 'torch_allreduce.py');
    fs.writeFileSync(torchScript, TORCH);
    const ours = await Promise.all(
      ([0, 1] as const).map((node) =>
        hosts.run(
          node,
          hosts.launcherCommand(node, 29650, __filename, [], 1),
          hosts.rankEnv({...TwoHosts.ncclEnv, CUDA_VISIBLE_DEVICES: String(node)}),
          180_000,
        ),
      ),
    );
    const python = process.env.PYTHON ?? 'python3';
    const torch = await Promise.all(
      ([0, 1] as const).map((node) =>
        hosts.run(
          node,
          [python, torchScript],
          {
            ...TwoHosts.ncclEnv,
            CUDA_VISIBLE_DEVICES: String(node),
            MASTER_ADDR: hosts.addresses[0],
            MASTER_PORT: '29660',
            RANK: String(node),
            WORLD_SIZE: '2',
            LOCAL_RANK: '0',
          },
          180_000,
        ),
      ),
    );
    for (const [what, runs] of [
      ['ours', ours],
      ['torch', torch],
    ] as const)
      for (const r of runs) if (r.status !== 0) throw new Error(`${what}: a host's run ended with ${r.status}:\n${r.out}`);
    const times = (out: string, tag: string) =>
      new Map([...out.matchAll(new RegExp(`^(?:\\[0\\] )?${tag} (\\d+) ([\\d.]+)`, 'gm'))].map((m) => [Number(m[1]), Number(m[2])]));
    const [a, t] = [times(ours[0].out, 'ours'), times(torch[0].out, 'torch')];
    console.log('float32, 2 simulated hosts, a GPU each, NCCL over the veth pair; median us of 20 calls, bus bandwidth GB/s');
    console.log(
      '| bytes | ours us | torch us | ours GB/s | torch GB/s | ours / torch bandwidth |\n| ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const bytes of SIZES) {
      const [o, p] = [a.get(bytes), t.get(bytes)];
      if (o === undefined || p === undefined) throw new Error(`no time for ${bytes} bytes:\n${ours[0].out}\n${torch[0].out}`);
      const gbs = (us: number) => bytes / us / 1000;
      console.log(`| ${bytes} | ${o} | ${p} | ${gbs(o).toFixed(2)} | ${gbs(p).toFixed(2)} | ${(p / o).toFixed(2)}x |`);
    }
  } finally {
    hosts.dispose();
    fs.rmSync(dir, {recursive: true, force: true});
  }
}

(process.env.RANK !== undefined ? rank() : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
