// One copy of tfjs-core per process: tensors made by one copy are not tensors to another (instanceof
// fails, and layers then misread their inputs), and a second copy's packages register every kernel and
// gradient again. The copies loaded so far are read from Node's module cache.
import * as path from 'path';

const CORE = `${path.sep}@tensorflow${path.sep}tfjs-core${path.sep}`;

/** The folders of the tfjs-core copies loaded in this process so far (real paths). */
export function loadedTfjsCoreCopies(): string[] {
  const folders = new Set<string>();
  for (const file of Object.keys(require.cache)) {
    const at = file.lastIndexOf(CORE);
    if (at >= 0) folders.add(file.slice(0, at + CORE.length - 1));
  }
  return [...folders];
}

/** Throws naming every copy when more than one tfjs-core is loaded; `ours`: the one this package uses. */
export function checkOneTfjsCore(ours: string): void {
  const copies = loadedTfjsCoreCopies();
  if (copies.length <= 1) return;
  const named = copies.map((c) => (c === ours ? `${c} (this package's)` : c)).join(' and ');
  throw new Error(
    `tfjs-backend-wholememory: two copies of @tensorflow/tfjs-core are loaded: ${named}. Tensors of one are not tensors ` +
      "to the other: install one copy (the same version for @tensorflow/tfjs, tfjs-core and tfjs-layers; 'npm ls @tensorflow/tfjs-core' shows them, 'npm dedupe' merges them)",
  );
}
