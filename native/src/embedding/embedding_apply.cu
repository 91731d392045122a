// Sparse optimizer step: sort (index, position) pairs with CUB; each run of
// equal indices is one distinct row, owned by one warp that sums the run's
// gradient rows and applies the update in place. No dense gradient, no
// atomics on the table, every row written by exactly one warp. A run longer
// than a warp's window of 32 positions (a hot row: a popular entity, a
// frequent relation) is summed in two passes: every window that continues a
// run first sums its share into one row of `cont`, and the run's owner adds
// those rows, one per window, instead of the positions one at a time.
// embeddingAdd is the same sum with SGD's step added to each row atomically
// instead of written: for a table other processes step at the same time.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cub/device/device_radix_sort.cuh>
#include <type_traits>

#include "embedding/embedding_common.cuh"
#include "wm/runtime.h"
#include "wm/op_registry.h"

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

// Four consecutive elements of a row, loaded and stored as one access.
template <typename T>
struct alignas(4 * sizeof(T)) Quad {
  T v[4];
};

// One warp's window of 32 sorted positions and what every row update needs.
template <typename KeyT>
struct Window {
  const KeyT* keys;
  const int* pos;
  const float* grads;
  const float* cont;  // per window: the sum of its first run's gradient rows, where that run began before it
  float *s0, *s1;
  int64_t n, dim, base;
  int lane, myPos;
  SparseOptimizer opt;
  OptimizerParams p;
};

// A distinct row of the window: its run of positions [h, end) in the window,
// continuing past it when `spills`.
struct Run {
  long long r;
  int h, end;
  bool spills;
  int64_t lastWindow;  // when it spills: the window where it ends
};

// The window of the last position holding `key`, searching sorted keys[from, n) (keys[from] == key).
template <typename KeyT>
__device__ int64_t lastWindowOf(const KeyT* keys, int64_t from, int64_t n, KeyT key) {
  int64_t lo = from, hi = n;  // keys[lo] == key; the answer is in [lo, hi)
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] == key)
      lo = mid;
    else
      hi = mid;
  }
  return lo / 32;
}

// Each window that continues a run from the window before it: the sum of that run's gradient rows within
// the window, in order, into cont[window]. A warp per window. Runs of keys past the table (entries a caller
// marked to skip) are never applied: not summed either.
template <typename KeyT>
__global__ void continuationKernel(const KeyT* keys, const int* pos, int64_t n, int64_t dim, int64_t rows, const float* grads,
                                   float* cont) {
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  const int lane = threadIdx.x & 31;
  for (int64_t w = ((blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5) + 1; w * 32 < n; w += warps) {
    const int64_t base = w * 32;
    const KeyT first = keys[base];
    if (keys[base - 1] != first || static_cast<int64_t>(first) >= rows) continue;
    const int64_t i = base + lane;
    const unsigned same = __ballot_sync(0xffffffffu, i < n && keys[i] == first);
    const int len = __ffs(~same) ? __ffs(~same) - 1 : 32;  // the piece is a prefix of the window
    const int myPos = i < n ? pos[i] : 0;
    float* out = cont + w * dim;
    if ((dim & 3) == 0) {
      for (int64_t j = lane * 4; j - lane * 4 < dim; j += 128) {
        float4 g = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int q = 0; q < len; ++q) {
          const int at = __shfl_sync(0xffffffffu, myPos, q);
          if (j < dim) {
            const float4 d = *reinterpret_cast<const float4*>(grads + static_cast<int64_t>(at) * dim + j);
            g.x += d.x;
            g.y += d.y;
            g.z += d.z;
            g.w += d.w;
          }
        }
        if (j < dim) *reinterpret_cast<float4*>(out + j) = g;
      }
    } else {
      for (int64_t j = lane; j - lane < dim; j += 32) {
        float g = 0.f;
        for (int q = 0; q < len; ++q) {
          const int at = __shfl_sync(0xffffffffu, myPos, q);
          if (j < dim) g += grads[static_cast<int64_t>(at) * dim + j];
        }
        if (j < dim) out[j] = g;
      }
    }
  }
}

// Adds the gradient rows of the run's positions after its first (loaded with
// the row) to g, elements [j, j + 4).
template <typename KeyT>
__device__ __forceinline__ void addRestOfRun(const Window<KeyT>& c, const Run& run, int64_t j, bool mine, float4& g) {
  for (int q = run.h + 1; q < run.end; ++q) {
    const int at = __shfl_sync(0xffffffffu, c.myPos, q);
    if (mine) {
      float4 d = *reinterpret_cast<const float4*>(c.grads + static_cast<int64_t>(at) * c.dim + j);
      g.x += d.x;
      g.y += d.y;
      g.z += d.z;
      g.w += d.w;
    }
  }
  if (!run.spills || !mine) return;
  const int64_t first = c.base / 32 + 1;
#pragma unroll 1
  for (int64_t w = first; w <= run.lastWindow; ++w) {
    const float4 d = *reinterpret_cast<const float4*>(c.cont + w * c.dim + j);
    g.x += d.x;
    g.y += d.y;
    g.z += d.z;
    g.w += d.w;
  }
}

// Elements [j, j + 4) of the run's summed gradient row (zeros where !mine); every lane calls it.
template <typename KeyT>
__device__ __forceinline__ float4 runGradient4(const Window<KeyT>& c, const Run& run, int64_t j, bool mine) {
  const int at = __shfl_sync(0xffffffffu, c.myPos, run.h);
  float4 g = mine ? *reinterpret_cast<const float4*>(c.grads + static_cast<int64_t>(at) * c.dim + j) : make_float4(0.f, 0.f, 0.f, 0.f);
  addRestOfRun(c, run, j, mine, g);
  return g;
}

// Rows of whole 4-element groups: each lane moves 4 elements (16 bytes of
// float32, 8 of half precision) of the row and of each state and a float4 of
// each gradient row. The row's table, state and first gradient loads are all
// issued before any is used: one memory round trip per row. (Two rows at a
// time, to overlap more round trips, was slower on an H200: 80 registers
// instead of 56 cost a quarter of the resident warps; SGD 0.49 -> 0.55 ms.)
template <typename T, typename KeyT>
__device__ __forceinline__ unsigned long long applyVec(const Window<KeyT>& c, T* w, const Run& run) {
  unsigned long long bad = 0;
  for (int64_t j = c.lane * 4; j - c.lane * 4 < c.dim; j += 128) {
    const bool mine = j < c.dim;  // every lane runs the loop: the shuffles need the whole warp
    const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
    Quad<T> x = mine ? *reinterpret_cast<const Quad<T>*>(w + j) : Quad<T>{};
    float4 a4 = mine && c.s0 ? *reinterpret_cast<const float4*>(c.s0 + run.r * c.dim + j) : zero;
    float4 b4 = mine && c.s1 ? *reinterpret_cast<const float4*>(c.s1 + run.r * c.dim + j) : zero;
    const float4 g = runGradient4(c, run, j, mine);
    if (!mine) continue;
    float gs[4] = {g.x, g.y, g.z, g.w};
    float as4[4] = {a4.x, a4.y, a4.z, a4.w}, bs4[4] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float xe = toFloat(x.v[e]), ae = as4[e], be = bs4[e];
      if (applyRule(c.opt, c.p, xe, &ae, &be, gs[e])) {
        x.v[e] = fromFloat<T>(xe);
        as4[e] = ae;
        bs4[e] = be;
      } else {
        ++bad;
      }
    }
    *reinterpret_cast<Quad<T>*>(w + j) = x;
    if (c.s0) *reinterpret_cast<float4*>(c.s0 + run.r * c.dim + j) = make_float4(as4[0], as4[1], as4[2], as4[3]);
    if (c.s1) *reinterpret_cast<float4*>(c.s1 + run.r * c.dim + j) = make_float4(bs4[0], bs4[1], bs4[2], bs4[3]);
  }
  return bad;
}

// Element j of the run's summed gradient row (0 where !mine); every lane calls it (the shuffles need the warp).
template <typename KeyT>
__device__ __forceinline__ float runGradient(const Window<KeyT>& c, const Run& run, int64_t j, bool mine) {
  float g = 0.f;
  for (int q = run.h; q < run.end; ++q) {
    const int at = __shfl_sync(0xffffffffu, c.myPos, q);
    if (mine) g += c.grads[static_cast<int64_t>(at) * c.dim + j];
  }
  if (run.spills && mine) {
    for (int64_t w = c.base / 32 + 1; w <= run.lastWindow; ++w) g += c.cont[w * c.dim + j];
  }
  return g;
}

// Row-wise AdaGrad (one state per row, s0[r]): the summed gradient twice, one element per lane: first the
// mean of its squares over the row, which the row's state grows by, then each element's step against it.
template <typename T, typename KeyT>
__device__ unsigned long long applyRowWise(const Window<KeyT>& c, T* w, const Run& run) {
  float squares = 0.f;
  for (int64_t j = c.lane; j - c.lane < c.dim; j += 32) {
    const bool mine = j < c.dim;
    const float g = runGradient(c, run, j, mine);
    if (mine) squares += rowAdaGradSquare(c.p, toFloat(w[j]), g);
  }
  for (int o = 16; o > 0; o >>= 1) squares += __shfl_xor_sync(0xffffffffu, squares, o);
  const float state = c.s0[run.r] + squares / static_cast<float>(c.dim);
  __syncwarp();
  if (c.lane == 0) c.s0[run.r] = state;
  unsigned long long bad = 0;
  for (int64_t j = c.lane; j - c.lane < c.dim; j += 32) {
    const bool mine = j < c.dim;
    const float g = runGradient(c, run, j, mine);
    if (!mine) continue;
    float x = toFloat(w[j]);
    if (rowAdaGradStep(c.p, x, g, state))
      w[j] = fromFloat<T>(x);
    else
      ++bad;
  }
  return bad;
}

// The same over whole 4-element groups (the row aligned to them): each lane 4 elements of the row and a
// float4 of each gradient row, as applyVec.
template <typename T, typename KeyT>
__device__ unsigned long long applyRowWiseVec(const Window<KeyT>& c, T* w, const Run& run) {
  float squares = 0.f;
  for (int64_t j = c.lane * 4; j - c.lane * 4 < c.dim; j += 128) {
    const bool mine = j < c.dim;
    const Quad<T> x = mine ? *reinterpret_cast<const Quad<T>*>(w + j) : Quad<T>{};
    const float4 g = runGradient4(c, run, j, mine);
    if (!mine) continue;
    const float gs[4] = {g.x, g.y, g.z, g.w};
#pragma unroll
    for (int e = 0; e < 4; ++e) squares += rowAdaGradSquare(c.p, toFloat(x.v[e]), gs[e]);
  }
  for (int o = 16; o > 0; o >>= 1) squares += __shfl_xor_sync(0xffffffffu, squares, o);
  const float state = c.s0[run.r] + squares / static_cast<float>(c.dim);
  __syncwarp();
  if (c.lane == 0) c.s0[run.r] = state;
  unsigned long long bad = 0;
  for (int64_t j = c.lane * 4; j - c.lane * 4 < c.dim; j += 128) {
    const bool mine = j < c.dim;
    Quad<T> x = mine ? *reinterpret_cast<const Quad<T>*>(w + j) : Quad<T>{};
    const float4 g = runGradient4(c, run, j, mine);
    if (!mine) continue;
    const float gs[4] = {g.x, g.y, g.z, g.w};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float xe = toFloat(x.v[e]);
      if (rowAdaGradStep(c.p, xe, gs[e], state))
        x.v[e] = fromFloat<T>(xe);
      else
        ++bad;
    }
    *reinterpret_cast<Quad<T>*>(w + j) = x;
  }
  return bad;
}

// Atomic adds of float deltas to stored elements (rounded to the storage type first).
__device__ __forceinline__ void atomicAddTo(float* p, float d) { atomicAdd(p, d); }
__device__ __forceinline__ void atomicAddTo(Half16* p, float d) { atomicAdd(reinterpret_cast<__half*>(p), __float2half_rn(d)); }
__device__ __forceinline__ void atomicAddTo(BFloat16* p, float d) {
  atomicAdd(reinterpret_cast<__nv_bfloat16*>(p), __float2bfloat16_rn(d));
}
// Four adjacent elements, aligned to the four. On Hopper one vector reduction (16 bytes of float32, 8 of half
// precision): a shared table's rows on the other GPUs take every add over NVLink, and fewer, wider reductions
// move them faster. System scope: the row's other adders run on other GPUs. Before Hopper, pairs.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ uint32_t pairBits(Half16*, float a, float b) {
  const __half2 h = __floats2half2_rn(a, b);
  return *reinterpret_cast<const uint32_t*>(&h);
}
__device__ __forceinline__ uint32_t pairBits(BFloat16*, float a, float b) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
  return *reinterpret_cast<const uint32_t*>(&h);
}
template <typename T>
__device__ __forceinline__ void atomicAddQuad(T* p, const float (&d)[4]) {
  if constexpr (std::is_same_v<T, float>) {
    asm volatile("red.relaxed.sys.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(d[0]), "f"(d[1]), "f"(d[2]), "f"(d[3])
                 : "memory");
  } else {
    const uint32_t lo = pairBits(p, d[0], d[1]), hi = pairBits(p, d[2], d[3]);
    if constexpr (std::is_same_v<T, Half16>)
      asm volatile("red.relaxed.sys.global.add.noftz.v2.f16x2 [%0], {%1, %2};" ::"l"(p), "r"(lo), "r"(hi) : "memory");
    else
      asm volatile("red.relaxed.sys.global.add.noftz.v2.bf16x2 [%0], {%1, %2};" ::"l"(p), "r"(lo), "r"(hi) : "memory");
  }
}
#else
__device__ __forceinline__ void atomicAddPair(float* p, float a, float b) {
  atomicAdd(p, a);
  atomicAdd(p + 1, b);
}
__device__ __forceinline__ void atomicAddPair(Half16* p, float a, float b) {
  atomicAdd(reinterpret_cast<__half2*>(p), __floats2half2_rn(a, b));
}
__device__ __forceinline__ void atomicAddPair(BFloat16* p, float a, float b) {
  atomicAdd(reinterpret_cast<__nv_bfloat162*>(p), __floats2bfloat162_rn(a, b));
}
template <typename T>
__device__ __forceinline__ void atomicAddQuad(T* p, const float (&d)[4]) {
  atomicAddPair(p, d[0], d[1]);
  atomicAddPair(p + 2, d[2], d[3]);
}
#endif

// SGD's step of the run's summed gradient, -lr * g, added atomically (whole 4-element groups); a non-finite
// step is left out and counted.
template <typename T, typename KeyT>
__device__ __forceinline__ unsigned long long addVec(const Window<KeyT>& c, T* w, const Run& run) {
  unsigned long long bad = 0;
  for (int64_t j = c.lane * 4; j - c.lane * 4 < c.dim; j += 128) {
    const bool mine = j < c.dim;
    const float4 g = runGradient4(c, run, j, mine);
    if (!mine) continue;
    float d[4] = {-c.p.lr * g.x, -c.p.lr * g.y, -c.p.lr * g.z, -c.p.lr * g.w};
#pragma unroll
    for (int e = 0; e < 4; ++e)
      if (!isfinite(d[e])) {
        d[e] = 0.f;
        ++bad;
      }
    atomicAddQuad(w + j, d);
  }
  return bad;
}

// Any width or alignment: one element per lane. SGD's add (Add) puts -lr * g into the row atomically, a
// non-finite step left out and counted; otherwise the optimizer's rule updates the element and its state.
template <bool Add, typename T, typename KeyT>
__device__ unsigned long long stepScalar(const Window<KeyT>& c, T* w, const Run& run) {
  unsigned long long bad = 0;
  for (int64_t j = c.lane; j - c.lane < c.dim; j += 32) {
    const bool mine = j < c.dim;
    float x = !Add && mine ? toFloat(w[j]) : 0.f;
    const float g = runGradient(c, run, j, mine);
    if (!mine) continue;
    bool ok;
    if constexpr (Add) {
      const float d = -c.p.lr * g;
      ok = isfinite(d);
      if (ok) atomicAddTo(w + j, d);
    } else {
      float* a = c.s0 ? c.s0 + run.r * c.dim + j : nullptr;
      float* b = c.s1 ? c.s1 + run.r * c.dim + j : nullptr;
      ok = applyRule(c.opt, c.p, x, a, b, g);
      if (ok) w[j] = fromFloat<T>(x);
    }
    bad += !ok;
  }
  return bad;
}

// A window is 32 sorted positions; every position that starts a run of equal
// keys (a distinct row) is handled by a whole warp: it sums the run's gradient
// rows (the run may continue past the window) and updates the row and its
// state in place. Rows are owned by exactly one warp. `split` warps share a
// window, each taking every split-th of its runs: a step of few indices
// (tens of thousands, as a KGE step's) has too few windows to keep the GPU's
// warps busy, and a warp's rows are one memory round trip after another.
// Each warp reads the window's keys and positions once (coalesced) and passes
// them by shuffle.
// Four resident blocks per multiprocessor (up to 64 registers): the hot-row path (a run's continuing
// windows) holds more live values than 48 registers, and with five blocks the kernel spilled up to 184
// bytes a thread, every row paying for it. Before that path five blocks ran SGD in 0.47 ms against 0.49-0.50
// with four (H200).
constexpr int kApplyBlocksPerSm = 4;
// How a run's summed gradient updates its row: a per-element optimizer's rule, row-wise AdaGrad's (apart, so
// the per-element optimizers' kernel keeps its registers), or SGD's step added atomically.
enum class Mode { Elementwise, RowWise, Add };
template <typename Table, typename KeyT, Mode M>
__global__ void __launch_bounds__(kThreads, kApplyBlocksPerSm)
    applyKernel(Table table, float* s0, float* s1, const KeyT* keys, const int* pos, int64_t n, int64_t dim, int64_t rows,
                const float* grads, const float* cont, SparseOptimizer opt, OptimizerParams p, int split, unsigned long long* skipped) {
  using T = typename StorageOf<Table>::type;
  const int64_t warp = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5;
  const int64_t groups = ((static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5) / split;
  const int64_t group = warp / split;
  const int part = static_cast<int>(warp - group * split);
  Window<KeyT> c{keys, pos, grads, cont, s0, s1, n, dim, 0, static_cast<int>(threadIdx.x & 31), 0, opt, p};
  unsigned long long bad = 0;
  for (c.base = group * 32; group < groups && c.base < n; c.base += groups * 32) {
    const int64_t i = c.base + c.lane;
    const int valid = n - c.base < 32 ? static_cast<int>(n - c.base) : 32;
    const KeyT key = i < n ? keys[i] : KeyT(0);
    c.myPos = i < n ? pos[i] : 0;
    KeyT prev = __shfl_up_sync(0xffffffffu, key, 1);
    if (c.lane == 0 && i > 0 && i < n) prev = keys[i - 1];
    unsigned heads = __ballot_sync(0xffffffffu, i < n && (i == 0 || key != prev));
    for (int ordinal = 0; heads; ++ordinal) {
      Run run;
      run.h = __ffs(heads) - 1;
      heads &= heads - 1;
      if (ordinal % split != part) continue;
      run.r = static_cast<long long>(__shfl_sync(0xffffffffu, key, run.h));
      // The run ends at the next head in this window, or at its last position and maybe beyond.
      run.end = heads ? __ffs(heads) - 1 : valid;
      run.spills = !heads && valid == 32 && c.base + 32 < n && keys[c.base + 32] == static_cast<KeyT>(run.r);
      run.lastWindow = run.spills ? lastWindowOf(keys, c.base + 32, n, static_cast<KeyT>(run.r)) : 0;
      if (run.r < 0 || run.r >= rows) continue;  // reported by initPositions; the caller validated first
      T* row = table.row(run.r, dim);
      const bool quads = (dim & 3) == 0 && (reinterpret_cast<uintptr_t>(row) & (4 * sizeof(T) - 1)) == 0;
      if constexpr (M == Mode::RowWise)
        bad += quads ? applyRowWiseVec(c, row, run) : applyRowWise(c, row, run);
      else if constexpr (M == Mode::Add)
        bad += quads ? addVec(c, row, run) : stepScalar<true>(c, row, run);
      else
        bad += quads ? applyVec(c, row, run) : stepScalar<false>(c, row, run);
    }
  }
  if (bad && skipped) atomicAdd(skipped, bad);
}

// Warps a window's runs are dealt to: enough for twice the warps the GPU holds at once, at most one a
// position. Large steps keep one warp a window.
inline int warpsPerWindow(int64_t windows) {
  const int64_t wanted = 2ll * multiprocessorCount() * kApplyBlocksPerSm * (kThreads / 32);
  const int64_t split = (wanted + windows - 1) / windows;
  return static_cast<int>(split < 1 ? 1 : split > 32 ? 32 : split);
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
  const float* cont;
  SparseOptimizer opt;
  OptimizerParams p;
  unsigned long long* skip;
  cudaStream_t s;
  Mode mode;
  template <typename Table, typename IdxT>
  void run(Table table) {
    const int64_t windows = (n + 31) / 32;
    const int split = warpsPerWindow(windows);
    const unsigned blocks = gridFor(windows * split * 32);
    if (mode == Mode::Add)
      applyKernel<Table, KeyT, Mode::Add>
          <<<blocks, kThreads, 0, s>>>(table, s0, s1, keys, pos, n, dim, rows, grads, cont, opt, p, split, skip);
    else if (mode == Mode::RowWise)
      applyKernel<Table, KeyT, Mode::RowWise>
          <<<blocks, kThreads, 0, s>>>(table, s0, s1, keys, pos, n, dim, rows, grads, cont, opt, p, split, skip);
    else
      applyKernel<Table, KeyT, Mode::Elementwise>
          <<<blocks, kThreads, 0, s>>>(table, s0, s1, keys, pos, n, dim, rows, grads, cont, opt, p, split, skip);
  }
};

template <typename KeyT>
void sortedApply(const TableRef& table, uint64_t state0, uint64_t state1, const KeyT* indices, int64_t n, uint64_t grads,
                 SparseOptimizer opt, const OptimizerParams& p, uint64_t errorFlag, uint64_t skipped, Mode mode) {
  cudaStream_t s = stream();
  size_t temp = 0;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, temp, static_cast<const KeyT*>(nullptr), static_cast<KeyT*>(nullptr),
                                          static_cast<const int*>(nullptr), static_cast<int*>(nullptr), static_cast<int>(n), 0,
                                          static_cast<int>(sizeof(KeyT) * 8), s));
  auto align = [](size_t x) { return (x + 255) / 256 * 256; };
  size_t keyB = align(n * sizeof(KeyT)), posB = align(n * sizeof(int));
  const int64_t windows = (n + 31) / 32;
  size_t contB = align(static_cast<size_t>(windows) * table.dim * sizeof(float));
  Scratch scratch;
  scratch.ptr = deviceAlloc(keyB + 2 * posB + align(temp) + contB);
  uint8_t* base = reinterpret_cast<uint8_t*>(scratch.ptr);
  auto* keysOut = reinterpret_cast<KeyT*>(base);
  auto* posIn = reinterpret_cast<int*>(base + keyB);
  auto* posOut = reinterpret_cast<int*>(base + keyB + posB);
  void* tempPtr = base + keyB + 2 * posB;
  auto* cont = reinterpret_cast<float*>(base + keyB + 2 * posB + align(temp));
  initPositions<KeyT><<<gridFor(n), kThreads, 0, s>>>(indices, n, table.rows, posIn, reinterpret_cast<unsigned long long*>(errorFlag));
  WM_CUDA_LAUNCHED();
  // Only the bits a valid row index can have, and `rows` (what callers mark an entry to skip with: it sorts last);
  // other invalid ones were reported above.
  int bits = 1;
  while (bits < static_cast<int>(sizeof(KeyT) * 8 - 1) && (1ll << bits) <= table.rows) ++bits;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(tempPtr, temp, indices, keysOut, posIn, posOut, static_cast<int>(n), 0, bits, s));
  if (windows > 1) {
    continuationKernel<KeyT>
        <<<gridFor((windows - 1) * 32), kThreads, 0, s>>>(keysOut, posOut, n, table.dim, table.rows, as<float>(grads), cont);
    WM_CUDA_LAUNCHED();
  }
  dispatchTable(table, IndexType::I32,
                ApplyLaunch<KeyT>{as<float>(state0), as<float>(state1), keysOut, posOut, n, table.dim, table.rows, as<float>(grads), cont,
                                  opt, p, reinterpret_cast<unsigned long long*>(skipped), s, mode});
  WM_CUDA_LAUNCHED();
}

}  // namespace

void embeddingApply(const TableRef& table, uint64_t state0, uint64_t state1, uint64_t indices, IndexType it, int64_t n, uint64_t grads,
                    SparseOptimizer opt, const OptimizerParams& p, uint64_t errorFlag, uint64_t skipped) {
  if (n == 0 || table.dim == 0) return;
  WM_REQUIRE(n < (1ll << 31), "embedding apply: at most 2^31 - 1 indices per step");
  WM_REQUIRE(opt != SparseOptimizer::RowAdaGrad || state0 != 0, "embedding apply: row-wise adagrad needs state0 (one float per row)");
  const Mode mode = opt == SparseOptimizer::RowAdaGrad ? Mode::RowWise : Mode::Elementwise;
  if (it == IndexType::I32)
    sortedApply<int32_t>(table, state0, state1, as<int32_t>(indices), n, grads, opt, p, errorFlag, skipped, mode);
  else
    sortedApply<int64_t>(table, state0, state1, as<int64_t>(indices), n, grads, opt, p, errorFlag, skipped, mode);
}

void embeddingAdd(const TableRef& table, uint64_t indices, IndexType it, int64_t n, uint64_t grads, const OptimizerParams& p,
                  uint64_t errorFlag, uint64_t skipped) {
  if (n == 0 || table.dim == 0) return;
  WM_REQUIRE(n < (1ll << 31), "embedding add: at most 2^31 - 1 indices per step");
  WM_REQUIRE(p.weightDecay == 0.f, "embedding add: SGD's step without weight decay (a decay reads the row it changes)");
  if (it == IndexType::I32)
    sortedApply<int32_t>(table, 0, 0, as<int32_t>(indices), n, grads, SparseOptimizer::SGD, p, errorFlag, skipped, Mode::Add);
  else
    sortedApply<int64_t>(table, 0, 0, as<int64_t>(indices), n, grads, SparseOptimizer::SGD, p, errorFlag, skipped, Mode::Add);
}

}  // namespace wm

// embeddingApply(table, state0, state1, indices, indexType, n, grads, opt, params, errorFlag, skipped)
WM_OP(embeddingApply, Device, a) {
  const wm::TableRef t = a.table(0, "table");
  wm::embeddingApply(t, a.address(1, "state0"), a.address(2, "state1"), a.address(3, "indices"), a.indexType(4, "indexType"),
                     a.count(5, "n"), a.address(6, "grads"), a.optimizer(7, "opt"), a.optimizerParams(8, "params"),
                     a.address(9, "errorFlag"), a.address(10, "skipped"));
}
