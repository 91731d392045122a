// Where a process sits in a group started by a launcher: ours
// (tfjs-wm-run), torchrun's variables, or Open MPI's.
export interface LaunchEnv {
  rank: number;
  worldSize: number;
  localRank: number;
  localWorldSize: number;
  masterAddr: string;
  masterPort: number;
  /** Shared by every rank of one launch; makes the unique id computable. */
  runId: string;
}

function int(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`environment: ${name}=${v} is not a non-negative integer`);
  return n;
}

export function readLaunchEnv(env: NodeJS.ProcessEnv = process.env): LaunchEnv | undefined {
  const rank = int(env, 'RANK') ?? int(env, 'OMPI_COMM_WORLD_RANK');
  const worldSize = int(env, 'WORLD_SIZE') ?? int(env, 'OMPI_COMM_WORLD_SIZE');
  if (rank === undefined || worldSize === undefined) return undefined;
  if (rank >= worldSize) throw new Error(`environment: rank ${rank} is not below world size ${worldSize}`);
  const localRank = int(env, 'LOCAL_RANK') ?? int(env, 'OMPI_COMM_WORLD_LOCAL_RANK') ?? rank;
  const localWorldSize = int(env, 'LOCAL_WORLD_SIZE') ?? int(env, 'OMPI_COMM_WORLD_LOCAL_SIZE') ?? worldSize;
  const masterPort = int(env, 'MASTER_PORT');
  if (masterPort === undefined || masterPort === 0) {
    throw new Error('environment: MASTER_PORT is not set (start the ranks with tfjs-wm-run, torchrun, or set it yourself)');
  }
  return {
    rank,
    worldSize,
    localRank,
    localWorldSize,
    masterAddr: env.MASTER_ADDR || '127.0.0.1',
    masterPort,
    runId: env.WM_RUN_ID || env.TORCHELASTIC_RUN_ID || 'tfjs-wm',
  };
}
