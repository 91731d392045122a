// The row cache's device side (wm::RowCache): filling the slots from the
// table and copying them back (copyRows), counting the lookups that hit, and
// resolving ids to slots once for kernels that read each id's row many times
// (ResolvedCachedTable). The gather, write and optimizer kernels need nothing of
// their own: CachedTable (embedding_common.cuh) sends each row to its slot or to the table.
#include "embedding/embedding_common.cuh"
#include "runtime/copy_rows.h"
#include "wm/op_registry.h"

namespace wm {
namespace {

// Slot i holds row ids[i].
__global__ void slotsKernel(const int32_t* ids, int64_t n, int32_t* slotOf) {
  WM_GRID_STRIDE(i, n) slotOf[ids[i]] = static_cast<int32_t>(i);
}

// Adds the block's threads' counts to *hits with one atomic per block: lookups are many, the counter is
// one word. Every thread of the block calls it.
__device__ void addBlockCount(unsigned long long mine, unsigned long long* hits) {
  __shared__ unsigned long long blockHits;
  if (threadIdx.x == 0) blockHits = 0;
  __syncthreads();
  for (int o = 16; o > 0; o >>= 1) mine += __shfl_down_sync(0xffffffffu, mine, o);
  if ((threadIdx.x & 31) == 0 && mine) atomicAdd(&blockHits, mine);
  __syncthreads();
  if (threadIdx.x == 0 && blockHits) atomicAdd(hits, blockHits);
}

template <typename IdxT>
__global__ void hitsKernel(const int32_t* slotOf, int64_t rows, const IdxT* idx, int64_t n, unsigned long long* hits) {
  unsigned long long mine = 0;
  WM_GRID_STRIDE(i, n) {
    const int64_t r = static_cast<int64_t>(idx[i]);
    if (r >= 0 && r < rows && slotOf[r] >= 0) ++mine;
  }
  addBlockCount(mine, hits);
}

// Each id's slot, or its row complemented (ResolvedCachedTable's values); the slots found counted when hits is given.
// A cache of every row but [lo, lo + count) (lo >= 0) has row r in slot r, or r - count past the gap: no map read.
__global__ void resolveKernel(const int32_t* slotOf, int64_t lo, int64_t count, const int32_t* ids, int64_t n, int32_t* out,
                              unsigned long long* hits) {
  unsigned long long mine = 0;
  WM_GRID_STRIDE(i, n) {
    const int32_t r = ids[i];
    const int32_t s = lo < 0 ? slotOf[r] : r < lo ? r : r < lo + count ? -1 : static_cast<int32_t>(r - count);
    out[i] = s >= 0 ? s : ~r;
    mine += s >= 0;
  }
  if (hits) addBlockCount(mine, hits);
}

}  // namespace

void rowCacheLoad(const TableRef& table, const int32_t* ids, int64_t n, uint64_t hot, int32_t* slotOf) {
  if (n == 0) return;
  copyRows(table.ptr, ids, hot, nullptr, n, table.dim * storageBytes(table.storage));
  slotsKernel<<<gridFor(n), kThreads, 0, stream()>>>(ids, n, slotOf);
  WM_CUDA_LAUNCHED();
}

void rowCacheStore(const TableRef& table, const int32_t* ids, int64_t n, uint64_t hot) {
  copyRows(hot, nullptr, table.ptr, ids, n, table.dim * storageBytes(table.storage));
}

void rowCacheHits(const int32_t* slotOf, int64_t rows, uint64_t indices, IndexType it, int64_t n, uint64_t hits) {
  if (n == 0) return;
  auto* h = as<unsigned long long>(hits);
  if (it == IndexType::I32)
    hitsKernel<<<gridFor(n), kThreads, 0, stream()>>>(slotOf, rows, as<int32_t>(indices), n, h);
  else
    hitsKernel<<<gridFor(n), kThreads, 0, stream()>>>(slotOf, rows, as<int64_t>(indices), n, h);
  WM_CUDA_LAUNCHED();
}

void rowCacheResolve(const RowCache& cache, const int32_t* ids, int64_t n, int32_t* out) {
  if (n == 0) return;
  resolveKernel<<<gridFor(n), kThreads, 0, stream()>>>(as<int32_t>(cache.slotOf), cache.exceptFirst, cache.exceptCount, ids, n, out,
                                                       as<unsigned long long>(cache.hits));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// rowCacheLoad(table, ids, n, hot, slotOf): ids distinct and in range (the caller checks them on the host).
WM_OP(rowCacheLoad, Device, a) {
  const wm::TableRef t = a.cacheBackingTable(0, "table");
  wm::rowCacheLoad(t, wm::as<int32_t>(a.address(1, "ids")), a.count(2, "n"), a.address(3, "hot"), wm::as<int32_t>(a.address(4, "slotOf")));
}

// rowCacheStore(table, ids, n, hot)
WM_OP(rowCacheStore, Device, a) {
  const wm::TableRef t = a.cacheBackingTable(0, "table");
  wm::rowCacheStore(t, wm::as<int32_t>(a.address(1, "ids")), a.count(2, "n"), a.address(3, "hot"));
}

// rowCacheHits(slotOf, rows, indices, indexType, n, hits): adds the cached lookups to *hits.
WM_OP(rowCacheHits, Device, a) {
  wm::rowCacheHits(wm::as<int32_t>(a.address(0, "slotOf")), a.count(1, "rows"), a.address(2, "indices"), a.indexType(3, "indexType"),
                   a.count(4, "n"), a.address(5, "hits"));
}
