// Mean of a fixed number of sampled neighbours per row: out[r] = mean over
// e < fanout of x[neighbors[r * fanout + e]]. A warp per output row, four
// floats per lane per load when the width allows. Fixed fan-outs need no row
// offsets, so nothing is built or uploaded per step.
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"
#include "wm/graph_ops.h"
#include "wm/runtime.h"

namespace wm {
namespace {

template <int VEC>
__global__ void neighborMeanKernel(const int32_t* neighbors, int64_t numRows, int fanout, const float* x, int64_t dim, float* out) {
  const int lane = threadIdx.x & 31;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  const int64_t vecs = dim / VEC;
  const float scale = 1.f / static_cast<float>(fanout);
  for (int64_t r = warp; r < numRows; r += warps) {
    const int32_t* nb = neighbors + r * fanout;
    for (int64_t j = lane; j < vecs; j += 32) {
      float acc[VEC];
#pragma unroll
      for (int k = 0; k < VEC; ++k) acc[k] = 0.f;
      for (int e = 0; e < fanout; ++e) {
        const float* xr = x + static_cast<int64_t>(nb[e]) * dim + j * VEC;
        if constexpr (VEC == 4) {
          float4 v = *reinterpret_cast<const float4*>(xr);
          acc[0] += v.x, acc[1] += v.y, acc[2] += v.z, acc[3] += v.w;
        } else {
          acc[0] += xr[0];
        }
      }
      float* o = out + r * dim + j * VEC;
      if constexpr (VEC == 4) {
        *reinterpret_cast<float4*>(o) = make_float4(acc[0] * scale, acc[1] * scale, acc[2] * scale, acc[3] * scale);
      } else {
        o[0] = acc[0] * scale;
      }
    }
  }
}

}  // namespace

void neighborMean(uint64_t neighbors, int64_t numRows, int64_t fanout, uint64_t x, int64_t dim, uint64_t out) {
  if (numRows == 0 || dim == 0) return;
  WM_REQUIRE(fanout >= 1 && fanout <= 0x7fffffff, "neighborMean: fanout must be a positive 32-bit integer");
  const bool wide = dim % 4 == 0 && x % 16 == 0 && out % 16 == 0;
  const int64_t threads = numRows * 32;
  const int f = static_cast<int>(fanout);
  if (wide) {
    neighborMeanKernel<4>
        <<<gridFor(threads), kThreads, 0, stream()>>>(as<int32_t>(neighbors), numRows, f, as<float>(x), dim, as<float>(out));
  } else {
    neighborMeanKernel<1>
        <<<gridFor(threads), kThreads, 0, stream()>>>(as<int32_t>(neighbors), numRows, f, as<float>(x), dim, as<float>(out));
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// neighborMean(neighbors, numRows, fanout, x, dim, out)
WM_OP(neighborMean, Device, a) {
  wm::neighborMean(a.address(0, "neighbors"), a.count(1, "numRows"), a.count(2, "fanout"), a.address(3, "x"), a.count(4, "dim"),
                   a.address(5, "out"));
}
