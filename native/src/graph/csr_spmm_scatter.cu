// The transposed product of a CSR block, without its transpose (GPU): dx [numCols, dim] = 0, then every
// entry e of row r adds rowScale[r] * weight[e] * dy[r] into dx[colIdx[e]] (rowScale, weight: 0 for
// ones), by atomics. A warp per row reads the row's entries once and its lanes walk the row's width, so a
// block sampled for one step is differentiated with no transpose built on the host and copied over. The
// summation order varies from run to run, as UnsortedSegmentSum's does.
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "wm/graph_ops.h"
#include "wm/op_registry.h"
#include "wm/runtime.h"

namespace wm {
namespace {

__global__ void csrSpmmScatterKernel(const int32_t* rowPtr, const int32_t* colIdx, const float* weight, const float* rowScale,
                                     int64_t numRows, const float* dy, int64_t dim, float* dx) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  for (int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x / 32) + threadIdx.x / 32; r < numRows; r += warps) {
    const float scale = rowScale ? rowScale[r] : 1.f;
    const float* g = dy + r * dim;
    for (int32_t e = rowPtr[r], end = rowPtr[r + 1]; e < end; ++e) {
      const float w = weight ? scale * weight[e] : scale;
      float* o = dx + static_cast<int64_t>(colIdx[e]) * dim;
      for (int64_t j = lane; j < dim; j += 32) atomicAdd(o + j, w * g[j]);
    }
  }
}

}  // namespace

void csrSpmmScatter(uint64_t rowPtr, uint64_t colIdx, uint64_t weight, uint64_t rowScale, int64_t numRows, uint64_t dy, int64_t dim,
                    uint64_t dx, int64_t numCols) {
  WM_REQUIRE(numRows >= 0 && numCols >= 0 && dim >= 0, "csrSpmmScatter: numRows, numCols and dim must be non-negative");
  if (numCols * dim == 0) return;
  WM_CUDA(cudaMemsetAsync(reinterpret_cast<void*>(dx), 0, numCols * dim * sizeof(float), stream()));
  if (numRows == 0) return;
  csrSpmmScatterKernel<<<warpBlocks(numRows), kThreads, 0, stream()>>>(as<int32_t>(rowPtr), as<int32_t>(colIdx), as<float>(weight),
                                                                       as<float>(rowScale), numRows, as<float>(dy), dim, as<float>(dx));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// csrSpmmScatter(rowPtr, colIdx, weight, rowScale, numRows, dy, dim, dx, numCols)
WM_OP(csrSpmmScatter, Device, a) {
  wm::csrSpmmScatter(a.address(0, "rowPtr"), a.address(1, "colIdx"), a.address(2, "weight"), a.address(3, "rowScale"),
                     a.count(4, "numRows"), a.address(5, "dy"), a.count(6, "dim"), a.address(7, "dx"), a.count(8, "numCols"));
}
