// Where a rank finds itself: our launcher's variables, torchrun's, Open MPI's.
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import {expect} from 'chai';

import {firstHost, readLaunchEnv, tasksPerNode} from '../src/memory/launch_env';
import {deviceStatus} from '../src/native/device';
import {tempDir} from './temp_dirs';

// "0-3,8" -> [0, 1, 2, 3, 8]
const cpuList = (s: string) =>
  s.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number);
    return Array.from({length: (b ?? a) - a + 1}, (_, i) => a + i);
  });

describe('launch environment', () => {
  it('reads torchrun-style variables', () => {
    const e = readLaunchEnv({RANK: '2', WORLD_SIZE: '4', LOCAL_RANK: '0', MASTER_ADDR: '10.0.0.1', MASTER_PORT: '29500'});
    expect(e).to.deep.include({rank: 2, worldSize: 4, localRank: 0, masterAddr: '10.0.0.1', masterPort: 29500});
  });

  it("reads Open MPI's variables", () => {
    const e = readLaunchEnv({OMPI_COMM_WORLD_RANK: '1', OMPI_COMM_WORLD_SIZE: '2', OMPI_COMM_WORLD_LOCAL_RANK: '1', MASTER_PORT: '1234'});
    expect(e).to.deep.include({rank: 1, worldSize: 2, localRank: 1, masterAddr: '127.0.0.1', masterPort: 1234});
  });

  it("reads Slurm's variables (srun): the rank, its place on its node, the job's first host as the master and a port from the job's id", () => {
    const slurm = {
      SLURM_PROCID: '5',
      SLURM_NTASKS: '7',
      SLURM_LOCALID: '1',
      SLURM_NODEID: '1',
      SLURM_TASKS_PER_NODE: '4,3',
      SLURM_JOB_NODELIST: 'gpu[07-08]',
      SLURM_JOB_ID: '123456',
      SLURM_STEP_ID: '2',
    };
    const e = readLaunchEnv(slurm);
    expect(e).to.deep.equal({
      rank: 5,
      worldSize: 7,
      localRank: 1,
      localWorldSize: 3,
      masterAddr: 'gpu07',
      masterPort: 20000 + ((123456 * 7 + 2) % 20000),
      runId: 'slurm-123456.2',
    });
    // Every task of the step derives the same master and port.
    expect(readLaunchEnv({...slurm, SLURM_PROCID: '0', SLURM_LOCALID: '0', SLURM_NODEID: '0'})).to.deep.include({
      masterAddr: 'gpu07',
      masterPort: e!.masterPort,
      localWorldSize: 4,
    });
    // What is set by hand wins: the master's address and port, and torchrun's variables over Slurm's.
    expect(readLaunchEnv({...slurm, MASTER_ADDR: 'head', MASTER_PORT: '29500'})).to.deep.include({masterAddr: 'head', masterPort: 29500});
    expect(readLaunchEnv({...slurm, RANK: '0', WORLD_SIZE: '2', MASTER_PORT: '1234'})).to.deep.include({
      rank: 0,
      worldSize: 2,
      masterPort: 1234,
    });
    expect(() => readLaunchEnv({SLURM_PROCID: '0', SLURM_NTASKS: '2'})).to.throw(
      /MASTER_PORT is not set \(start the ranks with tfjs-wm-run, torchrun, srun/,
    );
    expect(() => readLaunchEnv({...slurm, SLURM_TASKS_PER_NODE: '4(2)'})).to.throw(
      /SLURM_TASKS_PER_NODE=4\(2\) is not a list of counts such as 4\(x2\),3/,
    );
    expect(tasksPerNode('4(x2),3,1(x1)')).to.deep.equal([4, 4, 3, 1]);
    for (const [list, host] of [
      ['gpu[07-09,12],cpu1', 'gpu07'],
      ['a1,b2', 'a1'],
      ['n[1-2]-ib', 'n1-ib'],
      ['rack[3-4]-node[01-02]', 'rack3-node01'],
      ['solo', 'solo'],
    ])
      expect(firstHost(list), list).to.equal(host);
    expect(() => firstHost('gpu[a-b]')).to.throw(/has a range that is not numbers/);
  });

  it('says nothing outside a launcher, and names bad values', () => {
    expect(readLaunchEnv({})).to.equal(undefined);
    expect(() => readLaunchEnv({RANK: 'x', WORLD_SIZE: '2'})).to.throw(/RANK=x is not a non-negative integer/);
    expect(() => readLaunchEnv({RANK: '2', WORLD_SIZE: '2', MASTER_PORT: '1'})).to.throw(/rank 2 is not below world size 2/);
    expect(() => readLaunchEnv({RANK: '0', WORLD_SIZE: '2'})).to.throw(/MASTER_PORT is not set/);
  });

  it('the launcher rejects a bad rank count by name', () => {
    const launcher = path.resolve(__dirname, '..', 'bin', 'tfjs-wm-run.js');
    const r = spawnSync(process.execPath, [launcher, '-n', '0', 'x.js'], {encoding: 'utf8'});
    expect(r.status).to.not.equal(0);
    expect(r.stderr).to.match(/-n must be a whole number of ranks from 1 to 65536, got "0"/);
  });

  it("Node's own flags given to the launcher reach every rank (node --cpu-prof tfjs-wm-run.js ...)", () => {
    const launcher = path.resolve(__dirname, '..', 'bin', 'tfjs-wm-run.js');
    const dir = tempDir('wm-exec-argv-');
    try {
      const rank = path.join(dir, 'rank.js');
      fs.writeFileSync(rank, "console.log('FLAGS ' + JSON.stringify(process.execArgv));\n");
      const r = spawnSync(process.execPath, ['--stack-size=900', '--no-warnings', launcher, '-n', '2', rank], {
        encoding: 'utf8',
        timeout: 30000,
      });
      expect(r.status, r.stderr).to.equal(0);
      const flags = r.stdout
        .split('\n')
        .filter((l) => l.includes('FLAGS '))
        .map((l) => JSON.parse(l.slice(l.indexOf('FLAGS ') + 6)) as string[]);
      expect(flags).to.have.length(2);
      for (const f of flags) expect(f).to.include.members(['--stack-size=900', '--no-warnings']);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('the launcher binds GPU ranks to CPUs of their own with --cpu-bind cores, and refuses an unknown mode', function () {
    this.timeout(60000);
    const launcher = path.resolve(__dirname, '..', 'bin', 'tfjs-wm-run.js');
    const bad = spawnSync(process.execPath, [launcher, '-n', '1', '--cpu-bind', 'core', 'x.js'], {encoding: 'utf8'});
    expect(bad.status).to.not.equal(0);
    expect(bad.stderr).to.match(/--cpu-bind <mode>' argument 'core' is invalid. Allowed choices are none, numa, cores/);

    const rank = path.join(__dirname, 'fixtures', 'cpu_binding_rank.js');
    const r = spawnSync(process.execPath, [launcher, '-n', '2', '--cpu-bind', 'cores', rank], {encoding: 'utf8', timeout: 50000});
    expect(r.status, r.stderr).to.equal(0);
    const lines = r.stdout
      .split('\n')
      .filter((l) => l.includes('BINDING '))
      .map((l) => JSON.parse(l.slice(l.indexOf('BINDING ') + 8)))
      .sort((a, b) => a.rank - b.rank);
    expect(lines.map((l) => l.env)).to.deep.equal(['cores', 'cores']);
    if (!deviceStatus().gpu) {
      // Only a process that binds to a GPU binds its CPUs: CPU ranks share the host as the scheduler decides.
      expect(lines.map((l) => l.binding)).to.deep.equal([undefined, undefined]);
      return;
    }
    // Each rank runs on exactly the CPUs it reports; ranks whose GPUs share local CPUs hold disjoint shares
    // of them when there are cores enough (the native tests check the split itself on a made-up host).
    const sets = lines.map((l) => {
      expect(l.binding).to.match(/^CPUs [0-9,-]+ \(share [12] of /);
      const said = cpuList(/^CPUs ([0-9,-]+)/.exec(l.binding)![1]);
      expect(cpuList(l.allowed)).to.deep.equal(said);
      return said;
    });
    const cores = lines.map((l) => Number(/of (\d+) of the (\d+) cores/.exec(l.binding)![2]));
    if (lines.every((l) => / of 2 of /.test(l.binding)) && cores[0] >= 2) {
      expect(sets[0].filter((c) => sets[1].includes(c))).to.deep.equal([]);
    }
  });
});
