// Fill (also ZerosLike/OnesLike).
#include "kernels/ops.h"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {
template <typename T>
__global__ void fillKernel(T* y, int64_t n, T v) {
  WM_GRID_STRIDE(i, n) { y[i] = v; }
}
}  // namespace

void fill(DType t, uint64_t y, int64_t n, double value) {
  if (n == 0) return;
  auto s = stream();
  switch (t) {
    case DType::F32:
      fillKernel<float><<<gridFor(n), kThreads, 0, s>>>(as<float>(y), n, static_cast<float>(value));
      break;
    case DType::I32:
      fillKernel<int><<<gridFor(n), kThreads, 0, s>>>(as<int>(y), n, static_cast<int>(value));
      break;
    case DType::Bool:
      fillKernel<uint8_t><<<gridFor(n), kThreads, 0, s>>>(as<uint8_t>(y), n, value != 0);
      break;
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// fill(dtype, y, n, value)
WM_OP(fill, Device, a) { wm::fill(a.dtype(0, "dtype"), a.address(1, "y"), a.count(2, "n"), a.number(3, "value")); }
