#include "wm/nccl_comm.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "runtime/check.h"
#include "collectives/nccl_loader.h"
#include "runtime/gpu_sharing.h"
#include "wm/runtime.h"

namespace wm {
namespace {

using Clock = std::chrono::steady_clock;

const NcclApi& api() {
  const NcclApi* a = ncclApi();
  if (!a) fail("NCCL is not available (" + ncclUnavailableReason() + "); GPU memory of type 'distributed' needs it");
  return *a;
}

ncclComm_t handle(void* c) { return static_cast<ncclComm_t>(c); }

// Spin (a collective's latency is what the caller waits for), then back off
// once the wait is clearly long.
void pause(int round) {
  if (round < 200000)
    sched_yield();
  else
    usleep(20);
}

}  // namespace

bool ncclAvailable() { return ncclApi() != nullptr; }
std::string ncclStatus() {
  const NcclApi* a = ncclApi();
  if (!a) return ncclUnavailableReason();
  // NCCL's code since 2.9: major * 10000 + minor * 100 + patch.
  int v = a->version;
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

NcclComm::NcclComm(std::shared_ptr<Bootstrap> boot) : boot_(std::move(boot)) {
  const NcclApi& a = api();
  version_ = a.version;
  // NCCL takes one GPU per rank; ranks sharing one (WM_SHARE_GPU) are told so here, by name, not by NCCL's
  // "duplicate GPU" after a half-made communicator; all ranks fail together, none waits in NCCL's init.
  // Ranks on different hosts may drive GPUs of the same number: a GPU is its host's and its number.
  const std::vector<RankGpu> gpus = groupGpus(*boot_, "NCCL init (devices)");
  if (const auto shared = sharedGpuRanks(gpus))
    fail("NCCL init: ranks " + std::to_string(shared->first) + " and " + std::to_string(shared->second) + " use the same GPU " +
         std::to_string(gpus[shared->second].device) +
         "; NCCL needs a GPU per rank (ranks sharing a GPU keep to WholeMemory 'continuous' or 'chunked' and the peer all-reduce)");
  // Shared hosts: never NVLink multicast (NVLS) unless the user asked for it.
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  std::string mine;
  if (boot_->rank() == 0) {
    NcclUniqueId id{};
    int r = a.getUniqueId(&id);
    mine = r == kNcclSuccess ? "I" + std::string(id.internal, sizeof id.internal) : "E" + std::string(a.getErrorString(r));
  }
  // Everyone takes part, even after a failure at rank 0, so no one waits.
  auto all = boot_->allgather(mine, "NCCL init (id)");
  if (all[0].empty() || all[0][0] != 'I') fail("NCCL init: rank 0 could not create NCCL's id: " + all[0].substr(1));
  NcclUniqueId id{};
  std::memcpy(id.internal, all[0].data() + 1, sizeof id.internal);
  NcclConfig cfg;
  // Blocking by default: a non-blocking communicator hands every group launch
  // to a helper thread, which cost ~150 µs per call on 4xH200 (bench:allreduce,
  // NCCL 2.28). Waits stay bounded: NCCL starts after a bootstrap exchange
  // that proves every rank alive, distributed gathers and scatters swap
  // their counts through the bootstrap first, and every wait for NCCL's
  // kernels has a deadline that aborts the communicator. WM_NCCL_BLOCKING=0
  // bounds NCCL's own host calls too (connection set-up), at that cost.
  const char* blocking = std::getenv("WM_NCCL_BLOCKING");
  cfg.blocking = blocking && std::string(blocking) == "0" ? 0 : 1;
  ncclComm_t c = nullptr;
  int r = a.commInitRankConfig(&c, boot_->size(), id, boot_->rank(), &cfg);
  comm_ = c;
  if (r != kNcclSuccess && r != kNcclInProgress) {
    std::string err = a.getErrorString(r);
    if (comm_) a.commAbort(handle(comm_));
    comm_ = nullptr;
    fail("NCCL init failed: " + err);
  }
  settle(r, "NCCL init");
}

NcclComm::~NcclComm() {
  if (!comm_) return;
  const NcclApi* a = ncclApi();
  cudaStreamSynchronize(stream());
  // Finalize flushes outstanding work; bounded, then abort rather than hang at exit.
  int r = a->commFinalize(handle(comm_));
  auto deadline = Clock::now() + std::chrono::seconds(10);
  for (int round = 0; r == kNcclInProgress && Clock::now() < deadline; ++round) {
    a->commGetAsyncError(handle(comm_), &r);
    pause(round);
  }
  if (r == kNcclSuccess)
    a->commDestroy(handle(comm_));
  else
    a->commAbort(handle(comm_));
  comm_ = nullptr;
}

void NcclComm::live(const std::string& what) const {
  if (broken_ || !comm_) fail(what + ": the NCCL communicator was aborted after an earlier failure; create a new communicator");
}

void NcclComm::settle(int result, const std::string& what) {
  const NcclApi& a = api();
  auto deadline = Clock::now() + std::chrono::milliseconds(boot_->timeoutMs());
  for (int round = 0;; ++round) {
    if (result == kNcclSuccess) return;
    if (result != kNcclInProgress) {
      std::string detail = a.getErrorString(result);
      const char* last = comm_ ? a.getLastError(handle(comm_)) : nullptr;
      if (last && *last) detail += std::string(": ") + last;
      abortAndName(what, "NCCL failed (" + detail + ")");
    }
    if (Clock::now() > deadline) abortAndName(what, "NCCL did not finish within " + std::to_string(boot_->timeoutMs()) + " ms");
    pause(round);
    a.commGetAsyncError(handle(comm_), &result);
  }
}

void NcclComm::abortAndName(const std::string& what, const std::string& cause) {
  if (comm_) api().commAbort(handle(comm_));
  comm_ = nullptr;
  broken_ = true;
  // A rank that died or stopped answering is found by the bootstrap, which
  // notices closed sockets at once and names late ranks after its timeout.
  try {
    boot_->barrier(what + " (after an NCCL failure)");
  } catch (const std::exception& e) {
    fail(what + ": " + cause + "; " + e.what());
  }
  fail(what + ": " + cause + " although every rank is alive; the NCCL communicator was aborted");
}

void NcclComm::allToAllV(uint64_t send, const std::vector<int64_t>& sendOffset, const std::vector<int64_t>& sendBytes, uint64_t recv,
                         const std::vector<int64_t>& recvOffset, const std::vector<int64_t>& recvBytes, const std::string& what) {
  live(what);
  const NcclApi& a = api();
  int n = boot_->size();
  WM_REQUIRE(static_cast<int>(sendBytes.size()) == n && static_cast<int>(recvBytes.size()) == n, what + ": one count per rank");
  int r = a.groupStart();
  if (r != kNcclSuccess) settle(r, what);
  for (int q = 0; q < n; ++q) {
    // Counts agree pairwise (they were exchanged first), so skipped pairs match.
    if (sendBytes[q] > 0)
      a.send(reinterpret_cast<const void*>(send + sendOffset[q]), static_cast<size_t>(sendBytes[q]), kNcclUint8, q, handle(comm_),
             stream());
    if (recvBytes[q] > 0)
      a.recv(reinterpret_cast<void*>(recv + recvOffset[q]), static_cast<size_t>(recvBytes[q]), kNcclUint8, q, handle(comm_), stream());
  }
  settle(a.groupEnd(), what);
}

void NcclComm::allReduce(const std::vector<uint64_t>& send, const std::vector<uint64_t>& recv, const std::vector<int64_t>& count,
                         int ncclType, int ncclOp, const std::string& what) {
  live(what);
  const NcclApi& a = api();
  int r = a.groupStart();
  if (r != kNcclSuccess) settle(r, what);
  for (size_t i = 0; i < send.size(); ++i) {
    if (count[i] == 0) continue;
    a.allReduce(reinterpret_cast<const void*>(send[i]), reinterpret_cast<void*>(recv[i]), static_cast<size_t>(count[i]), ncclType, ncclOp,
                handle(comm_), stream());
  }
  settle(a.groupEnd(), what);
}

void NcclComm::wait(const std::string& what) {
  live(what);
  const NcclApi& a = api();
  auto deadline = Clock::now() + std::chrono::milliseconds(boot_->timeoutMs());
  for (int round = 0;; ++round) {
    cudaError_t e = cudaStreamQuery(stream());
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) WM_CUDA(e);
    int async = kNcclSuccess;
    a.commGetAsyncError(handle(comm_), &async);
    if (async != kNcclSuccess && async != kNcclInProgress) settle(async, what);
    if (Clock::now() > deadline) abortAndName(what, "NCCL did not finish within " + std::to_string(boot_->timeoutMs()) + " ms");
    pause(round);
  }
}

}  // namespace wm
