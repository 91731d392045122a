// The row cache's device side (wm::RowCache): filling the slots from the
// table, copying them back, and counting the lookups that hit. The gather,
// write and optimizer kernels need nothing of their own: CachedTable
// (embedding_common.cuh) sends each row to its slot or to the table.
#include "embedding/embedding_common.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

// Row ids[i] of the table <-> slot i, in words of W (16 bytes when rows and
// bases allow). Loading also records slotOf[ids[i]] = i.
template <typename W, bool kLoad>
__global__ void moveKernel(char* table, const int32_t* ids, int64_t n, int64_t rowWords, char* hot, int32_t* slotOf) {
  WM_GRID_STRIDE(t, n * rowWords) {
    const int64_t i = t / rowWords, k = t - i * rowWords;
    const int64_t r = ids[i];
    W* master = reinterpret_cast<W*>(table) + r * rowWords + k;
    W* slot = reinterpret_cast<W*>(hot) + i * rowWords + k;
    if constexpr (kLoad) {
      *slot = *master;
      if (k == 0) slotOf[r] = static_cast<int32_t>(i);
    } else {
      *master = *slot;
    }
  }
}

template <bool kLoad>
void move(const TableRef& t, const int32_t* ids, int64_t n, uint64_t hot, int32_t* slotOf) {
  const int64_t rowBytes = t.dim * storageBytes(t.storage);
  if (n == 0) return;
  auto launch = [&](auto word) {
    using W = decltype(word);
    const int64_t rowWords = rowBytes / static_cast<int64_t>(sizeof(W));
    moveKernel<W, kLoad>
        <<<gridFor(n * std::max<int64_t>(rowWords, 1)), kThreads, 0, stream()>>>(as<char>(t.ptr), ids, n, rowWords, as<char>(hot), slotOf);
  };
  if (rowBytes % 16 == 0 && t.ptr % 16 == 0 && hot % 16 == 0)
    launch(uint4{});
  else if (rowBytes % 4 == 0 && t.ptr % 4 == 0 && hot % 4 == 0)
    launch(uint32_t{});
  else
    launch(uint16_t{});
  WM_CUDA_LAUNCHED();
}

// One atomic per block: lookups are many, the counter is one word.
template <typename IdxT>
__global__ void hitsKernel(const int32_t* slotOf, int64_t rows, const IdxT* idx, int64_t n, unsigned long long* hits) {
  __shared__ unsigned long long blockHits;
  if (threadIdx.x == 0) blockHits = 0;
  __syncthreads();
  unsigned long long mine = 0;
  WM_GRID_STRIDE(i, n) {
    const int64_t r = static_cast<int64_t>(idx[i]);
    if (r >= 0 && r < rows && slotOf[r] >= 0) ++mine;
  }
  for (int o = 16; o > 0; o >>= 1) mine += __shfl_down_sync(0xffffffffu, mine, o);
  if ((threadIdx.x & 31) == 0 && mine) atomicAdd(&blockHits, mine);
  __syncthreads();
  if (threadIdx.x == 0 && blockHits) atomicAdd(hits, blockHits);
}

}  // namespace

void rowCacheLoad(const TableRef& table, const int32_t* ids, int64_t n, uint64_t hot, int32_t* slotOf) {
  move<true>(table, ids, n, hot, slotOf);
}

void rowCacheStore(const TableRef& table, const int32_t* ids, int64_t n, uint64_t hot) { move<false>(table, ids, n, hot, nullptr); }

void rowCacheHits(const int32_t* slotOf, int64_t rows, uint64_t indices, IndexType it, int64_t n, uint64_t hits) {
  if (n == 0) return;
  auto* h = as<unsigned long long>(hits);
  if (it == IndexType::I32)
    hitsKernel<<<gridFor(n), kThreads, 0, stream()>>>(slotOf, rows, as<int32_t>(indices), n, h);
  else
    hitsKernel<<<gridFor(n), kThreads, 0, stream()>>>(slotOf, rows, as<int64_t>(indices), n, h);
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
