// Two hosts on one Linux machine, for the multi-host tests: two network namespaces (made by util-linux's
// unshare, bound to files of a private folder) joined by a veth pair (build/wm_veth_pair, rtnetlink: addresses of
// their own, inside the namespaces made here), each command run there through nsenter in its own IPC, UTS (host
// name) and mount namespace with its own /dev/shm. No iproute2 needed. Needs root (CI has it); make() says why not
// otherwise. dispose() unbinds the namespaces (the veth pair goes with them) and removes the folder.
import {spawn, spawnSync} from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const launcher = path.join(__dirname, '..', 'bin', 'tfjs-wm-run.js');
const root = path.resolve(__dirname, '..', '..');

// The link maker: built beside the addon (build/, or the folder TFJS_WHOLEMEMORY_ADDON's addon was built in).
function vethPairTool(): string | undefined {
  const addon = process.env.TFJS_WHOLEMEMORY_ADDON;
  const places = [path.join(root, 'build'), ...(addon ? [path.resolve(path.dirname(addon), '..')] : [])];
  return places.map((p) => path.join(p, 'wm_veth_pair')).find((p) => fs.existsSync(p));
}

// A command's failure in a line: its stderr, or why it did not start.
function why(r: ReturnType<typeof spawnSync>): string {
  return (String(r.stderr ?? '') || r.error?.message || `exit status ${r.status}`).trim();
}

export interface HostRun {
  status: number | null;
  out: string;
}

export class TwoHosts {
  /** Each host's address on the pair, and its host name. */
  readonly addresses: [string, string];
  readonly names: [string, string];
  // The files the namespaces are bound to, in a folder made private (a bind mount of itself) for them.
  private readonly folder: string;
  private readonly ns: [string, string];
  /** The run secret every rank on either host reads (rankEnv): a file only this user can read, in the hosts' folder. */
  readonly secretFile: string;

  private constructor(tag: string, subnet: number) {
    this.folder = fs.mkdtempSync(path.join(os.tmpdir(), `wm2h-${tag}-`));
    this.ns = [path.join(this.folder, 'a'), path.join(this.folder, 'b')];
    this.secretFile = path.join(this.folder, 'secret');
    fs.writeFileSync(this.secretFile, crypto.randomBytes(32).toString('hex'), {mode: 0o600});
    this.addresses = [`10.231.${subnet}.1`, `10.231.${subnet}.2`];
    this.names = [`wm-host-a-${tag}`, `wm-host-b-${tag}`];
  }

  /** What NCCL needs to join ranks across the hosts: the veth pair's interfaces (named wm...), no InfiniBand, no NVLink multicast. */
  static readonly ncclEnv = {NCCL_SOCKET_IFNAME: 'wm', NCCL_IB_DISABLE: '1', NCCL_NVLS_ENABLE: '0'};

  /**
   * CUDA_VISIBLE_DEVICES for host `node`'s one rank on a machine of `gpus` GPUs: its own GPU, or with one GPU the one
   * both hosts drive (a GPU is its host's and its number, so NCCL still runs between the hosts).
   */
  static gpuOf(node: 0 | 1, gpus: number): string {
    return String(gpus > 1 ? node : 0);
  }

  /** The two hosts, or why they cannot be made here. */
  static make(): TwoHosts | {why: string} {
    if (process.getuid?.() !== 0) return {why: 'not root: network namespaces need it'};
    const tool = vethPairTool();
    if (!tool) return {why: `no wm_veth_pair beside the addon (build it: npm run build:native)`};
    const tag = String(process.pid % 100000);
    const h = new TwoHosts(tag, process.pid % 250);
    const steps: [string, string[]][] = [
      ['mount', ['--bind', h.folder, h.folder]],
      ['mount', ['--make-private', h.folder]],
      ...h.ns.map((f): [string, string[]] => ['unshare', [`--net=${f}`, 'true']]),
      [tool, [...h.ns, `wm${tag}a`, `wm${tag}b`, ...h.addresses.map((a) => `${a}/24`)]],
    ];
    for (const [cmd, args] of steps) {
      if (cmd === 'unshare') fs.writeFileSync(args[0].slice('--net='.length), '');
      const r = spawnSync(cmd, args, {encoding: 'utf8'});
      if (r.status !== 0) {
        h.dispose();
        return {why: `${path.basename(cmd)} ${args.join(' ')}: ${why(r)}`};
      }
    }
    // What each command goes through (its own IPC, host name and /dev/shm), tried once: a machine that makes
    // network namespaces but not the others says so here, not in a failed test.
    const probe = spawnSync('nsenter', h.args(0, ['true']), {encoding: 'utf8'});
    if (probe.status !== 0) {
      h.dispose();
      return {why: `unshare --ipc --uts --mount in a network namespace: ${why(probe)}`};
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
   * CPU path also on a machine with GPUs unless `env` gives the host its GPUs (CUDA_VISIBLE_DEVICES).
   */
  rankEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return {WM_RUN_SECRET: '', WM_RUN_SECRET_FILE: this.secretFile, CUDA_VISIBLE_DEVICES: '', ...env};
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
    const child = spawn('nsenter', this.args(i, cmd), {env: {...process.env, ...env}, detached: true});
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

  // nsenter's arguments that run `cmd` on host `i`: in its network namespace, with its own IPC, host name and /dev/shm.
  private args(i: 0 | 1, cmd: string[]): string[] {
    const inner = `hostname ${this.names[i]} && mount -t tmpfs -o mode=1777 tmpfs /dev/shm && exec "$@"`;
    return [`--net=${this.ns[i]}`, 'unshare', '--ipc', '--uts', '--mount', '--propagation', 'private', 'sh', '-c', inner, 'sh', ...cmd];
  }

  dispose(): void {
    // Whatever was bound so far (umount refuses the rest); the files and folder after.
    for (const f of [...this.ns, this.folder]) spawnSync('umount', [f]);
    fs.rmSync(this.folder, {recursive: true, force: true});
  }
}
