// Knowledge-graph embeddings (`npm run kge`): trains transE, distMult, complEx or rotatE on a folder of
// the benchmarks' triple files (train.txt, valid.txt, test.txt: head<TAB>relation<TAB>tail; WN18RR,
// FB15k-237 and DGL-KE's folders read as they ship), or on a generated graph with planted relation
// patterns, on the GPU when there is one, else the CPU. Each epoch's loss and rate (and the filtered
// validation MRR every --eval-every epochs) go to metrics.jsonl and a plot; the test split is ranked at
// the end (filtered MRR, mean rank, Hits@1/3/10, both sides); the model is saved with its name maps.
// Under the launcher (node dist/bin/tfjs-wm-run.js -n 2 dist/examples/kge.js) the ranks share both tables in
// WholeMemory (continuous unless --memory says otherwise): each step's batch shared out, the updates applied
// together at the rows' owners.
//   npm run kge -- --data DIR --model rotate
//   npm run kge -- --model runs/kge --query "head relation ?"     (or "? relation tail")
import * as path from 'path';

import {Command, InvalidArgumentError} from 'commander';

import * as wm from '../src/index';
import {freebaseShapedKg, patternedKg} from '../src/graph/kg_patterns';
import {readLines} from '../src/data/lines';
import {readLaunchEnv} from '../src/memory/launch_env';
import {KnowledgeGraph, readKnowledgeGraph, tripleCount, tripleFields} from '../src/graph/triples';
import {readsAreCollective} from '../src/nn/embedding';
import {KGE_MODELS, KgeModelName} from '../src/nn/kge/kge_model';
import {DEFAULT_KGE, KgeEpoch, trainKge} from '../src/train/kge';
import {evaluateKge} from '../src/train/kge_ranking';
import {loadKgeModel, saveKgeModel, topCandidates} from '../src/train/kge_saved';
import {MetricsLog} from '../src/train/metrics_log';
import {plotTrainingCurves, PlotRecord} from '../src/train/plot';
import {EpochProgress} from '../src/train/progress';
import {nonNegativeInt, nonNegativeNumber, positiveInt, positiveNumber, startBackend} from './cli';

const d = DEFAULT_KGE;
// How long the other ranks wait for rank 0's own work (ranking, saving).
const LEAD_WORK_MS = 2 * 3600_000;

function choice<T extends string>(name: string, allowed: readonly T[]): (v: string) => T {
  return (v) => {
    const hit = allowed.find((a) => a.toLowerCase() === v.toLowerCase());
    if (!hit) throw new InvalidArgumentError(`${name} must be one of ${allowed.join(', ')}, got "${v}"`);
    return hit;
  };
}

const program = new Command()
  .name('npm run kge --')
  .description(
    'Knowledge-graph embeddings: train on a folder of triples (or a generated graph), rank the test split, save; or query a saved model.',
  )
  .option(
    '--data <folder>',
    'a folder with train.txt, valid.txt, test.txt (or .tsv; gzip too) (default: a generated graph with planted relation patterns)',
  )
  .option(
    '--freebase-shaped <fraction>',
    'instead of --data: a generated graph shaped like Freebase at that fraction of its size (1: 86M entities, 14,824 relations, 338M triples; Zipf relations, heavy-tailed degrees)',
    positiveNumber('--freebase-shaped'),
  )
  .option(
    '--model <name|folder>',
    `the model to train (${KGE_MODELS.join(', ')}; case ignored), or with --query the folder of a saved model`,
    d.model,
  )
  .option(
    '--query <text>',
    "a saved model's top candidates: 'head relation ?' or '? relation tail' (names as in the data; tabs between the three where a name holds spaces)",
  )
  .option(
    '--predict <file>',
    "with a saved model (--model): each line of the file as a triple file's ('head relation tail' scored, 'head relation ?' or '? relation tail' answered with --top candidates), written as head<TAB>relation<TAB>tail<TAB>score lines",
  )
  .option('--top <k>', 'candidates a query prints', positiveInt('--top'), 10)
  .option('--dim <n>', 'embedding dimension (complex numbers for complEx and rotatE)', positiveInt('--dim'), d.dim)
  .option('--margin <x>', "gamma of transE and rotatE: score = margin - distance (default: the model's)", nonNegativeNumber('--margin'))
  .option('--epochs <n>', 'epochs', positiveInt('--epochs'), d.epochs)
  .option('--batch-size <n>', 'positive triples per step', positiveInt('--batch-size'), d.batchSize)
  .option('--negatives <n>', 'negative entities per chunk', positiveInt('--negatives'), d.negatives)
  .option('--chunk-size <n>', 'positives sharing one set of negatives', positiveInt('--chunk-size'), d.chunkSize)
  .option(
    '--negative-distribution <kind>',
    'uniform or degree',
    choice('--negative-distribution', ['uniform', 'degree'] as const),
    d.negativeDistribution,
  )
  .option('--loss <kind>', 'logistic or margin', choice('--loss', ['logistic', 'margin'] as const), d.loss)
  .option(
    '--adversarial-temperature <x>',
    'self-adversarial temperature of the logistic loss (0: negatives weigh alike)',
    nonNegativeNumber('--adversarial-temperature'),
    d.adversarialTemperature,
  )
  .option('--regularization <kind>', 'none, l2 or n3', choice('--regularization', ['none', 'l2', 'n3'] as const), d.regularization)
  .option('--regularization-weight <x>', 'weight of the regularizer', nonNegativeNumber('--regularization-weight'), d.regularizationWeight)
  .option(
    '--optimizer <kind>',
    'adam, adagrad, rowAdagrad (one state per entity) or sgd (sparse: only the rows a step touched; --lr multiplies ' +
      "the batch's mean gradient, so it wants far larger rates, 3 to 100 by model on generated graphs, and it learns " +
      'far less than adagrad: docs/api.md)',
    choice('--optimizer', ['adam', 'adagrad', 'rowAdagrad', 'sgd'] as const),
    d.optimizer,
  )
  .option('--lr <x>', 'learning rate', positiveNumber('--lr'), d.learningRate)
  .option('--eval-every <n>', 'filtered validation MRR every n epochs (0: never)', nonNegativeInt('--eval-every'), 10)
  .option('--eval-triples <n>', 'validation triples ranked each time (a seeded sample)', positiveInt('--eval-triples'), d.evalTriples)
  .option(
    '--memory <kind>',
    "where the tables live: device, host, managed, continuous, chunked, distributed (each rank its share of the rows), hierarchical (split between hosts, shared within each); under the launcher the ranks share each step's batch out, its updates applied together at each row's owner (default: device with a GPU, else host; continuous under the launcher)",
  )
  .option(
    '--dtype <type>',
    "the tables' storage: float32, float16 or bfloat16 (arithmetic in float32)",
    choice('--dtype', ['float32', 'float16', 'bfloat16'] as const),
    'float32',
  )
  .option('--no-save', 'do not save the trained model (tables of millions of rows take gigabytes)')
  .option('--checkpoint <folder>', 'save both tables with their optimizer state there every --checkpoint-every epochs')
  .option('--checkpoint-every <n>', 'epochs between checkpoints', positiveInt('--checkpoint-every'), 1)
  .option('--resume', "continue after the newest checkpoint in --checkpoint's folder (the same model and options)")
  .option('--seed <n>', 'seed of the initial values, shuffles and negatives', nonNegativeInt('--seed'), d.seed)
  .option('--out <folder>', 'where metrics.jsonl, the plot and the saved model go', path.join(process.cwd(), 'runs', 'kge'))
  .parse();

const o = program.opts();

// Freebase's shape (DGL-KE's full set) at a fraction of its size, with 1,000 validation and test triples.
function freebaseShaped(fraction: number, seed: number): KnowledgeGraph {
  if (!(fraction <= 1)) throw new Error(`--freebase-shaped must be a fraction in (0, 1], got ${fraction}`);
  return freebaseShapedKg({
    entities: Math.max(2, Math.round(86054151 * fraction)),
    relations: Math.max(1, Math.min(14824, Math.round(14824 * fraction * 100))),
    triples: Math.max(1, Math.round(338586276 * fraction)),
    validTriples: 1000,
    testTriples: 1000,
    seed,
  });
}

/** The id of `name` in a saved model's names, or an error naming where it was asked (`where`) and the file it is not in. */
function idIn(ids: Map<string, number>, name: string, noun: 'entity' | 'relation', where: string): number {
  const id = ids.get(name);
  if (id === undefined)
    throw new Error(`${where}: ${noun} '${name}' is not in the saved model's ${noun === 'entity' ? 'entities.tsv' : 'relations.tsv'}`);
  return id;
}

async function query(): Promise<void> {
  const {where} = await startBackend();
  const {model, entityNames, relationNames} = await loadKgeModel(o.model);
  // As a line of the triple files: tab-separated where names hold spaces ("New York<TAB>located in<TAB>?").
  const parts = tripleFields(String(o.query));
  if (parts.length !== 3 || (parts[0] === '?') === (parts[2] === '?'))
    throw new Error(`--query must be 'head relation ?' or '? relation tail', got "${o.query}"`);
  const side = parts[2] === '?' ? 'tail' : 'head';
  const fixedName = side === 'tail' ? parts[0] : parts[2];
  const fixed = idIn(entityNames.idsOf([fixedName]), fixedName, 'entity', '--query');
  const rel = idIn(relationNames.idsOf([parts[1]]), parts[1], 'relation', '--query');
  const top = topCandidates(model, fixed, rel, side, o.top);
  console.log(`${model.name} on ${where}: the ${top.ids.length} best ${side}s of ${o.query}`);
  top.ids.forEach((id, i) =>
    console.log(`${String(i + 1).padStart(3)}  ${top.scores[i].toFixed(4).padStart(10)}  ${entityNames.name(id)}`),
  );
  model.dispose();
}

// Triples scored a block at a time.
const SCORE_BLOCK = 1 << 16;

/** --predict: every line's names resolved first (a name the model lacks refused by file and line), then answered in order. */
async function predict(): Promise<void> {
  await startBackend();
  const file = String(o.predict);
  const lines: {lineNo: number; parts: string[]}[] = [];
  for await (const {line, lineNo} of readLines(file)) {
    if (line.trim() === '') continue;
    const parts = tripleFields(line);
    if (parts.length !== 3 || parts[1] === '?' || (parts[0] === '?' && parts[2] === '?'))
      throw new Error(
        `${file}:${lineNo}: a line must be 'head relation tail', 'head relation ?' or '? relation tail', got "${line.trim()}"`,
      );
    lines.push({lineNo, parts});
  }
  const {model, entityNames, relationNames} = await loadKgeModel(o.model);
  try {
    const ents = entityNames.idsOf(lines.flatMap((l) => [l.parts[0], l.parts[2]]).filter((n) => n !== '?'));
    const rels = relationNames.idsOf(lines.map((l) => l.parts[1]));
    const ids = lines.map(({lineNo, parts}) => {
      const at = `${file}:${lineNo}`;
      const entity = (n: string) => (n === '?' ? -1 : idIn(ents, n, 'entity', at));
      return [entity(parts[0]), idIn(rels, parts[1], 'relation', at), entity(parts[2])];
    });
    // The complete triples' scores, in blocks.
    const full = ids.flatMap((t, i) => (t[0] >= 0 && t[2] >= 0 ? [i] : []));
    const scores = new Map<number, number>();
    for (let b = 0; b < full.length; b += SCORE_BLOCK) {
      const block = full.slice(b, b + SCORE_BLOCK);
      const s = model.score(
        block.map((i) => ids[i][0]),
        block.map((i) => ids[i][1]),
        block.map((i) => ids[i][2]),
      );
      s.dataSync().forEach((v, k) => scores.set(block[k], v));
      s.dispose();
    }
    const out = (h: string, r: string, t: string, score: number) => process.stdout.write(`${h}\t${r}\t${t}\t${score.toFixed(6)}\n`);
    process.stdout.write('head\trelation\ttail\tscore\n');
    lines.forEach(({parts}, i) => {
      const [h, r, t] = ids[i];
      if (h >= 0 && t >= 0) return out(parts[0], parts[1], parts[2], scores.get(i)!);
      const side = t < 0 ? 'tail' : 'head';
      const top = topCandidates(model, side === 'tail' ? h : t, r, side, o.top);
      top.ids.forEach((id, k) =>
        side === 'tail'
          ? out(parts[0], parts[1], entityNames.name(id), top.scores[k])
          : out(entityNames.name(id), parts[1], parts[2], top.scores[k]),
      );
    });
  } finally {
    model.dispose();
  }
}

async function train(): Promise<void> {
  const model = choice('--model', KGE_MODELS)(o.model) as KgeModelName;
  const {where} = await startBackend();
  // Under the launcher (tfjs-wm-run -n N) the ranks share both tables in WholeMemory and each step's batch.
  const comm = readLaunchEnv() ? wm.communicatorFromEnv() : undefined;
  const lead = (comm?.rank ?? 0) === 0;
  const memory = o.memory ?? (comm ? 'continuous' : undefined);
  // Reads of 'distributed' and 'hierarchical' tables are collectives: every rank ranks (the validation sample each
  // epoch, the test split at the end) and reads the rows saved; rank 0 reports and writes.
  const collective = comm !== undefined && comm.size > 1 && readsAreCollective(memory);
  if (o.data && o.freebaseShaped) throw new Error('--data and --freebase-shaped: give one');
  const kg: KnowledgeGraph = o.data
    ? await readKnowledgeGraph(o.data, {onProgress: (line) => lead && console.log(`${o.data}: ${line}`)})
    : o.freebaseShaped
      ? freebaseShaped(o.freebaseShaped, o.seed)
      : patternedKg({entities: 2000, pairs: 1500, seed: o.seed});
  const name = o.data
    ? path.basename(path.resolve(o.data))
    : o.freebaseShaped
      ? `a Freebase-shaped graph (x ${o.freebaseShaped})`
      : 'a generated graph with planted patterns';
  const ranks = comm ? `, ${comm.size} ranks sharing ${memory} tables` : '';
  if (lead)
    console.log(
      `${name}: ${kg.numEntities} entities, ${kg.numRelations} relations, ${tripleCount(kg.train)} / ${tripleCount(kg.valid)} / ${tripleCount(kg.test)} triples; ${model} (dim ${o.dim}) on ${where}${ranks}`,
    );
  const log = lead ? new MetricsLog(path.join(o.out, 'metrics.jsonl'), {append: !!o.resume}) : undefined;
  const progress = lead ? new EpochProgress(o.epochs, `kge ${model}`) : undefined;
  const history: PlotRecord[] = [];
  const started = Date.now();
  const options = {
    model,
    dim: o.dim,
    margin: o.margin,
    epochs: o.epochs,
    batchSize: o.batchSize,
    negatives: o.negatives,
    chunkSize: o.chunkSize,
    negativeDistribution: o.negativeDistribution,
    loss: o.loss,
    adversarialTemperature: o.adversarialTemperature,
    regularization: o.regularization,
    regularizationWeight: o.regularizationWeight,
    optimizer: o.optimizer,
    learningRate: o.lr,
    evalEvery: lead || collective ? o.evalEvery : 0,
    leadWorkMs: LEAD_WORK_MS,
    evalTriples: o.evalTriples,
    memory,
    dtype: o.dtype,
    seed: o.seed,
  };
  if (o.resume && !o.checkpoint) throw new Error('--resume needs --checkpoint <folder>');
  const checkpoint = o.checkpoint ? {dir: path.resolve(o.checkpoint), every: o.checkpointEvery, resume: !!o.resume} : undefined;
  const {model: m} = await trainKge(kg, {...options, checkpoint, communicator: comm}, (e: KgeEpoch) => {
    if (!lead) return;
    if (history.length === 0 && e.epoch > 1) {
      // Resumed from a checkpoint: the log keeps the epochs before it, and the plot draws them too.
      progress!.resumeAfter(e.epoch - 1);
      for (const r of log!.retain((r) => r.type === 'epoch' && Number(r.epoch) < e.epoch))
        history.push({
          seed: o.seed,
          epoch: Number(r.epoch),
          loss: Number(r.loss),
          ...(r.validMrr !== undefined ? {validMrr: Number(r.validMrr), validHits10: Number(r.validHits10)} : {}),
        });
    }
    log!.write({type: 'epoch', seed: o.seed, ...e, valid: undefined, validMrr: e.valid?.mrr, validHits10: e.valid?.hits10});
    history.push({seed: o.seed, epoch: e.epoch, loss: e.loss, ...(e.valid ? {validMrr: e.valid.mrr, validHits10: e.valid.hits10} : {})});
    const v =
      (e.valid ? ` | valid MRR ${e.valid.mrr.toFixed(3)}, Hits@10 ${e.valid.hits10.toFixed(3)}` : '') +
      (e.skippedGradients ? ` | ${e.skippedGradients} NaN or infinite gradient elements skipped (lower --lr?)` : '');
    progress!.tick(
      `epoch ${e.epoch}: loss ${e.loss.toFixed(4)}${v}`,
      `${Math.round(e.triplesPerSecond).toLocaleString('en-US')} triples/s`,
    );
  });
  progress?.stop();
  const seconds = (Date.now() - started) / 1000;
  if (!lead && collective) {
    if (tripleCount(kg.test) > 0) evaluateKge(m, kg.test, {filter: [kg.train, kg.valid, kg.test]});
    if (o.save) saveKgeModel(m, o.out, kg, undefined, {writer: false});
  }
  if (lead) {
    const test = tripleCount(kg.test) > 0 ? evaluateKge(m, kg.test, {filter: [kg.train, kg.valid, kg.test]}) : undefined;
    log!.write({type: 'summary', model, seconds, device: where, ranks: comm?.size ?? 1, test});
    const plots = await plotTrainingCurves(
      history,
      path.join(o.out, 'metrics'),
      `${model} on ${name}`,
      {validMrr: 'validation MRR', validHits10: 'validation Hits@10'},
      'filtered ranking',
      log,
    );
    if (o.save) saveKgeModel(m, o.out, kg, {options, test, data: o.data ?? null});
    if (test)
      console.log(
        `test (filtered, both sides, ${test.queries} queries): MRR ${test.mrr.toFixed(4)}, mean rank ${test.meanRank.toFixed(1)}, Hits@1 ${test.hits1.toFixed(4)}, Hits@3 ${test.hits3.toFixed(4)}, Hits@10 ${test.hits10.toFixed(4)}`,
      );
    console.log(
      `${seconds.toFixed(1)} s on ${where}\nmetrics: ${log!.file}\nplots: ${plots.join(', ')}` +
        (o.save ? `\nmodel: ${o.out} (kge.json, entity.npy, relation.npy, entities.tsv, relations.tsv)` : ''),
    );
  }
  // The tables are shared: none is freed while rank 0 still ranks the test split and saves (minutes on tables
  // of tens of millions of rows; should rank 0 fail, the launcher ends the others).
  comm?.barrier(LEAD_WORK_MS);
  m.dispose();
  comm?.destroy();
}

(o.query && o.predict
  ? Promise.reject(new Error('--query and --predict: give one'))
  : o.query
    ? query()
    : o.predict
      ? predict()
      : train()
).catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});
