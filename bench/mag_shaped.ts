// A typed graph shaped like ogbn-mag (bench:hetero's and its probes'): ogbn-mag's types and counts (736,389
// papers, 1,134,649 authors, 8,740 institutions, 59,965 fields of study), its four relations at their sizes
// drawn uniformly and seeded, every relation made two-way (about 42M edges), 128 float32 features on
// papers (their class's mean plus noise), 349 classes, 85 % of the papers for training and 5 % for
// validation; `scale` shrinks every count.
import {EdgeType, HeteroGraph, TypedEdges} from '../src/graph/hetero_graph';
import {seededRng} from '../src/util/random';

export function magShaped(scale: number): HeteroGraph {
  const n = (x: number) => Math.max(1, Math.round(x * scale));
  const numNodes = {paper: n(736389), author: n(1134649), institution: n(8740), field_of_study: n(59965)};
  const rng = seededRng(1);
  const edges = (m: number, ns: number, nd: number): TypedEdges => ({
    src: Int32Array.from({length: m}, () => Math.floor(rng() * ns)),
    dst: Int32Array.from({length: m}, () => Math.floor(rng() * nd)),
  });
  const rel: [EdgeType, number][] = [
    [['paper', 'cites', 'paper'], n(5416271)],
    [['author', 'writes', 'paper'], n(7145660)],
    [['author', 'affiliated_with', 'institution'], n(1043998)],
    [['paper', 'has_topic', 'field_of_study'], n(7505078)],
  ];
  const dim = 128,
    classes = 349;
  // A paper's features: its class's mean plus as much uniform noise, so its class can be learned (accuracy
  // is compared beside PyG's) but not read off one paper alone.
  const labels = Int32Array.from({length: numNodes.paper}, () => Math.floor(rng() * classes));
  const means = Float32Array.from({length: classes * dim}, () => rng() * 2 - 1);
  const values = Float32Array.from(
    {length: numNodes.paper * dim},
    (_, i) => means[labels[Math.floor(i / dim)] * dim + (i % dim)] + 2 * (rng() * 2 - 1),
  );
  const papers = numNodes.paper;
  const [train, val] = [
    [0, Math.floor(papers * 0.85)],
    [Math.floor(papers * 0.85), Math.floor(papers * 0.9)],
  ].map(([a, b]) => Int32Array.from({length: b - a}, (_, i) => a + i));
  const g = HeteroGraph.fromEdges(
    numNodes,
    rel.map(([type, m]) => ({
      type,
      edges: edges(m, numNodes[type[0] as keyof typeof numNodes], numNodes[type[2] as keyof typeof numNodes]),
    })),
    {
      features: {paper: {values, dim}},
      labels: {type: 'paper', labels, numClasses: classes, split: {train, val, test: new Int32Array(0)}},
    },
  );
  const u = g.toUndirected();
  g.free();
  return u;
}
