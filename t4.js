const tf = require('@tensorflow/tfjs-core');
require('./dist/src/index.js');
const {loadNodeClassification} = require('./dist/src/graph/dataset.js');
const {GraphSageClassifier, sampleBlock} = require('./dist/src/nn/graphsage.js');
const {seededRng} = require('./dist/src/util/random.js');
(async () => {
  await tf.setBackend('wholememory');
  const d = loadNodeClassification('data/polblogs');
  const m = new GraphSageClassifier({numNodes: 1222, numClasses: 2, embeddingDim: 64, hiddenDim: 64, numLayers: 2, dropout: 0.5, seed: 1});
  const rng = seededRng(1);
  const seeds = Int32Array.from({length: 64}, (_, i) => i);
  const block = sampleBlock(d.graph, seeds, [25, 10], rng);
  const y = tf.oneHot(tf.tensor1d(new Int32Array(64), 'int32'), 2);
  const opt = tf.train.adam(0.01);
  const prof = await tf.profile(() => { const l = opt.minimize(() => tf.losses.softmaxCrossEntropy(y, m.forwardSampled(block, true)), true); l.dispose(); });
  const agg = {};
  for (const k of prof.kernels) agg[k.name] = (agg[k.name] || 0) + k.kernelTimeMs;
  console.log(Object.entries(agg).sort((a,b)=>b[1]-a[1]).slice(0,12));
})();
