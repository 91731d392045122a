// Graph attention's gradient, row pass: a warp per (output row, head)
// takes each entry's dAlpha (dOut . feat, lanes over the width), then, lanes
// over entries, the softmax's and the leaky ReLU's gradients into dz and
// their row sum into dDst. No atomics: dFeat and dSrc are gathered by the
// column pass over the transposed block.
#include "runtime/launch.cuh"
#include "graph/softmax_rows.cuh"
#include "wm/op_registry.h"
#include "graph/gat_math.h"
#include "wm/graph_ops.h"
#include "graph/gat_strides.h"

namespace wm {
namespace {

__global__ void gatBackwardRowsKernel(const int32_t* __restrict__ rowPtr, const int32_t* __restrict__ colIdx, int64_t numRows,
                                      const float* __restrict__ feat, const float* __restrict__ src, const float* __restrict__ dst,
                                      int64_t heads, int64_t dim, float slope, const float* __restrict__ alpha,
                                      const float* __restrict__ dOut, float* __restrict__ dz, float* __restrict__ dDst, GatStrides st) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t w = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; w < numRows * heads; w += warps) {
    const int64_t r = w / heads, h = w % heads;
    const int64_t begin = rowPtr[r], end = rowPtr[r + 1];
    const float* go = dOut + w * dim;
    float t = 0.f;  // sum over the row of alpha * dAlpha
    for (int64_t e = begin; e < end; ++e) {
      const float* f = feat + colIdx[e] * st.feat + h * dim;
      float dot = 0.f;
      for (int64_t j = lane; j < dim; j += 32) dot += go[j] * f[j];
      dot = warpSum(dot);
      if (lane == 0) dz[e * heads + h] = dot;
      t += alpha[e * heads + h] * dot;
    }
    __syncwarp();  // lane 0's dAlpha are read by every lane below
    const float d = dst[r * st.dst + h];
    float sum = 0.f;
    for (int64_t e = begin + lane; e < end; e += 32) {
      const float g = alpha[e * heads + h] * (dz[e * heads + h] - t) * gat::logitSlope(src[colIdx[e] * st.src + h], d, slope);
      dz[e * heads + h] = g;
      sum += g;
    }
    sum = warpSum(sum);
    if (lane == 0) dDst[r * st.dst + h] = sum;
  }
}

}  // namespace

void gatBackwardRows(uint64_t rowPtr, uint64_t colIdx, int64_t numRows, uint64_t feat, uint64_t src, uint64_t dst, int64_t heads,
                     int64_t dim, float slope, uint64_t alpha, uint64_t dOut, uint64_t dz, uint64_t dDst, GatStrides strides) {
  if (numRows * heads == 0) return;
  gatBackwardRowsKernel<<<gridFor(numRows * heads * 32), kThreads, 0, stream()>>>(
      as<int32_t>(rowPtr), as<int32_t>(colIdx), numRows, as<float>(feat), as<float>(src), as<float>(dst), heads, dim, slope,
      as<float>(alpha), as<float>(dOut), as<float>(dz), as<float>(dDst), strides);
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// gatBackwardRows(rowPtr, colIdx, numRows, numCols, feat, src, dst, heads, dim, slope, alpha, dOut, dz, dDst, featStride?,
//                 srcStride?, dstStride?)
WM_OP(gatBackwardRows, Device, a) {
  const int64_t heads = a.count(7, "heads"), dim = a.count(8, "dim");
  wm::gatBackwardRows(a.address(0, "rowPtr"), a.address(1, "colIdx"), a.count(2, "numRows"), a.address(4, "feat"), a.address(5, "src"),
                      a.address(6, "dst"), heads, dim, static_cast<float>(a.number(9, "slope")), a.address(10, "alpha"),
                      a.address(11, "dOut"), a.address(12, "dz"), a.address(13, "dDst"), wm::gatStrides(a, 14, heads, dim));
}
