// float32 values to float16 bits on worker threads (src/data/npy's float32ToFloat16, a slice per thread): what a
// bench writing a float16 .npy of billions of values spends its time on when one thread converts.
import * as os from 'os';
import * as path from 'path';
import {Worker} from 'worker_threads';

const SOURCE = `
const {parentPort, workerData} = require('worker_threads');
const {float32ToFloat16} = require(workerData.npy);
const input = new Float32Array(workerData.input), output = new Uint16Array(workerData.output);
parentPort.on('message', ({from, to}) => {
  float32ToFloat16(input.subarray(from, to), output.subarray(from, to));
  parentPort.postMessage(to - from);
});`;

/** Converts up to `capacity` values at a time on `threads` workers; close() ends them. */
export class Float16Workers {
  private readonly input: Float32Array;
  private readonly output: Uint16Array;
  private readonly workers: Worker[];

  constructor(
    readonly capacity: number,
    threads = Math.max(1, os.cpus().length - 1),
  ) {
    if (!(Number.isInteger(capacity) && capacity >= 1))
      throw new RangeError(`Float16Workers: capacity must be a positive integer, got ${capacity}`);
    const input = new SharedArrayBuffer(4 * capacity),
      output = new SharedArrayBuffer(2 * capacity);
    this.input = new Float32Array(input);
    this.output = new Uint16Array(output);
    const npy = path.join(__dirname, '..', 'src', 'data', 'npy.js');
    this.workers = Array.from({length: threads}, () => new Worker(SOURCE, {eval: true, workerData: {npy, input, output}}));
  }

  /** The float16 bits of `values` (a view of this pool's buffer: valid until the next call). */
  async convert(values: Float32Array): Promise<Uint16Array> {
    const n = values.length;
    if (n > this.capacity) throw new RangeError(`Float16Workers.convert: ${n} values, the pool holds ${this.capacity}`);
    this.input.set(values);
    const share = Math.ceil(n / this.workers.length);
    await Promise.all(
      this.workers.map((w, i) => {
        const from = Math.min(n, i * share),
          to = Math.min(n, from + share);
        if (from === to) return Promise.resolve();
        return new Promise<void>((resolve, reject) => {
          const done = (): void => {
            w.off('error', failed);
            resolve();
          };
          const failed = (e: Error): void => {
            w.off('message', done);
            reject(e);
          };
          w.once('message', done);
          w.once('error', failed);
          w.postMessage({from, to});
        });
      }),
    );
    return this.output.subarray(0, n);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
