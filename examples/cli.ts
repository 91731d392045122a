// What the examples share: a graph folder read as an undirected graph, option parsers — a bad value stops the run with
// the option's name and the rule it broke (commander's usage error, no stack
// trace), before anything is loaded — and the backend's start.
import * as fs from 'fs';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';
import {InvalidArgumentError} from 'commander';

import * as wm from '../src/index';
import {CsrGraph} from '../src/graph/csr';
import {readEdgeList} from '../src/graph/edge_list';

/** Selects the wholememory backend; says where training runs ('GPU 0 (name)' or 'CPU') and, on the CPU, why. */
export async function startBackend(): Promise<{where: string; dev: ReturnType<typeof wm.deviceInfo>}> {
  await tf.setBackend(wm.BACKEND_NAME);
  const dev = wm.deviceInfo();
  const fallback = dev.gpu ? null : wm.installReport().fallback;
  if (fallback) console.log(`no GPU in use: ${fallback.cause} (npx tfjs-wm-doctor says more)`);
  return {where: dev.gpu ? `GPU ${dev.device} (${dev.name})` : 'CPU', dev};
}
/** A graph folder's edges.tsv (`--data`) as an undirected graph, named after the folder. */
export function undirectedGraphOf(folder: string): {name: string; graph: CsrGraph} {
  const file = path.join(folder, 'edges.tsv');
  if (!fs.existsSync(file)) throw new Error(`--data ${folder}: no edges.tsv there`);
  return {name: path.basename(path.resolve(folder)), graph: CsrGraph.fromEdges(readEdgeList(file), {symmetric: true})};
}

/** A commander parser of a number option: `name` must be `what`, which `ok` tests. */
function numberOption(name: string, what: string, ok: (x: number, text: string) => boolean): (v: string) => number {
  return (v) => {
    const x = Number(v);
    if (!ok(x, v)) throw new InvalidArgumentError(`${name} must be ${what}, got "${v}"`);
    return x;
  };
}

export const positiveInt = (name: string) => numberOption(name, 'a positive integer', (x) => Number.isInteger(x) && x > 0);
export const nonNegativeInt = (name: string) => numberOption(name, 'a non-negative integer', (x) => Number.isSafeInteger(x) && x >= 0);
export const positiveNumber = (name: string) => numberOption(name, 'a positive number', (x) => Number.isFinite(x) && x > 0);
export const nonNegativeNumber = (name: string) => numberOption(name, 'a non-negative number', (x) => Number.isFinite(x) && x >= 0);
/** A rate in [0, 1). */
export const fraction = (name: string) => numberOption(name, 'a number in [0, 1)', (x, text) => x >= 0 && x < 1 && text.trim() !== '');
