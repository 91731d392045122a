// Runs tfjs-core's own test suite (shipped in its npm package) against the
// 'cpu' and 'wholememory' backends in one jasmine run, and writes each
// spec's result per backend to the file named by $WM_CONFORMANCE_OUT.
// This file is bundled by run.ts (tfjs-core's specs are ES modules).
import * as fs from 'fs';

import * as tf from '@tensorflow/tfjs-core';
// eslint-disable-next-line @typescript-eslint/ban-ts-comment
// @ts-ignore: tfjs-core ships no typings for its test helpers' deep path in CommonJS form
import {setTestEnvs} from '@tensorflow/tfjs-core/dist/jasmine_util';

import '../../src/index';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const Jasmine = require('jasmine');

interface SpecRecord {
  backend: string;
  key: string;
  status: string;
  message?: string;
}

const backends = (process.env.WM_CONFORMANCE_BACKENDS ?? 'cpu,wholememory').split(',');
setTestEnvs(backends.map((name) => ({name, backendName: name, flags: {}, isDataSync: true})));

const runner = new Jasmine();
runner.loadConfig({spec_files: [], random: false});
runner.exitOnCompletion = false;
const records: SpecRecord[] = [];
const grep = process.env.WM_CONFORMANCE_GREP;
const jenv = (
  globalThis as unknown as {
    jasmine: {
      getEnv(): {
        configure(c: object): void;
        addReporter(r: object): void;
      };
    };
  }
).jasmine.getEnv();
if (grep) jenv.configure({specFilter: (spec: {getFullName(): string}) => spec.getFullName().includes(grep)});
let done = 0;
jenv.addReporter({
  specDone(r: {fullName: string; status: string; failedExpectations: {message: string}[]}) {
    // Nested describeWithFlags repeat the env token; the innermost one ran.
    let backend = tf.getBackend();
    let at = -1;
    for (const b of backends) {
      const i = r.fullName.lastIndexOf(` ${b} {`);
      if (i > at) [at, backend] = [i, b];
    }
    let key = r.fullName;
    for (const b of backends) key = key.split(` ${b} {`).join(' {');
    const rec: SpecRecord = {backend, key, status: r.status};
    if (r.status === 'failed')
      rec.message = r.failedExpectations
        .map((f) => f.message)
        .join(' | ')
        .slice(0, 500);
    records.push(rec);
    if (++done % 2000 === 0) process.stderr.write(`  ${done} specs...\n`);
  },
  jasmineDone() {
    fs.writeFileSync(process.env.WM_CONFORMANCE_OUT ?? 'conformance.json', JSON.stringify(records));
  },
});

// eslint-disable-next-line @typescript-eslint/no-var-requires
require('@tensorflow/tfjs-core/dist/tests');
runner.execute();
