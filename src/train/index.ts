// wm.train: training loops, checkpoints, metrics and plots.
export {loadCheckpoint, saveCheckpoint} from './checkpoint';
export {adam, FusedAdamOptimizer} from './fused_adam';
export type {CheckpointContents} from './checkpoint';
export {hitsAtK, rocAuc} from './link_metrics';
export {DEFAULT_LINK_PREDICTION, trainLinkPrediction} from './link_prediction';
export type {LinkEpochMetrics, LinkPredictionOptions} from './link_prediction';
export {MetricsLog} from './metrics_log';
export {DEFAULT_NODE_CLASSIFICATION, trainNodeClassification} from './node_classification';
export type {EpochMetrics, NodeClassificationOptions, RunResult} from './node_classification';
export {plotTrainingCurves} from './plot';
export {EpochProgress} from './progress';
