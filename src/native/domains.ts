// What each layer above the backend may call of the addon: the addon typed
// down to one domain, so graph code reaches the graph ops only, shared
// objects their own calls, and so on. The backend and kernels use the whole
// addon (src/native/device.ts); `npm run lint:layers` refuses `.native.` and
// the whole addon anywhere else.
import type {NativeAddon} from './addon';
import {native} from './device';

type Part<K extends keyof NativeAddon> = () => Pick<NativeAddon, K>;

/** Sampling, walks, negative pairs, CSR building and products, R-MAT, unique, relabelling (src/graph/). */
export const graphNative: Part<
  | 'kgTriples'
  | 'sampleWithReplacement'
  | 'sampleWithoutReplacement'
  | 'negativePairs'
  | 'randomWalks'
  | 'randomVertices'
  | 'walkPairs'
  | 'graphFromEdges'
  | 'graphRmat'
  | 'graphLoad'
  | 'graphFromEdgeArrays'
  | 'graphFromCsr'
  | 'graphFromEdgeMatrix'
  | 'graphRelation'
  | 'graphRelationFrom'
  | 'graphRelationFromEdgeMatrix'
  | 'edgeMatrixMaxIds'
  | 'graphTypedDraw'
  | 'hashLabels'
  | 'csrEdgeWeights'
  | 'graphCsbm'
  | 'csbmFeatures'
  | 'rmat'
  | 'uniqueInt32'
  | 'relabelVertices'
  | 'csrSliceOffsets'
  | 'csrTranspose'
  | 'relabelByMarks'
  | 'csrSpmm'
  | 'csrSpmmScatter'
  | 'neighborMean'
  | 'neighborMeanGrad'
  | 'fill'
  | 'upload'
  | 'download'
> = native;

/** Text tables parsed natively, files mapped as typed arrays, feature rows converted and checked, digests (the dataset loader and its cache, src/graph/). */
export const dataNative: Part<'textColumns' | 'kgText' | 'hostArrayMap' | 'digest' | 'floatRows' | 'seededPermutation'> = native;

/** The layers' fused passes: GraphSAGE, GAT, row dots, dropout, the fused loss, columns copied into wider matrices (src/nn/). */
export const layerNative: Part<
  | 'batchMatMul'
  | 'biasActivation'
  | 'biasActivationGrad'
  | 'neighborMean'
  | 'neighborMeanGrad'
  | 'gatForward'
  | 'gatBackwardRows'
  | 'gatBackwardCols'
  | 'gatBackwardScatter'
  | 'relationColumns'
  | 'relationColumnsGrad'
  | 'rowDots'
  | 'rowDotsGrad'
  | 'dropout'
  | 'softmaxCrossEntropy'
  | 'softmaxCrossEntropyGrad'
  | 'stridedCopy'
  | 'fill'
> = native;

/** Embedding tables' kernels and the memory they live in (src/nn/). */
export const embeddingNative: Part<
  | 'embeddingInit'
  | 'kgeChunkLoss'
  | 'kgeGroupScores'
  | 'kgeStep'
  | 'complexProduct'
  | 'complexRotation'
  | 'complexRotationGrad'
  | 'embeddingGather'
  | 'embeddingGatherMean'
  | 'embeddingGatherMeanCsr'
  | 'embeddingWriteRows'
  | 'embeddingApply'
  | 'distributedEmbeddingGather'
  | 'distributedEmbeddingWrite'
  | 'distributedEmbeddingApply'
  | 'ownerEmbeddingApply'
  | 'sharedEmbeddingAdd'
  | 'rowCacheLoad'
  | 'rowCacheStore'
  | 'rowCacheHits'
  | 'NativeDeviceMemory'
  | 'NativeHostMemory'
  | 'pinnedHostAlloc'
  | 'pinnedHostFree'
  | 'fill'
  | 'upload'
  | 'download'
  | 'synchronize'
> = native;

/** The fused dense Adam step (src/optimizers/). */
export const optimizerNative: Part<'denseAdam'> = native;

/** Shared objects: memfd segments, CUDA IPC buffers, descriptors, peers (src/share/). */
export const shareNative: Part<
  | 'closeFd'
  | 'fdLimit'
  | 'socketPeer'
  | 'upload'
  | 'download'
  | 'copyDeviceToDevice'
  | 'synchronize'
  | 'sharedDeviceAlloc'
  | 'sharedDeviceClose'
  | 'sharedDeviceFree'
  | 'sharedDeviceOpen'
  | 'sharedHostCreate'
  | 'sharedHostMap'
  | 'sharedHostSealWrites'
  | 'sharedHostState'
  | 'sharedHostWrite'
> = native;

/** Communicators, WholeMemory handles, managed memory, memory figures (src/memory/, src/distributed/). */
export const memoryNative: Part<
  | 'NativeCommunicator'
  | 'bootstrapUniqueId'
  | 'ncclStatus'
  | 'NativeDeviceMemory'
  | 'NativeHostMemory'
  | 'memoryInfo'
  | 'copyDeviceToDevice'
  | 'managedAdvise'
  | 'managedPrefetch'
  | 'managedInfo'
  | 'synchronize'
> = native;

/** The runtime's queries and caches (src/wm.ts). */
export const runtimeNative: Part<
  | 'emptyCache'
  | 'cpuThreads'
  | 'managedEmptyCache'
  | 'managedInfo'
  | 'memoryInfo'
  | 'synchronize'
  | 'cudaSetup'
  | 'kernelImage'
  | 'ncclStatus'
  | 'setOpTiming'
  | 'takeOpTimes'
  | 'setMatmulPrecision'
  | 'matmulPrecision'
> = native;
