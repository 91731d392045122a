// Durable file writes: data reaches the disk before a rename makes it visible.
import {createHash} from 'crypto';
import * as fs from 'fs';

export function writeFileSynced(file: string, bytes: Uint8Array): void {
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, bytes);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes under a temporary name, then renames: readers see the old file or the whole new one. */
export function writeFileAtomically(file: string, bytes: Uint8Array): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSynced(tmp, bytes);
  fs.renameSync(tmp, file);
}

/** SHA-256 of bytes, as hex (the integrity record of checkpoints and saved models). */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
