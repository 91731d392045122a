'use strict';
// Test files run in worker processes, as many at once as the CPUs allow up to 4 (each file's native kernels use every
// CPU, and the multi-rank files start processes of their own). `npm run test:gpu` runs them one after another.
const os = require('os');

module.exports = {
  spec: ['dist/test/**/*.test.js'],
  timeout: 120000,
  reporter: 'spec',
  parallel: true,
  jobs: Math.max(1, Math.min(4, os.availableParallelism())),
};
