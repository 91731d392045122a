// GatherV2 over an [outer, axisDim, inner] view. Rows are copied with 16-byte
// accesses when alignment allows, since embedding-style gathers move whole rows.
#include "kernels/ops.h"
#include "runtime/launch.cuh"
#include "runtime/vec4.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

// I: the index type of the position arithmetic, uint32_t where the output's
// vectors fit it (a 64-bit division is a long call; there are three per vector).
template <typename V, typename I>
__global__ void gatherKernel(const V* x, const int* idx, V* y, int64_t outer, int64_t axisDim, int64_t innerV, int64_t numIndices,
                             int64_t outerPerBatch, unsigned long long* errorFlag) {
  const int64_t n = outer * numIndices * innerV;
  const I inner = static_cast<I>(innerV), count = static_cast<I>(numIndices), perBatch = static_cast<I>(outerPerBatch);
  WM_GRID_STRIDE(e64, n) {
    const I e = static_cast<I>(e64);
    const I oi = e / inner, j = e - oi * inner;
    const I o = outer == 1 ? 0 : oi / count, i = oi - o * count;
    const int64_t at = static_cast<int64_t>(outer == 1 ? 0 : o / perBatch) * numIndices + i;
    const int64_t k = idx[at];
    if (k < 0 || k >= axisDim) {
      // Never read outside the tensor: write zeros and report the position.
      y[e64] = V{};
      if (errorFlag) atomicMin(errorFlag, static_cast<unsigned long long>(at));
    } else {
      y[e64] = x[(static_cast<int64_t>(o) * axisDim + k) * innerV + j];
    }
  }
}

template <typename V>
void launch(uint64_t x, uint64_t idx, uint64_t y, int64_t outer, int64_t axisDim, int64_t innerV, int64_t numIndices, int64_t outerPerBatch,
            uint64_t errorFlag) {
  const int64_t n = outer * numIndices * innerV;
  auto kernel = narrowIndex(n) ? gatherKernel<V, uint32_t> : gatherKernel<V, int64_t>;
  kernel<<<gridFor(n), kThreads, 0, stream()>>>(as<V>(x), as<int>(idx), as<V>(y), outer, axisDim, innerV, numIndices, outerPerBatch,
                                                reinterpret_cast<unsigned long long*>(errorFlag));
}

}  // namespace

void gather(DType t, uint64_t x, uint64_t indices, uint64_t y, int64_t outer, int64_t axisDim, int64_t inner, int64_t numIndices,
            int64_t outerPerBatch, uint64_t errorFlag) {
  if (outer * numIndices * inner == 0) return;
  WM_REQUIRE(outerPerBatch > 0, "gather: outerPerBatch must be positive");
  int64_t rowBytes = inner * static_cast<int64_t>(dtypeSize(t));
  const bool wide = rowBytes % 16 == 0 && aligned16({x, y});
  const bool aligned4 = rowBytes % 4 == 0 && x % 4 == 0 && y % 4 == 0;
  if (wide)
    launch<uint4>(x, indices, y, outer, axisDim, rowBytes / 16, numIndices, outerPerBatch, errorFlag);
  else if (aligned4)
    launch<uint32_t>(x, indices, y, outer, axisDim, rowBytes / 4, numIndices, outerPerBatch, errorFlag);
  else
    launch<uint8_t>(x, indices, y, outer, axisDim, rowBytes, numIndices, outerPerBatch, errorFlag);
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// gather(dtype, x, indices, y, outer, axisDim, inner, numIndices, outerPerBatch, errorFlag)
WM_OP(gather, Device, a) {
  wm::gather(a.dtype(0, "dtype"), a.address(1, "x"), a.address(2, "indices"), a.address(3, "y"), a.count(4, "outer"), a.count(5, "axisDim"),
             a.count(6, "inner"), a.count(7, "numIndices"), a.count(8, "outerPerBatch"), a.address(9, "errorFlag"));
}
