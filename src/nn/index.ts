// wm.nn: building blocks for graph-embedding models.
export {Embedding, embedding} from './embedding';
export type {EmbeddingCacheOptions, EmbeddingDType, EmbeddingInit, EmbeddingMemory, EmbeddingOptions} from './embedding';
export {hottestRows} from './table/row_cache';
export type {CacheStats} from './table/row_cache';
export {adagrad, adam, rmsprop, rowAdagrad, sgd} from './sparse_optimizer';
export type {SparseOptimizerConfig, SparseOptimizerName} from './sparse_optimizer';
export {GraphSageClassifier} from './graphsage';
export type {GraphSageConfig} from './graphsage';
export {fullGraph, glorot, predictedClasses} from './node_model';
export type {FullGraph, NodeModelConfig} from './node_model';
export {GatClassifier} from './gat_classifier';
export type {GatConfig} from './gat_classifier';
export {GcnClassifier} from './gcn_classifier';
export {MlpClassifier} from './mlp_classifier';
export type {GcnConfig} from './gcn_classifier';
export {softmaxCrossEntropy} from './softmax_cross_entropy';
export type {LossReduction} from './softmax_cross_entropy';
export {sageLayer} from './sage_layer';
export {LinkNeighborLoader, NeighborLoader} from './neighbor_loader';
export type {
  LinkBatch,
  LinkNeighborLoaderOptions,
  LoaderGraph,
  LoaderOptions,
  LoaderShare,
  NeighborBatch,
  NeighborLoaderOptions,
  RowSource,
  SampledBatch,
} from './neighbor_loader';
export {dropout} from './dropout';
export {DropoutLayer, dropoutLayer} from './dropout_layer';
export type {DropoutLayerArgs} from './dropout_layer';
export {gatAggregate} from './gat';
export {rowDots} from './row_dots';
export type {GatOptions} from './gat';
export {predictNodes, readClassifierInfo, saveNodeClassifier} from './saved_classifier';
export {loadNodeClassifier} from './load_classifier';
export type {NodeClassifierModel} from './load_classifier';
export type {SavableNodeClassifier, SavedClassifierInfo} from './saved_classifier';
export {featureTable, inputFeatures, NodeInputs} from './node_inputs';
export {rowNormalized} from '../graph/transforms';
export type {FeatureTableOptions} from './node_inputs';
export type {FeatureSource} from './feature_source';
export {layerwiseEach, layerwiseInference} from './layerwise';
export type {LayerwiseGraph, LayerwiseMemory, LayerwiseModel, LayerwiseOptions, LayerwiseProgress} from './layerwise';
export * from './conv/index';
export * as kge from './kge/index';
export {RgcnConv, rgcnConv} from './hetero/rgcn_conv';
export type {RgcnConvOptions} from './hetero/rgcn_conv';
export {RgatConv, rgatConv} from './hetero/rgat_conv';
export {HeteroConv, heteroConv} from './hetero/hetero_conv';
export type {HeteroAggregation} from './hetero/hetero_conv';
export {HgtConv, hgtConv} from './hetero/hgt_conv';
export {typedLayerwise} from './typed_layerwise';
export {globalAddPool, globalAttentionPool, globalMaxPool, globalMeanPool, globalPool} from './global_pool';
export type {GlobalPool} from './global_pool';
export {GRAPH_CONVS, GraphClassifier} from './graph_classifier';
export type {GraphClassifierConfig, GraphConvKind, GraphPool} from './graph_classifier';
export {TYPED_MODELS, TypedNodeClassifier} from './typed_classifier';
export type {TypedClassifierConfig, TypedModelKind} from './typed_classifier';
export {loadTypedClassifier, readTypedClassifierInfo, saveTypedClassifier, TYPED_MANIFEST, typedSchema} from './saved_typed_classifier';
export type {SavedTypedClassifierInfo, TypedSchema} from './saved_typed_classifier';
export type {TypedLayerFn} from './typed_layerwise';
export type {HgtConvOptions} from './hetero/hgt_conv';
export type {RgatConvOptions} from './hetero/rgat_conv';
export {TypedNeighborLoader, typedInputs} from './typed_neighbor_loader';
export type {TypedBatch, TypedFeatureStorage, TypedNeighborLoaderOptions} from './typed_neighbor_loader';
export {TypedLinkLoader} from './typed_link_loader';
export type {TypedLinkBatch, TypedLinkLoaderOptions} from './typed_link_loader';
