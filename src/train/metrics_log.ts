// Metrics as JSON lines: one record per epoch, a summary at the end. Each
// line is appended as it happens, so a crash keeps what was measured.
import * as fs from 'fs';
import * as path from 'path';

import {ensureDir} from '../util/files';

export class MetricsLog {
  constructor(readonly file: string) {
    ensureDir(path.dirname(file), 'metrics');
    fs.writeFileSync(file, '');
  }

  write(record: object): void {
    fs.appendFileSync(this.file, JSON.stringify(record) + '\n');
  }
}
