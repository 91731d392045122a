// Helpers shared by the benchmarks: the median of synchronised repetitions
// after warm-up, and results collected from ranks started by the launcher.
import {execSync, spawnSync} from 'child_process';
import * as fs from 'fs';
import * as inspector from 'inspector/promises';
import * as os from 'os';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';

/**
 * A loader's batches epoch after epoch, one per call: a benchmark's steps run on past an epoch's end
 * (each epoch a new order; the loader samples the next batch while the caller trains on this one).
 */
export function batchesOf<B>(loader: AsyncIterable<B>): () => Promise<B> {
  let it = loader[Symbol.asyncIterator]();
  return async () => {
    for (;;) {
      const r = await it.next();
      if (!r.done) return r.value;
      it = loader[Symbol.asyncIterator]();
    }
  };
}

/** Per step of a profiled run: wall ms (an event pair per op), the GPU ops' summed ms, each op's calls and ms. */
export interface StepProfile {
  msPerStep: number;
  gpuOpMsPerStep: number;
  ops: {name: string; where: string; callsPerStep: number; msPerStep: number}[];
}

/** `run` (which makes `steps` steps) under wm.profileOps, per step; the ops the costliest first. */
/**
 * Runs `run` under V8's CPU profiler when BENCH_CPU_PROFILE names a folder, writing `<name>.cpuprofile` there (open it
 * in Chrome's DevTools): where the JavaScript of a step spends its time, which wm.profileOps (native ops) does not show.
 */
export async function withCpuProfile<T>(name: string, run: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return run();
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const {profile} = await session.post('Profiler.stop');
    fs.mkdirSync(dir, {recursive: true});
    fs.writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

export async function profileSteps(steps: number, run: () => Promise<void>): Promise<StepProfile> {
  const p = await wm.profileOps(run);
  const ops = p.ops.map((o) => ({name: o.name, where: o.where, callsPerStep: o.calls / steps, msPerStep: o.ms / steps}));
  const gpuOpMsPerStep = ops.filter((o) => o.where === 'gpu').reduce((a, o) => a + o.msPerStep, 0);
  return {msPerStep: p.wallMs / steps, gpuOpMsPerStep, ops};
}

/** A profile's twelve costliest ops for a log line, ms per step each, the host's marked. */
export function costliestOps(p: StepProfile): string {
  return p.ops
    .slice(0, 12)
    .map((o) => `${o.name} ${o.msPerStep.toFixed(2)}${o.where === 'cpu' ? ' (cpu)' : ''}`)
    .join(', ');
}

/** A positive integer setting from the environment (fallback when unset); a bad value names the variable. */
export function envPositiveInt(name: string, fallback: number): number {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer, got ${process.env[name]}`);
  return v;
}

/** BENCH_MATMUL_PRECISION: the matmul precisions (wm.setMatmulPrecision) a bench runs, a comma list; default 'highest'. */
export function envMatmulPrecisions(): wm.MatmulPrecision[] {
  const v = (process.env.BENCH_MATMUL_PRECISION ?? 'highest').split(',').filter((x) => x !== '');
  const bad = v.filter((x) => !(wm.MATMUL_PRECISIONS as readonly string[]).includes(x));
  if (v.length === 0 || bad.length)
    throw new RangeError(
      `BENCH_MATMUL_PRECISION must be a comma list of ${wm.MATMUL_PRECISIONS.join(', ')}, got '${process.env.BENCH_MATMUL_PRECISION}'`,
    );
  return v as wm.MatmulPrecision[];
}

/**
 * The one matmul precision a bench runs with (BENCH_MATMUL_PRECISION, default 'highest'), set here; the PyTorch side
 * reads the same variable (torch.set_float32_matmul_precision), so both sides round their products alike.
 */
export function setBenchMatmulPrecision(): wm.MatmulPrecision {
  const p = envMatmulPrecisions();
  if (p.length !== 1)
    throw new RangeError(`BENCH_MATMUL_PRECISION: this bench runs one precision, got '${process.env.BENCH_MATMUL_PRECISION}'`);
  wm.setMatmulPrecision(p[0]);
  return p[0];
}

/** One of `choices` from the environment variable `name`, else `fallback`. */
export function envChoice<T extends string>(name: string, choices: readonly T[], fallback: T): T {
  const v = process.env[name] ?? fallback;
  if (!(choices as readonly string[]).includes(v)) throw new RangeError(`${name} must be one of ${choices.join(', ')}, got ${v}`);
  return v as T;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median wall time of fn in ms, the GPU synchronised around each repetition. */
export function timeMs(fn: () => void, reps = 20, warm = 3): number {
  for (let i = 0; i < warm; ++i) fn();
  wm.synchronize();
  const t: number[] = [];
  for (let i = 0; i < reps; ++i) {
    const t0 = process.hrtime.bigint();
    fn();
    wm.synchronize();
    t.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(t);
}

/** timeMs of a call that makes tensors: each call's tensors, intermediates included, freed after it. */
export function timeTensorsMs(fn: () => tf.Tensor | tf.Tensor[], reps = 20, warm = 3): number {
  return timeMs(() => tf.dispose(tf.tidy(fn)), reps, warm);
}

/**
 * µs per call of fn, called back to back in 9 windows of `reps` (median), after `warm` calls; and the
 * host's share, the time to queue a window's calls (no wait inside a window: the GPU queue holds it),
 * so host ~ total says the host is the limit; and each window's µs per call, in order. beforeWindow: e.g. a
 * barrier, so ranks start together.
 */
export function callWindowsUs(
  fn: () => void,
  reps: number,
  warm: number,
  beforeWindow?: () => void,
): {us: number; hostUs: number; windowsUs: number[]} {
  for (let i = 0; i < warm; ++i) fn();
  const times: number[] = [],
    host: number[] = [];
  for (let k = 0; k < 9; ++k) {
    beforeWindow?.();
    wm.synchronize();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < reps; ++i) fn();
    const t1 = process.hrtime.bigint();
    wm.synchronize();
    times.push(Number(process.hrtime.bigint() - t0) / 1e3 / reps);
    host.push(Number(t1 - t0) / 1e3 / reps);
  }
  return {us: median(times), hostUs: median(host), windowsUs: times};
}

/**
 * µs for a fixed piece of plain JavaScript (fill and sort 65,536 doubles; median of 7): how fast this
 * process's host is. On the shared GPU hosts a whole process is sometimes ~1.5x slower than its twin
 * (a small tf.add 8.3-8.9 µs of host time in some processes, 13.0-13.6 in others, on either GPU),
 * and a data-parallel step then runs at the slow rank's pace: this tells such a run apart.
 */
export function hostProbeUs(): number {
  const a = new Float64Array(65536);
  const t: number[] = [];
  for (let r = 0; r < 7; ++r) {
    let x = 12345 + r;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < a.length; ++i) {
      x = (Math.imul(x, 1103515245) + 12345) | 0;
      a[i] = x;
    }
    a.sort();
    t.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
  return median(t);
}

/**
 * `name`="0-15;16-31": rank i on the i-th CPU list (taskset), every thread of it; with `mainThread`, its
 * JavaScript thread alone (threads it starts later inherit the list: call it once the backend and the
 * communicator are up, so the driver's and the pools' threads keep the whole machine).
 */
export function pinFromEnv(name: string, which: 'process' | 'mainThread' = 'process'): void {
  const lists = process.env[name];
  if (!lists) return;
  const list = lists.split(';')[Number(process.env.LOCAL_RANK ?? process.env.RANK ?? 0)];
  if (list) execSync(`taskset ${which === 'process' ? '-a ' : ''}-p -c ${list} ${process.pid}`, {stdio: 'ignore'});
}

/**
 * Runs `script` on n ranks under tfjs-wm-run and returns the JSON its rank 0
 * printed after `marker` (throws with the ranks' output when there is none).
 * `env`: variables the ranks get on top of this process's; `echo`: which lines
 * of the ranks' output to print here (each rank's profile, say).
 */
export function resultOnRanks<T>(
  n: number,
  script: string,
  marker: string,
  opts: {env?: NodeJS.ProcessEnv; echo?: (line: string) => boolean} = {},
): T {
  const root = path.resolve(__dirname, '..', '..');
  const r = spawnSync(process.execPath, [path.join(root, 'dist', 'bin', 'tfjs-wm-run.js'), '-n', String(n), script], {
    encoding: 'utf8',
    env: {...process.env, ...opts.env},
  });
  const out = (r.stdout || '') + (r.stderr || '');
  if (opts.echo) for (const line of out.split('\n').filter(opts.echo)) console.log(line);
  return resultIn<T>(out, marker, `${n} ranks (status ${r.status})`);
}

/** The JSON after `marker` on the first line of `out` that holds it; thrown, naming `who`, where none does. */
export function resultIn<T>(out: string, marker: string, who: string): T {
  const line = out.split('\n').find((l) => l.includes(marker));
  // Thrown, not exited: the caller's cleanup (a graph file in shared memory, say) still runs.
  if (!line) throw new Error(`${who} gave no result:\n${out}`);
  return JSON.parse(line.slice(line.indexOf(marker) + marker.length)) as T;
}

/** In a process the launcher started (RANK set) runs `rank`, else `main` (which starts the ranks). */
export function rankOrMain(rank: () => Promise<void>, main: () => void): void {
  if (process.env.RANK === undefined) {
    main();
    return;
  }
  rank().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}

/** Writes a benchmark's record, dated, to BENCH_OUT or runs/bench/<name>.json, and says where. */
export function writeBenchResult(name: string, record: object): void {
  const out = process.env.BENCH_OUT ?? path.join(path.resolve(__dirname, '..', '..'), 'runs', 'bench', `${name}.json`);
  fs.mkdirSync(path.dirname(out), {recursive: true});
  fs.writeFileSync(out, JSON.stringify({date: new Date().toISOString(), ...record}, null, 2));
  console.log(`wrote ${out}`);
}

/** torchJson with `files` (name -> contents) written to a temporary folder first, passed as its first argument, removed after. */
export function torchJsonWithFiles<T>(script: string, files: Record<string, ArrayBufferView>, args: string[]): T | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-'));
  try {
    for (const [name, data] of Object.entries(files))
      fs.writeFileSync(path.join(dir, name), Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    return torchJson<T>(script, [dir, ...args]);
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }
}

/** Runs bench/torch/<script> with args and parses the JSON line it prints last (`RESULT ` before it or not); undefined (and says why) if it fails. */
export function torchJson<T>(script: string, args: string[]): T | undefined {
  const root = path.resolve(__dirname, '..', '..');
  const r = spawnSync('python3', [path.join(root, 'bench', 'torch', script), ...args], {encoding: 'utf8'});
  if (r.status !== 0) {
    console.log(`(PyTorch side not run: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()})`);
    return undefined;
  }
  // Scripts that print several results mark them `RESULT {json}`; the others print the JSON alone.
  return JSON.parse(
    r.stdout
      .trim()
      .split('\n')
      .pop()!
      .replace(/^RESULT /, ''),
  ) as T;
}

/**
 * BENCH_CPU_PROFILE=<dir>: starts a V8 CPU profile (100 µs samples) of this process and returns
 * the function that stops it and writes `<dir>/<name>.cpuprofile` (where the host's time goes;
 * Node refuses --cpu-prof in NODE_OPTIONS, and ranks are started by the launcher). Without it, a no-op.
 */
export async function cpuProfileFromEnv(name: string): Promise<() => Promise<void>> {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return async () => {};
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', {interval: 100});
  await session.post('Profiler.start');
  return async () => {
    const {profile} = await session.post('Profiler.stop');
    fs.mkdirSync(dir, {recursive: true});
    fs.writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}
