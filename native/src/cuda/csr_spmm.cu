// Neighbour aggregation: a warp per output row walks the row's CSR entries
// and adds the neighbours' feature rows, four floats per lane per load when
// the width allows.
#include "check.h"
#include "launch.cuh"
#include "wm/graph_ops.h"
#include "wm/runtime.h"

namespace wm {
namespace {

template <int VEC>
__global__ void spmmKernel(const int32_t* rowPtr, const int32_t* colIdx, const float* weight, const float* rowScale,
                           int64_t numRows, const float* x, int64_t dim, float* out) {
  const int lane = threadIdx.x & 31;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  const int64_t vecs = dim / VEC;
  for (int64_t r = warp; r < numRows; r += warps) {
    const int64_t begin = rowPtr[r], end = rowPtr[r + 1];
    const float scale = rowScale ? rowScale[r] : 1.f;
    for (int64_t j = lane; j < vecs; j += 32) {
      float acc[VEC];
#pragma unroll
      for (int k = 0; k < VEC; ++k) acc[k] = 0.f;
      for (int64_t e = begin; e < end; ++e) {
        const float w = weight ? weight[e] : 1.f;
        const float* xr = x + static_cast<int64_t>(colIdx[e]) * dim + j * VEC;
        if constexpr (VEC == 4) {
          float4 v = *reinterpret_cast<const float4*>(xr);
          acc[0] += w * v.x, acc[1] += w * v.y, acc[2] += w * v.z, acc[3] += w * v.w;
        } else {
          acc[0] += w * xr[0];
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

void csrSpmm(uint64_t rowPtr, uint64_t colIdx, uint64_t weight, uint64_t rowScale, int64_t numRows, uint64_t x,
             int64_t dim, uint64_t out) {
  if (numRows == 0 || dim == 0) return;
  const bool wide = dim % 4 == 0 && x % 16 == 0 && out % 16 == 0;
  const int64_t threads = numRows * 32;
  if (wide) {
    spmmKernel<4><<<gridFor(threads), kThreads, 0, stream()>>>(as<int32_t>(rowPtr), as<int32_t>(colIdx), as<float>(weight),
                                                                as<float>(rowScale), numRows, as<float>(x), dim, as<float>(out));
  } else {
    spmmKernel<1><<<gridFor(threads), kThreads, 0, stream()>>>(as<int32_t>(rowPtr), as<int32_t>(colIdx), as<float>(weight),
                                                                as<float>(rowScale), numRows, as<float>(x), dim, as<float>(out));
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm
