// Graph attention's gradient, column pass: a lane group per (source, head) walks
// the source's entries in the transposed block and gathers dFeat (the
// weights times dOut, lanes over the width) and dSrc (the sum of dz): a
// gather where the forward scattered, so no atomics and a fixed order.
#include "runtime/launch.cuh"
#include "graph/lane_group.cuh"
#include "wm/op_registry.h"
#include "wm/graph_ops.h"
#include "graph/gat_strides.h"

namespace wm {
namespace {

template <int G>
__global__ void gatBackwardColsKernel(const int32_t* __restrict__ rowPtrT, const int32_t* __restrict__ colIdxT,
                                      const int32_t* __restrict__ edgeT, int64_t numCols, const float* __restrict__ alpha,
                                      const float* __restrict__ dz, const float* __restrict__ dOut, int64_t heads, int64_t dim,
                                      float* __restrict__ dFeat, float* __restrict__ dSrc, GatStrides st) {
  const LaneGroup<G> g;
  for (int64_t w = g.first(); w < numCols * heads; w += g.stride()) {
    const int64_t s = w / heads, h = w % heads;
    const int64_t begin = rowPtrT[s], end = rowPtrT[s + 1];
    for (int64_t j = g.sub; j < dim; j += G) {
      float acc = 0.f;
      for (int64_t e = begin; e < end; ++e) acc += alpha[edgeT[e] * heads + h] * dOut[(colIdxT[e] * heads + h) * dim + j];
      dFeat[s * st.feat + h * dim + j] = acc;
    }
    float sum = 0.f;
    for (int64_t e = begin + g.sub; e < end; e += G) sum += dz[edgeT[e] * heads + h];
    sum = g.sum(sum);
    if (g.sub == 0) dSrc[s * st.src + h] = sum;
  }
}

}  // namespace

void gatBackwardCols(uint64_t rowPtrT, uint64_t colIdxT, uint64_t edgeT, int64_t numCols, uint64_t alpha, uint64_t dz, uint64_t dOut,
                     int64_t heads, int64_t dim, uint64_t dFeat, uint64_t dSrc, GatStrides strides) {
  if (numCols * heads == 0) return;
  withLaneGroup(dim, [&](auto width) {
    constexpr int G = decltype(width)::value;
    gatBackwardColsKernel<G><<<gridFor(numCols * heads * G), kThreads, 0, stream()>>>(
        as<int32_t>(rowPtrT), as<int32_t>(colIdxT), as<int32_t>(edgeT), numCols, as<float>(alpha), as<float>(dz), as<float>(dOut), heads,
        dim, as<float>(dFeat), as<float>(dSrc), strides);
  });
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// gatBackwardCols(rowPtrT, colIdxT, edgeT, numCols, numRows, alpha, dz, dOut, heads, dim, dFeat, dSrc, featStride?, srcStride?,
//                 dstStride?)
WM_OP(gatBackwardCols, Device, a) {
  const int64_t heads = a.count(8, "heads"), dim = a.count(9, "dim");
  wm::gatBackwardCols(a.address(0, "rowPtrT"), a.address(1, "colIdxT"), a.address(2, "edgeT"), a.count(3, "numCols"), a.address(5, "alpha"),
                      a.address(6, "dz"), a.address(7, "dOut"), heads, dim, a.address(10, "dFeat"), a.address(11, "dSrc"),
                      wm::gatStrides(a, 12, heads, dim));
}
