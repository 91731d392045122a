// Graph attention's gradient, column side without the transposed block (GPU): every entry e of row r (source
// s = colIdx[e]) adds alpha_e dOut[r, h, :] into dFeat[s, h, :] and dz_e into dSrc[s, h], by atomics (the caller
// zeroes them: one memset for a matrix whose columns several relations' passes fill). A lane group per (row, head) reads the row's entries
// once and its lanes walk the width, so a block sampled for one step is differentiated with no transpose
// built on the host and copied over. The summation order varies from run to run.
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "graph/lane_group.cuh"
#include "wm/graph_ops.h"
#include "graph/gat_strides.h"
#include "wm/op_registry.h"
#include "wm/runtime.h"

namespace wm {
namespace {

template <int G>
__global__ void gatBackwardScatterKernel(const int32_t* __restrict__ rowPtr, const int32_t* __restrict__ colIdx, int64_t numRows,
                                         const float* __restrict__ alpha, const float* __restrict__ dz, const float* __restrict__ dOut,
                                         int64_t heads, int64_t dim, float* __restrict__ dFeat, float* __restrict__ dSrc, GatStrides st) {
  const LaneGroup<G> g;
  for (int64_t w = g.first(); w < numRows * heads; w += g.stride()) {
    const int64_t r = w / heads, h = w % heads;
    const float* go = dOut + w * dim;
    const int32_t begin = rowPtr[r], end = rowPtr[r + 1];
    for (int32_t e = begin; e < end; ++e) {
      const int64_t s = colIdx[e];
      const float a = alpha[static_cast<int64_t>(e) * heads + h];
      float* o = dFeat + s * st.feat + h * dim;
      for (int64_t j = g.sub; j < dim; j += G) atomicAdd(o + j, a * go[j]);
    }
    for (int32_t e = begin + g.sub; e < end; e += G)
      atomicAdd(dSrc + static_cast<int64_t>(colIdx[e]) * st.src + h, dz[static_cast<int64_t>(e) * heads + h]);
  }
}

}  // namespace

void gatBackwardScatter(uint64_t rowPtr, uint64_t colIdx, int64_t numRows, int64_t numCols, uint64_t alpha, uint64_t dz, uint64_t dOut,
                        int64_t heads, int64_t dim, uint64_t dFeat, uint64_t dSrc, GatStrides strides) {
  WM_REQUIRE(numRows >= 0 && numCols >= 0 && heads >= 0 && dim >= 0,
             "gatBackwardScatter: numRows, numCols, heads and dim must be non-negative");
  if (numRows * heads == 0) return;
  withLaneGroup(dim, [&](auto width) {
    constexpr int G = decltype(width)::value;
    gatBackwardScatterKernel<G><<<gridFor(numRows * heads * G), kThreads, 0, stream()>>>(
        as<int32_t>(rowPtr), as<int32_t>(colIdx), numRows, as<float>(alpha), as<float>(dz), as<float>(dOut), heads, dim, as<float>(dFeat),
        as<float>(dSrc), strides);
  });
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// gatBackwardScatter(rowPtr, colIdx, numRows, numCols, alpha, dz, dOut, heads, dim, dFeat, dSrc, featStride?, srcStride?,
//                    dstStride?)
WM_OP(gatBackwardScatter, Device, a) {
  const int64_t heads = a.count(7, "heads"), dim = a.count(8, "dim");
  wm::gatBackwardScatter(a.address(0, "rowPtr"), a.address(1, "colIdx"), a.count(2, "numRows"), a.count(3, "numCols"),
                         a.address(4, "alpha"), a.address(5, "dz"), a.address(6, "dOut"), heads, dim, a.address(9, "dFeat"),
                         a.address(10, "dSrc"), wm::gatStrides(a, 11, heads, dim));
}
