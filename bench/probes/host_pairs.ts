// Is a slow rank slowed by its twin? Runs the host probe (bench_util's
// hostProbeUs: plain JavaScript, no GPU) in one process alone, then in two or
// more processes at once, unpinned or each pinned to one CPU, and prints each
// process's median µs. If pairs on some CPU pairs are slow and alone never is,
// the ranks compete for a core (SMT siblings, a shared cache), and binding
// ranks to CPUs apart would help; if alone is sometimes slow too, it is the host.
//   node dist/bench/probes/host_pairs.js [cpu lists, e.g. "0,16" "0,1"]
import {execFileSync, spawn} from 'child_process';

import {hostProbeUs, median} from '../bench_util';

const SECONDS = 2;

function child(): void {
  const cpu = process.env.PROBE_CPU;
  if (cpu) execFileSync('taskset', ['-a', '-p', '-c', cpu, String(process.pid)], {stdio: 'ignore'});
  const t: number[] = [];
  const end = Date.now() + SECONDS * 1000;
  while (Date.now() < end) t.push(hostProbeUs());
  process.stdout.write(`${median(t).toFixed(0)}\n`);
}

function runTogether(cpus: (string | undefined)[]): Promise<number[]> {
  return Promise.all(
    cpus.map(
      (cpu) =>
        new Promise<number>((resolve, reject) => {
          const p = spawn(process.execPath, [__filename], {env: {...process.env, PROBE_CHILD: '1', PROBE_CPU: cpu ?? ''}});
          let out = '';
          p.stdout.on('data', (d) => (out += d));
          p.on('exit', (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`probe exited with ${code}`))));
        }),
    ),
  );
}

async function main(): Promise<void> {
  const pairs = process.argv.slice(2).length ? process.argv.slice(2) : ['0,16', '0,1', '0,8', '0,31'];
  const configs: [string, (string | undefined)[]][] = [
    ['alone', [undefined]],
    ['two, unpinned', [undefined, undefined]],
    ['four, unpinned', [undefined, undefined, undefined, undefined]],
    ...pairs.map((p): [string, string[]] => [`pinned to CPUs ${p}`, p.split(',')]),
  ];
  const rows: string[] = [];
  for (let round = 1; round <= 3; ++round) {
    for (const [name, cpus] of configs) rows.push(`| ${round} | ${name} | ${(await runTogether(cpus)).join(' / ')} |`);
  }
  console.log('host probe, µs per process (median over 2 s; processes started together)');
  console.log('| round | processes | µs |\n| --- | --- | --- |');
  console.log(rows.join('\n'));
}

if (process.env.PROBE_CHILD) child();
else
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
