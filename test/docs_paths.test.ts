// Every path of this repository that the documents cite exists: README, DEVELOPERS and docs/ name
// files in `backticks` (bench results, scripts, sources); a renamed or removed file fails here, not in a
// reader's hands. CHANGELOG.md tells history and may name files that are gone.
import * as fs from 'fs';
import * as path from 'path';

import {expect} from 'chai';

const root = path.resolve(__dirname, '..', '..');
const PREFIXES = ['src/', 'bench/', 'test/', 'scripts/', 'docs/', 'native/', 'examples/', 'bin/', 'data/', '.ci/'];

/** `a{b,c}d` as its expansions. */
function expandBraces(p: string): string[] {
  const m = /\{([^{}]*)\}/.exec(p);
  if (!m) return [p];
  return m[1].split(',').flatMap((alt) => expandBraces(p.slice(0, m.index) + alt + p.slice(m.index + m[0].length)));
}

/** Whether a cited path (a file, a folder, or a pattern with *) names something in the repository. */
function exists(cited: string): boolean {
  if (!cited.includes('*')) return fs.existsSync(path.join(root, cited));
  const dir = path.dirname(cited);
  if (dir.includes('*') || !fs.existsSync(path.join(root, dir))) return false;
  const re = new RegExp(
    `^${path
      .basename(cited)
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')}$`,
  );
  return fs.readdirSync(path.join(root, dir)).some((f) => re.test(f));
}

export function citedPaths(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/`([^`\s]+)`/g)) {
    const token = m[1].replace(/[.,;:]+$/, '');
    if (!PREFIXES.some((p) => token.startsWith(p))) continue;
    if (/[<>$]/.test(token)) continue; // a placeholder, not a path
    out.push(...expandBraces(token.replace(/:\d+(-\d+)?$/, '')));
  }
  return out;
}

describe('documents cite paths that exist', () => {
  const docs = ['README.md', 'DEVELOPERS.md', ...fs.readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`)];
  for (const doc of docs) {
    it(doc, () => {
      const missing = citedPaths(fs.readFileSync(path.join(root, doc), 'utf8')).filter((p) => !exists(p));
      expect(missing, `${doc} cites paths that do not exist`).to.deep.equal([]);
    });
  }
});

// The documents say what is true now; how things came to be is CHANGELOG.md's and the commit log's.
const HISTORY = [
  /What changed/,
  /\bsession \d+/i,
  /\bbefore this (change|kernel|commit)\b/i,
  /\bused to (take|be|run)\b/i,
  /\bno longer\b/i,
  /\bwas added\b/i,
  /\bpreviously\b/i,
];

describe('documents speak of the present', () => {
  const docs = ['README.md', 'DEVELOPERS.md', ...fs.readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`)];
  for (const doc of docs) {
    it(doc, () => {
      const lines = fs.readFileSync(path.join(root, doc), 'utf8').split('\n');
      const found = lines.flatMap((line, i) =>
        HISTORY.some((re) => re.test(line)) ? [`${doc}:${i + 1}: ${line.trim().slice(0, 100)}`] : [],
      );
      expect(found, `${doc} tells history (move it to CHANGELOG.md)`).to.deep.equal([]);
    });
  }
});

describe("the README's figures match the result files they cite", () => {
  it('the knowledge-graph pattern table is bench/results/kge-patterns-cpubox.json, to three places', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const result = JSON.parse(fs.readFileSync(path.join(root, 'bench', 'results', 'kge-patterns-cpubox.json'), 'utf8')) as {
      table: Record<string, Record<string, number>>;
    };
    const models = ['transE', 'distMult', 'complEx', 'rotatE'];
    for (const pattern of ['symmetric', 'inverse', 'composition', 'antisymmetric']) {
      const row = new RegExp(`^\\| ${pattern}[^|]* \\|(.*)\\|$`, 'm').exec(readme);
      expect(row, `README: no row for ${pattern}`).to.not.equal(null);
      const cells = row![1].split('|').map((c) => c.trim());
      expect(cells).to.deep.equal(models.map((m) => result.table[pattern][m].toFixed(3)));
    }
  });

  // Each row of the Performance table names its result file; its figure is computed here from that file.
  const results = (file: string) => JSON.parse(fs.readFileSync(path.join(root, 'bench', 'results', file), 'utf8'));
  const x = (r: number) => `${r.toFixed(2)}×`;
  const range = (rs: number[]) => `${x(Math.min(...rs)).slice(0, -1)}–${x(Math.max(...rs))}`;
  const thousands = (v: number) => Math.round(v).toLocaleString('en-US');
  type AllReduceRow = {dtype: string; bytes: number; auto: number};
  type AllReduce = {ours: AllReduceRow[]; torch: {results: {dtype: string; bytes: number; ncclUs: number; twoShotUs: number}[]}};
  const torchOf = (d: AllReduce, r: AllReduceRow) => d.torch.results.find((t) => t.dtype === r.dtype && t.bytes === r.bytes)!;
  const smallCells = (file: string) => {
    const d = results(file) as AllReduce;
    const rs = d.ours.filter((r) => r.bytes >= 4096 && r.bytes <= 512 << 10).map((r) => r.auto / torchOf(d, r).twoShotUs);
    return `${range(rs)} torch's two-shot (${rs.filter((r) => r <= 1).length} of ${rs.length} cells at or below)`;
  };
  const FIGURES: Record<string, () => string> = {
    'papers100m-h200-2026-12-02.json': () => {
      const d = results('papers100m-h200-2026-12-02.json');
      const ratio = (run: {runs: {features: string; seedsPerSecond: number}[]; torch: {layers: string; seedsPerSecond: number}[]}) => {
        const ours = run.runs.find((r) => r.features === 'GPU memory')!.seedsPerSecond;
        const pyg = run.torch.find((t) => t.layers === 'pyg')!.seedsPerSecond;
        return `${x(ours / pyg)} PyG's seeds/s (${thousands(ours)} / ${thousands(pyg)})`;
      };
      const epoch = (run: {runs: {epochSeconds: number}[]}) => `an epoch in ${run.runs[0].epochSeconds.toFixed(2)} s`;
      const distinct = d.uniformWithoutReplacement;
      return (
        `low-skew (uniform degrees): ${ratio(d.uniform)}, ${epoch(d.uniform)}; the same drawn without replacement ` +
        `(PyG's default): ${ratio(distinct)}, ${epoch(distinct)}; R-MAT: ${ratio(d.rmat)}`
      );
    },
    'embedding-h100-2026-11-25.json': () => {
      const d = results('embedding-h100-2026-11-25.json');
      const pick = (rows: {op: string; dim: number; dtype: string; ms: number}[]) =>
        rows.find((r) => r.op === 'gather' && r.dim === 128 && r.dtype === 'float32')!.ms;
      const [ours, torch] = [pick(d.ours), pick(d.torch.results)];
      return `${x(torch / ours)} faster (${ours.toFixed(3)} / ${torch.toFixed(3)} ms)`;
    },
    'ops-h100-2026-11-24.json': () => {
      const rows = results('ops-h100-2026-11-24.json').rows as {what: string; addUs: number}[];
      const [ours, torch] = ['wholememory', 'torch'].map((w) => rows.find((r) => r.what.startsWith(w))!.addUs);
      return `${x(ours / torch)} the time (${ours.toFixed(1)} / ${torch.toFixed(1)} µs)`;
    },
    'allreduce-2xh200-another-host-2026-11-28.json': () => {
      const d = results('allreduce-2xh200-another-host-2026-11-28.json') as AllReduce;
      const big = (dtype: string) => {
        const r = d.ours.find((o) => o.dtype === dtype && o.bytes === 64 << 20)!;
        return torchOf(d, r).ncclUs / r.auto;
      };
      return `64 MiB: ${x(big('float32'))} (float32), ${x(big('bfloat16'))} (bfloat16) NCCL's speed; 4–512 KiB: ${smallCells('allreduce-2xh200-another-host-2026-11-28.json')}`;
    },
    'allreduce-4xh200-small-2026-11-28.json': () => smallCells('allreduce-4xh200-small-2026-11-28.json'),
    'kge-h200-2026-11-30.json': () => {
      const rows = results('kge-h200-2026-11-30.json').rows as {triplesPerSecond: number; pygTriplesPerSecond?: number}[];
      return `${range(rows.filter((r) => r.pygTriplesPerSecond).map((r) => r.triplesPerSecond / r.pygTriplesPerSecond!))} PyG's triples/s`;
    },
    'graphs-h200-2026-11-29.json': () => {
      type Rates = {trainGraphsPerSecond: number; inferGraphsPerSecond: number};
      const rows = results('graphs-h200-2026-11-29.json').rows as {ours: Rates; pyg: Rates}[];
      const of = (k: keyof Rates) => range(rows.map((r) => r.ours[k] / r.pyg[k]));
      return `${of('trainGraphsPerSecond')} PyG's training graphs/s, ${of('inferGraphsPerSecond')} its inference`;
    },
    'hetero-h200x2-2026-11-30.json': () => {
      const d = results('hetero-h200x2-2026-11-30.json');
      return (
        `${x(d.oursTrainingStepsPerSecond / d.pygStepsPerSecond)} PyG's steps/s (${d.oursTrainingStepsPerSecond.toFixed(1)} / ` +
        `${d.pygStepsPerSecond.toFixed(1)}); end to end with our GPU sampling: ${x(d.oursStepsPerSecond / d.pygStepsPerSecond)}; ` +
        `R-GAT against HeteroConv(GATConv): ${x(d.rgat.trainingRatio)}`
      );
    },
  };

  it('every row of the Performance table is computed from the result file it names', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Performance'), readme.indexOf('## More'));
    const rows = table.split('\n').filter((l) => l.startsWith('|') && !/^\|\s*(benchmark|-)/.test(l));
    expect(rows.length).to.be.above(5);
    const cited = new Set<string>();
    for (const row of rows) {
      const file = /bench\/results\/([\w.-]+\.json)/.exec(row)?.[1];
      expect(file, `README row cites no result file: ${row}`).to.not.equal(undefined);
      const figure = FIGURES[file!];
      expect(figure, `README row cites ${file}, whose figure this test does not compute`).to.not.equal(undefined);
      expect(row, `README row for ${file}`).to.include(figure());
      cited.add(file!);
    }
    expect([...cited].sort()).to.deep.equal(Object.keys(FIGURES).sort());
  });

  it("the main job's table is bench/results/main-job-table-cpubox.json, to two places", () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const {rows} = results('main-job-table-cpubox.json') as {rows: {graph: string; [k: string]: unknown}[]};
    const lines = readme.split('\n');
    const header = lines.findIndex((l) => l.startsWith('| graph | chosen | ours |'));
    expect(header, 'README: the main job table').to.be.at.least(0);
    const table = lines.slice(
      header + 2,
      lines.findIndex((l, i) => i > header && !l.startsWith('|')),
    );
    expect(table.length).to.equal(rows.length);
    const cell = (v: unknown, always = false) => {
      if (!Array.isArray(v)) return '';
      const [m, s] = v as number[];
      // A baseline that does not vary over seeds (a fixed split's) is its mean alone.
      return !always && (100 * s).toFixed(2) === '0.00' ? (100 * m).toFixed(2) : `${(100 * m).toFixed(2)} ± ${(100 * s).toFixed(2)}`;
    };
    for (const r of rows) {
      const line = table.find((l) => l.startsWith(`| ${r.graph}`));
      expect(line, `README: no row for ${r.graph}`).to.not.equal(undefined);
      const cells = line!.split('|').map((c) => c.trim());
      expect(cells.slice(3, 8), r.graph).to.deep.equal([
        cell(r.ours, true),
        cell(r.labelPropagation),
        cell(r.featuresOnly),
        cell(r.sgc),
        cell(r.structureOnly),
      ]);
    }
  });
});
