// A sampled layer's neighbour mean read straight from an embedding table: out[r] = mean over e < fanout of
// float(table[ids[neighbors[r * fanout + e]]]) for a fixed fan-out, or over e in [rowPtr[r], rowPtr[r + 1]) of
// float(table[ids[colIdx[e]]]) for a CSR block (an empty row's mean is zero); with ids null the entries are the
// table's rows themselves (a sampler's vertex ids, never relabelled into positions). Where a model's first layer reads a feature table,
// this takes the place of gathering every input row (a float32 copy of each, then read again by the mean): the table's rows are read once
// each time a neighbour is, in their storage type. A thread per 16-byte vector of an output row, as the gather's; each pass issues kUnroll
// neighbours' loads before adding any, and adds them in the neighbours' order, the order the gather-then-mean sums in.
// In front of a row cache the ids are resolved to slots first, once each, not once per neighbour read (their hits
// counted there, into the cache's counter).
#include <cuda_runtime.h>

#include "embedding/embedding_common.cuh"
#include "runtime/scratch.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

constexpr int kUnroll = 4;

// Row r's neighbours: `fanout` positions from r * fanout (rowPtr null), else colIdx[rowPtr[r] .. rowPtr[r + 1]).
template <typename Table, int VEC>
__global__ void gatherMeanKernel(Table table, const int32_t* ids, const int32_t* neighbors, const int32_t* rowPtr, int64_t numRows,
                                 int fanout, int64_t dim, float* out) {
  using T = typename StorageOf<Table>::type;
  const int64_t perRow = dim / VEC;
  WM_GRID_STRIDE(t, numRows * perRow) {
    const int64_t r = t / perRow, k = t - r * perRow;
    const int64_t begin = rowPtr ? rowPtr[r] : r * fanout;
    const int count = rowPtr ? static_cast<int>(rowPtr[r + 1] - begin) : fanout;
    const float scale = count > 0 ? 1.f / static_cast<float>(count) : 0.f;
    const int32_t* nb = neighbors + begin;
    float acc[VEC];
#pragma unroll
    for (int c = 0; c < VEC; ++c) acc[c] = 0.f;
    for (int e0 = 0; e0 < count; e0 += kUnroll) {
      const int m = count - e0 < kUnroll ? count - e0 : kUnroll;
      Vec<T, VEC> v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (u < m) v[u] = *reinterpret_cast<const Vec<T, VEC>*>(table.row(ids ? ids[nb[e0 + u]] : nb[e0 + u], dim) + k * VEC);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (u < m) {
#pragma unroll
          for (int c = 0; c < VEC; ++c) acc[c] += toFloat(v[u].v[c]);
        }
    }
    float* o = out + t * VEC;  // rows are whole vectors: vector t starts at element t * VEC
    if constexpr (VEC % 4 == 0) {
#pragma unroll
      for (int c = 0; c < VEC; c += 4)
        *reinterpret_cast<float4*>(o + c) = make_float4(acc[c] * scale, acc[c + 1] * scale, acc[c + 2] * scale, acc[c + 3] * scale);
    } else {
#pragma unroll
      for (int c = 0; c < VEC; ++c) o[c] = acc[c] * scale;
    }
  }
}

struct Launch {
  const TableRef& t;
  const int32_t* ids;
  const int32_t* neighbors;
  const int32_t* rowPtr;
  int64_t numRows;
  int fanout;
  float* out;
  template <typename Table, typename IdxT>
  void run(Table table) {
    using T = typename StorageOf<Table>::type;
    constexpr int kVec = 16 / sizeof(T);
    const auto o = reinterpret_cast<uint64_t>(out);
    const bool wide = t.dim % kVec == 0 && o % 16 == 0 && (t.chunked || t.ptr % 16 == 0) && (!t.chunked || t.chunked->chunkBytes % 16 == 0);
    if (wide)
      gatherMeanKernel<Table, kVec>
          <<<gridFor(numRows * (t.dim / kVec)), kThreads, 0, stream()>>>(table, ids, neighbors, rowPtr, numRows, fanout, t.dim, out);
    else
      gatherMeanKernel<Table, 1>
          <<<gridFor(numRows * t.dim), kThreads, 0, stream()>>>(table, ids, neighbors, rowPtr, numRows, fanout, t.dim, out);
  }
};

// A cached table's ids are resolved to slots once (each is read about fan-out times), then read through
// ResolvedCachedTable; every other table as dispatchTable gives it.
void launch(const TableRef& t, const int32_t* ids, int64_t numIds, const int32_t* neighbors, const int32_t* rowPtr, int64_t numRows,
            int fanout, float* out) {
  if (!t.cached() || ids == nullptr) {
    dispatchTable(t, IndexType::I32, Launch{t, ids, neighbors, rowPtr, numRows, fanout, out});
    return;
  }
  Scratch scratch;
  int32_t* resolved = scratch.get<int32_t>(numIds);
  rowCacheResolve(t.cache, ids, numIds, resolved);
  Launch l{t, resolved, neighbors, rowPtr, numRows, fanout, out};
  auto with = [&](auto tag) {
    using T = decltype(tag);
    l.run<ResolvedCachedTable<T>, int32_t>(ResolvedCachedTable<T>{reinterpret_cast<T*>(t.ptr), reinterpret_cast<T*>(t.cache.hot)});
  };
  withStorageType(t.storage, with);
}

}  // namespace

void embeddingGatherMean(const TableRef& table, uint64_t ids, int64_t numIds, uint64_t neighbors, int64_t numRows, int64_t fanout,
                         uint64_t out) {
  WM_REQUIRE(numRows >= 0 && numIds >= 0, "embeddingGatherMean: numRows and numIds must be non-negative");
  WM_REQUIRE(fanout >= 1 && fanout <= 0x7fffffff, "embeddingGatherMean: fanout must be a positive 32-bit integer");
  if (numRows == 0 || table.dim == 0) return;
  launch(table, as<int32_t>(ids), numIds, as<int32_t>(neighbors), nullptr, numRows, static_cast<int>(fanout), as<float>(out));
  WM_CUDA_LAUNCHED();
}

void embeddingGatherMeanCsr(const TableRef& table, uint64_t ids, int64_t numIds, uint64_t rowPtr, uint64_t colIdx, int64_t numRows,
                            uint64_t out) {
  WM_REQUIRE(numRows >= 0 && numIds >= 0, "embeddingGatherMeanCsr: numRows and numIds must be non-negative");
  WM_REQUIRE(rowPtr != 0 || numRows == 0, "embeddingGatherMeanCsr: rowPtr must be a device address");
  if (numRows == 0 || table.dim == 0) return;
  launch(table, as<int32_t>(ids), numIds, as<int32_t>(colIdx), as<int32_t>(rowPtr), numRows, 0, as<float>(out));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// embeddingGatherMean(table, ids, numIds, neighbors, numRows, fanout, out): numIds ids, valid rows of the table;
// neighbors positions in ids (ids 0: neighbors are valid rows).
WM_OP(embeddingGatherMean, Device, a) {
  const wm::TableRef t = a.table(0, "table");
  wm::embeddingGatherMean(t, a.address(1, "ids"), a.count(2, "numIds"), a.address(3, "neighbors"), a.count(4, "numRows"),
                          a.count(5, "fanout"), a.address(6, "out"));
}

// embeddingGatherMeanCsr(table, ids, numIds, rowPtr, colIdx, numRows, out): a CSR block's rows (rowPtr [numRows + 1]
// offsets into colIdx, colIdx positions in ids, or valid rows where ids is 0), each row's mean of its entries' table rows.
WM_OP(embeddingGatherMeanCsr, Device, a) {
  const wm::TableRef t = a.table(0, "table");
  wm::embeddingGatherMeanCsr(t, a.address(1, "ids"), a.count(2, "numIds"), a.address(3, "rowPtr"), a.address(4, "colIdx"),
                             a.count(5, "numRows"), a.address(6, "out"));
}
