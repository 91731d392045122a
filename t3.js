const tf = require('@tensorflow/tfjs-core');
require('./dist/src/index.js');
const {loadNodeClassification} = require('./dist/src/graph/dataset.js');
const {trainNodeClassification} = require('./dist/src/train/node_classification.js');
(async () => {
  await tf.setBackend('wholememory');
  const d = loadNodeClassification('data/polblogs');
  const accs = [];
  const t0 = Date.now();
  for (let s = 0; s < 5; ++s) {
    const r = await trainNodeClassification(d, {seed: s, ...JSON.parse(process.argv[2] || '{}')}, (m) => { if (m.epoch % 20 == 0) console.log(JSON.stringify(m)); });
    console.log('seed', s, 'best', r.bestEpoch, r.valAcc.toFixed(3), r.testAcc.toFixed(4));
    accs.push(r.testAcc);
  }
  console.log('mean', accs.reduce((a,b)=>a+b)/5, 'secs', (Date.now()-t0)/1000, tf.memory().numTensors);
})();
