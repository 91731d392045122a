// Metrics as JSON lines: one record per epoch, a summary at the end. Each
// line is appended as it happens, so a crash keeps what was measured. A
// resumed run appends to its log, keeping the epochs before its checkpoint.
import * as fs from 'fs';
import * as path from 'path';

import {ensureDir, writeFileAtomically} from '../util/files';
import {checkTrustedFile} from '../util/trusted_files';

export class MetricsLog {
  /** `append`: keep what the file holds (a resumed run); else start it empty. */
  constructor(
    readonly file: string,
    opts: {append?: boolean} = {},
  ) {
    ensureDir(path.dirname(file), 'metrics');
    if (!opts.append || !fs.existsSync(file)) fs.writeFileSync(file, '');
  }

  write(record: object): void {
    fs.appendFileSync(this.file, JSON.stringify(record) + '\n');
  }

  /** The records the file holds, in order. */
  read(): Record<string, unknown>[] {
    return readMetrics(this.file, 'metrics');
  }

  /** Keeps only the records `keep` accepts (atomically); returns them. */
  retain(keep: (record: Record<string, unknown>) => boolean): Record<string, unknown>[] {
    const kept = this.read().filter(keep);
    writeFileAtomically(this.file, Buffer.from(kept.map((r) => JSON.stringify(r) + '\n').join('')));
    return kept;
  }
}

/** A metrics file's records, in order; a file another user could have written is refused (naming `what`). */
export function readMetrics(file: string, what: string): Record<string, unknown>[] {
  checkTrustedFile(file, what);
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l, i) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`${file}:${i + 1}: not a JSON line`);
      }
    });
}
