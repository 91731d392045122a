// Graph attention's gradient, column side without the transposed block (GPU): dFeat [numCols, heads, dim]
// and dSrc [numCols, heads] zeroed, then every entry e of row r (source s = colIdx[e]) adds alpha_e dOut[r, h, :]
// into dFeat[s, h, :] and dz_e into dSrc[s, h], by atomics. A warp per (row, head) reads the row's entries
// once and its lanes walk the width, so a block sampled for one step is differentiated with no transpose
// built on the host and copied over. The summation order varies from run to run, as csrSpmmScatter's does.
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "wm/graph_ops.h"
#include "graph/gat_strides.h"
#include "wm/op_registry.h"
#include "wm/runtime.h"

namespace wm {
namespace {

__global__ void gatBackwardScatterKernel(const int32_t* __restrict__ rowPtr, const int32_t* __restrict__ colIdx, int64_t numRows,
                                         const float* __restrict__ alpha, const float* __restrict__ dz, const float* __restrict__ dOut,
                                         int64_t heads, int64_t dim, float* __restrict__ dFeat, float* __restrict__ dSrc, GatStrides st) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t w = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; w < numRows * heads; w += warps) {
    const int64_t r = w / heads, h = w % heads;
    const float* g = dOut + w * dim;
    const int32_t begin = rowPtr[r], end = rowPtr[r + 1];
    for (int32_t e = begin; e < end; ++e) {
      const int64_t s = colIdx[e];
      const float a = alpha[static_cast<int64_t>(e) * heads + h];
      float* o = dFeat + s * st.feat + h * dim;
      for (int64_t j = lane; j < dim; j += 32) atomicAdd(o + j, a * g[j]);
    }
    for (int32_t e = begin + lane; e < end; e += 32)
      atomicAdd(dSrc + static_cast<int64_t>(colIdx[e]) * st.src + h, dz[static_cast<int64_t>(e) * heads + h]);
  }
}

}  // namespace

void gatBackwardScatter(uint64_t rowPtr, uint64_t colIdx, int64_t numRows, int64_t numCols, uint64_t alpha, uint64_t dz, uint64_t dOut,
                        int64_t heads, int64_t dim, uint64_t dFeat, uint64_t dSrc, GatStrides strides) {
  WM_REQUIRE(numRows >= 0 && numCols >= 0 && heads >= 0 && dim >= 0,
             "gatBackwardScatter: numRows, numCols, heads and dim must be non-negative");
  if (numCols * heads == 0) return;
  // Only the rows' own columns are zeroed: dFeat and dSrc may be columns of wider matrices.
  WM_CUDA(
      cudaMemset2DAsync(reinterpret_cast<void*>(dFeat), strides.feat * sizeof(float), 0, heads * dim * sizeof(float), numCols, stream()));
  WM_CUDA(cudaMemset2DAsync(reinterpret_cast<void*>(dSrc), strides.src * sizeof(float), 0, heads * sizeof(float), numCols, stream()));
  if (numRows == 0) return;
  gatBackwardScatterKernel<<<gridFor(numRows * heads * 32), kThreads, 0, stream()>>>(
      as<int32_t>(rowPtr), as<int32_t>(colIdx), numRows, as<float>(alpha), as<float>(dz), as<float>(dOut), heads, dim, as<float>(dFeat),
      as<float>(dSrc), strides);
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
