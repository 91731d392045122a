// Rows of 'distributed' GPU WholeMemory: each rank holds rows
// [rank * rowsPerRank, ...) in its own GPU memory; gathers and scatters are
// collectives that bucket the indices by owner, exchange them and the rows
// through NCCL, and put the rows in place. Every rank calls them, in the
// same order, with its own indices (possibly none).
#pragma once
#include <cstdint>
#include <string>

#include "wm/embedding.h"
#include "wm/nccl_comm.h"

namespace wm {

struct DistributedLayout {
  int64_t rows = 0, rowsPerRank = 0, rowBytes = 0;  // rowBytes: a multiple of 4
  uint64_t localSlice = 0;                          // this rank's rows, on its GPU
  int64_t localRows = 0;
  const char* noun = "tensor";  // what errors call it ("index 7 ... outside the tensor's 5 rows")
};

// out[i] = row indices[i] (int32 indices and out on this rank's GPU).
// An index outside the tensor fails on every rank, naming it where it was passed.
void distributedGather(NcclComm& comm, const DistributedLayout& layout, uint64_t indices, int64_t n, uint64_t out, const std::string& what);
// row indices[i] = values[i]; duplicates resolve in rank order, then in
// order within a rank: the last write wins, on every run.
void distributedScatter(NcclComm& comm, const DistributedLayout& layout, uint64_t indices, int64_t n, uint64_t values,
                        const std::string& what);

// Distributed embedding tables: each rank holds rows [rank * rowsPerRank, ...)
// as `local` (any storage type); rows travel as float32 (layout.rowBytes =
// dim * 4). out[i] = row indices[i].
void distributedEmbeddingGather(NcclComm& comm, const DistributedLayout& layout, const TableRef& local, uint64_t indices, int64_t n,
                                uint64_t out, const std::string& what);
// Row indices[i] = values[i] (float32, rounded to the storage type);
// duplicates: the last in rank order, then in order, wins.
void distributedEmbeddingWrite(NcclComm& comm, const DistributedLayout& layout, const TableRef& local, uint64_t indices, int64_t n,
                               uint64_t values, const std::string& what);
// One sparse optimizer step: every rank's (index, gradient row) pairs go to
// the rows' owners, which merge duplicates across ranks and update in place.
void distributedEmbeddingApply(NcclComm& comm, const DistributedLayout& layout, const TableRef& local, uint64_t state0, uint64_t state1,
                               uint64_t indices, int64_t n, uint64_t grads, SparseOptimizer opt, const OptimizerParams& params,
                               uint64_t skipped, const std::string& what);

// One sparse optimizer step over a table every rank addresses whole (continuous or chunked WholeMemory):
// every rank's (index, gradient row) pairs are gathered on every rank, and each applies those of the rows it
// owns, [first, first + count), duplicates across ranks merged into one update per row. nMax: the largest n
// of any rank (agreed beforehand); nothing waits for the GPU, and reads queued after the call on any rank
// follow every owner's writes.
void ownerEmbeddingApply(NcclComm& comm, const TableRef& table, int64_t first, int64_t count, uint64_t state0, uint64_t state1,
                         uint64_t indices, int64_t n, int64_t nMax, uint64_t grads, SparseOptimizer opt, const OptimizerParams& params,
                         uint64_t skipped, const std::string& what);
// SGD without weight decay over such a table: each rank adds its own rows' steps (embeddingAdd) with atomic
// adds, every rank's reads of the step before and after every rank's adds (ranks whose GPUs reach each other
// with native atomics: NVLink).
void sharedEmbeddingAdd(NcclComm& comm, const TableRef& table, uint64_t indices, int64_t n, uint64_t grads, const OptimizerParams& params,
                        uint64_t skipped, const std::string& what);

}  // namespace wm
