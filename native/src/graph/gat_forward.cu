// Graph attention's forward pass: a warp per (output row, head) takes the
// row's logits' maximum and exponential sum with the lanes over entries,
// writes each entry's weight (kept for the gradient), then adds the weighted
// source features with the lanes over the feature width. Warp reductions
// in a fixed pattern: the result does not depend on timing.
#include "runtime/launch.cuh"
#include "graph/softmax_rows.cuh"
#include "wm/op_registry.h"
#include "graph/gat_math.h"
#include "wm/graph_ops.h"
#include "graph/gat_strides.h"

namespace wm {
namespace {

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__global__ void gatForwardKernel(const int32_t* __restrict__ rowPtr, const int32_t* __restrict__ colIdx, int64_t numRows,
                                 const float* __restrict__ feat, const float* __restrict__ src, const float* __restrict__ dst,
                                 int64_t heads, int64_t dim, float slope, float* __restrict__ out, float* __restrict__ alpha,
                                 GatStrides st) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t w = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; w < numRows * heads; w += warps) {
    const int64_t r = w / heads, h = w % heads;
    const int64_t begin = rowPtr[r], end = rowPtr[r + 1];
    const float d = dst[r * st.dst + h];
    float m = -INFINITY;
    for (int64_t e = begin + lane; e < end; e += 32) m = fmaxf(m, gat::logit(src[colIdx[e] * st.src + h], d, slope));
    m = warpMax(m);
    float s = 0.f;
    for (int64_t e = begin + lane; e < end; e += 32) s += expf(gat::logit(src[colIdx[e] * st.src + h], d, slope) - m);
    s = warpSum(s);
    for (int64_t e = begin + lane; e < end; e += 32) {
      alpha[e * heads + h] = expf(gat::logit(src[colIdx[e] * st.src + h], d, slope) - m) / s;
    }
    __syncwarp();  // the weights this warp wrote are read below by every lane
    for (int64_t j = lane; j < dim; j += 32) {
      float acc = 0.f;
      for (int64_t e = begin; e < end; ++e) acc += alpha[e * heads + h] * feat[colIdx[e] * st.feat + h * dim + j];
      out[w * dim + j] = acc;
    }
  }
}

}  // namespace

void gatForward(uint64_t rowPtr, uint64_t colIdx, int64_t numRows, uint64_t feat, uint64_t src, uint64_t dst, int64_t heads, int64_t dim,
                float slope, uint64_t out, uint64_t alpha, GatStrides strides) {
  if (numRows * heads == 0) return;
  gatForwardKernel<<<gridFor(numRows * heads * 32), kThreads, 0, stream()>>>(as<int32_t>(rowPtr), as<int32_t>(colIdx), numRows,
                                                                             as<float>(feat), as<float>(src), as<float>(dst), heads, dim,
                                                                             slope, as<float>(out), as<float>(alpha), strides);
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// gatForward(rowPtr, colIdx, numRows, numCols, feat, src, dst, heads, dim, slope, out, alpha, featStride?, srcStride?, dstStride?)
WM_OP(gatForward, Device, a) {
  const int64_t heads = a.count(7, "heads"), dim = a.count(8, "dim");
  wm::gatForward(a.address(0, "rowPtr"), a.address(1, "colIdx"), a.count(2, "numRows"), a.address(4, "feat"), a.address(5, "src"),
                 a.address(6, "dst"), heads, dim, static_cast<float>(a.number(9, "slope")), a.address(10, "out"), a.address(11, "alpha"),
                 wm::gatStrides(a, 12, heads, dim));
}
