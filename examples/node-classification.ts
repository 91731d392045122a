// The main job (`npm start`): GraphSAGE (or GAT, GCN) node classification with learnable
// node embeddings on a graph folder (default: the bundled polblogs), on the
// GPU when there is one, else the CPU. Protocol as in the literature: largest
// connected component, random 10% train / 10% validation / 80% test per
// seed, test accuracy at the best validation epoch, mean over seeds.
import * as fs from 'fs';
import * as path from 'path';

import {Command, Option} from 'commander';

import * as wm from '../src/index';
import {loadDataset} from '../src/graph/dataset';
import {MetricsLog} from '../src/train/metrics_log';
import {
  checkNodeModel,
  DEFAULT_NODE_CLASSIFICATION,
  NODE_MODELS,
  NODE_SAMPLERS,
  nodeModelName,
  NodeClassificationOptions,
  trainNodeClassification,
} from '../src/train/node_classification';
import {nodeModelCandidates, searchNodeModel} from '../src/train/model_search';
import {PlotRecord, plotTrainingCurves} from '../src/train/plot';
import {EpochProgress} from '../src/train/progress';
import {DEFAULT_TYPED_NODE_CLASSIFICATION} from '../src/train/typed_node_classification';
import type {TypedFeatureStorage} from '../src/nn/typed_neighbor_loader';
import {readTypedFolder, runTyped} from './typed-node-classification';
import {runGraphs} from './graph-classification';
import {fraction, nonNegativeInt, nonNegativeNumber, positiveInt, positiveNumber, startBackend} from './cli';

const root = path.resolve(__dirname, '..', '..');
const d = DEFAULT_NODE_CLASSIFICATION;

const program = new Command()
  .name('npm start --')
  .description('Train GraphSAGE (or GAT, GCN) node classification on a graph folder (edges.tsv + vertex_value.tsv).')
  .option(
    '--data <folder>',
    'dataset folder (edges.tsv + vertex_value.tsv, an ogbn-* folder, a TU or ogbg-* folder) or an SD file of molecules (.sdf)',
    path.join(root, 'data', 'polblogs'),
  )
  .option(
    '--csbm <spec>',
    'train on a generated contextual SBM instead, e.g. vertices=2000,classes=10,degree=10,homophily=0.8,features=0,signal=1,seed=1',
  )
  .option(
    '--hetero-csbm [spec]',
    'train on a generated typed graph whose labels depend on the relation (R-GCN, the flattened graph and the features alone), e.g. papers=2000,authors=500,classes=4,dim=16,signal=0.3,degree=4,seed=1',
  )
  .option(
    '--graphs [spec]',
    'graph classification on generated graphs whose class is their random-graph family (GIN, GCN, GraphSAGE with pooling, k-fold), e.g. ' +
      'graphs=600,classes=3,minVertices=12,maxVertices=30,degree=4,noise=2,signal=0,seed=1; --data also takes a TU folder (<NAME>_A.txt, ...)',
  )
  .option('--folds <n>', 'graph classification: folds of the cross-validation', positiveInt('--folds'), 10)
  .option('--regression', 'graph data: the labels are values to predict (read so anyway where one is not a class id)', false)
  .option('--target <field>', "an SD file's data item holding each molecule's target (default: the one item it has)")
  .option(
    '--citation [spec]',
    'train on a generated citation-like graph instead (bag-of-words features, 20 labels per class / 500 / 1000), e.g. ' +
      'vertices=2708,classes=7,words=1433,wordsPerVertex=18,wordSignal=0.16,degree=3.9,homophily=0.8,seed=1',
  )
  .addOption(
    new Option(
      '--model <kind>',
      'sage (GraphSAGE, mean aggregator), gat (graph attention) or gcn (graph convolution); gat and gcn use compact subgraphs',
    )
      .choices(NODE_MODELS)
      .default(d.model),
  )
  .option('--heads <n>', 'attention heads of a GAT hidden layer (they split --hidden)', positiveInt('--heads'), d.heads)
  .option('--seeds <n>', 'number of random splits/seeds', positiveInt('--seeds'), 5)
  .option('--epochs <n>', 'epochs per seed', positiveInt('--epochs'), d.epochs)
  .option('--batch-size <n>', 'seed vertices per step', positiveInt('--batch-size'), d.batchSize)
  .option('--fanouts <list>', 'neighbours sampled per layer', (v) => v.split(',').map(positiveInt('--fanouts')), d.fanouts)
  .addOption(
    new Option(
      '--sampler <kind>',
      "tree (each seed's neighbourhood apart) or subgraph (unique-and-relabel: one compact subgraph per batch)",
    )
      .choices(NODE_SAMPLERS)
      .default(d.sampler),
  )
  .option('--dim <n>', 'embedding width', positiveInt('--dim'), d.embeddingDim)
  .option('--hidden <n>', 'hidden width', positiveInt('--hidden'), d.hiddenDim)
  .option('--lr <x>', 'Adam learning rate of the dense layers', positiveNumber('--lr'), d.learningRate)
  .option('--dropout <x>', 'dropout rate before each layer', fraction('--dropout'), d.dropout)
  .option('--weight-decay <x>', 'L2 weight decay of the dense projections', nonNegativeNumber('--weight-decay'), d.weightDecay)
  .option('--full-batch', 'one step per epoch over the whole graph (full neighbourhoods), as the GCN paper trains')
  .option(
    '--patience <n>',
    'stop a seed after this many epochs without a better validation accuracy (0: never)',
    nonNegativeInt('--patience'),
    0,
  )
  .option('--normalize-features', "scale each vertex's features to sum to 1 (bag-of-words preprocessing)")
  .option('--emb-lr <x>', 'learning rate of the embedding table (sparse lazy Adam)', positiveNumber('--emb-lr'), d.embeddingLearningRate)
  .option('--memory <kind>', 'where the embedding table lives: device, host, continuous, chunked (default: device with a GPU, else host)')
  .addOption(
    new Option(
      '--inputs <kind>',
      'what the first layer reads: features, embeddings, both, or structure (features computed from the graph); default: chosen on validation',
    ).choices(['features', 'embeddings', 'both', 'structure']),
  )
  .addOption(
    new Option('--feature-dtype <dtype>', 'storage of the feature table').choices(['float32', 'float16', 'bfloat16']).default('float32'),
  )
  .option(
    '--feature-cache <share>',
    'with --memory host or managed on a GPU: the share of the feature rows kept in a GPU cache, highest degree first',
    fraction('--feature-cache'),
  )
  .option('--no-search', 'train the options as given instead of choosing the model on the validation split')
  .option('--search-seconds <n>', 'time budget of the model choice', positiveNumber('--search-seconds'), 180)
  .option(
    '--eval-every <n>',
    'typed graphs: validation accuracy every n epochs, drawn beside the loss (default: ten times a run on graphs up to 1M edges, else at the end only)',
    nonNegativeInt('--eval-every'),
  )
  .option('--no-smooth', "report the model's own predictions, not smoothed over the graph with the training labels")
  .option('--save <folder>', "save the first seed's model (its best validation epoch) there; npm run predict reads it")
  .option('--out <folder>', 'where metrics.jsonl and the plots go', path.join(process.cwd(), 'runs', 'node-classification'))
  .parse();

/** `key=value,…` of numbers, each key one of `known`; `flag` names the option in errors. */
function numericSpec(flag: string, spec: string, known: string[], defaults: Record<string, number> = {}): Record<string, number> {
  const o: Record<string, number> = {...defaults};
  for (const part of spec.split(',').filter((p) => p.trim() !== '')) {
    const [k, v] = part.split('=').map((s) => s.trim());
    if (!known.includes(k)) throw new Error(`${flag}: unknown key "${k}" (known: ${known.join(', ')})`);
    if (v === undefined || !Number.isFinite(Number(v))) throw new Error(`${flag}: ${k} needs a number, got "${v}"`);
    o[k] = Number(v);
  }
  return o;
}

const CSBM_KEYS = ['vertices', 'classes', 'features', 'degree', 'homophily', 'signal', 'seed'];
const CITATION_KEYS = [
  'vertices',
  'classes',
  'words',
  'wordsPerVertex',
  'wordSignal',
  'topicShare',
  'degree',
  'homophily',
  'labelsPerClass',
  'validation',
  'test',
  'seed',
];

async function dataFrom(o: Record<string, string | boolean | undefined>) {
  if (typeof o.csbm === 'string')
    return wm.graph.csbm(numericSpec('--csbm', o.csbm, CSBM_KEYS, {vertices: 2000, classes: 10}) as unknown as wm.graph.CsbmOptions);
  if (o.citation !== undefined)
    return wm.graph.citationGraph(numericSpec('--citation', typeof o.citation === 'string' ? o.citation : '', CITATION_KEYS));
  return loadDataset(o.data as string);
}

// Command-line keys and the training options they set.
const OPTION_KEYS: [string, keyof NodeClassificationOptions][] = [
  ['model', 'model'],
  ['heads', 'heads'],
  ['epochs', 'epochs'],
  ['batchSize', 'batchSize'],
  ['fanouts', 'fanouts'],
  ['sampler', 'sampler'],
  ['dim', 'embeddingDim'],
  ['hidden', 'hiddenDim'],
  ['lr', 'learningRate'],
  ['embLr', 'embeddingLearningRate'],
  ['dropout', 'dropout'],
  ['weightDecay', 'weightDecay'],
  ['fullBatch', 'fullBatch'],
  ['patience', 'patience'],
  ['normalizeFeatures', 'normalizeFeatures'],
  ['memory', 'embeddingMemory'],
  ['inputs', 'inputs'],
  ['featureDtype', 'featureDtype'],
  ['featureCache', 'featureCache'],
  ['smooth', 'smooth'],
];

/** A typed graph's feature storage from --memory, --feature-dtype and --feature-cache (undefined: the defaults). */
function typedFeatureStorage(o: Record<string, unknown>): TypedFeatureStorage | undefined {
  const given =
    program.getOptionValueSource('memory') === 'cli' ||
    program.getOptionValueSource('featureDtype') === 'cli' ||
    o.featureCache !== undefined;
  if (!given) return undefined;
  return {
    memory: o.memory as TypedFeatureStorage['memory'],
    dtype: program.getOptionValueSource('featureDtype') === 'cli' ? (o.featureDtype as TypedFeatureStorage['dtype']) : undefined,
    cache: o.featureCache as number | undefined,
  };
}

/** The training options the command line sets (those for which `keep` holds). */
function trainingOptions(o: Record<string, unknown>, keep: (key: string) => boolean = () => true): Partial<NodeClassificationOptions> {
  const out: Record<string, unknown> = {};
  for (const [cli, key] of OPTION_KEYS) {
    if (o[cli] === undefined || !keep(cli)) continue;
    out[key] = cli === 'smooth' ? (o.smooth ? 'auto' : false) : o[cli];
  }
  return out as Partial<NodeClassificationOptions>;
}

const HETERO_CSBM_KEYS = ['papers', 'authors', 'classes', 'dim', 'signal', 'degree', 'seed'];

/** A typed graph to train on: --hetero-csbm, or a folder in OGB's heterogeneous layout (its relations made two-way). */
async function typedData(
  o: Record<string, string | boolean | undefined>,
): Promise<{graph: wm.graph.HeteroGraph; name: string} | undefined> {
  if (o.heteroCsbm !== undefined)
    return {
      graph: wm.graph.heteroCsbm(numericSpec('--hetero-csbm', typeof o.heteroCsbm === 'string' ? o.heteroCsbm : '', HETERO_CSBM_KEYS)),
      name: 'a generated typed graph',
    };
  const folder = o.data as string;
  const graph = await readTypedFolder(folder);
  return graph && {graph, name: path.basename(path.resolve(folder))};
}

/** Ten validation points a run where a pass over the whole graph is cheap (up to 1M edges), else none before the end. */
function defaultEvalEvery(g: wm.graph.HeteroGraph, epochs = DEFAULT_TYPED_NODE_CLASSIFICATION.epochs): number {
  const edges = g.edgeTypes.reduce((a, t) => a + g.relation(t).numEdges, 0);
  return edges <= 1e6 ? Math.max(1, Math.round(epochs / 10)) : 0;
}

const GRAPH_KEYS = ['graphs', 'classes', 'minVertices', 'maxVertices', 'degree', 'noise', 'signal', 'seed'];

/** Graph classification data: --graphs (generated), or as --data a TU folder, an OGB graph property folder or an SD file. */
async function graphData(
  o: Record<string, string | boolean | undefined>,
): Promise<{graphs: wm.graph.SmallGraph[]; numClasses: number; name: string; split?: wm.graph.Split; regression?: boolean} | undefined> {
  if (o.graphs !== undefined) {
    const spec = numericSpec('--graphs', typeof o.graphs === 'string' ? o.graphs : '', GRAPH_KEYS);
    return {...wm.graph.graphFamilies(spec), name: 'generated graph families'};
  }
  const folder = o.data as string;
  if (/\.sdf(\.gz)?$/i.test(folder)) {
    return wm.graph.readSdf(folder, {regression: o.regression === true, ...(typeof o.target === 'string' ? {label: o.target} : {})});
  }
  if (fs.existsSync(path.join(folder, 'raw', 'graph-label.csv.gz'))) {
    return wm.graph.readOgbGraphs(folder, undefined, {regression: o.regression === true});
  }
  const isTu =
    fs.existsSync(folder) &&
    fs.statSync(folder).isDirectory() &&
    fs.readdirSync(folder).some((f) => /_graph_indicator\.txt(\.gz)?$/.test(f));
  if (!isTu) return undefined;
  const tu = await wm.graph.readTuDataset(folder);
  return {graphs: tu.graphs, numClasses: tu.numClasses, name: tu.name};
}

async function main(): Promise<void> {
  const o = program.opts();
  const graphs = await graphData(o);
  if (graphs) {
    const {where} = await startBackend();
    const cli = (k: string) => program.getOptionValueSource(k) === 'cli';
    await runGraphs(graphs, where, {
      out: cli('out') ? o.out : path.join(process.cwd(), 'runs', 'graph-classification'),
      search: o.search,
      options: {
        folds: o.folds,
        ...(cli('epochs') ? {epochs: o.epochs} : {}),
        ...(cli('hidden') ? {hiddenDim: o.hidden} : {}),
        ...(cli('lr') ? {learningRate: o.lr} : {}),
        ...(cli('dropout') ? {dropout: o.dropout} : {}),
        ...(cli('batchSize') ? {batchSize: o.batchSize} : {}),
      },
    });
    return;
  }
  const typed = await typedData(o);
  if (typed) {
    const {where} = await startBackend();
    try {
      await runTyped(typed.graph, typed.name, where, {
        seeds: o.seeds,
        out: o.out,
        save: o.save,
        data: o.heteroCsbm === undefined ? path.resolve(o.data) : undefined,
        options: {
          epochs: program.getOptionValueSource('epochs') === 'cli' ? o.epochs : undefined,
          hidden: o.hidden,
          fanouts: o.fanouts,
          learningRate: o.lr,
          // On a typed graph, --inputs embeddings gives each type without features a learnable row per vertex.
          featurelessInputs: o.inputs === 'embeddings' ? 'embeddings' : undefined,
          // --memory, --feature-dtype and --feature-cache keep every type's features as they keep a graph's.
          features: typedFeatureStorage(o),
          evalEvery: o.evalEvery ?? defaultEvalEvery(typed.graph, program.getOptionValueSource('epochs') === 'cli' ? o.epochs : undefined),
        },
      });
    } finally {
      typed.graph.free();
    }
    return;
  }
  checkNodeModel(o.model, o.sampler);
  if (o.model === 'gat' && o.hidden % o.heads !== 0) throw new Error(`--heads (${o.heads}) must divide --hidden (${o.hidden})`);
  const {where, dev} = await startBackend();
  const data = await dataFrom(o);
  console.log(
    `${data.name}: ${data.split ? 'fixed split, ' : ''}${data.graph.numVertices} vertices, ${data.graph.numEdges / 2} edges, ` +
      `${data.numClasses} classes${data.features ? `, ${data.features.dim} features` : ''}; training on ${where}`,
  );
  if (data.component && data.component.kept < data.component.of) {
    console.log(
      `the largest connected component: ${data.component.kept} of the ${data.component.of} vertices; the other ` +
        `${data.component.of - data.component.kept} are in no split and get no prediction (a fixed split in split/ keeps every vertex)`,
    );
  }
  const log = new MetricsLog(path.join(o.out, 'metrics.jsonl'));
  const started = Date.now();
  // Every option as the command line has it (defaults included), and those the user gave.
  const all = trainingOptions(o);
  const given = trainingOptions(o, (k) => program.getOptionValueSource(k) === 'cli');
  let chosen: Partial<NodeClassificationOptions> = {};
  let chosenName: string | undefined;
  if (o.search && given.model === undefined && given.inputs === undefined) {
    console.log(`choosing the model on the validation splits of seeds 0 and 1 (at most ${o.searchSeconds} s; --no-search to skip):`);
    const search = await searchNodeModel(
      data,
      {...all, ...given},
      {
        budgetSeconds: o.searchSeconds,
        candidates: nodeModelCandidates(data).map((c) => ({...c, options: {...c.options, ...given}})),
        onResult: (r) =>
          console.log(
            `  ${r.candidate.name.padEnd(58)} ` +
              (r.skipped
                ? `skipped: ${r.skipped}`
                : `validation ${(100 * r.valAcc!).toFixed(1)} %${r.smoothed ? ' (smoothed)' : ''}  ${r.seconds.toFixed(1)} s`),
          ),
      },
    );
    chosen = search.chosen.options;
    chosenName = search.chosen.name;
    console.log(`chosen: ${chosenName} (the best validation accuracy)`);
    log.write({type: 'search', results: search.results.map((r) => ({...r, candidate: r.candidate.name})), chosen: chosenName});
  }
  const run = {...all, ...chosen, ...given};
  const results = [];
  const progress = new EpochProgress(o.seeds * run.epochs!, 'training');
  for (let seed = 0; seed < o.seeds; ++seed) {
    const r = await trainNodeClassification(
      data,
      {
        ...run,
        seed,
        ...(o.save && seed === 0 ? {saveTo: o.save, dataLocation: o.csbm || o.citation ? undefined : path.resolve(o.data)} : {}),
      },
      (m) => {
        log.write({type: 'epoch', ...m});
        progress.tick(
          `seed ${seed} epoch ${String(m.epoch).padStart(3)}/${run.epochs} loss ${m.loss.toFixed(4)} ` +
            `train ${m.trainAcc.toFixed(3)} val ${m.valAcc.toFixed(3)}`,
          // Full-batch: every training vertex is a step's output, so the rate counts them.
          `${Math.round(m.seedsPerSecond)} ${run.fullBatch ? 'training vertices' : 'seeds'}/s` +
            (m.cache ? ` | cache hits ${(100 * m.cache.hitRate).toFixed(1)} %` : ''),
        );
      },
    );
    results.push(r);
    // Each seed's result as it finishes: a long run says how it goes before the summary.
    console.log(
      `seed ${seed}: test ${(100 * r.testAcc).toFixed(1)} % (validation ${(100 * r.valAcc).toFixed(1)} %, best epoch ${r.bestEpoch}` +
        `${r.smoothed ? `; smoothed: the model alone ${(100 * r.modelTestAcc).toFixed(1)} %` : ''})`,
    );
    log.write({
      type: 'seed',
      seed,
      bestEpoch: r.bestEpoch,
      valAcc: r.valAcc,
      testAcc: r.testAcc,
      modelTestAcc: r.modelTestAcc,
      smoothed: r.smoothed,
      baselines: r.baselines,
    });
  }
  progress.stop();
  const meanStd = (xs: number[]) => {
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    return [mean, Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length)];
  };
  const pct = ([m, s]: number[]) => `${(100 * m).toFixed(2)} ± ${(100 * s).toFixed(2)} %`;
  const accs = results.map((r) => r.testAcc);
  const [mean, std] = meanStd(accs);
  const own = meanStd(results.map((r) => r.modelTestAcc));
  const lp = meanStd(results.map((r) => r.baselines.labelPropagation.test));
  const fo = data.features ? meanStd(results.map((r) => r.baselines.featuresOnly!.test)) : undefined;
  const sg = data.features ? meanStd(results.map((r) => r.baselines.sgc!.test)) : undefined;
  const so = data.features ? undefined : meanStd(results.map((r) => r.baselines.structureOnly!.test));
  const seconds = (Date.now() - started) / 1000;
  log.write({
    type: 'summary',
    dataset: data.name,
    device: where,
    seeds: accs.length,
    testAccMean: mean,
    testAccStd: std,
    labelPropagationTestAccMean: lp[0],
    labelPropagationTestAccStd: lp[1],
    ...(fo ? {featuresOnlyTestAccMean: fo[0], featuresOnlyTestAccStd: fo[1], sgcTestAccMean: sg![0], sgcTestAccStd: sg![1]} : {}),
    ...(so ? {structureOnlyTestAccMean: so[0], structureOnlyTestAccStd: so[1]} : {}),
    chosen: chosenName,
    seconds,
  });
  const plots = await plotTrainingCurves(
    results.flatMap((r) => r.history) as unknown as PlotRecord[],
    path.join(o.out, 'metrics'),
    `${nodeModelName(run.model!)} on ${data.name} (${dev.gpu ? dev.name : 'CPU'})`,
    undefined,
    undefined,
    log,
  );
  // Smoothing uses the training labels: the headline says so, so nobody compares it with a plain model's figure unawares.
  const smoothed = results.filter((r) => r.smoothed).length;
  const how = smoothed
    ? `the model's predictions smoothed over the graph with the training labels${smoothed < accs.length ? ` on ${smoothed} of ${accs.length} seeds` : ''}, ` +
      `as validation chose; without smoothing: ${pct(own)}`
    : 'the model, unsmoothed: smoothing did not help on validation';
  console.log(
    `test accuracy ${(100 * mean).toFixed(2)} ± ${(100 * std).toFixed(2)} % over ${accs.length} seeds, ${chosenName ?? nodeModelName(run.model!)} ` +
      `(${how}; ${seconds.toFixed(1)} s on ${where})`,
  );
  console.log(
    `baselines, same splits: label propagation ${pct(lp)}` +
      (fo
        ? `; nearest class mean on the features alone ${pct(fo)}; SGC (features propagated twice + logistic regression) ${pct(sg!)}`
        : '') +
      (so ? `; nearest class mean on the graph's structure features ${pct(so)}` : ''),
  );
  console.log(`metrics: ${log.file}\nplots: ${plots.join(', ')}`);
  if (o.save) console.log(`model (seed 0, best validation epoch): ${o.save}`);
}

main().catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});
