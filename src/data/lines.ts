// Text read line by line, gzip-inflated on the way when the name ends in
// .gz: files of any size in bounded memory. Each line comes with its number.
import * as fs from 'fs';
import * as readline from 'readline';
import * as zlib from 'zlib';

import {checkFile} from '../util/files';

export async function* readLines(file: string): AsyncGenerator<{line: string; lineNo: number}> {
  checkFile(file);
  const raw = fs.createReadStream(file);
  const input = file.endsWith('.gz') ? raw.pipe(zlib.createGunzip()) : raw;
  let failure: Error | undefined;
  const fail = (e: Error) => {
    failure ??= new Error(`${file}: ${file.endsWith('.gz') ? 'cannot inflate' : 'cannot read'}: ${e.message}`);
    input.destroy();
  };
  raw.on('error', fail);
  input.on('error', fail);
  const rl = readline.createInterface({input, crlfDelay: Infinity});
  let lineNo = 0;
  try {
    for await (const line of rl) {
      if (failure) break;
      yield {line, lineNo: ++lineNo};
    }
  } catch (e) {
    fail(e as Error);
  } finally {
    rl.close();
    raw.destroy();
  }
  if (failure) throw failure;
}
