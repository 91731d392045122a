// Sparse optimizer step: sort (index, position) pairs with CUB, find the
// runs of equal indices, and let one warp own each distinct row: it sums the
// run's gradient rows and applies the update in place. No dense gradient, no
// atomics, and every row is written by exactly one warp.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "embedding_common.cuh"
#include "wm/runtime.h"

namespace wm {
namespace {

template <typename IdxT>
__global__ void widenKeys(const IdxT* idx, int64_t n, int64_t rows, long long* keys, int* pos,
                          unsigned long long* errorFlag) {
  WM_GRID_STRIDE(i, n) {
    long long r = static_cast<long long>(idx[i]);
    if ((r < 0 || r >= rows) && errorFlag) atomicMin(errorFlag, static_cast<unsigned long long>(i));
    keys[i] = r;
    pos[i] = static_cast<int>(i);
  }
}

__global__ void markHeads(const long long* keys, int64_t n, unsigned char* heads) {
  WM_GRID_STRIDE(i, n) { heads[i] = i == 0 || keys[i] != keys[i - 1]; }
}

template <typename Table>
__global__ void applyKernel(Table table, float* s0, float* s1, const long long* keys, const int* pos,
                            const int* heads, const int* numUnique, int64_t n, int64_t dim, int64_t rows,
                            const float* grads, SparseOptimizer opt, OptimizerParams p,
                            unsigned long long* skipped) {
  using T = typename StorageOf<Table>::type;
  int lane = threadIdx.x & 31;
  int64_t warp = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5;
  int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  int unique = *numUnique;
  for (int64_t u = warp; u < unique; u += warps) {
    int64_t begin = heads[u], end = u + 1 < unique ? heads[u + 1] : n;
    long long r = keys[begin];
    if (r < 0 || r >= rows) continue;  // reported by widenKeys; the caller throws before any apply
    T* w = table.row(r, dim);
    unsigned long long bad = 0;
    for (int64_t j = lane; j < dim; j += 32) {
      float g = 0.f;
      for (int64_t q = begin; q < end; ++q) g += grads[static_cast<int64_t>(pos[q]) * dim + j];
      float x = toFloat(w[j]);
      float* a = s0 ? s0 + r * dim + j : nullptr;
      float* b = s1 ? s1 + r * dim + j : nullptr;
      if (applyRule(opt, p, x, a, b, g)) w[j] = fromFloat<T>(x);
      else ++bad;
    }
    if (bad && skipped) atomicAdd(skipped, bad);
  }
}

struct Scratch {
  uint64_t ptr = 0;
  ~Scratch() { deviceFree(ptr); }
};

struct ApplyLaunch {
  float *s0, *s1;
  long long* keys;
  int *pos, *heads, *count;
  int64_t n, dim, rows;
  const float* grads;
  SparseOptimizer opt;
  OptimizerParams p;
  unsigned long long* skip;
  unsigned blocks;
  cudaStream_t s;
  template <typename Table, typename IdxT>
  void run(Table table) {
    applyKernel<Table><<<blocks, kThreads, 0, s>>>(table, s0, s1, keys, pos, heads, count, n, dim, rows, grads, opt,
                                                   p, skip);
  }
};

}  // namespace

void embeddingApply(const TableRef& table, uint64_t state0, uint64_t state1, uint64_t indices, IndexType it,
                    int64_t n, uint64_t grads, SparseOptimizer opt, const OptimizerParams& p, uint64_t errorFlag,
                    uint64_t skipped) {
  if (n == 0 || table.dim == 0) return;
  WM_REQUIRE(n < (1ll << 31), "embedding apply: at most 2^31 - 1 indices per step");
  cudaStream_t s = stream();
  // One scratch block: keys/pos in and out, head flags, heads, count, CUB temp.
  size_t sortTemp = 0, selectTemp = 0;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sortTemp, static_cast<long long*>(nullptr),
                                          static_cast<long long*>(nullptr), static_cast<int*>(nullptr),
                                          static_cast<int*>(nullptr), static_cast<int>(n), 0, 64, s));
  WM_CUDA(cub::DeviceSelect::Flagged(nullptr, selectTemp, static_cast<int*>(nullptr), static_cast<unsigned char*>(nullptr),
                                     static_cast<int*>(nullptr), static_cast<int*>(nullptr), static_cast<int>(n), s));
  auto align = [](size_t x) { return (x + 255) / 256 * 256; };
  size_t keyB = align(n * sizeof(long long)), posB = align(n * sizeof(int)), flagB = align(n);
  size_t temp = std::max(sortTemp, selectTemp);
  Scratch scratch;
  scratch.ptr = deviceAlloc(2 * keyB + 3 * posB + flagB + align(sizeof(int)) + align(temp));
  uint8_t* base = reinterpret_cast<uint8_t*>(scratch.ptr);
  auto* keysIn = reinterpret_cast<long long*>(base);
  auto* keysOut = reinterpret_cast<long long*>(base + keyB);
  auto* posIn = reinterpret_cast<int*>(base + 2 * keyB);
  auto* posOut = reinterpret_cast<int*>(base + 2 * keyB + posB);
  auto* heads = reinterpret_cast<int*>(base + 2 * keyB + 2 * posB);
  auto* flags = base + 2 * keyB + 3 * posB;
  auto* count = reinterpret_cast<int*>(base + 2 * keyB + 3 * posB + flagB);
  void* tempPtr = base + 2 * keyB + 3 * posB + flagB + align(sizeof(int));
  auto* flag = reinterpret_cast<unsigned long long*>(errorFlag);
  if (it == IndexType::I32)
    widenKeys<int32_t><<<gridFor(n), kThreads, 0, s>>>(as<int32_t>(indices), n, table.rows, keysIn, posIn, flag);
  else
    widenKeys<int64_t><<<gridFor(n), kThreads, 0, s>>>(as<int64_t>(indices), n, table.rows, keysIn, posIn, flag);
  WM_CUDA_LAUNCHED();
  int bits = 1;
  while (bits < 63 && (1ll << bits) < table.rows) ++bits;
  size_t sortBytes = temp;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(tempPtr, sortBytes, keysIn, keysOut, posIn, posOut, static_cast<int>(n), 0,
                                          bits + 1, s));
  markHeads<<<gridFor(n), kThreads, 0, s>>>(keysOut, n, flags);
  WM_CUDA_LAUNCHED();
  size_t selectBytes = temp;
  // posIn still holds 0..n-1 (the sort reads it, does not change it): the
  // selected positions are where each run of equal keys starts.
  WM_CUDA(cub::DeviceSelect::Flagged(tempPtr, selectBytes, posIn, flags, heads, count, static_cast<int>(n), s));
  unsigned blocks = gridFor(n * 32);
  auto* skip = reinterpret_cast<unsigned long long*>(skipped);
  // Keys are int64 after widening; the index type does not matter any more.
  dispatchTable(table, IndexType::I32,
                ApplyLaunch{as<float>(state0), as<float>(state1), keysOut, posOut, heads, count, n, table.dim, table.rows,
                       as<float>(grads), opt, p, skip, blocks, s});
  WM_CUDA_LAUNCHED();
}

}  // namespace wm
