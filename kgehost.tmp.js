const tf = require('/work/main/node_modules/@tensorflow/tfjs-core');
const wm = require('/work/main/dist/src/index');
const {patternedKg} = require('/work/main/dist/src/graph/kg_patterns');
const {trainKge} = require('/work/main/dist/src/train/kge');
(async () => {
  await tf.setBackend('wholememory');
  const kg = patternedKg({entities: 40943, pairs: 15500, seed: 1});
  const model = process.env.M || 'distMult';
  await trainKge(kg, {model, dim: 4, epochs: 4, batchSize: 1024, chunkSize: 1, negatives: 1, adversarialTemperature: 0, evalEvery: 0}, (e) => {
    const steps = Math.floor(kg.train.heads.length / 1024);
    console.log(model, 'epoch', e.epoch, 'ms/step', (1000 * e.seconds / steps).toFixed(3));
  });
})();
