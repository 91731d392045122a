// The one data-movement kernel behind Transpose, Slice, StridedSlice, Concat,
// Pack, Unpack, Tile, Reverse and BroadcastTo (see ops.h).
#include "kernels/strided_index.cuh"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"
#include "kernels/shape_collapse.h"

namespace wm {
namespace {

// An element's index is split per axis by division, in 32 bits for copies
// of fewer than 2^32 elements (convolution window copies have up to seven
// axes), and the source modulo (Tile) is only taken where some axis wraps.
// The axis loop is unrolled (see stridedOffset in strided_index.cuh).
template <typename T, typename I, bool MOD>
__global__ void stridedCopyKernel(const T* src, int64_t srcOffset, Dims srcStrides, Dims srcMod, T* dst, int64_t dstOffset, Dims dstStrides,
                                  Dims shape, int64_t n) {
  WM_GRID_STRIDE(i, n) {
    I rest = static_cast<I>(i);
    int64_t so = srcOffset, d = dstOffset;
#pragma unroll
    for (int k = kMaxRank - 1; k >= 0; --k) {
      if (k < shape.rank) {
        I dim = static_cast<I>(shape.v[k]);
        I q = rest / dim;
        I idx = rest - q * dim;
        rest = q;
        d += static_cast<int64_t>(idx) * dstStrides.v[k];
        if constexpr (MOD) {
          so += static_cast<int64_t>(idx % static_cast<I>(srcMod.v[k])) * srcStrides.v[k];
        } else {
          so += static_cast<int64_t>(idx) * srcStrides.v[k];
        }
      }
    }
    dst[d] = src[so];
  }
}

template <typename T>
void launchCopy(uint64_t src, int64_t srcOffset, const Dims& ss, const Dims& sm, uint64_t dst, int64_t dstOffset, const Dims& ds,
                const Dims& sh, int64_t n, bool wraps) {
  auto s = stream();
  bool narrow = narrowIndex(n);
  auto go = [&](auto kernel) { kernel<<<gridFor(n), kThreads, 0, s>>>(as<T>(src), srcOffset, ss, sm, as<T>(dst), dstOffset, ds, sh, n); };
  if (narrow && !wraps)
    go(stridedCopyKernel<T, uint32_t, false>);
  else if (narrow)
    go(stridedCopyKernel<T, uint32_t, true>);
  else if (!wraps)
    go(stridedCopyKernel<T, int64_t, false>);
  else
    go(stridedCopyKernel<T, int64_t, true>);
}

}  // namespace

void stridedCopy(int elemSize, uint64_t src, int64_t srcOffset, const std::vector<int64_t>& srcStrides, const std::vector<int64_t>& srcMod,
                 uint64_t dst, int64_t dstOffset, const std::vector<int64_t>& dstStrides, const std::vector<int64_t>& shape) {
  int64_t n = product(shape);
  if (n == 0) return;
  WM_REQUIRE(srcStrides.size() == shape.size() && dstStrides.size() == shape.size() && srcMod.size() == shape.size(),
             "stridedCopy: strides, mod and shape must have the same rank");
  for (int64_t m : srcMod) WM_REQUIRE(m > 0, "stridedCopy: srcMod entries must be positive");
  // Fewer axes: fewer divisions per element.
  std::vector<int64_t> shp = shape, sst = srcStrides, smod = srcMod, dst_ = dstStrides;
  bool wraps = collapseCopy(shp, sst, smod, dst_);
  Dims ss = toDims(sst), sm = toDims(smod), ds = toDims(dst_), sh = toDims(shp);
  switch (elemSize) {
    case 1:
      launchCopy<uint8_t>(src, srcOffset, ss, sm, dst, dstOffset, ds, sh, n, wraps);
      break;
    case 4:
      launchCopy<uint32_t>(src, srcOffset, ss, sm, dst, dstOffset, ds, sh, n, wraps);
      break;
    case 8:
      launchCopy<uint64_t>(src, srcOffset, ss, sm, dst, dstOffset, ds, sh, n, wraps);
      break;
    default:
      fail("stridedCopy: element size " + std::to_string(elemSize) + " is not 1, 4 or 8");
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// stridedCopy(elemSize, src, srcOffset, srcStrides, srcMod, dst, dstOffset, dstStrides, shape)
WM_OP(stridedCopy, Device, a) {
  wm::stridedCopy(static_cast<int>(a.count(0, "elemSize")), a.address(1, "src"), a.count(2, "srcOffset"), a.dims(3, "srcStrides"),
                  a.dims(4, "srcMod"), a.address(5, "dst"), a.count(6, "dstOffset"), a.dims(7, "dstStrides"), a.dims(8, "shape"));
}
