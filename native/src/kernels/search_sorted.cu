// SearchSorted on the GPU: one thread per value (kernels/sorted_search.h).
#include "kernels/ops.h"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"
#include "kernels/sorted_search.h"

namespace wm {
namespace {
template <typename T>
__global__ void searchSortedKernel(const T* sorted, const T* values, int* out, int64_t batch, int64_t seqLen, int64_t numValues,
                                   bool right) {
  WM_GRID_STRIDE(e, batch * numValues) {
    out[e] = static_cast<int>(sortedPosition(sorted + (e / numValues) * seqLen, seqLen, values[e], right));
  }
}
}  // namespace
}  // namespace wm

// searchSorted(dtype, sorted, values, out, batch, seqLen, numValues, right)
WM_OP(searchSorted, Device, a) {
  const wm::DType dt = a.dtype(0, "dtype");
  const int64_t batch = a.count(4, "batch"), seqLen = a.count(5, "seqLen"), numValues = a.count(6, "numValues");
  const bool right = a.flag(7, "right");
  const uint64_t sorted = a.address(1, "sorted"), values = a.address(2, "values"), out = a.address(3, "out");
  if (seqLen > INT32_MAX) a.reject(5, "seqLen", "must fit int32 (the positions are int32)");
  if (batch * numValues == 0) return;
  const unsigned g = wm::gridFor(batch * numValues);
  switch (dt) {
    case wm::DType::F32:
      wm::searchSortedKernel<float><<<g, wm::kThreads, 0, wm::stream()>>>(wm::as<float>(sorted), wm::as<float>(values), wm::as<int>(out),
                                                                          batch, seqLen, numValues, right);
      break;
    case wm::DType::I32:
      wm::searchSortedKernel<int><<<g, wm::kThreads, 0, wm::stream()>>>(wm::as<int>(sorted), wm::as<int>(values), wm::as<int>(out), batch,
                                                                        seqLen, numValues, right);
      break;
    default:
      a.reject(0, "dtype", "must be float32 or int32");
  }
  WM_CUDA_LAUNCHED();
}
