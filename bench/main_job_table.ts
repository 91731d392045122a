// `npm run bench:main-job` — the README's table of the main job on a family of graphs: for each graph,
// `npm start -- <data> --seeds 5` in a fresh process, its summary (the chosen model, the test accuracy's mean and
// standard deviation, and the baselines on the same splits) read from its metrics file. Prints the table's rows.
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import {readMetrics} from '../src/train/metrics_log';
import {writeBenchResult} from './bench_util';

/** Each row: what the README calls the graph and the main job's data arguments. */
export const MAIN_JOB_ROWS: {graph: string; args: string[]}[] = [
  {graph: 'citation-like A', args: ['--citation', 'seed=1']},
  {
    graph: 'citation-like B',
    args: ['--citation', 'vertices=3327,classes=6,words=3703,wordsPerVertex=32,degree=2.8,homophily=0.74,wordSignal=0.11,seed=1'],
  },
  {graph: 'citation-like C, 15 classes', args: ['--citation', 'vertices=4000,classes=15,words=2000,homophily=0.6,wordSignal=0.2,seed=1']},
  {graph: 'CSBM, weak features', args: ['--csbm', 'vertices=2000,classes=5,features=32,homophily=0.8,signal=1,seed=1']},
  {graph: 'CSBM, heterophilous', args: ['--csbm', 'vertices=2000,classes=5,features=32,homophily=0.3,signal=2,seed=1']},
  {graph: 'CSBM, no features', args: ['--csbm', 'vertices=1000,classes=4,degree=6,homophily=0.8,seed=1']},
  {graph: 'football-like, no features', args: ['--csbm', 'vertices=115,classes=12,degree=10,homophily=0.7,seed=1']},
  {graph: 'polblogs (bundled, no features)', args: []},
];

type Summary = Record<string, number | string>;

function run(args: string[]): {summary: Summary; smoothed: boolean} {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-main-job-'));
  try {
    const main = path.resolve(__dirname, '..', 'examples', 'node-classification.js');
    const r = spawnSync(process.execPath, [main, ...args, '--seeds', '5', '--out', out], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`npm start -- ${args.join(' ')} failed (${r.status}): ${r.stdout.slice(-2000)}`);
    const records = readMetrics(path.join(out, 'metrics.jsonl'), 'bench:main-job') as Summary[];
    const summary = records.find((x) => x.type === 'summary');
    if (!summary) throw new Error(`npm start -- ${args.join(' ')} wrote no summary`);
    return {summary, smoothed: records.some((x) => x.type === 'seed' && (x as {smoothed?: boolean}).smoothed === true)};
  } finally {
    fs.rmSync(out, {recursive: true, force: true});
  }
}

function main(): void {
  const rows = MAIN_JOB_ROWS.map(({graph, args}) => {
    const started = Date.now();
    const {summary, smoothed} = run(args);
    const pair = (k: string) =>
      typeof summary[`${k}Mean`] === 'number' ? [summary[`${k}Mean`] as number, summary[`${k}Std`] as number] : undefined;
    const row = {
      graph,
      args,
      chosen: summary.chosen,
      smoothed,
      ours: pair('testAcc'),
      labelPropagation: pair('labelPropagationTestAcc'),
      featuresOnly: pair('featuresOnlyTestAcc'),
      sgc: pair('sgcTestAcc'),
      structureOnly: pair('structureOnlyTestAcc'),
      seconds: (Date.now() - started) / 1000,
    };
    console.log(JSON.stringify(row));
    return row;
  });
  writeBenchResult('main-job-table', {device: 'CPU', seeds: 5, rows});
}

main();
