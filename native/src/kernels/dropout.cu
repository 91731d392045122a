// Dropout: y[i] = x[i] * scale where the mask (kernels/dropout_mask.h) keeps i,
// else 0. The gradient is the same call on dy with the same seed.
#include "runtime/launch.cuh"
#include "wm/op_registry.h"
#include "kernels/dropout_mask.h"

namespace wm {
namespace {
__global__ void dropoutKernel(const float* x, float* y, int64_t n, uint32_t threshold, float scale, uint64_t seed) {
  WM_GRID_STRIDE(i, n) {
    const uint32_t key = dropoutKey(seed, static_cast<uint32_t>(static_cast<uint64_t>(i) >> 32));
    y[i] = dropoutKeeps(key, static_cast<uint32_t>(i), threshold) ? x[i] * scale : 0.f;
  }
}
}  // namespace

void dropout(uint64_t x, uint64_t y, int64_t n, uint32_t threshold, float scale, uint64_t seed) {
  if (n == 0) return;
  dropoutKernel<<<gridFor(n), kThreads, 0, stream()>>>(as<float>(x), as<float>(y), n, threshold, scale, seed);
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// dropout(x, y, n, threshold, scale, seedHigh, seedLow): the seed as its two 32-bit halves.
WM_OP(dropout, Device, a) {
  const uint64_t seed = (static_cast<uint64_t>(a.count(5, "seedHigh")) << 32) | static_cast<uint32_t>(a.count(6, "seedLow"));
  wm::dropout(a.address(0, "x"), a.address(1, "y"), a.count(2, "n"), static_cast<uint32_t>(a.count(3, "threshold")),
              static_cast<float>(a.number(4, "scale")), seed);
}
