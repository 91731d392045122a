// Embedding lookup: each thread moves one 16-byte vector of a row (4 float32
// or 8 half/bfloat16 elements) when the row width allows, so rows are read
// with full-width loads whatever the storage type. Rows in pinned host memory
// are read in row order (the indices sorted with their positions, each row
// written back to its position): random 256-byte rows of a 2.56 GB pinned
// table gather at 13.9 GB/s on an H100, the same ids sorted at 52.8 GB/s, 97 %
// of the copy engine's 54.4 (bench/probes/host_gather.cu): the cost is the
// GPU's address translation for host pages, and order is what it needs.
// A cached table over host memory reads its hits in place from their slots
// (GPU memory: order costs nothing there) and sorts only its misses, which
// are the rows the bus carries. A table chunked over several GPUs is read in
// row order too: its peers' rows come over NVLink, where random reads of a
// large table are bound by the same translation of far addresses.
#include <cuda_runtime.h>

#include "embedding/embedding_common.cuh"
#include "runtime/scratch.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

// Each thread moves kUnroll vectors a grid apart per pass: their index and
// row loads are all issued before any store, so more of the random row reads
// are in flight at once (half-width rows read half the bytes per load and
// fell short of the copy rate one at a time).
// idx[i] goes to output row pos[i] (i itself without pos).
template <typename Table, typename IdxT, int VEC, int kUnroll>
__global__ void gatherKernel(Table table, const IdxT* idx, const int32_t* pos, int64_t n, int64_t dim, int64_t rows, float* out,
                             unsigned long long* errorFlag) {
  using T = typename StorageOf<Table>::type;
  const int64_t perRow = dim / VEC, total = n * perRow;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t0 = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t0 < total; t0 += stride * kUnroll) {
    Vec<T, VEC> v[kUnroll];
    int64_t at[kUnroll];
    bool bad[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t t = t0 + u * stride;
      at[u] = -1;
      bad[u] = false;
      if (t >= total) continue;
      const int64_t i = t / perRow, k = t - i * perRow;
      const int64_t r = static_cast<int64_t>(idx[i]);
      at[u] = pos ? static_cast<int64_t>(pos[i]) * perRow + k : t;
      bad[u] = r < 0 || r >= rows;
      if (!bad[u]) v[u] = *reinterpret_cast<const Vec<T, VEC>*>(table.row(r, dim) + k * VEC);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (at[u] < 0) continue;
      float* o = out + at[u] * VEC;  // rows are whole vectors: vector t starts at element t * VEC
      if (bad[u]) {
#pragma unroll
        for (int e = 0; e < VEC; ++e) o[e] = 0.f;
        if (errorFlag && at[u] % perRow == 0) atomicMin(errorFlag, static_cast<unsigned long long>(at[u] / perRow));
        continue;
      }
      if constexpr (VEC % 4 == 0) {
#pragma unroll
        for (int e = 0; e < VEC; e += 4) {
          *reinterpret_cast<float4*>(o + e) =
              make_float4(toFloat(v[u].v[e]), toFloat(v[u].v[e + 1]), toFloat(v[u].v[e + 2]), toFloat(v[u].v[e + 3]));
        }
      } else {
#pragma unroll
        for (int e = 0; e < VEC; ++e) o[e] = toFloat(v[u].v[e]);
      }
    }
  }
}

struct Launch {
  const TableRef& t;
  uint64_t idx, out, flag;
  int64_t n;
  const int32_t* pos;  // with idx sorted: each one's output row
  template <typename Table, typename IdxT>
  void run(Table table) {
    using T = typename StorageOf<Table>::type;
    constexpr int kVec = 16 / sizeof(T);
    auto* f = reinterpret_cast<unsigned long long*>(flag);
    // Wide vectors need rows of whole vectors and aligned bases.
    bool wide = t.dim % kVec == 0 && out % 16 == 0 && (t.chunked || t.ptr % 16 == 0) && (!t.chunked || t.chunked->chunkBytes % 16 == 0);
    // Measured on an H200 (bench:embedding, 128-wide rows): two vectors per
    // pass lift half-precision gathers from 73-75% to 80-81% of the copy
    // rate; four gave 78%, eight 62%, and any unrolling slowed float32 rows
    // (128 wide: 88-90% -> 80-83%).
    constexpr int kUnroll = sizeof(T) == 2 ? 2 : 1;
    if (wide) {
      gatherKernel<Table, IdxT, kVec, kUnroll><<<gridFor((n * (t.dim / kVec) + kUnroll - 1) / kUnroll), kThreads, 0, stream()>>>(
          table, as<IdxT>(idx), pos, n, t.dim, t.rows, as<float>(out), f);
    } else {
      gatherKernel<Table, IdxT, 1, 1>
          <<<gridFor(n * t.dim), kThreads, 0, stream()>>>(table, as<IdxT>(idx), pos, n, t.dim, t.rows, as<float>(out), f);
    }
  }
};

// Whether the table's rows are pinned host memory (read over the bus).
bool rowsInHostMemory(const TableRef& t) {
  if (t.chunked != nullptr || t.ptr == 0) return false;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, reinterpret_cast<const void*>(t.ptr)) != cudaSuccess) {
    (void)cudaGetLastError();  // not an address CUDA knows: not pinned host memory
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

// Splits a cached table's lookups: each one's slot (-1 for a miss) into slots[i], read in order by the
// hits' gather (no second lookup of the map there), and the misses (bad indices too, so the miss pass
// reports them) appended with their positions: one atomic per warp that has any.
template <typename IdxT>
__global__ void splitKernel(const int32_t* slotOf, int64_t rows, const IdxT* idx, int64_t n, int32_t* slots, IdxT* missIdx,
                            int32_t* missPos, unsigned long long* missCount) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int lane = threadIdx.x & 31;
  // The bound is uniform across each warp (base steps by whole blocks), as the ballot needs.
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x; base < n; base += stride) {
    const int64_t i = base + threadIdx.x;
    IdxT r = 0;
    bool miss = false;
    if (i < n) {
      r = idx[i];
      const int32_t slot = r < 0 || r >= rows ? -1 : slotOf[r];
      slots[i] = slot;
      miss = slot < 0;
    }
    const unsigned mask = __ballot_sync(0xffffffffu, miss);
    if (mask == 0) continue;
    const int leader = __ffs(mask) - 1;
    unsigned long long at = 0;
    if (lane == leader) at = atomicAdd(missCount, static_cast<unsigned long long>(__popc(mask)));
    at = __shfl_sync(0xffffffffu, at, leader);
    if (miss) {
      const unsigned long long k = at + __popc(mask & ((1u << lane) - 1u));
      missIdx[k] = r;
      missPos[k] = static_cast<int32_t>(i);
    }
  }
}

// Sorting pays for itself from a few thousand host rows; below, the sort's launches cost more than order saves.
constexpr int64_t kSortFrom = 4096;

// Rows idx[i] to output rows pos[i], read in row order: the pairs sorted by row first. Valid rows need
// bitsBelow(rows) bits; a bad index sorts anywhere and is reported at its position.
template <typename IdxT>
void gatherInRowOrder(Scratch& s, const TableRef& table, const IdxT* idx, const int32_t* pos, int64_t n, uint64_t out, uint64_t errorFlag) {
  auto* keys = s.get<IdxT>(n);
  auto* order = s.get<int32_t>(n);
  radixSortPairs(s, idx, keys, pos, order, n, bitsBelow(std::max<int64_t>(table.rows, 2)));
  dispatchTable(table, std::is_same_v<IdxT, int32_t> ? IndexType::I32 : IndexType::I64,
                Launch{table, reinterpret_cast<uint64_t>(keys), out, errorFlag, n, order});
}

template <typename IdxT>
void sortedGather(const TableRef& table, uint64_t indices, int64_t n, uint64_t out, uint64_t errorFlag) {
  Scratch s;
  auto* pos = s.get<int32_t>(n);
  iota(pos, n);
  gatherInRowOrder(s, table, as<const IdxT>(indices), pos, n, out, errorFlag);
}

// The hits of a cached table, read from their slots in arrival order: the slots are a contiguous table of
// their own, and a lookup without one (slot -1, outside it) gives a zero row that the miss pass overwrites.
void gatherHits(const TableRef& t, const int32_t* slots, int64_t n, uint64_t out) {
  TableRef hot = t;
  hot.ptr = t.cache.hot;
  hot.rows = t.cache.slots;
  hot.cache = RowCache{};
  dispatchTable(hot, IndexType::I32, Launch{hot, reinterpret_cast<uint64_t>(slots), out, 0, n, nullptr});
}

// A cached table over pinned host memory: the hits from their slots, then the misses compacted and, when
// there are enough of them for order to pay, sorted and read from the host in row order.
template <typename IdxT>
void cachedGather(const TableRef& table, uint64_t indices, int64_t n, uint64_t out, uint64_t errorFlag) {
  const IndexType it = std::is_same_v<IdxT, int32_t> ? IndexType::I32 : IndexType::I64;
  Scratch s;
  auto* slots = s.get<int32_t>(n);
  auto* missIdx = s.get<IdxT>(n);
  auto* missPos = s.get<int32_t>(n);
  auto* missCount = s.get<unsigned long long>(1);
  WM_CUDA(cudaMemsetAsync(missCount, 0, sizeof(unsigned long long), stream()));
  splitKernel<IdxT><<<gridFor(n), kThreads, 0, stream()>>>(reinterpret_cast<const int32_t*>(table.cache.slotOf), table.rows,
                                                           as<const IdxT>(indices), n, slots, missIdx, missPos, missCount);
  WM_CUDA_LAUNCHED();
  // The count comes back while the hits are gathered: the misses' launch waits for it alone.
  PendingRead* pending = beginRead(reinterpret_cast<uint64_t>(missCount), sizeof(unsigned long long));
  unsigned long long m = 0;
  try {
    gatherHits(table, slots, n, out);
  } catch (...) {
    cancelRead(pending);
    throw;
  }
  finishRead(pending, &m);
  if (m == 0) return;
  TableRef behind = table;  // a miss is in no slot: read from the table itself
  behind.cache = RowCache{};
  const auto count = static_cast<int64_t>(m);
  if (count < kSortFrom)
    dispatchTable(behind, it, Launch{behind, reinterpret_cast<uint64_t>(missIdx), out, errorFlag, count, missPos});
  else
    gatherInRowOrder(s, behind, static_cast<const IdxT*>(missIdx), missPos, count, out, errorFlag);
}

}  // namespace

void embeddingGather(const TableRef& table, uint64_t indices, IndexType it, int64_t n, uint64_t out, uint64_t errorFlag) {
  if (n == 0 || table.dim == 0) return;
  const bool sortable = n >= kSortFrom && n < (int64_t{1} << 31) && (table.chunked != nullptr || rowsInHostMemory(table));
  if (sortable && table.cached()) {
    if (it == IndexType::I32)
      cachedGather<int32_t>(table, indices, n, out, errorFlag);
    else
      cachedGather<int64_t>(table, indices, n, out, errorFlag);
  } else if (sortable) {
    if (it == IndexType::I32)
      sortedGather<int32_t>(table, indices, n, out, errorFlag);
    else
      sortedGather<int64_t>(table, indices, n, out, errorFlag);
  } else {
    dispatchTable(table, it, Launch{table, indices, out, errorFlag, n, nullptr});
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// embeddingGather(table, indices, indexType, n, out, errorFlag)
WM_OP(embeddingGather, Device, a) {
  const wm::TableRef t = a.table(0, "table");
  wm::embeddingGather(t, a.address(1, "indices"), a.indexType(2, "indexType"), a.count(3, "n"), a.address(4, "out"),
                      a.address(5, "errorFlag"));
}
