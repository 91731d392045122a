// Running sums and products along an axis (tfjs' Cumsum / Cumprod). Many
// columns: one thread each, element by element (tfjs-backend-cpu's order and
// rounding). A few long contiguous rows (a 1-D cumsum of a million degrees):
// one CUB scan per row, read backwards through a reverse iterator when
// `reverse`; float sums then round in another order.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/reverse_iterator.h>

#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "wm/op_registry.h"
#include "kernels/cumulative_step.h"
#include "kernels/ops.h"
#include "wm/runtime.h"

namespace wm {
namespace {

template <typename T>
__global__ void columnsKernel(bool product, const T* x, T* y, int64_t outer, int64_t n, int64_t inner, bool exclusive, bool reverse) {
  WM_GRID_STRIDE(c, outer * inner) {
    const int64_t o = c / inner, i = c - o * inner;
    cumulativeColumn(product, x, y, n, inner, o * n * inner + i, exclusive, reverse);
  }
}

// int32 scans run on uint32 so that overflow wraps (as tfjs' Int32Array stores) without UB.
template <typename U>
struct Op {
  bool product;
  __device__ __forceinline__ U operator()(U a, U b) const { return product ? a * b : a + b; }
};

template <typename U, typename In, typename Out>
void scanRow(In in, Out out, int64_t n, bool product, bool exclusive, cudaStream_t s) {
  const Op<U> op{product};
  const U init = product ? U(1) : U(0);
  size_t temp = 0;
  if (exclusive)
    WM_CUDA(cub::DeviceScan::ExclusiveScan(nullptr, temp, in, out, op, init, n, s));
  else
    WM_CUDA(cub::DeviceScan::InclusiveScan(nullptr, temp, in, out, op, n, s));
  Scratch sc;  // stream-ordered: freed blocks are reused only after the scan
  void* t = sc.get<uint8_t>(static_cast<int64_t>(temp));
  if (exclusive)
    WM_CUDA(cub::DeviceScan::ExclusiveScan(t, temp, in, out, op, init, n, s));
  else
    WM_CUDA(cub::DeviceScan::InclusiveScan(t, temp, in, out, op, n, s));
}

template <typename T, typename U>
void run(bool product, const T* x, T* y, int64_t outer, int64_t n, int64_t inner, bool exclusive, bool reverse) {
  cudaStream_t s = stream();
  if (inner == 1 && outer <= 8 && n >= 4096) {
    for (int64_t o = 0; o < outer; ++o) {
      const U* in = reinterpret_cast<const U*>(x + o * n);
      U* out = reinterpret_cast<U*>(y + o * n);
      if (reverse)
        scanRow<U>(thrust::make_reverse_iterator(in + n), thrust::make_reverse_iterator(out + n), n, product, exclusive, s);
      else
        scanRow<U>(in, out, n, product, exclusive, s);
    }
    return;
  }
  columnsKernel<T><<<gridFor(outer * inner), kThreads, 0, s>>>(product, x, y, outer, n, inner, exclusive, reverse);
  WM_CUDA_LAUNCHED();
}

}  // namespace

void cumulative(bool product, DType dt, uint64_t x, uint64_t y, int64_t outer, int64_t n, int64_t inner, bool exclusive, bool reverse) {
  if (outer * n * inner == 0) return;
  switch (dt) {
    case DType::F32:
      run<float, float>(product, as<float>(x), as<float>(y), outer, n, inner, exclusive, reverse);
      break;
    case DType::I32:
      run<int32_t, uint32_t>(product, as<int32_t>(x), as<int32_t>(y), outer, n, inner, exclusive, reverse);
      break;
    default:
      fail("cumulative: float32 or int32 only");
  }
}

}  // namespace wm

// cumulative(product, dtype, x, y, outer, n, inner, exclusive, reverse)
WM_OP(cumulative, Device, a) {
  wm::cumulative(a.flag(0, "product"), a.dtype(1, "dtype"), a.address(2, "x"), a.address(3, "y"), a.count(4, "outer"), a.count(5, "n"),
                 a.count(6, "inner"), a.flag(7, "exclusive"), a.flag(8, "reverse"));
}
