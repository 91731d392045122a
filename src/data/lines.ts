// Text read from a file, gzip-inflated on the way when the name ends in .gz:
// as chunks of bytes (for the native parsers) or line by line (for small
// files read here). Files of any size in bounded memory; a failure to read or
// inflate names the file. A UTF-8 byte-order mark at the start (what editors on
// Windows write) is not part of the text: every reader gets the file without it.
import * as fs from 'fs';
import * as readline from 'readline';
import * as zlib from 'zlib';

import {checkFile} from '../util/files';

// Large reads and inflation pieces: fewer calls into the parsers, and the
// inflation (on libuv's threads) runs ahead while a piece is parsed.
const CHUNK_BYTES = 4 << 20;

/** The error for a failure to read (or inflate) `file`. */
function readFailure(file: string, e: Error): Error {
  return new Error(`${file}: ${file.endsWith('.gz') ? 'cannot inflate' : 'cannot read'}: ${e.message}`);
}

/** The file's bytes as a stream, inflated when it ends in .gz; errors name the file. */
function openText(file: string): {input: NodeJS.ReadableStream & {destroy(): void}; close: () => void; failure: () => Error | undefined} {
  checkFile(file);
  const raw = fs.createReadStream(file, {highWaterMark: CHUNK_BYTES});
  const input = file.endsWith('.gz') ? raw.pipe(zlib.createGunzip({chunkSize: 1 << 20})) : raw;
  let failure: Error | undefined;
  const fail = (e: Error) => {
    failure ??= readFailure(file, e);
    input.destroy();
  };
  raw.on('error', fail);
  input.on('error', fail);
  return {input, close: () => raw.destroy(), failure: () => failure};
}

// The UTF-8 byte-order mark.
const BOM = [0xef, 0xbb, 0xbf];

/** Each piece of the file's text (inflated), in order. */
export async function* readChunks(file: string): AsyncGenerator<Uint8Array> {
  const t = openText(file);
  // The first bytes, held until there are three to tell a byte-order mark by (chunks may be shorter).
  let head: Uint8Array | undefined = new Uint8Array(0);
  try {
    for await (const chunk of t.input) {
      if (t.failure()) break;
      let bytes = chunk as Uint8Array;
      if (head) {
        bytes = Buffer.concat([head, bytes]);
        if (bytes.length < BOM.length && BOM.every((b, i) => i >= bytes.length || bytes[i] === b)) {
          head = bytes;
          continue;
        }
        head = undefined;
        if (BOM.every((b, i) => bytes[i] === b)) bytes = bytes.subarray(BOM.length);
      }
      if (bytes.length) yield bytes;
    }
    if (head?.length && !t.failure()) yield head; // a file shorter than a mark that is not one
  } catch (e) {
    if (!t.failure()) throw readFailure(file, e as Error);
  } finally {
    t.close();
  }
  const f = t.failure();
  if (f) throw f;
}

export async function* readLines(file: string): AsyncGenerator<{line: string; lineNo: number}> {
  const t = openText(file);
  const rl = readline.createInterface({input: t.input, crlfDelay: Infinity});
  let lineNo = 0;
  try {
    for await (const line of rl) {
      if (t.failure()) break;
      yield {line: lineNo === 0 && line.startsWith('\ufeff') ? line.slice(1) : line, lineNo: ++lineNo};
    }
  } catch (e) {
    if (!t.failure()) throw readFailure(file, e as Error);
  } finally {
    rl.close();
    t.close();
  }
  const f = t.failure();
  if (f) throw f;
}
