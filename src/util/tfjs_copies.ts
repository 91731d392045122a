// One copy of tfjs-core and of tfjs-layers per process: tensors made by one copy of core are not tensors to
// another (instanceof fails, and layers then misread their inputs), a layer of one copy of layers is not a
// layer to another's models, and a second copy's packages register every kernel, gradient and class again.
// Both are the user's (peer dependencies); the copies loaded so far are read from Node's module cache.
import * as path from 'path';

/** The packages that must be loaded once. */
export const SINGLE_COPY_PACKAGES = ['@tensorflow/tfjs-core', '@tensorflow/tfjs-layers'] as const;
export type SingleCopyPackage = (typeof SINGLE_COPY_PACKAGES)[number];

/** The folders of `pkg`'s copies loaded in this process so far (real paths). */
export function loadedCopies(pkg: SingleCopyPackage): string[] {
  const marker = `${path.sep}${pkg.split('/').join(path.sep)}${path.sep}`;
  const folders = new Set<string>();
  for (const file of Object.keys(require.cache)) {
    const at = file.lastIndexOf(marker);
    if (at >= 0) folders.add(file.slice(0, at + marker.length - 1));
  }
  return [...folders];
}

/** This package's copy of each (the folder its require resolves to). */
export function ourCopies(): Record<SingleCopyPackage, string> {
  const folder = (pkg: SingleCopyPackage) => path.dirname(require.resolve(`${pkg}/package.json`));
  return {'@tensorflow/tfjs-core': folder('@tensorflow/tfjs-core'), '@tensorflow/tfjs-layers': folder('@tensorflow/tfjs-layers')};
}

/** Throws naming every copy when more than one of tfjs-core or tfjs-layers is loaded; `ours`: the ones this package uses. */
export function checkOneTfjsCopy(ours: Record<SingleCopyPackage, string>): void {
  for (const pkg of SINGLE_COPY_PACKAGES) {
    const copies = loadedCopies(pkg);
    if (copies.length <= 1) continue;
    const named = copies.map((c) => (c === ours[pkg] ? `${c} (this package's)` : c)).join(' and ');
    const consequence =
      pkg === '@tensorflow/tfjs-core'
        ? 'Tensors of one are not tensors to the other'
        : "Layers of one are not layers to the other's models";
    throw new Error(
      `tfjs-backend-wholememory: two copies of ${pkg} are loaded: ${named}. ${consequence}: install one copy (the ` +
        `same version for @tensorflow/tfjs, tfjs-core and tfjs-layers; 'npm ls ${pkg}' shows them, 'npm dedupe' merges them)`,
    );
  }
}
