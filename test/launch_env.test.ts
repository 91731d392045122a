// Where a rank finds itself: our launcher's variables, torchrun's, Open MPI's.
import {spawnSync} from 'child_process';
import * as path from 'path';

import {expect} from 'chai';

import {readLaunchEnv} from '../src/memory/launch_env';

describe('launch environment', () => {
  it('reads torchrun-style variables', () => {
    const e = readLaunchEnv({RANK: '2', WORLD_SIZE: '4', LOCAL_RANK: '0', MASTER_ADDR: '10.0.0.1', MASTER_PORT: '29500'});
    expect(e).to.deep.include({rank: 2, worldSize: 4, localRank: 0, masterAddr: '10.0.0.1', masterPort: 29500});
  });

  it("reads Open MPI's variables", () => {
    const e = readLaunchEnv({OMPI_COMM_WORLD_RANK: '1', OMPI_COMM_WORLD_SIZE: '2', OMPI_COMM_WORLD_LOCAL_RANK: '1', MASTER_PORT: '1234'});
    expect(e).to.deep.include({rank: 1, worldSize: 2, localRank: 1, masterAddr: '127.0.0.1', masterPort: 1234});
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
});
