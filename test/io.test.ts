import * as tf from '@tensorflow/tfjs';
import {expect} from 'chai';
import * as fs from 'fs';
import * as path from 'path';

import '../src/index';
import {rejection} from './rejection';
import {tempDir} from './temp_dirs';

function tmpDir(): string {
  return tempDir('wm-io-');
}

function smallModel(): tf.Sequential {
  const m = tf.sequential({
    layers: [tf.layers.dense({units: 5, inputShape: [7], activation: 'relu'}), tf.layers.dense({units: 3, activation: 'softmax'})],
  });
  m.compile({optimizer: 'adam', loss: 'categoricalCrossentropy'});
  return m;
}

describe('file:// model IO', () => {
  it('model.save and tf.loadLayersModel round-trip a trained model exactly, leaving no temporary files', async () => {
    const dir = tmpDir();
    try {
      const m = smallModel();
      const x = tf.randomNormal([16, 7], 0, 1, 'float32', 3);
      const y = tf.oneHot(tf.tensor1d([0, 1, 2, 1, 0, 2, 1, 0, 2, 2, 1, 0, 0, 1, 2, 1], 'int32'), 3);
      await m.fit(x, y, {epochs: 3, verbose: 0});
      const saved = await m.save(`file://${dir}`);
      expect(saved.modelArtifactsInfo.weightDataBytes).to.equal((7 * 5 + 5 + 5 * 3 + 3) * 4);
      expect(fs.readdirSync(dir).sort()).to.deep.equal(['model.json', 'weights.bin']);
      const loaded = await tf.loadLayersModel(`file://${path.join(dir, 'model.json')}`);
      const a = (m.predict(x) as tf.Tensor).dataSync(),
        b = (loaded.predict(x) as tf.Tensor).dataSync();
      expect(Array.from(b)).to.deep.equal(Array.from(a));
      // A directory names its model.json too.
      const again = await tf.loadLayersModel(`file://${dir}`);
      expect(again.layers.length).to.equal(2);
      tf.dispose([x, y]);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('refuses truncated, missing and malformed files by name', async () => {
    const dir = tmpDir();
    try {
      await smallModel().save(`file://${dir}`);
      const bin = path.join(dir, 'weights.bin');
      const whole = fs.readFileSync(bin);
      fs.writeFileSync(bin, whole.subarray(0, whole.length - 4));
      expect((await rejection(tf.loadLayersModel(`file://${dir}/model.json`))).message).to.match(
        /weights\.bin hold \d+ bytes, the manifest says \d+/,
      );
      fs.rmSync(bin);
      expect((await rejection(tf.loadLayersModel(`file://${dir}/model.json`))).message).to.match(/weight file \.\/weights\.bin is missing/);
      fs.writeFileSync(path.join(dir, 'model.json'), '{"modelTopology": ');
      expect((await rejection(tf.loadLayersModel(`file://${dir}/model.json`))).message).to.match(/model\.json: not a model\.json/);
      expect((await rejection(tf.loadLayersModel(`file://${dir}/nothing.json`))).message).to.match(/nothing\.json: no such model file/);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('tf.loadGraphModel reads a graph model from files', async () => {
    const dir = tmpDir();
    try {
      const w = Float32Array.from([1.5, -2, 0.25, 4, 3, -1]);
      const modelJSON = {
        format: 'graph-model',
        modelTopology: {
          node: [
            {name: 'x', op: 'Placeholder', attr: {dtype: {type: 'DT_FLOAT'}, shape: {shape: {dim: [{size: '-1'}, {size: '3'}]}}}},
            {
              name: 'w',
              op: 'Const',
              attr: {dtype: {type: 'DT_FLOAT'}, value: {tensor: {dtype: 'DT_FLOAT', tensorShape: {dim: [{size: '3'}, {size: '2'}]}}}},
            },
            {name: 'y', op: 'MatMul', input: ['x', 'w'], attr: {transpose_a: {b: false}, transpose_b: {b: false}, T: {type: 'DT_FLOAT'}}},
          ],
          versions: {producer: 1},
        },
        weightsManifest: [{paths: ['group1-shard1of1.bin'], weights: [{name: 'w', shape: [3, 2], dtype: 'float32'}]}],
      };
      fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(modelJSON));
      fs.writeFileSync(path.join(dir, 'group1-shard1of1.bin'), Buffer.from(w.buffer));
      const g = await tf.loadGraphModel(`file://${dir}/model.json`);
      const x = tf.tensor2d([[1, 2, 3]]);
      const y = g.predict(x) as tf.Tensor;
      expect(Array.from(await y.data())).to.deep.equal([1.5 * 1 + 0.25 * 2 + 3 * 3, -2 * 1 + 4 * 2 + -1 * 3]);
      tf.dispose([x, y]);
      g.dispose();
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });
});
