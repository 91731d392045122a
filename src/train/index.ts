// wm.train: training loops, checkpoints, metrics and plots.
export {loadCheckpoint, saveCheckpoint} from './checkpoint';
export {adam, FusedAdamOptimizer} from '../optimizers/fused_adam';
export type {CheckpointContents} from './checkpoint';
export {hitsAtK, rocAuc} from './link_metrics';
export {DEFAULT_LINK_PREDICTION, trainLinkPrediction} from './link_prediction';
export type {LinkEpochMetrics, LinkPredictionOptions} from './link_prediction';
export {MetricsLog} from './metrics_log';
export {createNodeClassifier, DEFAULT_NODE_CLASSIFICATION, NODE_MODELS, trainNodeClassification} from './node_classification';
export type {EpochMetrics, NodeClassificationOptions, NodeClassifier, NodeModelKind, RunResult} from './node_classification';
export {plotTrainingCurves} from './plot';
export {EpochProgress} from './progress';
export {DEFAULT_NODE2VEC, logisticProbe, skipGramLoss, trainNode2Vec} from './node2vec';
export type {Node2VecEpoch, Node2VecOptions, Node2VecResult, ProbeResult} from './node2vec';
export {readEmbeddingText, writeEmbeddingText} from './embedding_text';
export {GCN_RECIPE, nodeModelCandidates, searchNodeModel} from './model_search';
export type {Candidate, CandidateResult, SearchResult} from './model_search';
export {labelPropagation, nearestClassMean, smoothPredictions} from './baselines';
export {sgc} from './sgc';
