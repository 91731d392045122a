// copyRows (runtime/copy_rows.h).
#include "runtime/copy_rows.h"
#include "runtime/launch.cuh"

namespace wm {
namespace {

template <typename W>
__global__ void copyRowsKernel(const W* src, const int32_t* srcRow, W* dst, const int32_t* dstRow, int64_t n, int64_t words) {
  WM_GRID_STRIDE(t, n * words) {
    int64_t j = t / words, k = t - j * words;
    int64_t s = srcRow ? srcRow[j] : j, d = dstRow ? dstRow[j] : j;
    dst[d * words + k] = src[s * words + k];
  }
}

template <typename W>
void launch(uint64_t src, const int32_t* srcRow, uint64_t dst, const int32_t* dstRow, int64_t n, int64_t rowBytes) {
  const int64_t w = rowBytes / static_cast<int64_t>(sizeof(W));
  copyRowsKernel<<<gridFor(n * w), kThreads, 0, stream()>>>(as<const W>(src), srcRow, as<W>(dst), dstRow, n, w);
}

}  // namespace

void copyRows(uint64_t src, const int32_t* srcRow, uint64_t dst, const int32_t* dstRow, int64_t n, int64_t rowBytes) {
  if (n == 0 || rowBytes == 0) return;
  auto fits = [&](int64_t w) { return rowBytes % w == 0 && src % w == 0 && dst % w == 0; };
  if (fits(16))
    launch<uint4>(src, srcRow, dst, dstRow, n, rowBytes);
  else if (fits(4))
    launch<uint32_t>(src, srcRow, dst, dstRow, n, rowBytes);
  else
    launch<uint16_t>(src, srcRow, dst, dstRow, n, rowBytes);
  WM_CUDA_LAUNCHED();
}

}  // namespace wm
