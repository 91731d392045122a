// Progress for long training: a bar with rate and ETA on terminals
// (cli-progress), and one plain line per epoch everywhere (logs, CI).
import {MultiBar, Presets, SingleBar} from 'cli-progress';

export class EpochProgress {
  private readonly multibar: MultiBar;
  private readonly bar: SingleBar;
  private readonly started = Date.now();
  private done = 0;

  constructor(
    readonly totalEpochs: number,
    label: string,
  ) {
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

  /** Advances one epoch and prints its line above the bar. */
  tick(line: string, rate: string): void {
    ++this.done;
    const tty = process.stderr.isTTY;
    const elapsed = (Date.now() - this.started) / 1000;
    const eta = (elapsed / this.done) * (this.totalEpochs - this.done);
    const text = `${line} | ${rate} | ETA ${eta.toFixed(0)} s`;
    if (tty) this.multibar.log(text + '\n');
    else process.stdout.write(text + '\n');
    this.bar.update(this.done, {rate});
  }

  stop(): void {
    this.multibar.stop();
  }
}
