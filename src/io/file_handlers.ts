// tfjs' file:// IO handlers for Node, registered on import as tfjs-node
// registers its own: model.save('file://dir') writes dir/model.json and
// dir/weights.bin, each under a temporary name renamed into place (a reader
// sees the old file or the whole new one); tf.loadLayersModel('file://dir/model.json')
// and tf.loadGraphModel(...) read them back, checking every weight file's size
// against the manifest before anything is decoded.
import * as tf from '@tensorflow/tfjs-core';
import * as fs from 'fs';
import * as path from 'path';

import {checkFile, ensureDir, readFileNamed, writeFileAtomically} from '../util/files';
import {checkTrustedFile} from '../util/trusted_files';

const SCHEME = 'file://';
const MODEL_JSON = 'model.json';
const WEIGHTS_BIN = 'weights.bin';

const DTYPE_BYTES: Record<string, number> = {float32: 4, int32: 4, bool: 1, complex64: 8, uint8: 1, uint16: 2, float16: 2};

/** Bytes a weight spec takes in its file (quantized weights at their stored width). */
function specBytes(spec: tf.io.WeightsManifestEntry): number {
  const n = spec.shape.reduce((a, b) => a * b, 1);
  const q = spec.quantization;
  const per = q ? DTYPE_BYTES[q.dtype] : DTYPE_BYTES[spec.dtype];
  if (per === undefined) throw new Error(`${spec.name}: weights of dtype ${q ? q.dtype : spec.dtype} cannot be read from files here`);
  return n * per;
}

/** An IOHandler over a directory (save) or a model.json (load). */
export class FileHandler implements tf.io.IOHandler {
  constructor(private readonly location: string) {}

  async save(artifacts: tf.io.ModelArtifacts): Promise<tf.io.SaveResult> {
    if (artifacts.modelTopology instanceof ArrayBuffer) {
      throw new Error('file:// saves JSON model topologies only (this model has a binary one)');
    }
    const dir = this.location.endsWith(MODEL_JSON) ? path.dirname(this.location) : this.location;
    ensureDir(dir, 'model.save');
    const weights = artifacts.weightData === undefined ? new ArrayBuffer(0) : tf.io.CompositeArrayBuffer.join(artifacts.weightData);
    const modelJSON: Record<string, unknown> = {
      modelTopology: artifacts.modelTopology,
      format: artifacts.format,
      generatedBy: artifacts.generatedBy,
      convertedBy: artifacts.convertedBy,
      weightsManifest: [{paths: [`./${WEIGHTS_BIN}`], weights: artifacts.weightSpecs ?? []}],
    };
    for (const key of ['trainingConfig', 'signature', 'userDefinedMetadata', 'modelInitializer', 'initializerSignature'] as const) {
      if (artifacts[key] !== undefined) modelJSON[key] = artifacts[key];
    }
    // Weights first: a model.json never names weights that are not whole on disk.
    writeFileAtomically(path.join(dir, WEIGHTS_BIN), new Uint8Array(weights));
    writeFileAtomically(path.join(dir, MODEL_JSON), Buffer.from(JSON.stringify(modelJSON)));
    return {modelArtifactsInfo: tf.io.getModelArtifactsInfoForJSON(artifacts)};
  }

  async load(): Promise<tf.io.ModelArtifacts> {
    const file =
      fs.existsSync(this.location) && fs.statSync(this.location).isDirectory() ? path.join(this.location, MODEL_JSON) : this.location;
    if (!fs.existsSync(file)) throw new Error(`${file}: no such model file`);
    checkTrustedFile(file, 'load');
    let modelJSON: tf.io.ModelJSON;
    const text = readFileNamed(file, 'load').toString('utf8');
    try {
      modelJSON = JSON.parse(text);
    } catch (e) {
      throw new Error(`${file}: not a model.json (${(e as Error).message})`);
    }
    if (modelJSON === null || typeof modelJSON !== 'object' || modelJSON.modelTopology === undefined) {
      throw new Error(`${file}: has no modelTopology`);
    }
    const dir = path.dirname(file);
    return tf.io.getModelArtifactsForJSON(modelJSON, async (manifest) => {
      const specs: tf.io.WeightsManifestEntry[] = [];
      const buffers: ArrayBuffer[] = [];
      for (const group of manifest) {
        const want = group.weights.reduce((a, s) => a + specBytes(s), 0);
        const parts = group.paths.map((p) => {
          const f = path.resolve(dir, p);
          // A weight path names a file inside the model's own folder: never one above it or elsewhere.
          if (typeof p !== 'string' || path.isAbsolute(p) || path.relative(dir, f).split(path.sep)[0] === '..')
            throw new Error(`${file}: weight path ${JSON.stringify(p)} must name a file inside the model's folder ${dir}`);
          if (!fs.existsSync(f)) throw new Error(`${file}: weight file ${p} is missing`);
          checkFile(f, `${file}: weight file`);
          checkTrustedFile(f, 'load');
          return readFileNamed(f, `${file}: weight file`);
        });
        const got = parts.reduce((a, b) => a + b.length, 0);
        if (got !== want) {
          throw new Error(
            `${file}: weight file${parts.length > 1 ? 's' : ''} ${group.paths.join(', ')} hold ${got} bytes, the manifest says ${want}`,
          );
        }
        for (const b of parts) buffers.push(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
        specs.push(...group.weights);
      }
      return [specs, tf.io.concatenateArrayBuffers(buffers)];
    });
  }
}

// tfjs' routers answer null for a URL they do not take (its IORouter type says IOHandler).
const fileRouter = ((url: string | string[]): tf.io.IOHandler | null =>
  typeof url === 'string' && url.startsWith(SCHEME) ? new FileHandler(url.slice(SCHEME.length)) : null) as Parameters<
  typeof tf.io.registerSaveRouter
>[0];

let registered = false;

/** Registers the file:// save and load routers with tfjs (once). */
export function registerFileHandlers(): void {
  if (registered) return;
  registered = true;
  // tfjs-node registers the same scheme; when it is loaded too, its handler answers first.
  if (tf.io.getSaveHandlers('file://probe').length === 0) tf.io.registerSaveRouter(fileRouter);
  if (tf.io.getLoadHandlers('file://probe').length === 0) tf.io.registerLoadRouter(fileRouter);
}

registerFileHandlers();
