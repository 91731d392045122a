// Two hosts on one Linux machine, for the multi-host tests: two network namespaces joined by a veth pair
// (addresses of their own, inside the namespaces made here), each command run there in its own IPC, UTS
// (host name) and mount namespace with its own /dev/shm. Needs root (CI has it); make() says why not
// otherwise. dispose() deletes the namespaces, the veth pair with them.
import {spawn, spawnSync} from 'child_process';
import * as path from 'path';

const launcher = path.join(__dirname, '..', 'bin', 'tfjs-wm-run.js');

export interface HostRun {
  status: number | null;
  out: string;
}

export class TwoHosts {
  /** Each host's address on the pair, and its host name. */
  readonly addresses: [string, string];
  readonly names: [string, string];
  private readonly ns: [string, string];

  private constructor(tag: string, subnet: number) {
    this.ns = [`wm2h-${tag}-a`, `wm2h-${tag}-b`];
    this.addresses = [`10.231.${subnet}.1`, `10.231.${subnet}.2`];
    this.names = [`wm-host-a-${tag}`, `wm-host-b-${tag}`];
  }

  /** The two hosts, or why they cannot be made here. */
  static make(): TwoHosts | {why: string} {
    if (process.getuid?.() !== 0) return {why: 'not root: network namespaces need it'};
    const tag = String(process.pid % 100000);
    const h = new TwoHosts(tag, process.pid % 250);
    const veth = [`wm${tag}a`, `wm${tag}b`];
    const steps: string[][] = [
      ['netns', 'add', h.ns[0]],
      ['netns', 'add', h.ns[1]],
      ['link', 'add', veth[0], 'netns', h.ns[0], 'type', 'veth', 'peer', 'name', veth[1], 'netns', h.ns[1]],
      ...[0, 1].flatMap((i) => [
        ['-n', h.ns[i], 'addr', 'add', `${h.addresses[i]}/24`, 'dev', veth[i]],
        ['-n', h.ns[i], 'link', 'set', veth[i], 'up'],
        ['-n', h.ns[i], 'link', 'set', 'lo', 'up'],
      ]),
    ];
    for (const args of steps) {
      const r = spawnSync('ip', args, {encoding: 'utf8'});
      if (r.status !== 0) {
        h.dispose();
        return {why: `ip ${args.join(' ')}: ${(r.stderr || r.error?.message || '').trim()}`};
      }
    }
    // What each command goes through (its own IPC, host name and /dev/shm), tried once: a machine that makes
    // network namespaces but not the others says so here, not in a failed test.
    const probe = spawnSync('ip', h.args(0, ['true']), {encoding: 'utf8'});
    if (probe.status !== 0) {
      h.dispose();
      return {why: `unshare --ipc --uts --mount in a network namespace: ${(probe.stderr || probe.error?.message || '').trim()}`};
    }
    return h;
  }

  /** Runs `cmd` on host `i` (its namespaces, its host name, a /dev/shm of its own); `env` added to this process's. */
  run(i: 0 | 1, cmd: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 90_000): Promise<HostRun> {
    return this.start(i, cmd, env, timeoutMs).done;
  }

  /**
   * Host `node`'s launcher of its `ranksPerHost` ranks (tfjs-wm-run --nnodes 2, host 0 the master at `port`), each
   * rank running `script` with `args`.
   */
  launcherCommand(node: 0 | 1, port: number, script: string, args: string[] = [], ranksPerHost = 2): string[] {
    return [
      process.execPath,
      launcher,
      ...[
        '-n',
        String(ranksPerHost),
        '--nnodes',
        '2',
        '--node-rank',
        String(node),
        '--master-addr',
        this.addresses[0],
        '--master-port',
        String(port),
      ],
      script,
      ...args,
    ];
  }

  /**
   * What every rank on the two hosts gets, `env` added: the run secret from `secretFile` alone (no variable), and the
   * CPU path also on a machine with GPUs (one GPU per simulated host is another harness's).
   */
  static rankEnv(secretFile: string, env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return {WM_RUN_SECRET: '', WM_RUN_SECRET_FILE: secretFile, CUDA_VISIBLE_DEVICES: '', ...env};
  }

  /**
   * run(), with a way to end it: `kill()` sends SIGKILL to the command and every process of its group on the
   * host, as a machine that goes down; `output()` is what it printed so far.
   */
  start(
    i: 0 | 1,
    cmd: string[],
    env: NodeJS.ProcessEnv = {},
    timeoutMs = 90_000,
  ): {done: Promise<HostRun>; kill(): void; output(): string} {
    const child = spawn('ip', this.args(i, cmd), {env: {...process.env, ...env}, detached: true});
    const kill = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    let out = '';
    const done = new Promise<HostRun>((resolve) => {
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const timer = setTimeout(kill, timeoutMs);
      child.on('exit', (status) => {
        clearTimeout(timer);
        resolve({status, out});
      });
    });
    return {done, kill, output: () => out};
  }

  // ip's arguments that run `cmd` on host `i`: in its network namespace, with its own IPC, host name and /dev/shm.
  private args(i: 0 | 1, cmd: string[]): string[] {
    const inner = `hostname ${this.names[i]} && mount -t tmpfs -o mode=1777 tmpfs /dev/shm && exec "$@"`;
    return [
      'netns',
      'exec',
      this.ns[i],
      'unshare',
      '--ipc',
      '--uts',
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      inner,
      'sh',
      ...cmd,
    ];
  }

  dispose(): void {
    for (const ns of this.ns) spawnSync('ip', ['netns', 'del', ns]);
  }
}
