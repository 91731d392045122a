// UnsortedSegmentSum by atomics into a zero-filled output.
#include "launch.cuh"

namespace wm {
namespace {
template <typename T>
__global__ void segmentSumKernel(const T* x, const int* seg, T* y, int64_t rows, int64_t inner,
                                 int64_t numSegments) {
  WM_GRID_STRIDE(e, rows * inner) {
    int64_t r = e / inner, j = e - r * inner;
    int64_t s = seg[r];
    if (s >= 0 && s < numSegments) atomicAdd(&y[s * inner + j], x[e]);
  }
}
}  // namespace

void unsortedSegmentSum(DType t, uint64_t x, uint64_t segmentIds, uint64_t y, int64_t numRows,
                        int64_t inner, int64_t numSegments) {
  if (numRows * inner == 0) return;
  auto s = stream();
  unsigned g = gridFor(numRows * inner);
  switch (t) {
    case DType::F32: segmentSumKernel<float><<<g, kThreads, 0, s>>>(as<float>(x), as<int>(segmentIds), as<float>(y), numRows, inner, numSegments); break;
    case DType::I32: segmentSumKernel<int><<<g, kThreads, 0, s>>>(as<int>(x), as<int>(segmentIds), as<int>(y), numRows, inner, numSegments); break;
    default: fail("unsortedSegmentSum: dtype must be float32 or int32");
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm
