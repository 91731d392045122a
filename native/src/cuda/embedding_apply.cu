// Sparse optimizer step: sort (index, position) pairs with CUB; each run of
// equal indices is one distinct row, owned by one warp that sums the run's
// gradient rows and applies the update in place. No dense gradient, no
// atomics on the table, every row written by exactly one warp.
#include <cub/device/device_radix_sort.cuh>

#include "embedding_common.cuh"
#include "wm/runtime.h"

namespace wm {
namespace {

// Keys stay in the index type's width (int32 keys sort in half the traffic).
template <typename IdxT>
__global__ void initPositions(const IdxT* idx, int64_t n, int64_t rows, int* pos, unsigned long long* errorFlag) {
  WM_GRID_STRIDE(i, n) {
    long long r = static_cast<long long>(idx[i]);
    if ((r < 0 || r >= rows) && errorFlag) atomicMin(errorFlag, static_cast<unsigned long long>(i));
    pos[i] = static_cast<int>(i);
  }
}

// Each warp looks at 32 sorted positions; every position that starts a run of
// equal keys (a distinct row) is handled by the whole warp: it sums the run's
// gradient rows (the run may continue past the warp's 32 positions) and
// updates the row and its state in place. Rows are owned by exactly one warp.
// The warp reads its 32 keys and positions once (coalesced) and passes them
// by shuffle, and each row's table and state loads are issued together with
// its gradient loads: one memory round trip per row, not three or four in a
// chain (pos -> grads -> table), which left the step below the copy rate.
// Four consecutive elements of a row, loaded and stored as one access.
template <typename T>
struct alignas(4 * sizeof(T)) Quad {
  T v[4];
};

template <typename Table, typename KeyT>
__global__ void applyKernel(Table table, float* s0, float* s1, const KeyT* keys, const int* pos, int64_t n,
                            int64_t dim, int64_t rows, const float* grads, SparseOptimizer opt, OptimizerParams p,
                            unsigned long long* skipped) {
  using T = typename StorageOf<Table>::type;
  const int lane = threadIdx.x & 31;
  const int64_t warp = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t base = warp * 32; base < n; base += warps * 32) {
    const int64_t i = base + lane;
    const int valid = n - base < 32 ? static_cast<int>(n - base) : 32;
    const KeyT key = i < n ? keys[i] : KeyT(0);
    const int myPos = i < n ? pos[i] : 0;
    KeyT prev = __shfl_up_sync(0xffffffffu, key, 1);
    if (lane == 0 && i > 0 && i < n) prev = keys[i - 1];
    unsigned heads = __ballot_sync(0xffffffffu, i < n && (i == 0 || key != prev));
    while (heads) {
      const int h = __ffs(heads) - 1;
      heads &= heads - 1;
      const long long r = static_cast<long long>(__shfl_sync(0xffffffffu, key, h));
      // The run ends at the next head in this window, or at its last position and maybe beyond.
      const int endLocal = heads ? __ffs(heads) - 1 : valid;
      const bool spills = !heads && valid == 32 && base + 32 < n && keys[base + 32] == static_cast<KeyT>(r);
      if (r < 0 || r >= rows) continue;  // reported by initPositions; the caller validated first
      T* w = table.row(r, dim);
      unsigned long long bad = 0;
      // Rows of whole 4-element groups: each lane moves 4 elements (16 bytes of float32, 8 of half
      // precision) of the row and of each state, and a float4 of each gradient row, at a time.
      if ((dim & 3) == 0 && (reinterpret_cast<uintptr_t>(w) & (4 * sizeof(T) - 1)) == 0) {
        for (int64_t j = lane * 4; j - lane * 4 < dim; j += 128) {
          const bool mine = j < dim;  // every lane runs the loop: the shuffles below need the whole warp
          float* a = s0 && mine ? s0 + r * dim + j : nullptr;
          float* b = s1 && mine ? s1 + r * dim + j : nullptr;
          Quad<T> xq = mine ? *reinterpret_cast<const Quad<T>*>(w + j) : Quad<T>{};
          float4 a4 = a ? *reinterpret_cast<float4*>(a) : make_float4(0.f, 0.f, 0.f, 0.f);
          float4 b4 = b ? *reinterpret_cast<float4*>(b) : make_float4(0.f, 0.f, 0.f, 0.f);
          float4 g = make_float4(0.f, 0.f, 0.f, 0.f);
          for (int q = h; q < endLocal; ++q) {
            const int at = __shfl_sync(0xffffffffu, myPos, q);
            if (mine) {
              float4 d = *reinterpret_cast<const float4*>(grads + static_cast<int64_t>(at) * dim + j);
              g.x += d.x; g.y += d.y; g.z += d.z; g.w += d.w;
            }
          }
          for (int64_t q = base + 32; spills && mine && q < n && keys[q] == static_cast<KeyT>(r); ++q) {
            float4 d = *reinterpret_cast<const float4*>(grads + static_cast<int64_t>(pos[q]) * dim + j);
            g.x += d.x; g.y += d.y; g.z += d.z; g.w += d.w;
          }
          if (!mine) continue;
          float gs[4] = {g.x, g.y, g.z, g.w};
          float as4[4] = {a4.x, a4.y, a4.z, a4.w}, bs4[4] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            float xe = toFloat(xq.v[e]), ae = as4[e], be = bs4[e];
            if (applyRule(opt, p, xe, &ae, &be, gs[e])) {
              xq.v[e] = fromFloat<T>(xe);
              as4[e] = ae;
              bs4[e] = be;
            } else {
              ++bad;
            }
          }
          *reinterpret_cast<Quad<T>*>(w + j) = xq;
          if (a) *reinterpret_cast<float4*>(a) = make_float4(as4[0], as4[1], as4[2], as4[3]);
          if (b) *reinterpret_cast<float4*>(b) = make_float4(bs4[0], bs4[1], bs4[2], bs4[3]);
        }
        if (bad && skipped) atomicAdd(skipped, bad);
        continue;
      }
      for (int64_t j = lane; j - lane < dim; j += 32) {
        const bool mine = j < dim;
        float x = mine ? toFloat(w[j]) : 0.f;
        float g = 0.f;
        for (int q = h; q < endLocal; ++q) {
          const int at = __shfl_sync(0xffffffffu, myPos, q);
          if (mine) g += grads[static_cast<int64_t>(at) * dim + j];
        }
        for (int64_t q = base + 32; spills && mine && q < n && keys[q] == static_cast<KeyT>(r); ++q) {
          g += grads[static_cast<int64_t>(pos[q]) * dim + j];
        }
        if (!mine) continue;
        float* a = s0 ? s0 + r * dim + j : nullptr;
        float* b = s1 ? s1 + r * dim + j : nullptr;
        if (applyRule(opt, p, x, a, b, g)) w[j] = fromFloat<T>(x);
        else ++bad;
      }
      if (bad && skipped) atomicAdd(skipped, bad);
    }
  }
}

struct Scratch {
  uint64_t ptr = 0;
  ~Scratch() { deviceFree(ptr); }
};

template <typename KeyT>
struct ApplyLaunch {
  float *s0, *s1;
  const KeyT* keys;
  const int* pos;
  int64_t n, dim, rows;
  const float* grads;
  SparseOptimizer opt;
  OptimizerParams p;
  unsigned long long* skip;
  cudaStream_t s;
  template <typename Table, typename IdxT>
  void run(Table table) {
    unsigned blocks = gridFor((n + 31) / 32 * 32);
    applyKernel<Table, KeyT><<<blocks, kThreads, 0, s>>>(table, s0, s1, keys, pos, n, dim, rows, grads, opt, p, skip);
  }
};

template <typename KeyT>
void sortedApply(const TableRef& table, uint64_t state0, uint64_t state1, const KeyT* indices, int64_t n,
                 uint64_t grads, SparseOptimizer opt, const OptimizerParams& p, uint64_t errorFlag, uint64_t skipped) {
  cudaStream_t s = stream();
  size_t temp = 0;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, temp, static_cast<const KeyT*>(nullptr), static_cast<KeyT*>(nullptr),
                                          static_cast<const int*>(nullptr), static_cast<int*>(nullptr),
                                          static_cast<int>(n), 0, static_cast<int>(sizeof(KeyT) * 8), s));
  auto align = [](size_t x) { return (x + 255) / 256 * 256; };
  size_t keyB = align(n * sizeof(KeyT)), posB = align(n * sizeof(int));
  Scratch scratch;
  scratch.ptr = deviceAlloc(keyB + 2 * posB + align(temp));
  uint8_t* base = reinterpret_cast<uint8_t*>(scratch.ptr);
  auto* keysOut = reinterpret_cast<KeyT*>(base);
  auto* posIn = reinterpret_cast<int*>(base + keyB);
  auto* posOut = reinterpret_cast<int*>(base + keyB + posB);
  void* tempPtr = base + keyB + 2 * posB;
  initPositions<KeyT><<<gridFor(n), kThreads, 0, s>>>(indices, n, table.rows, posIn,
                                                      reinterpret_cast<unsigned long long*>(errorFlag));
  WM_CUDA_LAUNCHED();
  // Only the bits a valid row index can have; invalid ones were reported above.
  int bits = 1;
  while (bits < static_cast<int>(sizeof(KeyT) * 8 - 1) && (1ll << bits) < table.rows) ++bits;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(tempPtr, temp, indices, keysOut, posIn, posOut, static_cast<int>(n), 0, bits, s));
  dispatchTable(table, IndexType::I32,
                ApplyLaunch<KeyT>{as<float>(state0), as<float>(state1), keysOut, posOut, n, table.dim, table.rows,
                                  as<float>(grads), opt, p, reinterpret_cast<unsigned long long*>(skipped), s});
  WM_CUDA_LAUNCHED();
}

}  // namespace

void embeddingApply(const TableRef& table, uint64_t state0, uint64_t state1, uint64_t indices, IndexType it,
                    int64_t n, uint64_t grads, SparseOptimizer opt, const OptimizerParams& p, uint64_t errorFlag,
                    uint64_t skipped) {
  if (n == 0 || table.dim == 0) return;
  WM_REQUIRE(n < (1ll << 31), "embedding apply: at most 2^31 - 1 indices per step");
  if (it == IndexType::I32)
    sortedApply<int32_t>(table, state0, state1, as<int32_t>(indices), n, grads, opt, p, errorFlag, skipped);
  else
    sortedApply<int64_t>(table, state0, state1, as<int64_t>(indices), n, grads, opt, p, errorFlag, skipped);
}

}  // namespace wm
