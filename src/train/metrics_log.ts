// Metrics as JSON lines: one record per epoch, a summary at the end. Each
// line is appended as it happens, so a crash keeps what was measured.
import * as fs from 'fs';
import * as path from 'path';

export class MetricsLog {
  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), {recursive: true});
    fs.writeFileSync(file, '');
  }

  write(record: object): void {
    fs.appendFileSync(this.file, JSON.stringify(record) + '\n');
  }
}
