// Graph attention's gradient, row pass: a lane group per (output row, head)
// takes each entry's dAlpha (dOut . feat, lanes over the width), then, lanes
// over entries, the softmax's and the leaky ReLU's gradients into dz and
// their row sum into dDst. No atomics: dFeat and dSrc are gathered by the
// column pass over the transposed block.
#include "runtime/launch.cuh"
#include "graph/lane_group.cuh"
#include "wm/op_registry.h"
#include "graph/gat_math.h"
#include "wm/graph_ops.h"
#include "graph/gat_strides.h"

namespace wm {
namespace {

template <int G>
__global__ void gatBackwardRowsKernel(const int32_t* __restrict__ rowPtr, const int32_t* __restrict__ colIdx, int64_t numRows,
                                      const float* __restrict__ feat, const float* __restrict__ src, const float* __restrict__ dst,
                                      int64_t heads, int64_t dim, float slope, const float* __restrict__ alpha,
                                      const float* __restrict__ dOut, float* __restrict__ dz, float* __restrict__ dDst, GatStrides st) {
  const LaneGroup<G> g;
  for (int64_t w = g.first(); w < numRows * heads; w += g.stride()) {
    const int64_t r = w / heads, h = w % heads;
    const int64_t begin = rowPtr[r], end = rowPtr[r + 1];
    const float* go = dOut + w * dim;
    float t = 0.f;  // sum over the row of alpha * dAlpha
    for (int64_t e = begin; e < end; ++e) {
      const float* f = feat + colIdx[e] * st.feat + h * dim;
      float dot = 0.f;
      for (int64_t j = g.sub; j < dim; j += G) dot += go[j] * f[j];
      dot = g.sum(dot);
      if (g.sub == 0) dz[e * heads + h] = dot;
      t += alpha[e * heads + h] * dot;
    }
    g.sync();  // the group's first lane's dAlpha are read by every lane of it below
    const float d = dst[r * st.dst + h];
    float sum = 0.f;
    for (int64_t e = begin + g.sub; e < end; e += G) {
      const float v = alpha[e * heads + h] * (dz[e * heads + h] - t) * gat::logitSlope(src[colIdx[e] * st.src + h], d, slope);
      dz[e * heads + h] = v;
      sum += v;
    }
    sum = g.sum(sum);
    if (g.sub == 0) dDst[r * st.dst + h] = sum;
  }
}

}  // namespace

void gatBackwardRows(uint64_t rowPtr, uint64_t colIdx, int64_t numRows, uint64_t feat, uint64_t src, uint64_t dst, int64_t heads,
                     int64_t dim, float slope, uint64_t alpha, uint64_t dOut, uint64_t dz, uint64_t dDst, GatStrides strides) {
  if (numRows * heads == 0) return;
  withLaneGroup(dim, [&](auto width) {
    constexpr int G = decltype(width)::value;
    gatBackwardRowsKernel<G><<<gridFor(numRows * heads * G), kThreads, 0, stream()>>>(
        as<int32_t>(rowPtr), as<int32_t>(colIdx), numRows, as<float>(feat), as<float>(src), as<float>(dst), heads, dim, slope,
        as<float>(alpha), as<float>(dOut), as<float>(dz), as<float>(dDst), strides);
  });
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
