// `npm run test:conformance`: bundles entry.ts with tfjs-core's own specs,
// runs them against 'cpu' and 'wholememory' in one process, and prints
// `N passed, M failed` for wholememory. It fails when a spec that passes on
// 'cpu' fails on 'wholememory', unless excluded.json names it with a reason.
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

interface SpecRecord {
  backend: string;
  key: string;
  status: string;
  message?: string;
}

const root = path.resolve(__dirname, '..', '..', '..');
const outDir = path.join(root, 'dist', 'test', 'conformance');
const bundle = path.join(outDir, 'bundle.js');
const results = path.join(outDir, 'results.json');

// eslint-disable-next-line @typescript-eslint/no-var-requires
const esbuild = require('esbuild');
esbuild.buildSync({
  entryPoints: [path.join(outDir, 'entry.js')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // tfjs-core's specs only exist as ES modules: take every package's ESM
  // build so that the specs and the backend share one tfjs-core.
  mainFields: ['module', 'main'],
  // Training helpers' packages (native PNG renderer, ES-module plotting) stay outside the bundle.
  external: ['jasmine', 'esbuild', '@resvg/resvg-js', 'vega', 'vega-lite', 'cli-progress', 'commander'],
  outfile: bundle,
  // tfjs-core's package.json marks its spec files side-effect free; keep them.
  ignoreAnnotations: true,
  logLevel: 'error',
});

const started = Date.now();
const child = spawnSync(process.execPath, [bundle], {
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {...process.env, WM_CONFORMANCE_OUT: results},
});
if (!fs.existsSync(results)) {
  console.error(`conformance run produced no results (exit ${child.status}, signal ${child.signal})`);
  process.exit(1);
}
const records = JSON.parse(fs.readFileSync(results, 'utf8')) as SpecRecord[];
const excluded = JSON.parse(fs.readFileSync(path.join(root, 'test', 'conformance', 'excluded.json'), 'utf8')) as {
  spec: string;
  reason: string;
}[];
const excludedKeys = new Set(excluded.map((e) => e.spec));

const byBackend = (b: string) => new Map(records.filter((r) => r.backend === b).map((r) => [r.key, r]));
const cpu = byBackend('cpu');
const wm = byBackend('wholememory');
const count = (m: Map<string, SpecRecord>, s: string) => [...m.values()].filter((r) => r.status === s).length;

const regressions = [...wm.values()].filter(
  (r) => r.status === 'failed' && cpu.get(r.key)?.status === 'passed' && !excludedKeys.has(r.key),
);
const missing = [...cpu.values()].filter((r) => r.status === 'passed' && !wm.has(r.key));
for (const r of regressions.slice(0, 50)) console.log(`FAIL (passes on cpu): ${r.key}\n    ${r.message}`);
if (regressions.length > 50) console.log(`... and ${regressions.length - 50} more`);
// Specs some suites run only for backendName 'cpu' (e.g. switching between
// two CPU backends) have no wholememory counterpart; listed, not failed.
if (missing.length > 0) console.log(`${missing.length} cpu specs have no wholememory counterpart (cpu-only suites)`);

const secs = ((Date.now() - started) / 1000).toFixed(0);
console.log(`cpu: ${count(cpu, 'passed')} passed, ${count(cpu, 'failed')} failed`);
console.log(
  `wholememory: ${count(wm, 'passed')} passed, ${count(wm, 'failed')} failed ` +
    `(${regressions.length} pass on cpu but fail here, ${excluded.length} excluded with reasons, ${secs} s)`,
);
const ok = regressions.length === 0 && wm.size > 0;
console.log(`conformance: ${count(wm, 'passed')} passed, ${regressions.length} failed`);
process.exit(ok ? 0 : 1);
