// wm.nn: building blocks for graph-embedding models.
export {Embedding, embedding} from './embedding';
export type {EmbeddingDType, EmbeddingInit, EmbeddingMemory, EmbeddingOptions} from './embedding';
export {adagrad, adam, rmsprop, sgd} from './sparse_optimizer';
export type {SparseOptimizerConfig, SparseOptimizerName} from './sparse_optimizer';
export {fullGraph, GraphSageClassifier, sampleBlock} from './graphsage';
export type {FullGraph, GraphSageConfig, NodeModelConfig, SampledBlock} from './graphsage';
export {GatClassifier} from './gat_classifier';
export type {GatConfig} from './gat_classifier';
export {GcnClassifier} from './gcn_classifier';
export type {GcnConfig} from './gcn_classifier';
export {softmaxCrossEntropy} from './softmax_cross_entropy';
export type {LossReduction} from './softmax_cross_entropy';
export {sageLayer} from './sage_layer';
export {dropout} from './dropout';
export {gatAggregate} from './gat';
export {rowDots} from './row_dots';
export type {GatOptions} from './gat';
