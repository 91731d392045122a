// What each layer above the backend may call of the addon: the addon typed
// down to one domain, so graph code reaches the graph ops only, shared
// objects their own calls, and so on. The backend and kernels use the whole
// addon (src/native/device.ts).
import type {NativeAddon} from './addon';
import {native} from './device';

type Part<K extends keyof NativeAddon> = () => Pick<NativeAddon, K>;

/** Sampling, walks, negative pairs, CSR building, R-MAT, unique (src/graph/). */
export const graphNative: Part<
  | 'sampleWithReplacement'
  | 'sampleWithoutReplacement'
  | 'negativePairs'
  | 'randomWalks'
  | 'randomVertices'
  | 'buildCsr'
  | 'rmat'
  | 'uniqueInt32'
> = native;

/** Embedding tables' kernels and the memory they live in (src/nn/). */
export const embeddingNative: Part<
  'embeddingInit' | 'embeddingGather' | 'embeddingWriteRows' | 'embeddingApply' | 'NativeDeviceMemory' | 'NativeHostMemory'
> = native;

/** Shared objects: memfd segments, CUDA IPC buffers, descriptors, peers (src/share/). */
export const shareNative: Part<
  | 'closeFd'
  | 'fdLimit'
  | 'socketPeer'
  | 'upload'
  | 'download'
  | 'copyDeviceToDevice'
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

/** Communicators, WholeMemory handles, memory figures (src/memory/, src/distributed/). */
export const memoryNative: Part<
  'NativeCommunicator' | 'bootstrapUniqueId' | 'ncclStatus' | 'NativeDeviceMemory' | 'NativeHostMemory' | 'memoryInfo'
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
> = native;
