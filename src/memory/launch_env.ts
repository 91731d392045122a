// Where a process sits in a group started by a launcher: ours (tfjs-wm-run), torchrun's variables (and
// Kubernetes' PyTorchJob / JobSet, which set them), Open MPI's, or Slurm's (srun): with Slurm the master is the
// first host of the job's node list and the port is derived from the job's id, so every rank agrees with
// nothing set by hand (MASTER_ADDR and MASTER_PORT still win).
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
  const explicit = int(env, 'RANK') ?? int(env, 'OMPI_COMM_WORLD_RANK');
  const slurm = explicit === undefined ? slurmTask(env) : undefined;
  const rank = explicit ?? slurm?.rank;
  const worldSize = int(env, 'WORLD_SIZE') ?? int(env, 'OMPI_COMM_WORLD_SIZE') ?? slurm?.worldSize;
  if (rank === undefined || worldSize === undefined) return undefined;
  if (rank >= worldSize) throw new Error(`environment: rank ${rank} is not below world size ${worldSize}`);
  const localRank = int(env, 'LOCAL_RANK') ?? int(env, 'OMPI_COMM_WORLD_LOCAL_RANK') ?? slurm?.localRank ?? rank;
  const localWorldSize = int(env, 'LOCAL_WORLD_SIZE') ?? int(env, 'OMPI_COMM_WORLD_LOCAL_SIZE') ?? slurm?.localWorldSize ?? worldSize;
  const masterPort = int(env, 'MASTER_PORT') ?? slurm?.port;
  if (masterPort === undefined || masterPort === 0) {
    throw new Error('environment: MASTER_PORT is not set (start the ranks with tfjs-wm-run, torchrun, srun, or set it yourself)');
  }
  return {
    rank,
    worldSize,
    localRank,
    localWorldSize,
    masterAddr: env.MASTER_ADDR || slurm?.master || '127.0.0.1',
    masterPort,
    runId: env.WM_RUN_ID || env.TORCHELASTIC_RUN_ID || slurm?.runId || 'tfjs-wm',
  };
}

interface SlurmTask {
  rank: number;
  worldSize: number;
  localRank?: number;
  localWorldSize?: number;
  master?: string;
  port?: number;
  runId: string;
}

/**
 * Where a Slurm job's group meets: the first host of its node list, and a port derived from the job and step ids
 * (20000 + (job * 7 + step) mod 20000, below the usual ephemeral range): the same on every task, nothing set by
 * hand. Undefined fields where the variables are missing.
 */
export function slurmMaster(env: NodeJS.ProcessEnv): {addr?: string; port?: number; job?: number; step: string} {
  const list = env.SLURM_STEP_NODELIST || env.SLURM_JOB_NODELIST || env.SLURM_NODELIST;
  const job = int(env, 'SLURM_JOB_ID') ?? int(env, 'SLURM_JOBID');
  const step = env.SLURM_STEP_ID ?? '0';
  return {
    addr: list ? firstHost(list) : undefined,
    port: job !== undefined ? 20000 + ((job * 7 + (Number(step) || 0)) % 20000) : undefined,
    job,
    step,
  };
}

// A task of a Slurm job step (srun): its rank, the step's size, its place on its node, the job's first host.
function slurmTask(env: NodeJS.ProcessEnv): SlurmTask | undefined {
  const rank = int(env, 'SLURM_PROCID'),
    worldSize = int(env, 'SLURM_NTASKS') ?? int(env, 'SLURM_NPROCS');
  if (rank === undefined || worldSize === undefined) return undefined;
  const node = int(env, 'SLURM_NODEID');
  const perNode = env.SLURM_STEP_TASKS_PER_NODE || env.SLURM_TASKS_PER_NODE;
  const counts = perNode ? tasksPerNode(perNode, env.SLURM_STEP_TASKS_PER_NODE ? 'SLURM_STEP_TASKS_PER_NODE' : 'SLURM_TASKS_PER_NODE') : [];
  const m = slurmMaster(env);
  return {
    rank,
    worldSize,
    localRank: int(env, 'SLURM_LOCALID'),
    localWorldSize: node !== undefined ? counts[node] : undefined,
    master: m.addr,
    port: m.port,
    runId: `slurm-${m.job ?? 'job'}.${m.step}`,
  };
}

/** Slurm's tasks per node, "4(x2),3" -> [4, 4, 3]. */
export function tasksPerNode(s: string, name = 'SLURM_TASKS_PER_NODE'): number[] {
  return s.split(',').flatMap((part) => {
    const m = /^(\d+)(?:\(x(\d+)\))?$/.exec(part.trim());
    if (!m) throw new Error(`environment: ${name}=${s} is not a list of counts such as 4(x2),3`);
    return Array.from({length: m[2] ? Number(m[2]) : 1}, () => Number(m[1]));
  });
}

/** The first host of a Slurm node list: "gpu[07-09,12],cpu1" -> "gpu07", "n[1-2]-ib" -> "n1-ib", "a1,b2" -> "a1". */
export function firstHost(list: string): string {
  const m = /^([^,[\]]+)(?:\[([^\]]+)\]([^,]*))?/.exec(list.trim());
  if (!m) throw new Error(`environment: the Slurm node list '${list}' names no host`);
  if (!m[2]) return m[1];
  const first = m[2].split(',')[0].split('-')[0];
  if (!/^\d+$/.test(first)) throw new Error(`environment: the Slurm node list '${list}' has a range that is not numbers`);
  return m[1] + first + (m[3] ? firstHost(m[3]) : '');
}
