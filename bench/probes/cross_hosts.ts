// What crossing hosts costs on the CPU path: examples/data-parallel.ts on two simulated hosts (network namespaces,
// test/two_hosts.ts; needs root), 2 ranks a host, polblogs with PROBE_FEATURES generated features a vertex (default
// 64: its label, noisy, and noise), trained on the features alone, the feature table in each memory that works
// across hosts: continuous (stored once per host), hierarchical (split between the hosts), hierarchical with a cache
// of half the rows and of three quarters (every row the other host holds: no read crosses), distributed. Prints each run's median epoch time (epochs 2 onwards) and its cache hit rate.
// `node dist/bench/probes/cross_hosts.js`
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import {polblogsWithFeatures} from '../../test/fixtures/polblogs_features';
import {TwoHosts} from '../../test/two_hosts';
import {median} from '../bench_util';

async function main(): Promise<void> {
  const hosts = TwoHosts.make();
  if (!(hosts instanceof TwoHosts)) throw new Error(`cross_hosts: no simulated hosts here (${hosts.why})`);
  const root = path.resolve(__dirname, '..', '..', '..');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-cross-hosts-'));
  const dim = Number(process.env.PROBE_FEATURES ?? 64);
  const epochs = Number(process.env.PROBE_EPOCHS ?? 6);
  try {
    const data = polblogsWithFeatures(dir, dim);
    const runs: [string, string[]][] = [
      ['continuous (once per host)', ['--memory', 'continuous']],
      ['hierarchical', ['--memory', 'hierarchical']],
      ['hierarchical, cache 0.5', ['--memory', 'hierarchical', '--feature-cache', '0.5']],
      ['hierarchical, cache 0.75 (no row crosses)', ['--memory', 'hierarchical', '--feature-cache', '0.75']],
      ['distributed', ['--memory', 'distributed']],
    ];
    console.log(`polblogs, ${dim} features, 4 ranks on 2 simulated hosts, batch 256, ${epochs} epochs`);
    console.log('| feature table | epoch, median s | cache hit rate | test accuracy |\n| --- | ---: | ---: | ---: |');
    let port = 29700;
    const args = [
      '--data',
      data,
      '--epochs',
      String(epochs),
      '--inputs',
      'features',
      '--batch-size',
      '256',
      '--out',
      path.join(dir, 'runs'),
    ];
    const env = hosts.rankEnv();
    const example = path.join(root, 'dist', 'examples', 'data-parallel.js');
    for (const [name, extra] of runs) {
      const [a, b] = await Promise.all(
        ([0, 1] as const).map((node) => hosts.run(node, hosts.launcherCommand(node, port, example, [...args, ...extra]), env, 600_000)),
      );
      ++port;
      if (a.status !== 0 || b.status !== 0) throw new Error(`cross_hosts: ${name} failed:\n${a.out.slice(-2000)}\n${b.out.slice(-1000)}`);
      const seconds = [...a.out.matchAll(/epoch +\d+\/\d+ .*\| ([\d.]+) s/g)].map((m) => Number(m[1])).slice(1);
      const hit = a.out.match(/hit rate ([\d.]+)/);
      const acc = a.out.match(/test accuracy ([\d.]+) %/);
      console.log(`| ${name} | ${median(seconds).toFixed(3)} | ${hit ? hit[1] : '-'} | ${acc ? acc[1] : '-'} % |`);
    }
  } finally {
    hosts.dispose();
    fs.rmSync(dir, {recursive: true, force: true});
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
