// Built when CMake finds no CUDA compiler: the runtime reports no GPU, and the
// device entry points the bindings call directly (allocations, copies,
// communicators, sampling, embeddings) refuse with a clear error. Ops of the
// op table need nothing here: without their .cu files they have no device body.
#include "wm/cpu_binding.h"
#include "wm/cuda_setup.h"
#include "wm/dense_optimizer.h"
#include "wm/device_whole_memory.h"
#include "wm/peer_allreduce.h"
#include "wm/graph_ops.h"
#include "wm/shared_buffer.h"
#include "wm/embedding.h"
#include "wm/managed.h"
#include "wm/random_walk.h"
#include "graph/row_dots.h"
#include "wm/sampling.h"
#include "kernels/ops.h"
#include "wm/op_timing.h"
#include "wm/runtime.h"
#include "wm/status.h"

namespace wm {
namespace {
[[noreturn]] void noCuda(const char* what) {
  fail(std::string(what) +
       ": this build of tfjs-backend-wholememory has no CUDA support "
       "(nvcc was not found when it was built)");
}
}  // namespace

bool builtWithCuda() { return false; }
int deviceCount() { return 0; }
std::string unavailableReason() { return "built without CUDA"; }
CudaSetup cudaSetup() { return CudaSetup{}; }
KernelImage kernelImage() { noCuda("kernelImage"); }
std::string cublasLocation() { return ""; }
std::string ncclLocation() { return ""; }
void selectDevice(int) { noCuda("selectDevice"); }
int currentDevice() { noCuda("currentDevice"); }
std::string deviceName() { noCuda("deviceName"); }
std::string cpuBinding() { return "not bound (no GPU)"; }
void synchronize() {}
void* recordTimingEvent() { noCuda("recordTimingEvent"); }
bool timingEventDone(void*) { noCuda("timingEventDone"); }
float timingEventMs(void*, void*) { noCuda("timingEventMs"); }
void releaseTimingEvent(void*) {}
void useSideStream(bool) {}
void mainWaitsForSide() {}
void sideWaitsForMain() {}
DeviceMemoryInfo deviceMemoryInfo() { return DeviceMemoryInfo{}; }
uint64_t deviceAlloc(size_t bytes) {
  if (bytes == 0) return 0;
  noCuda("deviceAlloc");
}
void deviceFree(uint64_t ptr) {
  if (ptr != 0) noCuda("deviceFree");
}
void emptyCache() {}
void copyHostToDevice(uint64_t, const void*, size_t) { noCuda("copyHostToDevice"); }
void copyDeviceToHost(void*, uint64_t, size_t) { noCuda("copyDeviceToHost"); }
uint64_t hostRegister(void*, size_t) { noCuda("hostRegister"); }
void hostUnregister(void*) {}
void copyDeviceToDevice(uint64_t, uint64_t, size_t) { noCuda("copyDeviceToDevice"); }
struct PendingRead {};
PendingRead* beginRead(uint64_t, size_t) { noCuda("beginRead"); }
void finishRead(PendingRead*, void*) { noCuda("finishRead"); }
void cancelRead(PendingRead*) {}

bool cublasAvailable() { return false; }
void sampleWithReplacement(uint64_t, uint64_t, int64_t, uint64_t, int64_t, int, uint64_t, uint64_t, uint64_t, bool, bool) {
  noCuda("sampleWithReplacement");
}
void sampleWithoutReplacement(uint64_t, uint64_t, int64_t, uint64_t, int64_t, int, uint64_t, uint64_t, uint64_t, uint64_t, bool, bool) {
  noCuda("sampleWithoutReplacement");
}
DeviceWholeMemory::DeviceWholeMemory(Bootstrap&, MemoryType, int64_t, int64_t, int64_t, const std::vector<int>&) {
  noCuda("WholeMemory in device memory");
}
DeviceWholeMemory::~DeviceWholeMemory() = default;
int64_t DeviceWholeMemory::localFirstRow() const { return 0; }
int64_t DeviceWholeMemory::localRowCount() const { return 0; }
uint64_t DeviceWholeMemory::localSlice() const { return 0; }
void DeviceWholeMemory::readLocal(void*, size_t) const { noCuda("readLocal"); }
void DeviceWholeMemory::writeLocal(const void*, size_t) { noCuda("writeLocal"); }
TableRef DeviceWholeMemory::table() const { return TableRef{}; }
DistributedLayout DeviceWholeMemory::distributedLayout() const { return DistributedLayout{}; }
void DeviceWholeMemory::release() {}
uint64_t sharedDeviceAlloc(size_t, std::string*) { noCuda("sharing GPU memory"); }
void sharedDeviceFree(uint64_t) { noCuda("sharing GPU memory"); }
uint64_t sharedDeviceOpen(const std::string&) { noCuda("opening shared GPU memory"); }
void sharedDeviceClose(uint64_t) {}
void denseAdam(const std::vector<AdamTensor<uint64_t>>&, const AdamScalars&) { noCuda("denseAdam"); }
void randomWalks(uint64_t, uint64_t, int64_t, uint64_t, int64_t, int, uint64_t, WalkBias, uint64_t, uint64_t, bool) {
  noCuda("randomWalks");
}
bool ncclAvailable() { return false; }
std::string ncclStatus() { return "built without CUDA"; }
NcclComm::NcclComm(std::shared_ptr<Bootstrap> boot) : boot_(std::move(boot)) { noCuda("NCCL"); }
NcclComm::~NcclComm() = default;
void NcclComm::allToAllV(uint64_t, const std::vector<int64_t>&, const std::vector<int64_t>&, uint64_t, const std::vector<int64_t>&,
                         const std::vector<int64_t>&, const std::string&) {
  noCuda("NCCL");
}
void NcclComm::allReduce(const std::vector<uint64_t>&, const std::vector<uint64_t>&, const std::vector<int64_t>&, int, int,
                         const std::string&) {
  noCuda("NCCL");
}
bool PeerAllReduce::supported(Bootstrap&, bool* sharedGpu) {
  if (sharedGpu) *sharedGpu = false;
  return false;
}
PeerAllReduce::PeerAllReduce(Bootstrap& boot, int64_t bufferBytes) : boot_(boot), bufferBytes_(bufferBytes), oneShotMax_(0), timeoutNs_(0) {
  noCuda("allReduce on GPUs");
}
PeerAllReduce::~PeerAllReduce() = default;
bool PeerAllReduce::run(const std::vector<uint64_t>&, const std::vector<uint64_t>&, const std::vector<int64_t>&, WireType, float,
                        AllReduceAlgo, const std::vector<uint64_t>&, float) {
  noCuda("allReduce on GPUs");
}
void PeerAllReduce::checkError() {}
void NcclComm::wait(const std::string&) { noCuda("NCCL"); }
void distributedGather(NcclComm&, const DistributedLayout&, uint64_t, int64_t, uint64_t, const std::string&) {
  noCuda("distributed gather");
}
void distributedScatter(NcclComm&, const DistributedLayout&, uint64_t, int64_t, uint64_t, const std::string&) {
  noCuda("distributed scatter");
}
void distributedEmbeddingGather(NcclComm&, const DistributedLayout&, const TableRef&, uint64_t, int64_t, uint64_t, const std::string&) {
  noCuda("distributed embedding tables on GPUs");
}
void distributedEmbeddingWrite(NcclComm&, const DistributedLayout&, const TableRef&, uint64_t, int64_t, uint64_t, const std::string&) {
  noCuda("distributed embedding tables on GPUs");
}
void distributedEmbeddingApply(NcclComm&, const DistributedLayout&, const TableRef&, uint64_t, uint64_t, uint64_t, int64_t, uint64_t,
                               SparseOptimizer, const OptimizerParams&, uint64_t, const std::string&) {
  noCuda("distributed embedding tables on GPUs");
}
size_t managedSizeClass(size_t bytes) { return bytes; }
uint64_t managedAlloc(size_t) { noCuda("managedAlloc"); }
void managedFree(uint64_t) { noCuda("managedFree"); }
void managedEmptyCache() {}
ManagedInfo managedInfo() { return ManagedInfo{}; }
void managedAdvise(uint64_t, size_t, int, int) { noCuda("managedAdvise"); }
void managedPrefetch(uint64_t, size_t, int) { noCuda("managedPrefetch"); }
uint64_t pinnedHostAlloc(size_t) { noCuda("pinnedHostAlloc"); }
void pinnedHostFree(uint64_t) { noCuda("pinnedHostFree"); }
void embeddingInit(const TableRef&, int64_t, int64_t, uint64_t, int, float) { noCuda("embeddingInit"); }

}  // namespace wm
