// Built when CMake finds no CUDA compiler: NCCL and the GPU all-reduce refuse with a clear error.
#include "wm/cuda_setup.h"
#include "wm/device_whole_memory.h"
#include "wm/distributed.h"
#include "wm/nccl_comm.h"
#include "wm/peer_allreduce.h"
#include "runtime/no_cuda.h"

namespace wm {

std::string ncclLocation() { return ""; }
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

void ownerEmbeddingApply(NcclComm&, const TableRef&, int64_t, int64_t, uint64_t, uint64_t, uint64_t, int64_t, int64_t, uint64_t,
                         SparseOptimizer, const OptimizerParams&, uint64_t, const std::string&) {
  noCuda("embedding tables on GPUs");
}

void sharedEmbeddingAdd(NcclComm&, const TableRef&, uint64_t, int64_t, uint64_t, const OptimizerParams&, uint64_t, const std::string&) {
  noCuda("embedding tables on GPUs");
}

}  // namespace wm
