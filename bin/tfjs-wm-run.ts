#!/usr/bin/env node
// tfjs-wm-run: starts N ranks of a Node program on this host, the way
// torchrun does; with --nnodes M --node-rank R --master-addr HOST --master-port P
// on each of M hosts, the M * N ranks of one group (every host given the same
// secret: WM_RUN_SECRET or WM_RUN_SECRET_FILE). Each rank gets RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, WM_RUN_ID and WM_RUN_SECRET (the
// group's credential: only in the ranks' environment, never on a command line
// or in a socket name); every output
// line is prefixed with its rank; when one rank fails, the others are ended
// and the launcher exits with the failing rank's status. Ranks end with the
// launcher, even when it is killed (src/distributed/launcher_link.ts).
import {ChildProcess, spawn} from 'child_process';
import * as crypto from 'crypto';
import * as net from 'net';
import * as path from 'path';
import * as readline from 'readline';

import {Command, InvalidArgumentError, Option} from 'commander';

import {slurmMaster} from '../src/memory/launch_env';

/** A commander parser for an integer option in [min, max]. */
function integer(flag: string, min: number, max: number, what: string) {
  return (v: string) => {
    const n = Number(v);
    if (!/^[0-9]+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`${flag} must be ${what}, got "${v}"`);
    return n;
  };
}

const program = new Command()
  .name('tfjs-wm-run')
  .usage('-n <ranks> script.js [args...]')
  .description('Start ranks of a tfjs-backend-wholememory program on this host (with --nnodes, its share of a group over several hosts).')
  .requiredOption('-n, --nproc-per-node <n>', 'number of ranks', integer('-n', 1, 65536, 'a whole number of ranks from 1 to 65536'))
  .option(
    '--nnodes <m>',
    'hosts the group spans (each runs tfjs-wm-run with its --node-rank)',
    integer('--nnodes', 1, 65536, 'a whole number of hosts from 1 to 65536'),
    1,
  )
  .option(
    '--node-rank <r>',
    "this host's place among them (rank 0 runs on node 0)",
    integer('--node-rank', 0, 65535, 'a whole number from 0 to 65535'),
    0,
  )
  .option('--master-addr <addr>', 'address rank 0 listens on', '127.0.0.1')
  .option(
    '--master-port <port>',
    'port rank 0 listens on (0: pick a free one)',
    integer('--master-port', 0, 65535, 'a port from 0 to 65535'),
    0,
  )
  .option(
    '--report <ms>',
    'after a failure, how long the other ranks get to notice and report it before SIGTERM',
    integer('--report', 0, 3_600_000, 'milliseconds from 0 to 3600000'),
    3000,
  )
  .option(
    '--grace <ms>',
    'after SIGTERM, how long the ranks get before SIGKILL',
    integer('--grace', 0, 3_600_000, 'milliseconds from 0 to 3600000'),
    5000,
  )
  .addOption(
    new Option(
      '--cpu-bind <mode>',
      "GPU ranks' CPUs: numa (those local to the rank's GPU), cores (a share of those cores of each rank's own) or none " +
        '(default: WM_CPU_BIND, else none)',
    ).choices(['none', 'numa', 'cores']),
  )
  .argument('<script>', 'the program each rank runs')
  .argument('[args...]', 'its arguments')
  .allowUnknownOption(true)
  .passThroughOptions(true)
  .parse();

const LAUNCHER_LINK = path.join(__dirname, '..', 'src', 'distributed', 'launcher_link.js');

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function main(): Promise<void> {
  const o = program.opts();
  const [script, args] = [program.args[0], program.args.slice(1)];
  // Node's own resolution (a path, or a package's module): a script it cannot find is named before any rank starts.
  try {
    require.resolve(path.resolve(script));
  } catch {
    try {
      require.resolve(script, {paths: [process.cwd()]});
    } catch {
      process.stderr.write(`tfjs-wm-run: the script ${script} is not there (from ${process.cwd()})\n`);
      process.exit(2);
    }
  }
  const n: number = o.nprocPerNode;
  // Under srun with one task per node (`srun --ntasks-per-node 1 tfjs-wm-run -n 4 ...`): this task starts its node's
  // share; the nodes, this node's place, the master and its port come from the job step's variables (which only srun
  // sets: a batch script's own shell is not one of several nodes) unless given.
  const env = process.env;
  const stepNodes = Number(env.SLURM_STEP_NUM_NODES);
  const given = (k: string) => program.getOptionValueSource(k) === 'cli';
  if (stepNodes > 1 && env.SLURM_STEP_NUM_TASKS === env.SLURM_STEP_NUM_NODES && !given('nnodes')) {
    const m = slurmMaster(env);
    o.nnodes = stepNodes;
    if (!given('nodeRank')) o.nodeRank = Number(env.SLURM_NODEID ?? env.SLURM_PROCID);
    if (!given('masterAddr') && (env.MASTER_ADDR || m.addr)) o.masterAddr = env.MASTER_ADDR || m.addr;
    if (!given('masterPort') && (env.MASTER_PORT || m.port)) o.masterPort = Number(env.MASTER_PORT) || m.port;
    if (!Number.isInteger(o.nodeRank) || o.nodeRank < 0) fail(`under srun: SLURM_NODEID=${env.SLURM_NODEID} is not this node's place`);
  }
  const nodes: number = o.nnodes,
    node: number = o.nodeRank;
  if (node >= nodes) fail(`--node-rank ${node} must be below --nnodes ${nodes}`);
  if (nodes * n > 65536) fail(`--nnodes ${nodes} x -n ${n} is ${nodes * n} ranks; a group holds at most 65536`);
  // Across hosts every launcher must name the same port and hand its ranks the same secret and run id.
  if (nodes > 1 && !Number(o.masterPort)) fail(`--nnodes ${nodes}: give every host the same --master-port`);
  if (nodes > 1 && !env.WM_RUN_SECRET && !env.WM_RUN_SECRET_FILE)
    fail(
      `--nnodes ${nodes}: every host needs the group's secret: set WM_RUN_SECRET_FILE to a file only you can read ` +
        '(written once with `(umask 077; openssl rand -hex 32 > ~/.tfjs-wm-secret)` where every host sees it), or WM_RUN_SECRET',
    );
  const port = Number(o.masterPort) || (await freePort(o.masterAddr));
  const runId = nodes > 1 ? (env.WM_RUN_ID ?? `nodes-${o.masterAddr}-${port}`) : crypto.randomBytes(8).toString('hex');
  // One host: a fresh secret for this launch. Several: the one every host was given (WM_RUN_SECRET, or the file the ranks read).
  const secret = nodes > 1 ? (env.WM_RUN_SECRET ?? '') : crypto.randomBytes(32).toString('hex');
  const children: ChildProcess[] = [];
  // The rank that failed first: a rank killed by a signal we did not send
  // is the cause when the others exit after it, whichever exit event Node
  // delivers first, so the verdict waits for the others' exits (or the
  // report window) before it is printed.
  type Failure = {rank: number; code: number; signal: string | null; at: number};
  const failures: Failure[] = [];
  let firstFailure: Failure | undefined;
  let endingOthers = false;
  let exited = 0;
  const verdict = () => {
    if (firstFailure !== undefined || failures.length === 0) return;
    const killed = failures.filter((f) => f.signal !== null);
    const f = (firstFailure = [...(killed.length ? killed : failures)].sort((a, b) => a.at - b.at)[0]);
    process.stderr.write(
      `tfjs-wm-run: rank ${f.rank} ${f.signal ? `was killed by ${f.signal}` : `exited with status ${f.code}`}` +
        `${failures.length > 1 ? ` (the first of ${failures.length} failed ranks)` : ''}; ending the other ranks\n`,
    );
  };

  const alive = () => children.filter((c) => c.exitCode === null && c.signalCode === null);
  // The other ranks usually notice the failure in their next collective and
  // exit with a message naming the failed rank: give them that chance first.
  const endOthers = () => {
    if (endingOthers) return;
    endingOthers = true;
    setTimeout(() => {
      verdict();
      for (const c of alive()) c.kill('SIGTERM');
      setTimeout(() => {
        for (const c of alive()) c.kill('SIGKILL');
      }, Number(o.grace)).unref();
    }, Number(o.report)).unref();
  };

  await new Promise<void>((resolve) => {
    for (let local = 0; local < n; ++local) {
      const rank = node * n + local;
      // fd 3: the rank's link to this launcher (it ends the rank when closed). Node's own flags given to the
      // launcher (node --cpu-prof tfjs-wm-run.js ...) reach every rank, as child_process.fork passes them on.
      const child = spawn(process.execPath, [...process.execArgv, '--require', LAUNCHER_LINK, script, ...args], {
        stdio: ['inherit', 'pipe', 'pipe', 'pipe'],
        env: {
          ...process.env,
          WM_LAUNCHER_FD: '3',
          WM_LAUNCHER_GRACE_MS: String(o.grace),
          RANK: String(rank),
          WORLD_SIZE: String(nodes * n),
          LOCAL_RANK: String(local),
          LOCAL_WORLD_SIZE: String(n),
          MASTER_ADDR: o.masterAddr,
          MASTER_PORT: String(port),
          WM_RUN_ID: runId,
          WM_RUN_SECRET: secret,
          NCCL_NVLS_ENABLE: process.env.NCCL_NVLS_ENABLE ?? '0',
          ...(o.cpuBind ? {WM_CPU_BIND: o.cpuBind} : {}),
        },
      });
      children.push(child);
      (child.stdio[3] as net.Socket).on('error', () => {}); // the rank's end closes when it exits
      for (const [stream, out] of [
        [child.stdout!, process.stdout],
        [child.stderr!, process.stderr],
      ] as const) {
        readline.createInterface({input: stream}).on('line', (line) => out.write(`[${rank}] ${line}\n`));
      }
      child.on('exit', (code, signal) => {
        const status = code ?? (signal ? 128 + (require('os').constants.signals[signal] ?? 0) : 1);
        if (status !== 0 && firstFailure === undefined) {
          // A rank we end ourselves (SIGTERM after the report window) is no cause.
          failures.push({rank, code: status, signal: endingOthers && signal === 'SIGTERM' ? null : signal, at: performance.now()});
          endOthers();
        }
        if (++exited === n) {
          verdict();
          resolve();
        }
      });
    }
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.on(sig, () => {
        for (const c of children) c.kill(sig);
      });
    }
  });
  process.exit(firstFailure ? firstFailure.code : 0);
}

function fail(message: string): never {
  process.stderr.write(`tfjs-wm-run: ${message}\n`);
  process.exit(2);
}

main().catch((e) => {
  process.stderr.write(`tfjs-wm-run: ${(e as Error).message}\n`);
  process.exit(2);
});
