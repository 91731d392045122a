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

  /** The records the file holds, in order (a file another user could have written is refused). */
  read(): Record<string, unknown>[] {
    checkTrustedFile(this.file, 'metrics');
    return fs
      .readFileSync(this.file, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l, i) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          throw new Error(`${this.file}:${i + 1}: not a JSON line`);
        }
      });
  }

  /** Keeps only the records `keep` accepts (atomically); returns them. */
  retain(keep: (record: Record<string, unknown>) => boolean): Record<string, unknown>[] {
    const kept = this.read().filter(keep);
    writeFileAtomically(this.file, Buffer.from(kept.map((r) => JSON.stringify(r) + '\n').join('')));
    return kept;
  }
}
