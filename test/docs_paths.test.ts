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
});
