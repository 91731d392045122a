// out[j, i] = a[i] . b[j, i]: a group of lanes per output, float4 loads when
// d is a multiple of four.
#include <algorithm>

#include "runtime/launch.cuh"
#include "runtime/lane_groups.cuh"
#include "wm/op_registry.h"
#include "graph/row_dots.h"
#include "wm/runtime.h"

namespace wm {
namespace {

template <int LANES, bool VEC>
__global__ void rowDotsKernel(const float* a, const float* b, int64_t n, int64_t m, int64_t d, float* out) {
  const int lane = threadIdx.x % LANES;
  const int64_t perBlock = blockDim.x / LANES, total = m * n;
  // The whole block steps together, so every lane of a warp reaches the shuffles.
  for (int64_t base = blockIdx.x * perBlock; base < total; base += static_cast<int64_t>(gridDim.x) * perBlock) {
    const int64_t o = base + threadIdx.x / LANES;
    const bool valid = o < total;
    float acc = 0.f;
    if (valid) {
      const float* ar = a + (o % n) * d;
      const float* br = b + o * d;
      if (VEC) {
        for (int64_t k = lane; k < d / 4; k += LANES) {
          float4 x = reinterpret_cast<const float4*>(ar)[k], y = reinterpret_cast<const float4*>(br)[k];
          acc += x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w;
        }
      } else {
        for (int64_t k = lane; k < d; k += LANES) acc += ar[k] * br[k];
      }
    }
    acc = lanes::groupSum<LANES>(acc);
    if (valid && lane == 0) out[o] = acc;
  }
}

template <int LANES>
void launch(const float* a, const float* b, int64_t n, int64_t m, int64_t d, float* out) {
  int64_t blocks = std::min<int64_t>((m * n * LANES + kThreads - 1) / kThreads, 65536);
  if (d % 4 == 0)
    rowDotsKernel<LANES, true><<<static_cast<unsigned>(blocks), kThreads, 0, stream()>>>(a, b, n, m, d, out);
  else
    rowDotsKernel<LANES, false><<<static_cast<unsigned>(blocks), kThreads, 0, stream()>>>(a, b, n, m, d, out);
}

}  // namespace

void rowDots(uint64_t a, uint64_t b, int64_t n, int64_t m, int64_t d, uint64_t out) {
  if (m * n == 0) return;
  if (d == 0) {
    WM_CUDA(cudaMemsetAsync(as<float>(out), 0, static_cast<size_t>(m * n) * sizeof(float), stream()));
    return;
  }
  lanes::with(lanes::forFloat4(d),
              [&](auto lanes) { launch<decltype(lanes)::value>(as<float>(a), as<float>(b), n, m, d, as<float>(out)); });
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// rowDots(a, b, n, m, d, out)
WM_OP(rowDots, Device, a) {
  wm::rowDots(a.address(0, "a"), a.address(1, "b"), a.count(2, "n"), a.count(3, "m"), a.count(4, "d"), a.address(5, "out"));
}
