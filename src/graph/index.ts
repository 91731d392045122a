// wm.graph: reading graphs, CSR, sampling, generators and splits.
export {CsrGraph} from './csr';
export {loadNodeClassification} from './dataset';
export type {NodeClassificationData} from './dataset';
export {readEdgeList, readVertexValues} from './edge_list';
export type {EdgeList} from './edge_list';
export {sampleNegatives, splitEdges} from './link_split';
export type {EdgePairs, LinkSplit} from './link_split';
export {DeviceCsr, deviceNegativePairs, sampleNegativePairs, sampleNeighbors} from './native_sampling';
export {aggregate, CsrBlock} from './aggregate';
export {WholeMemoryCsr} from './whole_memory_csr';
export {sampleSubgraph, uniqueAndRelabel} from './subgraph';
export type {SampledSubgraph, SubgraphLayer} from './subgraph';
export type {AggregateReduce} from './aggregate';
export type {SampleOptions} from './native_sampling';
export {rmat} from './rmat';
export type {RmatOptions} from './rmat';
export {randomSplit} from './split';
export type {Split} from './split';
