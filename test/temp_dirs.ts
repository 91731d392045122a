// Temporary folders of the tests: each made under the OS's temp folder and removed when its process exits (a mocha
// worker's included), whether its test passed, failed or stopped early.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const made: string[] = [];
let hooked = false;

function removeAll(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, {recursive: true, force: true});
}

/** A new empty folder named `prefix` and a random suffix, removed at exit if the test has not removed it. */
export function tempDir(prefix: string): string {
  if (!hooked) {
    hooked = true;
    process.once('exit', removeAll);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}
