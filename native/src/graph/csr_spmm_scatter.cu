// The transposed product of a CSR block, without its transpose (GPU): dx [numCols, dim], dx[c] = the sum of
// rowScale[r] * weight[e] * dy[r] over the entries e (of rows r) that name column c (rowScale, weight: 0 for ones).
// Each entry's row is written out, then the entries are gathered by column (graph/sorted_scatter.cuh: sorted by
// column, each column's sum in entry order, written once, the same bits every run), so a block sampled for one step
// is differentiated with no transpose built on the host and copied over.
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "wm/graph_ops.h"
#include "wm/op_registry.h"
#include "wm/runtime.h"
#include "graph/sorted_scatter.cuh"

namespace wm {
namespace {

// A warp per row writes the row's number at each of its entries.
__global__ void entryRowsKernel(const int32_t* rowPtr, int64_t numRows, int32_t* entryRow) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  for (int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x / 32) + threadIdx.x / 32; r < numRows; r += warps)
    for (int32_t e = rowPtr[r] + lane, end = rowPtr[r + 1]; e < end; e += 32) entryRow[e] = static_cast<int32_t>(r);
}

// Entry e of a CSR block: its row, weighing the row's scale times the entry's weight (each 1 where absent).
struct BlockEntries {
  const int32_t* entryRow;
  const float* weight;
  const float* rowScale;
  __device__ int64_t row(int32_t e) const { return entryRow[e]; }
  __device__ float coef(int32_t e) const {
    const float scale = rowScale ? rowScale[entryRow[e]] : 1.f;
    return weight ? scale * weight[e] : scale;
  }
};

}  // namespace

void csrSpmmScatter(uint64_t rowPtr, uint64_t colIdx, uint64_t weight, uint64_t rowScale, int64_t numRows, int64_t entries, uint64_t dy,
                    int64_t dim, uint64_t dx, int64_t numCols) {
  WM_REQUIRE(numRows >= 0 && numCols >= 0 && dim >= 0 && entries >= 0,
             "csrSpmmScatter: numRows, entries, numCols and dim must be non-negative");
  WM_REQUIRE(entries < (int64_t{1} << 31) && numCols < (int64_t{1} << 31), "csrSpmmScatter: at most 2^31 - 1 entries and columns");
  if (numCols * dim == 0) return;
  Scratch s;
  auto* entryRow = s.get<int32_t>(entries);
  if (entries > 0) {
    entryRowsKernel<<<warpBlocks(numRows), kThreads, 0, stream()>>>(as<int32_t>(rowPtr), numRows, entryRow);
    WM_CUDA_LAUNCHED();
  }
  scatterSorted(as<int32_t>(colIdx), entries, numCols, BlockEntries{entryRow, as<float>(weight), as<float>(rowScale)}, as<float>(dy), dim,
                as<float>(dx));
}

}  // namespace wm

// csrSpmmScatter(rowPtr, colIdx, weight, rowScale, numRows, entries, dy, dim, dx, numCols)
WM_OP(csrSpmmScatter, Device, a) {
  wm::csrSpmmScatter(a.address(0, "rowPtr"), a.address(1, "colIdx"), a.address(2, "weight"), a.address(3, "rowScale"),
                     a.count(4, "numRows"), a.count(5, "entries"), a.address(6, "dy"), a.count(7, "dim"), a.address(8, "dx"),
                     a.count(9, "numCols"));
}
