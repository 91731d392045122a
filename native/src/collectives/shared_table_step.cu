// One sparse optimizer step over a table every rank addresses whole (continuous or chunked GPU WholeMemory),
// from every rank's gradients, in one of two ways:
// - ownerEmbeddingApply (any optimizer): each rank's (index, gradient row) pairs are gathered on every rank
//   through NCCL, and each rank applies those of the rows it owns. No count crosses the host and nothing
//   waits for the GPU: the ranks' block sizes are agreed on the host beforehand (nMax), shorter blocks padded
//   with -1.
// - sharedEmbeddingAdd (SGD without weight decay, whose step is a sum): each rank adds its own rows' steps to
//   the table with atomic adds, over NVLink where a row lies on another GPU; nothing crosses between ranks but
//   the ordering words.
// Either way one-word all-reduces order the step: queued after it, every rank's later reads follow every
// rank's writes.

#include "collectives/nccl_loader.h"
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "wm/distributed.h"
#include "wm/runtime.h"

namespace wm {
namespace {

// The first n indices, then -1 up to nMax.
__global__ void padKernel(const int32_t* idx, int64_t n, int64_t nMax, int32_t* out) {
  WM_GRID_STRIDE(i, nMax) out[i] = i < n ? idx[i] : -1;
}

// Indices of rows in [first, first + count) kept, every other (padding, other owners' rows, out of range) made
// `rows`: outside the table, so the step skips it, and sorted after every row.
__global__ void ownedKernel(int32_t* idx, int64_t n, int64_t first, int64_t count, int64_t rows) {
  WM_GRID_STRIDE(i, n) {
    const int64_t r = idx[i];
    if (r < first || r >= first + count) idx[i] = static_cast<int32_t>(rows);
  }
}

// A one-word all-reduce on the stream: work a rank queues after it runs after the work every rank queued before.
void orderRanks(NcclComm& comm, Scratch& s, const std::string& what) {
  int32_t* word = s.get<int32_t>(1);
  WM_CUDA(cudaMemsetAsync(word, 0, sizeof(int32_t), stream()));
  comm.allReduce({reinterpret_cast<uint64_t>(word)}, {reinterpret_cast<uint64_t>(word)}, {1}, kNcclInt32, kNcclSum, what);
}

}  // namespace

void ownerEmbeddingApply(NcclComm& comm, const TableRef& table, int64_t first, int64_t count, uint64_t state0, uint64_t state1,
                         uint64_t indices, int64_t n, int64_t nMax, uint64_t grads, SparseOptimizer opt, const OptimizerParams& params,
                         uint64_t skipped, const std::string& what) {
  const int ranks = comm.bootstrap().size();
  WM_REQUIRE(n >= 0 && n <= nMax, what + ": n (" + std::to_string(n) + ") must be in [0, nMax (" + std::to_string(nMax) + ")]");
  WM_REQUIRE(static_cast<double>(nMax) * ranks < 2147483648.0,
             what + ": ranks x nMax (" + std::to_string(ranks) + " x " + std::to_string(nMax) + ") must stay below 2^31 gradient rows");
  WM_REQUIRE(table.rows < 2147483647, what + ": the table must have fewer than 2^31 - 1 rows");
  WM_REQUIRE(first >= 0 && count >= 0 && first + count <= table.rows, what + ": the owned rows must lie within the table");
  if (nMax == 0) return;
  const int64_t rowBytes = table.dim * 4, total = nMax * ranks;
  Scratch s;
  int32_t* sendIds = s.get<int32_t>(nMax);
  padKernel<<<gridFor(nMax), kThreads, 0, stream()>>>(reinterpret_cast<const int32_t*>(indices), n, nMax, sendIds);
  WM_CUDA_LAUNCHED();
  uint64_t sendRows = grads;
  if (n < nMax) {  // rows past n are never applied (their indices are -1): only their bytes must exist
    auto* padded = s.get<uint8_t>(nMax * rowBytes);
    if (n > 0) WM_CUDA(cudaMemcpyAsync(padded, reinterpret_cast<const void*>(grads), n * rowBytes, cudaMemcpyDeviceToDevice, stream()));
    sendRows = reinterpret_cast<uint64_t>(padded);
  }
  int32_t* ids = s.get<int32_t>(total);
  auto* rowsIn = s.get<uint8_t>(total * rowBytes);
  // An all-gather as NCCL sends and receives: the same block to every other rank, rank q's block into slot q;
  // this rank's own block copied in place.
  const int me = comm.bootstrap().rank();
  std::vector<int64_t> zero(ranks, 0), idBytes(ranks, nMax * 4), idAt(ranks), rowBytesEach(ranks, nMax * rowBytes), rowAt(ranks);
  for (int q = 0; q < ranks; ++q) {
    idAt[q] = q * nMax * 4;
    rowAt[q] = q * nMax * rowBytes;
  }
  idBytes[me] = rowBytesEach[me] = 0;
  WM_CUDA(cudaMemcpyAsync(ids + me * nMax, sendIds, nMax * 4, cudaMemcpyDeviceToDevice, stream()));
  WM_CUDA(cudaMemcpyAsync(rowsIn + me * nMax * rowBytes, reinterpret_cast<const void*>(sendRows), nMax * rowBytes, cudaMemcpyDeviceToDevice,
                          stream()));
  comm.allToAllV(reinterpret_cast<uint64_t>(sendIds), zero, idBytes, reinterpret_cast<uint64_t>(ids), idAt, idBytes, what + " (indices)");
  comm.allToAllV(sendRows, zero, rowBytesEach, reinterpret_cast<uint64_t>(rowsIn), rowAt, rowBytesEach, what + " (gradients)");
  ownedKernel<<<gridFor(total), kThreads, 0, stream()>>>(ids, total, first, count, table.rows);
  WM_CUDA_LAUNCHED();
  embeddingApply(table, state0, state1, reinterpret_cast<uint64_t>(ids), IndexType::I32, total, reinterpret_cast<uint64_t>(rowsIn), opt,
                 params, 0, skipped);
  // Queued behind this rank's writes on every rank: a rank's reads queued after it wait for every owner's step.
  orderRanks(comm, s, what + " (ordering)");
}

void sharedEmbeddingAdd(NcclComm& comm, const TableRef& table, uint64_t indices, int64_t n, uint64_t grads, const OptimizerParams& params,
                        uint64_t skipped, const std::string& what) {
  WM_REQUIRE(n >= 0, what + ": n (" + std::to_string(n) + ") must not be negative");
  WM_REQUIRE(params.weightDecay == 0.f, what + ": only SGD without weight decay adds its steps (a decay reads the row it changes)");
  Scratch s;
  // Every rank's reads of this step (its gathers) before any rank's writes, and every write before any later read.
  orderRanks(comm, s, what + " (before)");
  embeddingAdd(table, indices, IndexType::I32, n, grads, params, 0, skipped);
  orderRanks(comm, s, what + " (after)");
}

}  // namespace wm
