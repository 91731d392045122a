// Graph attention's forward pass: a lane group (lane_group.cuh: up to a warp,
// as wide as a head's features) per (output row, head) takes the row's logits'
// maximum and exponential sum with the lanes over entries, writes each entry's
// weight (kept for the gradient), then adds the weighted source features with
// the lanes over the feature width. Reductions in a fixed pattern: the result
// does not depend on timing.
#include "runtime/launch.cuh"
#include "graph/lane_group.cuh"
#include "wm/op_registry.h"
#include "graph/gat_math.h"
#include "wm/graph_ops.h"
#include "graph/gat_strides.h"

namespace wm {
namespace {

template <int G>
__global__ void gatForwardKernel(const int32_t* __restrict__ rowPtr, const int32_t* __restrict__ colIdx, int64_t numRows,
                                 const float* __restrict__ feat, const float* __restrict__ src, const float* __restrict__ dst,
                                 int64_t heads, int64_t dim, float slope, float* __restrict__ out, float* __restrict__ alpha,
                                 GatStrides st) {
  const LaneGroup<G> g;
  for (int64_t w = g.first(); w < numRows * heads; w += g.stride()) {
    const int64_t r = w / heads, h = w % heads;
    const int64_t begin = rowPtr[r], end = rowPtr[r + 1];
    const float d = dst[r * st.dst + h];
    float m = -INFINITY;
    for (int64_t e = begin + g.sub; e < end; e += G) m = fmaxf(m, gat::logit(src[colIdx[e] * st.src + h], d, slope));
    m = g.max(m);
    float s = 0.f;
    for (int64_t e = begin + g.sub; e < end; e += G) s += expf(gat::logit(src[colIdx[e] * st.src + h], d, slope) - m);
    s = g.sum(s);
    for (int64_t e = begin + g.sub; e < end; e += G) alpha[e * heads + h] = expf(gat::logit(src[colIdx[e] * st.src + h], d, slope) - m) / s;
    g.sync();  // the weights this group wrote are read below by every lane of it
    for (int64_t j = g.sub; j < dim; j += G) {
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
  withLaneGroup(dim, [&](auto width) {
    constexpr int G = decltype(width)::value;
    gatForwardKernel<G><<<gridFor(numRows * heads * G), kThreads, 0, stream()>>>(as<int32_t>(rowPtr), as<int32_t>(colIdx), numRows,
                                                                                 as<float>(feat), as<float>(src), as<float>(dst), heads,
                                                                                 dim, slope, as<float>(out), as<float>(alpha), strides);
  });
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
