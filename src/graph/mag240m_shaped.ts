// A typed graph shaped like MAG240M (OGB-LSC: papers, authors, institutions joined by cites, writes and
// affiliated_with), generated natively and seeded at any scale; scale 1 is MAG240M's size (MAG240M_COUNTS).
// Each relation is drawn with its reverse, as toUndirected makes them (cites both ways within papers;
// rev_writes, rev_affiliated_with), by wm/native_graph.h typedDraw: heavy-tailed degrees (`skew`), and a hidden
// class per paper and per author (153 classes) that citations and authorships follow with probability
// `homophily`. A paper's features are its class mean plus unit Gaussian noise, made a window of rows at a time
// when read (NativeFeatures.generated): never held whole. As in MAG240M, a small share of the papers is
// labelled, split into train / valid / test (1,112,392 / 138,949 / 146,818 at scale 1); the others are -1.
import {checkCapacity} from '../memory/capacity';
import {graphNative} from '../native/domains';
import {checkSeed, seededRng} from '../util/random';
import {classMeans} from './csbm';
import {EdgeType, HeteroGraph, HeteroRelation} from './hetero_graph';
import {NativeCsr} from './native_csr';
import {NativeFeatures} from './native_features';
import {seededPermutation} from './permutation';

/** MAG240M's counts (OGB-LSC's meta.pt and edge_index arrays, and its split). */
export const MAG240M_COUNTS = {
  paper: 121_751_666,
  author: 122_383_112,
  institution: 25_721,
  cites: 1_297_748_926,
  writes: 386_022_720,
  affiliatedWith: 44_592_586,
  classes: 153,
  train: 1_112_392,
  valid: 138_949,
  test: 146_818,
} as const;

export interface Mag240mShapedOptions {
  /** The share of MAG240M's counts (vertices, edges, split); default 1e-3. */
  scale?: number;
  /** Paper feature width; default 768 (MAG240M's). */
  dim?: number;
  /** Default 153. */
  classes?: number;
  /** The chance an edge joins vertices of one hidden class; default 0.5. */
  homophily?: number;
  /** Degree skew (1: uniform ids; larger: heavier tails); default 1.5. */
  skew?: number;
  /** Length of each class's feature mean beside unit noise per coordinate; default 1. */
  signal?: number;
  seed?: number;
}

export function mag240mShaped(o: Mag240mShapedOptions = {}): HeteroGraph {
  const what = 'mag240mShaped';
  const scale = o.scale ?? 1e-3;
  if (!(scale > 0 && scale <= 1)) throw new RangeError(`${what}: scale must be in (0, 1], got ${o.scale}`);
  const dim = o.dim ?? 768,
    classes = o.classes ?? MAG240M_COUNTS.classes;
  if (!Number.isInteger(dim) || dim < 1 || dim > 65536) throw new RangeError(`${what}: dim must be an integer in [1, 65536], got ${o.dim}`);
  if (!Number.isInteger(classes) || classes < 2 || classes > 65536)
    throw new RangeError(`${what}: classes must be an integer in [2, 65536], got ${o.classes}`);
  const homophily = o.homophily ?? 0.5,
    skew = o.skew ?? 1.5,
    signal = o.signal ?? 1;
  if (!(homophily >= 0 && homophily <= 1)) throw new RangeError(`${what}: homophily must be in [0, 1], got ${o.homophily}`);
  if (!(skew >= 1 && Number.isFinite(skew))) throw new RangeError(`${what}: skew must be a finite number >= 1, got ${o.skew}`);
  if (!(signal >= 0 && Number.isFinite(signal))) throw new RangeError(`${what}: signal must be a finite number >= 0, got ${o.signal}`);
  const seed = checkSeed(what, o.seed ?? 1) >>> 0;
  const n = (x: number) => Math.max(1, Math.round(x * scale));
  const numNodes = {paper: n(MAG240M_COUNTS.paper), author: n(MAG240M_COUNTS.author), institution: n(MAG240M_COUNTS.institution)};
  const c = MAG240M_COUNTS;
  // [edge type, source, destination, edges, homophilous, both ways within one type]
  const draws: [string, keyof typeof numNodes, keyof typeof numNodes, number, boolean][] = [
    ['cites', 'paper', 'paper', n(c.cites), true],
    ['writes', 'author', 'paper', n(c.writes), true],
    ['affiliated_with', 'author', 'institution', n(c.affiliatedWith), false],
  ];
  // Every relation at once (4 bytes an entry both ways, 8 an offset), and the largest one's edge arrays while built.
  const entries = draws.map(([, s, d, m]) => ({m: 2 * m, rows: 2 * Math.max(numNodes[s], numNodes[d])}));
  const bytes = entries.reduce((a, e) => a + 4 * e.m + 8 * e.rows, 0) + 8 * Math.max(...entries.map((e) => e.m));
  checkCapacity(`${what} (scale ${scale})`, bytes + 8 * (numNodes.paper + numNodes.author), 'host');

  const hidden = {paper: new Int32Array(numNodes.paper), author: new Int32Array(numNodes.author)};
  graphNative().hashLabels(numNodes.paper, classes, seed, hidden.paper);
  graphNative().hashLabels(numNodes.author, classes, seed + 1, hidden.author);
  const relations: HeteroRelation[] = [];
  try {
    draws.forEach(([rel, s, d, m, homophilous], k) => {
      const labels = (t: keyof typeof numNodes) => (homophilous && t !== 'institution' ? hidden[t] : null);
      const draw = (reverse: boolean, both: boolean) =>
        NativeCsr.adopt(
          graphNative().graphTypedDraw(
            numNodes[s],
            numNodes[d],
            m,
            skew,
            skew,
            homophilous ? homophily : 0,
            classes,
            seed + 7 * (k + 1),
            reverse,
            both,
            labels(s),
            labels(d),
          ),
        );
      if (s === d) {
        relations.push({type: [s, rel, d], graph: draw(false, true), numEdges: 2 * m});
      } else {
        relations.push({type: [s, rel, d], graph: draw(false, false), numEdges: m});
        const rev: EdgeType = [d, `rev_${rel}`, s];
        relations.push({type: rev, graph: draw(true, false), numEdges: m});
      }
    });
    // The labelled papers: a seeded share of them, split as MAG240M's are.
    const order = seededPermutation(numNodes.paper, seed);
    const [tr, va, te] = [n(c.train), n(c.valid), n(c.test)].map((x) => Math.min(x, numNodes.paper));
    const train = order.slice(0, tr),
      val = order.slice(tr, Math.min(numNodes.paper, tr + va)),
      test = order.slice(Math.min(numNodes.paper, tr + va), Math.min(numNodes.paper, tr + va + te));
    const labels = new Int32Array(numNodes.paper).fill(-1);
    for (const part of [train, val, test]) for (const v of part) labels[v] = hidden.paper[v];
    const means = new Float32Array(classes * dim);
    classMeans(seededRng(seed), classes, dim, signal).forEach((mean, y) => means.set(mean, y * dim));
    const papers = numNodes.paper;
    const features = NativeFeatures.generated(papers, dim, `${what} paper features`, (first, count, out) =>
      graphNative().csbmFeatures(papers, classes, 1, homophily, seed, hidden.paper, means, dim, first, count, out),
    );
    return HeteroGraph.fromRelations(numNodes, relations, {
      features: {paper: features},
      labels: {type: 'paper', labels, numClasses: classes, split: {train, val, test}},
    });
  } catch (e) {
    for (const r of relations) r.graph.free();
    throw e;
  }
}
