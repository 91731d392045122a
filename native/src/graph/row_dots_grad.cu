// The gradient of row dots: a group of lanes per row i of a walks its m
// blocks in order, writing dB[j, i] = g[j, i] a[i] and summing dA[i] — no
// atomics, the same sum whatever the GPU.
#include <algorithm>

#include "runtime/launch.cuh"
#include "runtime/lane_groups.cuh"
#include "wm/op_registry.h"
#include "graph/row_dots.h"
#include "wm/runtime.h"

namespace wm {
namespace {

template <int LANES, bool VEC>
__global__ void rowDotsGradKernel(const float* a, const float* b, const float* g, int64_t n, int64_t m, int64_t d, float* dA, float* dB) {
  const int lane = threadIdx.x % LANES;
  const int64_t groups = static_cast<int64_t>(gridDim.x) * (blockDim.x / LANES);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x / LANES) + threadIdx.x / LANES; i < n; i += groups) {
    if (VEC) {
      const float4* ar = reinterpret_cast<const float4*>(a + i * d);
      for (int64_t k = lane; k < d / 4; k += LANES) {
        const float4 x = ar[k];
        float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int64_t j = 0; j < m; ++j) {
          const float gj = g[j * n + i];
          const float4 y = reinterpret_cast<const float4*>(b + (j * n + i) * d)[k];
          acc.x += gj * y.x;
          acc.y += gj * y.y;
          acc.z += gj * y.z;
          acc.w += gj * y.w;
          reinterpret_cast<float4*>(dB + (j * n + i) * d)[k] = make_float4(gj * x.x, gj * x.y, gj * x.z, gj * x.w);
        }
        reinterpret_cast<float4*>(dA + i * d)[k] = acc;
      }
    } else {
      for (int64_t k = lane; k < d; k += LANES) {
        const float x = a[i * d + k];
        float acc = 0.f;
        for (int64_t j = 0; j < m; ++j) {
          const float gj = g[j * n + i];
          acc += gj * b[(j * n + i) * d + k];
          dB[(j * n + i) * d + k] = gj * x;
        }
        dA[i * d + k] = acc;
      }
    }
  }
}

template <int LANES>
void launch(const float* a, const float* b, const float* g, int64_t n, int64_t m, int64_t d, float* dA, float* dB) {
  int64_t blocks = std::min<int64_t>((n * LANES + kThreads - 1) / kThreads, 65536);
  if (d % 4 == 0)
    rowDotsGradKernel<LANES, true><<<static_cast<unsigned>(blocks), kThreads, 0, stream()>>>(a, b, g, n, m, d, dA, dB);
  else
    rowDotsGradKernel<LANES, false><<<static_cast<unsigned>(blocks), kThreads, 0, stream()>>>(a, b, g, n, m, d, dA, dB);
}

}  // namespace

void rowDotsGrad(uint64_t a, uint64_t b, uint64_t g, int64_t n, int64_t m, int64_t d, uint64_t dA, uint64_t dB) {
  if (n * d == 0) return;
  if (m == 0) {
    WM_CUDA(cudaMemsetAsync(as<float>(dA), 0, static_cast<size_t>(n * d) * sizeof(float), stream()));
    return;
  }
  const float *pa = as<float>(a), *pb = as<float>(b), *pg = as<float>(g);
  float *pdA = as<float>(dA), *pdB = as<float>(dB);
  lanes::with(lanes::forFloat4(d), [&](auto lanes) { launch<decltype(lanes)::value>(pa, pb, pg, n, m, d, pdA, pdB); });
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// rowDotsGrad(a, b, g, n, m, d, dA, dB)
WM_OP(rowDotsGrad, Device, a) {
  wm::rowDotsGrad(a.address(0, "a"), a.address(1, "b"), a.address(2, "g"), a.count(3, "n"), a.count(4, "m"), a.count(5, "d"),
                  a.address(6, "dA"), a.address(7, "dB"));
}
