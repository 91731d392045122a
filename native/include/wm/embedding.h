// Embedding tables: row gather and sparse optimizer updates applied in place,
// written once over PtrGen so the same kernels serve contiguous device
// memory and chunked memory. Storage may be float32, float16 or bfloat16;
// arithmetic is float32.
#pragma once
#include <cstdint>

#include "wm/ptr_gen.h"

namespace wm {

enum class StorageType : int { F32 = 0, F16 = 1, BF16 = 2 };
enum class IndexType : int { I32 = 0, I64 = 1 };
// RowAdaGrad: one state per row (the mean of its squared gradients), as PyTorch-BigGraph and DGL-KE keep
// it for tables of tens of millions of rows, where a state per element would double the table.
enum class SparseOptimizer : int { SGD = 0, Adam = 1, AdaGrad = 2, RMSProp = 3, RowAdaGrad = 4 };

// Floats per row in each state array of `opt` for rows `dim` wide.
inline int64_t stateWidth(SparseOptimizer opt, int64_t dim) { return opt == SparseOptimizer::RowAdaGrad ? 1 : dim; }

inline int storageBytes(StorageType s) { return s == StorageType::F32 ? 4 : 2; }

struct OptimizerParams {
  float lr = 0.01f;
  float beta1 = 0.9f, beta2 = 0.999f;  // Adam
  float rho = 0.9f;                    // RMSProp
  float eps = 1e-8f;
  float weightDecay = 0.f;
  float biasCorrection1 = 1.f;  // 1 - beta1^t, from the caller's step count
  float biasCorrection2 = 1.f;  // 1 - beta2^t
};

// Rows of a contiguous table kept in faster memory (GPU memory in front of a
// pinned-host or managed table): `slots` rows at `hot` (the table's storage
// type), and `slotOf[r]` the slot holding row r, or -1. A cached row lives
// only in its slot: every kernel reads and writes it there, so the table stays
// exact without a write-through; the slots go back to the table when the
// cache is emptied (rowCacheStore).
struct RowCache {
  uint64_t hot = 0;
  uint64_t slotOf = 0;
  int64_t slots = 0;
  // A device counter (uint64) the kernels that resolve ids to slots add their hits to, or 0.
  uint64_t hits = 0;
  // exceptFirst >= 0: the slots hold every row outside [exceptFirst, exceptFirst + exceptCount) in row order (a
  // replica of the rows other ranks hold), so a row's slot is known without reading slotOf.
  int64_t exceptFirst = -1, exceptCount = 0;
};

// A table of rows x dim elements: either one contiguous address or a chunked
// handle (chunks hold whole rows), optionally with a row cache.
struct TableRef {
  uint64_t ptr = 0;
  const ChunkedHandle* chunked = nullptr;
  int64_t rows = 0, dim = 0;
  StorageType storage = StorageType::F32;
  // The global index of row 0 (a rank's part of a distributed table): the
  // initial values are those of the global rows, whoever holds them.
  int64_t rowBase = 0;
  RowCache cache;
  bool cached() const { return cache.slotOf != 0; }
};

// ---- device (CUDA) ----
// out[i, :] = float(table[indices[i], :]). A bad index writes zeros and
// records its position in *errorFlag (uint64, all ones = none) when given.
void embeddingGather(const TableRef& table, uint64_t indices, IndexType it, int64_t n, uint64_t out, uint64_t errorFlag);
// out[r, :] = mean over e < fanout of float(table[ids[neighbors[r * fanout + e]], :]) for r < numRows: a
// sampled layer's neighbour mean read from the table (numIds int32 ids, every one a row of it; neighbors positions
// in ids).
void embeddingGatherMean(const TableRef& table, uint64_t ids, int64_t numIds, uint64_t neighbors, int64_t numRows, int64_t fanout,
                         uint64_t out);
// The same over a CSR block: row r's neighbours are colIdx[rowPtr[r] .. rowPtr[r + 1]) (int32 offsets and positions
// in ids); an empty row's mean is zero.
void embeddingGatherMeanCsr(const TableRef& table, uint64_t ids, int64_t numIds, uint64_t rowPtr, uint64_t colIdx, int64_t numRows,
                            uint64_t out);
// table[indices[i], :] = values[i, :] (float32 in, rounded to the storage type).
void embeddingWriteRows(const TableRef& table, uint64_t indices, IndexType it, int64_t n, uint64_t values, uint64_t errorFlag);
// Merges duplicate indices (sum of their gradient rows), then applies the
// optimizer to each touched row in place. state0/state1 are float32 tables
// of the same shape (Adam: m, v; AdaGrad/RMSProp: state0), or for RowAdaGrad
// state0 alone with one float per row (stateWidth). Non-finite
// gradient elements are skipped (the element and its state keep their
// values) and counted into *skipped (uint64) when given.
void embeddingApply(const TableRef& table, uint64_t state0, uint64_t state1, uint64_t indices, IndexType it, int64_t n, uint64_t grads,
                    SparseOptimizer opt, const OptimizerParams& p, uint64_t errorFlag, uint64_t skipped);
// SGD without weight decay, as embeddingApply, but each row's step (-lr times the sum of its gradient rows)
// added to it with atomic adds: exact while other processes add to the same rows at the same time (each
// process's sum rounded to the storage type once as it is added).
void embeddingAdd(const TableRef& table, uint64_t indices, IndexType it, int64_t n, uint64_t grads, const OptimizerParams& p,
                  uint64_t errorFlag, uint64_t skipped);

// Fills rows [firstRow, firstRow + count) with initialValue(seed, element, kind, scale).
void embeddingInit(const TableRef& table, int64_t firstRow, int64_t count, uint64_t seed, int kind, float scale);

// The row cache (row_cache.cu): copies table rows ids[0..n) into slots 0..n and
// records them in slotOf; copies the slots back to their rows; counts the
// indices whose row is cached into *hits (uint64). `table` is the one behind
// the cache (no cache of its own).
void rowCacheLoad(const TableRef& table, const int32_t* ids, int64_t n, uint64_t hot, int32_t* slotOf);
void rowCacheStore(const TableRef& table, const int32_t* ids, int64_t n, uint64_t hot);
void rowCacheHits(const int32_t* slotOf, int64_t rows, uint64_t indices, IndexType it, int64_t n, uint64_t hits);
// out[i] = the slot of row ids[i] where the cache holds it, else ~ids[i]: what ResolvedCachedTable reads (ids valid
// rows); the cached ones added to *cache.hits when it is given.
void rowCacheResolve(const RowCache& cache, const int32_t* ids, int64_t n, int32_t* out);

namespace host {
void rowCacheLoad(const TableRef& table, const int32_t* ids, int64_t n, void* hot, int32_t* slotOf);
void rowCacheStore(const TableRef& table, const int32_t* ids, int64_t n, const void* hot);
int64_t rowCacheHits(const int32_t* slotOf, int64_t rows, const void* indices, IndexType it, int64_t n);
void embeddingInit(const TableRef& table, int64_t firstRow, int64_t count, uint64_t seed, int kind, float scale);
int64_t embeddingGather(const TableRef& table, const void* indices, IndexType it, int64_t n, float* out);
int64_t embeddingWriteRows(const TableRef& table, const void* indices, IndexType it, int64_t n, const float* values);
// Returns the number of skipped (non-finite) gradient elements, or throws on a bad index (before any write).
int64_t embeddingApply(const TableRef& table, float* state0, float* state1, const void* indices, IndexType it, int64_t n,
                       const float* grads, SparseOptimizer opt, const OptimizerParams& p);
}  // namespace host

}  // namespace wm
