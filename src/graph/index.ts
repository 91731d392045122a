// wm.graph: reading graphs, CSR, sampling, generators and splits.
export {CsrGraph} from './csr';
export {loadDataset, readVertexFeatures} from './dataset';
export type {LoadDatasetOptions, NativeNodeClassificationData, NodeClassificationData, VertexFeatures} from './dataset';
export {NativeFeatures} from './native_features';
export {readEdgeList, readVertexValues} from './edge_list';
export type {EdgeList} from './edge_list';
export {sampleNegatives, splitEdges} from './link_split';
export type {EdgePairs, LinkSplit} from './link_split';
export {sampleNeighbors} from './native_sampling';
export {sampleNegativePairs} from './negative_pairs';
export {DeviceCsr, deviceNegativePairs} from './device_csr';
export {NativeCsr} from './native_csr';
export {aggregate, CsrBlock} from './aggregate';
export {structureFeatures} from './structure_features';
export type {StructureFeatureOptions} from './structure_features';
export {WholeMemoryCsr} from './whole_memory_csr';
export {sampleSubgraph} from './subgraph';
export {uniqueAndRelabel} from './relabel';
export {meanOfNeighbors, sampleFixedSubgraph} from './fixed_subgraph';
export {sampleSubgraphInPlace} from './in_place_subgraph';
export {sampleTree} from './sample_tree';
export {isFixedLayer, listEntries} from './sampled_subgraph';
export type {
  BlockLayer,
  FixedFanoutLayer,
  InputVertices,
  LayerLists,
  SampledLayer,
  SampledSubgraph,
  SubgraphLayer,
} from './sampled_subgraph';
export type {AggregateReduce} from './aggregate';
export type {GraphPlace, GraphStore, HostGraph, SampleOptions} from './graph_store';
export {loadCsr, saveCsr} from './csr_file';
export {rmat} from './rmat';
export {csbm, csbmNative} from './csbm';
export {batchGraphs} from './graph_batch';
export type {GraphBatch, GraphDataset, SmallGraph} from './graph_batch';
export {readTuDataset} from './tu_dataset';
export {GraphLoader} from './graph_loader';
export type {GraphLoaderOptions} from './graph_loader';
export type {TuDataset} from './tu_dataset';
export {citationGraph} from './citation';
export type {CitationOptions} from './citation';
export type {CsbmOptions, NativeCsbm} from './csbm';
export type {RmatOptions} from './rmat';
export {planetoidSplit, randomSplit} from './split';
export type {Split} from './split';
export {randomVertices, randomWalks, walkPairs} from './random_walk';
export type {WalkOptions} from './random_walk';
export * as transforms from './transforms';
export {NameTable} from './name_table';
export {checkKnowledgeGraph, KnownPartners, readKnowledgeGraph, readNameMaps, writeNameMaps} from './triples';
export type {KnowledgeGraph, Triples} from './triples';
export {patternedKg, RELATION_PATTERNS, triplesOf} from './kg_patterns';
export type {FreebaseShapedOptions, PatternedKg, PatternedKgOptions, RelationPattern} from './kg_patterns';
export {NegativeSampler} from './kge_negatives';
export type {NegativeDistribution} from './kge_negatives';
export {edgeTypeKey, featureValues, HeteroGraph, parseEdgeTypeKey} from './hetero_graph';
export type {EdgeType, HeteroFeatures, HeteroLabels, HeteroRelation, TypedEdges} from './hetero_graph';
export {readOgbHetero} from './ogb_hetero';
export type {ReadOgbHeteroOptions} from './ogb_hetero';
export {sampleTypedSubgraph} from './typed_sampling';
export type {TypedFanouts, TypedGraph, TypedLayer, TypedSubgraph} from './typed_sampling';
export {DeviceHeteroGraph} from './device_hetero_graph';
export {heteroCsbm} from './hetero_csbm';
export {MAG240M_COUNTS, mag240mShaped} from './mag240m_shaped';
export {powerLawGraph} from './power_law';
export type {PowerLawOptions} from './power_law';
export type {Mag240mShapedOptions} from './mag240m_shaped';
export {readLscArrays} from './lsc_arrays';
export type {LscArraysOptions} from './lsc_arrays';
export type {HeteroCsbmOptions} from './hetero_csbm';
export {sampleTypedSeeds} from './typed_sampling';
export {DEFAULT_GRAPH_FAMILIES, graphFamilies} from './graph_families';
export type {GraphFamiliesOptions} from './graph_families';
export {readOgbGraphs} from './ogb_graphs';
export {readSdf, SDF_ATOM_COLUMNS, SDF_BOND_COLUMNS} from './sdf';
export type {SdfOptions} from './sdf';
