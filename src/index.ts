// tfjs-backend-wholememory: `import 'tfjs-backend-wholememory'` registers the
// 'wholememory' backend; the named exports are the library's own API.
import {registerWholeMemoryBackend} from './backend/register';
import './kernels/register_all_kernels';
import './gradients/register_all_gradients';
import './io/file_handlers';

registerWholeMemoryBackend();

export * from './wm';
export {describePeerAccess, installReport, InstallReport} from './native/install_report';
export {WholeMemoryBackend} from './backend/backend_wholememory';
export {BACKEND_NAME} from './backend/backend_name';
export {
  Communicator,
  communicatorFromEnv,
  createCommunicator,
  finalize,
  getUniqueId,
  init,
  malloc,
  ncclStatus,
} from './memory/communicator';
export type {CommunicatorOptions} from './memory/communicator';
export {hostCommunicators, splitCommunicator} from './memory/communicator_split';
export type {SplitOptions} from './memory/communicator_split';
export {WholeMemoryTensor} from './memory/whole_memory_tensor';
export type {MallocOptions, MemoryLocation, MemoryType} from './memory/whole_memory_tensor';
export {readLaunchEnv} from './memory/launch_env';
export {dataParallel} from './distributed/data_parallel';
export type {DataParallel, DataParallelOptions, LayerWeight} from './distributed/data_parallel';
export * as nn from './nn/index';
export * as graph from './graph/index';
export * as train from './train/index';
export {
  getEnabledUVM,
  getManagedBudget,
  isManaged,
  manage,
  managedMemoryInfo,
  setEnabledUVM,
  setManagedBudget,
  to,
  unmanage,
} from './memory/managed';
export type {ManagedMemoryInfo, ToOptions} from './memory/managed';
export type {AllReduceAlgorithm, AllReduceOptions, ReduceOp, WireType} from './memory/allreduce';
export {close, deleteShared as delete, open, share, sharedDescriptorOf, update} from './share/shared_objects';
export type {SharedDescriptor, SharedDType, SharedLocation} from './share/shared_objects';
export {Mirror, mirror} from './share/mirror';
export {connectStore, startStore, StoreClient} from './share/store';
export type {StoreServer} from './share/store';
