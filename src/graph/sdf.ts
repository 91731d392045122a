// Molecules from an SD file (.sdf, .sdf.gz: molfiles, V2000 or V3000, each followed by its `> <name>` data
// items and `$$$$`) as graphs: a vertex per atom, an edge per bond, with OGB's molecule feature columns
// (ogbg-mol*'s node-feat / edge-feat), so a model reads an SD file as it reads an OGB folder. The records are
// split and their data items read here, line by line; each molfile's chemistry (rings, aromaticity, hydrogens,
// stereo parities) is perceived by openchemlib (npm `openchemlib`, the cheminformatics library of
// cheminfo.org, BSD-3-Clause, pure JavaScript, loaded on the first call). The graphs are kept in the binary
// cache (graph_cache.ts), so a large file is perceived once.
//
// Atom columns (integer categories): atomic number - 1, chirality (none, parity 1, parity 2, other), total
// degree (heavy neighbours and hydrogens), formal charge + 5, hydrogens, radical electrons, hybridisation
// (sp, sp2, sp3, other: from the atom's pi electrons), aromatic, in a ring. Bond columns: type (single, double,
// triple, aromatic, other), stereo (none, Z, E, other), conjugated (aromatic, or joining two atoms with pi
// electrons next to a third). Columns past each list's end take its last value, as OGB's `safe_index` does.
import * as path from 'path';

import {readLines} from '../data/lines';
import type {GraphDataset, SmallGraph} from './graph_batch';
import {throughGraphCache} from './graph_cache';

export interface SdfOptions {
  /** The data item holding each molecule's target; default: the one item every record has, where there is one. */
  label?: string;
  /** Read the targets as values (a regression), also when they are non-negative integers. Default: as class ids when they all are. */
  regression?: boolean;
  /** The dataset's name; default the file's name without its extensions. */
  name?: string;
  /**
   * The binary cache, as loadDataset's: true keeps it in `.wmcache/` beside the file when its folder is yours and
   * no one else may write in it, else in the user's cache; a string names the place; false never caches.
   * Default: files of 64 MiB or more.
   */
  cache?: boolean | string;
  /** What the reader is doing: the cache read, or not used (and why), or written. */
  onProgress?: (line: string) => void;
}

/** OGB's atom and bond feature widths. */
export const SDF_ATOM_COLUMNS = 9;
export const SDF_BOND_COLUMNS = 3;

interface OclMolecule {
  ensureHelperArrays(level: number): void;
  getAllAtoms(): number;
  getAllBonds(): number;
  getAtomicNo(a: number): number;
  getAtomParity(a: number): number;
  getConnAtoms(a: number): number;
  getConnAtom(a: number, i: number): number;
  getAllHydrogens(a: number): number;
  getAtomCharge(a: number): number;
  getAtomRadical(a: number): number;
  getAtomPi(a: number): number;
  isAromaticAtom(a: number): boolean;
  isRingAtom(a: number): boolean;
  getBondAtom(end: number, b: number): number;
  getBondOrder(b: number): number;
  isAromaticBond(b: number): boolean;
  getBondParity(b: number): number;
}
interface Ocl {
  Molecule: {
    fromMolfile(molfile: string): OclMolecule;
    cHelperRings: number;
    cAtomRadicalStateD: number;
    cAtomRadicalStateS: number;
    cAtomRadicalStateT: number;
    cAtomRadicalState: number;
    cBondParityEor1: number;
    cBondParityZor2: number;
    cBondParityNone: number;
    cAtomParity1: number;
    cAtomParity2: number;
    cAtomParityNone: number;
  };
}

let ocl: Ocl | undefined;
function openchemlib(): Ocl {
  if (!ocl) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      ocl = require('openchemlib') as Ocl;
    } catch (e) {
      throw new Error(
        `readSdf: loading openchemlib (an ES module, which Node ${process.versions.node} must load through require; Node 20.19 or later does): ${(e as Error).message}`,
      );
    }
  }
  return ocl;
}

const clamp = (x: number, last: number) => Math.max(0, Math.min(x, last));

function atomColumns(m: OclMolecule, a: number, out: Float32Array, at: number, O: Ocl['Molecule']): void {
  const parity = m.getAtomParity(a);
  const radical = m.getAtomRadical(a) & O.cAtomRadicalState;
  const pi = m.getAtomPi(a);
  const hydrogens = m.getAllHydrogens(a);
  const heavy = m.getConnAtoms(a);
  out[at] = clamp(m.getAtomicNo(a) - 1, 118);
  out[at + 1] = parity === O.cAtomParityNone ? 0 : parity === O.cAtomParity1 ? 1 : parity === O.cAtomParity2 ? 2 : 3;
  out[at + 2] = clamp(heavy + hydrogens, 11);
  out[at + 3] = clamp(m.getAtomCharge(a) + 5, 11);
  out[at + 4] = clamp(hydrogens, 9);
  out[at + 5] = radical === O.cAtomRadicalStateD ? 1 : radical === O.cAtomRadicalStateS || radical === O.cAtomRadicalStateT ? 2 : 0;
  out[at + 6] = heavy + hydrogens === 0 ? 5 : pi === 2 ? 0 : pi === 1 ? 1 : pi === 0 ? 2 : 5;
  out[at + 7] = m.isAromaticAtom(a) ? 1 : 0;
  out[at + 8] = m.isRingAtom(a) ? 1 : 0;
}

// Whether atom `a` has a neighbour other than `not` with pi electrons or is aromatic (a conjugation's next link).
function piNeighbour(m: OclMolecule, a: number, not: number): boolean {
  for (let i = 0; i < m.getConnAtoms(a); ++i) {
    const n = m.getConnAtom(a, i);
    if (n !== not && (m.getAtomPi(n) > 0 || m.isAromaticAtom(n))) return true;
  }
  return false;
}

function bondColumns(m: OclMolecule, b: number, out: Float32Array, at: number, O: Ocl['Molecule']): void {
  const u = m.getBondAtom(0, b),
    v = m.getBondAtom(1, b);
  const aromatic = m.isAromaticBond(b);
  const order = m.getBondOrder(b);
  const parity = m.getBondParity(b);
  out[at] = aromatic ? 3 : order >= 1 && order <= 3 ? order - 1 : 4;
  out[at + 1] = parity === O.cBondParityNone ? 0 : parity === O.cBondParityZor2 ? 1 : parity === O.cBondParityEor1 ? 2 : 5;
  const piBoth = m.getAtomPi(u) > 0 && m.getAtomPi(v) > 0;
  out[at + 2] = aromatic || (piBoth && (order === 1 || piNeighbour(m, u, v) || piNeighbour(m, v, u))) ? 1 : 0;
}

interface SdfRecord {
  molfile: string;
  items: Map<string, string>;
  /** The record's first line in the file (1-based). */
  line: number;
}

async function* sdfRecords(file: string): AsyncGenerator<SdfRecord> {
  let mol: string[] = [];
  let items = new Map<string, string>();
  let inMolfile = true,
    start = 1,
    item: string | undefined,
    itemLines: string[] = [];
  const endItem = () => {
    if (item !== undefined) items.set(item, itemLines.join('\n').trim());
    item = undefined;
    itemLines = [];
  };
  for await (const {line, lineNo} of readLines(file)) {
    const text = line.replace(/\r$/, '');
    if (text.startsWith('$$$$')) {
      endItem();
      if (inMolfile) throw new Error(`${file}:${lineNo}: the record that starts at line ${start} ends before its molfile's "M  END"`);
      yield {molfile: mol.join('\n'), items, line: start};
      mol = [];
      items = new Map();
      inMolfile = true;
      start = lineNo + 1;
      continue;
    }
    if (inMolfile) {
      mol.push(text);
      if (text.startsWith('M  END')) inMolfile = false;
      continue;
    }
    if (text.startsWith('>')) {
      endItem();
      const name = /<([^>]*)>/.exec(text);
      if (!name) throw new Error(`${file}:${lineNo}: a data item's header names no field in <...>: ${JSON.stringify(text)}`);
      item = name[1];
    } else if (item !== undefined) {
      if (text.trim() === '') endItem();
      else itemLines.push(text);
    }
  }
  endItem();
  // A last record without its `$$$$` still counts; blank lines after the last one do not.
  if (!inMolfile) yield {molfile: mol.join('\n'), items, line: start};
  else if (mol.some((l) => l.trim() !== ''))
    throw new Error(`${file}: the record that starts at line ${start} ends before its molfile's "M  END"`);
}

/** The molecules of an SD file as graphs with OGB's molecule features and one target each (see the file comment). */
export async function readSdf(file: string, o: SdfOptions = {}): Promise<GraphDataset> {
  return throughGraphCache({
    what: 'readSdf',
    folder: path.dirname(file),
    files: [path.basename(file)],
    source: file,
    options: {reader: 'sdf', label: o.label ?? null, regression: o.regression === true, name: o.name ?? null},
    cache: o.cache,
    onProgress: o.onProgress,
    parse: () => parseSdf(file, o),
  });
}

async function parseSdf(file: string, o: SdfOptions): Promise<GraphDataset> {
  const O = openchemlib().Molecule;
  const graphs: SmallGraph[] = [];
  let label = o.label;
  for await (const r of sdfRecords(file)) {
    let m: OclMolecule;
    try {
      m = O.fromMolfile(r.molfile);
      m.ensureHelperArrays(O.cHelperRings);
    } catch (e) {
      throw new Error(`${file}:${r.line}: the molfile of molecule ${graphs.length} is not readable: ${(e as Error).message ?? e}`);
    }
    if (label === undefined) {
      const firstFields = [...r.items.keys()];
      if (firstFields.length !== 1)
        throw new Error(
          `readSdf: ${file}'s first molecule has ${firstFields.length} data items (${firstFields.join(', ') || 'none'}): name the target with label (the main job's --target)`,
        );
      label = firstFields[0];
    }
    const text = r.items.get(label);
    if (text === undefined) throw new Error(`${file}:${r.line}: molecule ${graphs.length} has no data item <${label}>`);
    const y = Number(text);
    if (text === '' || !Number.isFinite(y))
      throw new Error(`${file}:${r.line}: <${label}> is ${JSON.stringify(text)}, not a finite number`);
    // Atoms kept by openchemlib as atoms (explicit hydrogens included) are vertices; bonds edges.
    const n = m.getAllAtoms(),
      e = m.getAllBonds();
    const features = new Float32Array(n * SDF_ATOM_COLUMNS),
      edgeFeatures = new Float32Array(e * SDF_BOND_COLUMNS);
    const src = new Int32Array(e),
      dst = new Int32Array(e);
    for (let a = 0; a < n; ++a) atomColumns(m, a, features, a * SDF_ATOM_COLUMNS, O);
    for (let b = 0; b < e; ++b) {
      src[b] = m.getBondAtom(0, b);
      dst[b] = m.getBondAtom(1, b);
      bondColumns(m, b, edgeFeatures, b * SDF_BOND_COLUMNS, O);
    }
    graphs.push({numVertices: n, src, dst, features, edgeFeatures, label: y});
  }
  if (graphs.length === 0) throw new Error(`readSdf: ${file} holds no molecule`);
  const values = graphs.map((g) => g.label!);
  const regression = o.regression === true || values.some((y) => !(Number.isInteger(y) && y >= 0 && y < 2 ** 31));
  const numClasses = regression
    ? 1
    : Math.max(
        2,
        values.reduce((a, y) => Math.max(a, y + 1), 0),
      );
  const name = o.name ?? path.basename(file).replace(/\.sdf(\.gz)?$/i, '');
  return {name, graphs, numClasses, dim: SDF_ATOM_COLUMNS, edgeDim: SDF_BOND_COLUMNS, regression};
}
