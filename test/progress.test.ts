// EpochProgress without a terminal: the first and last epochs' lines and at most one every everySeconds
// between, so a log of many short epochs stays readable.
import {expect} from 'chai';

import {EpochProgress} from '../src/train/progress';

function linesOf(epochs: number, everySeconds?: number): string[] {
  const written: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stdout.write;
  try {
    const p = new EpochProgress(epochs, 'test', everySeconds === undefined ? {} : {everySeconds});
    for (let e = 1; e <= epochs; ++e) p.tick(`epoch ${e}`, '1 it/s');
    p.stop();
  } finally {
    process.stdout.write = write;
  }
  return written.filter((l) => l.startsWith('epoch '));
}

describe('EpochProgress without a terminal', () => {
  before(function () {
    if (process.stderr.isTTY) this.skip(); // on a terminal it draws a bar and a line per epoch
  });

  it('prints the first and last epochs and at most one line every 10 s between', () => {
    const lines = linesOf(500);
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(/^epoch 1 \| 1 it\/s \| ETA \d+ s\n$/);
    expect(lines[1]).to.match(/^epoch 500 \|/);
  });

  it('everySeconds: 0 prints every epoch; a negative one is refused', () => {
    expect(linesOf(7, 0)).to.have.length(7);
    expect(() => new EpochProgress(3, 'x', {everySeconds: -1})).to.throw(
      /EpochProgress: everySeconds must be a non-negative number, got -1/,
    );
  });
});
