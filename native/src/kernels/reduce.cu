// Reductions of an [outer, inner] view over its last axis — a group of
// threads (a warp for short rows, the whole block for long ones) reduces one
// row through shared memory — and of an [outer, inner, after] view over its
// middle axis, where neighbouring threads take neighbouring columns so every
// load is coalesced (the gradient of a broadcast sums over leading axes; a
// transpose to make them last would copy the whole input first).
#include <cfloat>
#include <climits>

#include <algorithm>

#include "kernels/ops.h"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"
#include "wm/runtime.h"

namespace wm {
namespace {

template <typename In, ReduceOp OP>
struct Reducer;

// Float sums accumulate in double: tfjs-backend-cpu sums in JavaScript doubles.
template <typename In>
struct Reducer<In, ReduceOp::Sum> {
  using Acc = typename std::conditional<std::is_same<In, float>::value, double, long long>::type;
  static __device__ Acc init() { return 0; }
  static __device__ Acc load(In x, int64_t) { return static_cast<Acc>(x); }
  static __device__ Acc combine(Acc a, Acc b) { return a + b; }
};
template <typename In>
struct Reducer<In, ReduceOp::Mean> : Reducer<In, ReduceOp::Sum> {};
template <typename In>
struct Reducer<In, ReduceOp::Prod> {
  using Acc = typename std::conditional<std::is_same<In, float>::value, double, long long>::type;
  static __device__ Acc init() { return 1; }
  static __device__ Acc load(In x, int64_t) { return static_cast<Acc>(x); }
  static __device__ Acc combine(Acc a, Acc b) { return a * b; }
};
// Integers compare exactly; floats let NaN win, as tfjs-backend-cpu's maxImpl.
template <typename In>
struct Reducer<In, ReduceOp::Max> {
  static constexpr bool kFloat = std::is_same<In, float>::value;
  using Acc = typename std::conditional<kFloat, float, int>::type;
  static __device__ Acc init() {
    if constexpr (kFloat)
      return -INFINITY;
    else
      return INT_MIN;
  }
  static __device__ Acc load(In x, int64_t) { return static_cast<Acc>(x); }
  static __device__ Acc combine(Acc a, Acc b) {
    if constexpr (kFloat) {
      if (a != a || b != b) return NAN;
    }
    return a > b ? a : b;
  }
};
template <typename In>
struct Reducer<In, ReduceOp::Min> {
  static constexpr bool kFloat = std::is_same<In, float>::value;
  using Acc = typename std::conditional<kFloat, float, int>::type;
  static __device__ Acc init() {
    if constexpr (kFloat)
      return INFINITY;
    else
      return INT_MAX;
  }
  static __device__ Acc load(In x, int64_t) { return static_cast<Acc>(x); }
  static __device__ Acc combine(Acc a, Acc b) {
    if constexpr (kFloat) {
      if (a != a || b != b) return NAN;
    }
    return a < b ? a : b;
  }
};
template <typename In>
struct Reducer<In, ReduceOp::All> {
  using Acc = int;
  static __device__ Acc init() { return 1; }
  static __device__ Acc load(In x, int64_t) { return x != 0; }
  static __device__ Acc combine(Acc a, Acc b) { return a && b; }
};
template <typename In>
struct Reducer<In, ReduceOp::Any> {
  using Acc = int;
  static __device__ Acc init() { return 0; }
  static __device__ Acc load(In x, int64_t) { return x != 0; }
  static __device__ Acc combine(Acc a, Acc b) { return a || b; }
};

// Arg reductions reproduce the sequential scan of tfjs-backend-cpu
// ("take value if value > best"): ties keep the first index, NaN is skipped
// (a leading NaN is handled after the reduction).
struct ArgAcc {
  double v;     // exact for every int32
  long long i;  // -1: nothing valid seen
};
template <bool MAX>
__device__ __forceinline__ ArgAcc argCombine(ArgAcc a, ArgAcc b) {
  if (a.i < 0) return b;
  if (b.i < 0) return a;
  bool bBetter = MAX ? b.v > a.v : b.v < a.v;
  if (bBetter || (b.v == a.v && b.i < a.i)) return b;
  return a;
}
template <typename In>
struct Reducer<In, ReduceOp::ArgMax> {
  using Acc = ArgAcc;
  static __device__ Acc init() { return {0.0, -1}; }
  static __device__ Acc load(In x, int64_t j) {
    double v = static_cast<double>(x);
    return v != v ? ArgAcc{0.0, -1} : ArgAcc{v, j};
  }
  static __device__ Acc combine(Acc a, Acc b) { return argCombine<true>(a, b); }
};
template <typename In>
struct Reducer<In, ReduceOp::ArgMin> {
  using Acc = ArgAcc;
  static __device__ Acc init() { return {0.0, -1}; }
  static __device__ Acc load(In x, int64_t j) {
    double v = static_cast<double>(x);
    return v != v ? ArgAcc{0.0, -1} : ArgAcc{v, j};
  }
  static __device__ Acc combine(Acc a, Acc b) { return argCombine<false>(a, b); }
};

template <typename Out, typename Acc>
__device__ __forceinline__ Out finish(ReduceOp op, Acc a, int64_t inner, float first) {
  if constexpr (std::is_same<Acc, ArgAcc>::value) {
    return static_cast<Out>((first != first || a.i < 0) ? 0 : a.i);
  } else if constexpr (std::is_same<Out, int>::value && std::is_same<Acc, long long>::value) {
    return static_cast<int>(static_cast<unsigned>(static_cast<unsigned long long>(a)));  // wraps as Int32Array
  } else {
    if (op == ReduceOp::Mean) return static_cast<Out>(a / static_cast<Acc>(inner));
    return static_cast<Out>(a);
  }
}

template <typename In, typename Out, ReduceOp OP>
__global__ void reduceRows(const In* x, Out* y, int64_t outer, int64_t inner, int group) {
  using R = Reducer<In, OP>;
  using Acc = typename R::Acc;
  extern __shared__ unsigned char smemRaw[];
  Acc* sh = reinterpret_cast<Acc*>(smemRaw);
  int lane = threadIdx.x % group;
  int64_t row = blockIdx.x * (int64_t)(blockDim.x / group) + threadIdx.x / group;
  Acc acc = R::init();
  if (row < outer) {
    const In* xr = x + row * inner;
    for (int64_t j = lane; j < inner; j += group) acc = R::combine(acc, R::load(xr[j], j));
  }
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int s = group / 2; s > 0; s >>= 1) {
    if (lane < s) sh[threadIdx.x] = R::combine(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  if (lane == 0 && row < outer) {
    float first = inner > 0 ? static_cast<float>(x[row * inner]) : 0.f;
    y[row] = finish<Out>(OP, sh[threadIdx.x], inner, first);
  }
}

// Columns: thread x takes column col of slab b; Y threads split the reduced
// axis (Y = 1 for short ones) and their partial results combine in order.
template <typename In, typename Out, ReduceOp OP, int Y>
__global__ void reduceColumns(const In* x, Out* y, int64_t outer, int64_t inner, int64_t after) {
  using R = Reducer<In, OP>;
  using Acc = typename R::Acc;
  constexpr int kWide = 256 / Y;
  __shared__ Acc sh[Y > 1 ? Y : 1][kWide];
  int64_t col = blockIdx.x * static_cast<int64_t>(kWide) + threadIdx.x;
  for (int64_t b = blockIdx.y; b < outer; b += gridDim.y) {
    const In* xc = x + b * inner * after + col;
    Acc acc = R::init();
    if (col < after)
      for (int64_t r = threadIdx.y; r < inner; r += Y) acc = R::combine(acc, R::load(xc[r * after], r));
    if constexpr (Y > 1) {
      sh[threadIdx.y][threadIdx.x] = acc;
      __syncthreads();
      if (threadIdx.y == 0)
        for (int k = 1; k < Y; ++k) acc = R::combine(acc, sh[k][threadIdx.x]);
      __syncthreads();  // sh is written again for the next slab
    }
    if (threadIdx.y == 0 && col < after) {
      float first = inner > 0 ? static_cast<float>(xc[0]) : 0.f;
      y[b * after + col] = finish<Out>(OP, acc, inner, first);
    }
  }
}

// Few long rows (tf.sum of a whole tensor): one block per row would use one
// SM. Each row is cut into chunks reduced by their own blocks, then one
// block per row combines the chunks in a fixed order (deterministic).
template <typename In, ReduceOp OP>
__global__ void reduceChunks(const In* x, typename Reducer<In, OP>::Acc* partial, int64_t inner, int64_t chunk) {
  using R = Reducer<In, OP>;
  using Acc = typename R::Acc;
  extern __shared__ unsigned char smemRaw[];
  Acc* sh = reinterpret_cast<Acc*>(smemRaw);
  int64_t row = blockIdx.y;
  int64_t begin = blockIdx.x * chunk, end = min(inner, begin + chunk);
  const In* xr = x + row * inner;
  Acc acc = R::init();
  for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) acc = R::combine(acc, R::load(xr[j], j));
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] = R::combine(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[row * gridDim.x + blockIdx.x] = sh[0];
}

template <typename In, typename Out, ReduceOp OP>
__global__ void combineChunks(const typename Reducer<In, OP>::Acc* partial, const In* x, Out* y, int64_t inner, int chunks) {
  using R = Reducer<In, OP>;
  using Acc = typename R::Acc;
  extern __shared__ unsigned char smemRaw[];
  Acc* sh = reinterpret_cast<Acc*>(smemRaw);
  int64_t row = blockIdx.x;
  Acc acc = R::init();
  for (int k = threadIdx.x; k < chunks; k += blockDim.x) acc = R::combine(acc, partial[row * chunks + k]);
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] = R::combine(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) y[row] = finish<Out>(OP, sh[0], inner, static_cast<float>(x[row * inner]));
}

template <typename In, typename Out, ReduceOp OP>
void launchColumns(uint64_t x, uint64_t y, int64_t outer, int64_t inner, int64_t after) {
  unsigned slabs = static_cast<unsigned>(std::min<int64_t>(outer, 65535));
  if (inner <= 16) {
    WM_REQUIRE((after + 255) / 256 <= INT_MAX, "reduce: too many columns");
    reduceColumns<In, Out, OP, 1><<<dim3(static_cast<unsigned>((after + 255) / 256), slabs), dim3(256, 1), 0, stream()>>>(
        as<In>(x), as<Out>(y), outer, inner, after);
  } else {
    WM_REQUIRE((after + 31) / 32 <= INT_MAX, "reduce: too many columns");
    reduceColumns<In, Out, OP, 8>
        <<<dim3(static_cast<unsigned>((after + 31) / 32), slabs), dim3(32, 8), 0, stream()>>>(as<In>(x), as<Out>(y), outer, inner, after);
  }
}

template <typename In, typename Out, ReduceOp OP>
void launchReduce(uint64_t x, uint64_t y, int64_t outer, int64_t inner, int64_t after) {
  using Acc = typename Reducer<In, OP>::Acc;
  if (after > 1) {
    launchColumns<In, Out, OP>(x, y, outer, inner, after);
    return;
  }
  constexpr int64_t kChunk = 16384;
  if (outer < 256 && inner >= 2 * kChunk) {
    int chunks = static_cast<int>(std::min<int64_t>((inner + kChunk - 1) / kChunk, 4096));
    int64_t chunk = (inner + chunks - 1) / chunks;
    uint64_t partial = deviceAlloc(static_cast<size_t>(outer * chunks) * sizeof(Acc));
    reduceChunks<In, OP><<<dim3(chunks, static_cast<unsigned>(outer)), 256, 256 * sizeof(Acc), stream()>>>(
        as<In>(x), reinterpret_cast<Acc*>(partial), inner, chunk);
    combineChunks<In, Out, OP><<<static_cast<unsigned>(outer), 256, 256 * sizeof(Acc), stream()>>>(reinterpret_cast<const Acc*>(partial),
                                                                                                   as<In>(x), as<Out>(y), inner, chunks);
    deviceFree(partial);  // stream-ordered: reused only after the kernels
    return;
  }
  int group = inner <= 32 ? 32 : 256;
  int threads = 256;
  int64_t rowsPerBlock = threads / group;
  int64_t blocks = (outer + rowsPerBlock - 1) / rowsPerBlock;
  WM_REQUIRE(blocks <= INT_MAX, "reduce: too many rows");
  reduceRows<In, Out, OP>
      <<<static_cast<unsigned>(blocks), threads, threads * sizeof(Acc), stream()>>>(as<In>(x), as<Out>(y), outer, inner, group);
}

template <typename In, typename Out>
void dispatchOp(ReduceOp op, uint64_t x, uint64_t y, int64_t outer, int64_t inner, int64_t after) {
  switch (op) {
    case ReduceOp::Sum:
      launchReduce<In, Out, ReduceOp::Sum>(x, y, outer, inner, after);
      break;
    case ReduceOp::Prod:
      launchReduce<In, Out, ReduceOp::Prod>(x, y, outer, inner, after);
      break;
    case ReduceOp::Max:
      launchReduce<In, Out, ReduceOp::Max>(x, y, outer, inner, after);
      break;
    case ReduceOp::Min:
      launchReduce<In, Out, ReduceOp::Min>(x, y, outer, inner, after);
      break;
    case ReduceOp::Mean:
      launchReduce<In, Out, ReduceOp::Mean>(x, y, outer, inner, after);
      break;
    case ReduceOp::All:
      launchReduce<In, Out, ReduceOp::All>(x, y, outer, inner, after);
      break;
    case ReduceOp::Any:
      launchReduce<In, Out, ReduceOp::Any>(x, y, outer, inner, after);
      break;
    case ReduceOp::ArgMax:
      launchReduce<In, Out, ReduceOp::ArgMax>(x, y, outer, inner, after);
      break;
    case ReduceOp::ArgMin:
      launchReduce<In, Out, ReduceOp::ArgMin>(x, y, outer, inner, after);
      break;
  }
}

template <typename In>
void dispatchOut(ReduceOp op, DType out, uint64_t x, uint64_t y, int64_t outer, int64_t inner, int64_t after) {
  switch (out) {
    case DType::F32:
      dispatchOp<In, float>(op, x, y, outer, inner, after);
      break;
    case DType::I32:
      dispatchOp<In, int>(op, x, y, outer, inner, after);
      break;
    case DType::Bool:
      dispatchOp<In, uint8_t>(op, x, y, outer, inner, after);
      break;
  }
}

}  // namespace

void reduce(ReduceOp op, DType in, DType out, uint64_t x, uint64_t y, int64_t outer, int64_t inner, int64_t after) {
  if (outer == 0 || after == 0) return;
  switch (in) {
    case DType::F32:
      dispatchOut<float>(op, out, x, y, outer, inner, after);
      break;
    case DType::I32:
      dispatchOut<int>(op, out, x, y, outer, inner, after);
      break;
    case DType::Bool:
      dispatchOut<uint8_t>(op, out, x, y, outer, inner, after);
      break;
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// reduce(op, dtypeIn, dtypeOut, x, y, outer, inner, after = 1)
WM_OP(reduce, Device, a) {
  wm::reduce(static_cast<wm::ReduceOp>(a.count(0, "op")), a.dtype(1, "dtypeIn"), a.dtype(2, "dtypeOut"), a.address(3, "x"),
             a.address(4, "y"), a.count(5, "outer"), a.count(6, "inner"), a.present(7) ? a.count(7, "after") : 1);
}
