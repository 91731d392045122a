// OneHot: out[i, d] = indices[i] == d ? on : off (indices outside [0, depth)
// give a row of off, as tfjs-backend-cpu does).
#include "kernels/ops.h"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {
template <typename T>
__global__ void oneHotKernel(const int* idx, T* y, int64_t n, int64_t depth, T on, T off) {
  WM_GRID_STRIDE(e, n * depth) {
    int64_t i = e / depth, d = e - i * depth;
    y[e] = idx[i] == d ? on : off;
  }
}
}  // namespace

void oneHot(DType t, uint64_t indices, uint64_t y, int64_t n, int64_t depth, double onValue, double offValue) {
  if (n * depth == 0) return;
  auto s = stream();
  unsigned g = gridFor(n * depth);
  switch (t) {
    case DType::F32:
      oneHotKernel<float><<<g, kThreads, 0, s>>>(as<int>(indices), as<float>(y), n, depth, (float)onValue, (float)offValue);
      break;
    case DType::I32:
      oneHotKernel<int><<<g, kThreads, 0, s>>>(as<int>(indices), as<int>(y), n, depth, (int)onValue, (int)offValue);
      break;
    case DType::Bool:
      oneHotKernel<uint8_t><<<g, kThreads, 0, s>>>(as<int>(indices), as<uint8_t>(y), n, depth, onValue != 0, offValue != 0);
      break;
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// oneHot(dtype, indices, y, n, depth, onValue, offValue)
WM_OP(oneHot, Device, a) {
  wm::oneHot(a.dtype(0, "dtype"), a.address(1, "indices"), a.address(2, "y"), a.count(3, "n"), a.count(4, "depth"), a.number(5, "onValue"),
             a.number(6, "offValue"));
}
