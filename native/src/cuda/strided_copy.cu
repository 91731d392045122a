// The one data-movement kernel behind Transpose, Slice, StridedSlice, Concat,
// Pack, Unpack, Tile, Reverse and BroadcastTo (see ops.h).
#include "launch.cuh"

namespace wm {
namespace {

template <typename T>
__global__ void stridedCopyKernel(const T* src, int64_t srcOffset, Dims srcStrides,
                                  Dims srcMod, T* dst, int64_t dstOffset, Dims dstStrides,
                                  Dims shape, int64_t n) {
  WM_GRID_STRIDE(i, n) {
    int64_t rest = i, so = srcOffset, d = dstOffset;
    for (int k = shape.rank - 1; k >= 0; --k) {
      int64_t dim = shape.v[k];
      int64_t q = rest / dim;
      int64_t idx = rest - q * dim;
      rest = q;
      d += idx * dstStrides.v[k];
      so += (idx % srcMod.v[k]) * srcStrides.v[k];
    }
    dst[d] = src[so];
  }
}

}  // namespace

void stridedCopy(int elemSize, uint64_t src, int64_t srcOffset,
                 const std::vector<int64_t>& srcStrides, const std::vector<int64_t>& srcMod,
                 uint64_t dst, int64_t dstOffset, const std::vector<int64_t>& dstStrides,
                 const std::vector<int64_t>& shape) {
  int64_t n = product(shape);
  if (n == 0) return;
  WM_REQUIRE(srcStrides.size() == shape.size() && dstStrides.size() == shape.size() &&
                 srcMod.size() == shape.size(),
             "stridedCopy: strides, mod and shape must have the same rank");
  for (int64_t m : srcMod) WM_REQUIRE(m > 0, "stridedCopy: srcMod entries must be positive");
  auto s = stream();
  Dims ss = toDims(srcStrides), sm = toDims(srcMod), ds = toDims(dstStrides), sh = toDims(shape);
  switch (elemSize) {
    case 1:
      stridedCopyKernel<uint8_t><<<gridFor(n), kThreads, 0, s>>>(as<uint8_t>(src), srcOffset, ss, sm, as<uint8_t>(dst), dstOffset, ds, sh, n);
      break;
    case 4:
      stridedCopyKernel<uint32_t><<<gridFor(n), kThreads, 0, s>>>(as<uint32_t>(src), srcOffset, ss, sm, as<uint32_t>(dst), dstOffset, ds, sh, n);
      break;
    case 8:
      stridedCopyKernel<uint64_t><<<gridFor(n), kThreads, 0, s>>>(as<uint64_t>(src), srcOffset, ss, sm, as<uint64_t>(dst), dstOffset, ds, sh, n);
      break;
    default:
      fail("stridedCopy: element size " + std::to_string(elemSize) + " is not 1, 4 or 8");
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm
