// Progress for long training: on terminals a bar with rate and ETA
// (cli-progress) and a line per epoch above it; elsewhere (logs, CI) a plain
// line for the first and the last epoch and at most one every `everySeconds`
// between (10 by default), so a log of 1,000 short epochs stays readable.
import {MultiBar, Presets, SingleBar} from 'cli-progress';

export class EpochProgress {
  private readonly multibar: MultiBar;
  private readonly bar: SingleBar;
  private readonly started = Date.now();
  private done = 0;
  private before = 0; // epochs a resumed run found done
  private printed = 0;
  private readonly everySeconds: number;

  constructor(
    readonly totalEpochs: number,
    label: string,
    opts: {everySeconds?: number} = {},
  ) {
    this.everySeconds = opts.everySeconds ?? 10;
    if (!(this.everySeconds >= 0))
      throw new RangeError(`EpochProgress: everySeconds must be a non-negative number, got ${opts.everySeconds}`);
    this.multibar = new MultiBar(
      {
        format: `${label} [{bar}] {percentage}% | epoch {value}/{total} | {rate} | ETA {eta_formatted}`,
        hideCursor: true,
        clearOnComplete: true,
        stopOnComplete: true,
      },
      Presets.shades_classic,
    );
    this.bar = this.multibar.create(totalEpochs, 0, {rate: ''});
  }

  /** A resumed run: epochs 1 to `epochs` were done before it (the bar starts there; the ETA counts this run's epochs). */
  resumeAfter(epochs: number): void {
    if (!Number.isInteger(epochs) || epochs < 0 || epochs > this.totalEpochs || this.done > this.before)
      throw new RangeError(
        `EpochProgress.resumeAfter: epochs must be an integer in [0, ${this.totalEpochs}] before any tick, got ${epochs}`,
      );
    this.done = this.before = epochs;
    this.bar.update(epochs, {rate: ''});
  }

  /** Advances one epoch and prints its line above the bar. */
  tick(line: string, rate: string): void {
    ++this.done;
    const tty = process.stderr.isTTY;
    const elapsed = (Date.now() - this.started) / 1000;
    const eta = (elapsed / (this.done - this.before)) * (this.totalEpochs - this.done);
    const text = `${line} | ${rate} | ETA ${eta.toFixed(0)} s`;
    if (tty) this.multibar.log(text + '\n');
    else if (this.done === this.before + 1 || this.done >= this.totalEpochs || Date.now() - this.printed >= this.everySeconds * 1000) {
      process.stdout.write(text + '\n');
      this.printed = Date.now();
    }
    this.bar.update(this.done, {rate});
  }

  stop(): void {
    this.multibar.stop();
  }
}
