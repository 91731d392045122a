// Host strided copy (Transpose, Slice, Concat, Pack, Unpack, Tile) and row
// gather.
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "kernels/host_ops.h"
#include "kernels/shape_collapse.h"
#include "wm/status.h"

namespace wm {
namespace host {
namespace {

template <typename T>
void copyLoop(const T* src, int64_t srcOffset, const std::vector<int64_t>& ss, const std::vector<int64_t>& sm, T* dst, int64_t dstOffset,
              const std::vector<int64_t>& ds, const std::vector<int64_t>& shape) {
  int rank = static_cast<int>(shape.size());
  int64_t inner = shape[rank - 1];
  int64_t rows = 1;
  for (int k = 0; k < rank - 1; ++k) rows *= shape[k];
  int64_t sInner = ss[rank - 1], dInner = ds[rank - 1], mInner = sm[rank - 1];
  if (rows < 8 && inner >= (1 << 17) && mInner >= inner) {
    // Few long rows (a broadcast filling a whole tensor is one row of
    // stride 0): split each row over the threads.
    for (int64_t r = 0; r < rows; ++r) {
      int64_t rest = r, so = srcOffset, d = dstOffset;
      for (int k = rank - 2; k >= 0; --k) {
        int64_t idx = rest % shape[k];
        rest /= shape[k];
        so += (idx % sm[k]) * ss[k];
        d += idx * ds[k];
      }
      parallelFor(inner, 1 << 15, [&](int64_t b, int64_t e) {
        if (sInner == 1 && dInner == 1) {
          std::memcpy(dst + d + b, src + so + b, (e - b) * sizeof(T));
        } else {
          for (int64_t i = b; i < e; ++i) dst[d + i * dInner] = src[so + i * sInner];
        }
      });
    }
    return;
  }
  parallelFor(rows, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(inner, 1)), [&](int64_t rb, int64_t re) {
    // The outer index is found by division once per range, then counted
    // up like an odometer: window copies (convolutions) have rows of a few
    // elements, where a division per axis per row cost more than the copy.
    std::vector<int64_t> idx(rank > 1 ? rank - 1 : 1, 0);
    int64_t rest = rb, so = srcOffset, d = dstOffset;
    for (int k = rank - 2; k >= 0; --k) {
      idx[k] = rest % shape[k];
      rest /= shape[k];
      so += (idx[k] % sm[k]) * ss[k];
      d += idx[k] * ds[k];
    }
    for (int64_t r = rb; r < re; ++r) {
      if (sInner == 1 && dInner == 1 && mInner >= inner) {
        std::memcpy(dst + d, src + so, inner * sizeof(T));
      } else if (mInner >= inner) {
        for (int64_t i = 0; i < inner; ++i) dst[d + i * dInner] = src[so + i * sInner];
      } else {
        for (int64_t i = 0; i < inner; ++i) dst[d + i * dInner] = src[so + (i % mInner) * sInner];
      }
      for (int k = rank - 2; k >= 0; --k) {
        int64_t before = idx[k] % sm[k];
        d += ds[k];
        if (++idx[k] < shape[k]) {
          so += ((idx[k] % sm[k]) - before) * ss[k];
          break;
        }
        so -= before * ss[k];
        d -= shape[k] * ds[k];
        idx[k] = 0;
      }
    }
  });
}

}  // namespace

void stridedCopy(int elemSize, const void* src, int64_t srcOffset, const std::vector<int64_t>& srcStrides,
                 const std::vector<int64_t>& srcMod, void* dst, int64_t dstOffset, const std::vector<int64_t>& dstStrides,
                 const std::vector<int64_t>& shape) {
  WM_REQUIRE(srcStrides.size() == shape.size() && dstStrides.size() == shape.size() && srcMod.size() == shape.size(),
             "stridedCopy: strides, mod and shape must have the same rank");
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (n == 0) return;
  for (int64_t m : srcMod) WM_REQUIRE(m > 0, "stridedCopy: srcMod entries must be positive");
  std::vector<int64_t> sh = shape, ss = srcStrides, sm = srcMod, ds = dstStrides;
  if (sh.empty()) sh = ss = sm = ds = {1};
  if (sh.size() == 1 && ss.empty()) ss = sm = ds = {1};
  collapseCopy(sh, ss, sm, ds);  // longer rows for the loop below
  switch (elemSize) {
    case 1:
      copyLoop(static_cast<const uint8_t*>(src), srcOffset, ss, sm, static_cast<uint8_t*>(dst), dstOffset, ds, sh);
      break;
    case 4:
      copyLoop(static_cast<const uint32_t*>(src), srcOffset, ss, sm, static_cast<uint32_t*>(dst), dstOffset, ds, sh);
      break;
    case 8:
      copyLoop(static_cast<const uint64_t*>(src), srcOffset, ss, sm, static_cast<uint64_t*>(dst), dstOffset, ds, sh);
      break;
    default:
      fail("stridedCopy: element size " + std::to_string(elemSize) + " is not 1, 4 or 8");
  }
}

namespace {
template <typename T>
void segmentSumOf(const T* x, const int32_t* ids, T* y, int64_t rows, int64_t inner, int64_t numSegments) {
  // Each thread owns a range of segments and scans every id: no two threads
  // add into one row, and a segment's rows arrive in row order whatever the
  // thread count (the gradient of tf.gather, an embedding step's scatter).
  const int64_t work = rows * inner;
  parallelFor(numSegments, work < (1 << 16) ? numSegments : 1, [&](int64_t s0, int64_t s1) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t s = ids[r];
      if (s < s0 || s >= s1) continue;
      T* out = y + s * inner;
      const T* in = x + r * inner;
      for (int64_t j = 0; j < inner; ++j) out[j] += in[j];
    }
  });
}
}  // namespace

void segmentSum(DType dt, const void* x, const int32_t* ids, void* y, int64_t rows, int64_t inner, int64_t numSegments) {
  if (rows * inner == 0 || numSegments == 0) return;
  switch (dt) {
    case DType::F32:
      segmentSumOf(static_cast<const float*>(x), ids, static_cast<float*>(y), rows, inner, numSegments);
      break;
    case DType::I32:
      segmentSumOf(static_cast<const int*>(x), ids, static_cast<int*>(y), rows, inner, numSegments);
      break;
    default:
      fail("segmentSum: dtype must be float32 or int32");
  }
}

int64_t gather(int elemSize, const void* x, const int32_t* indices, void* y, int64_t outer, int64_t axisDim, int64_t inner,
               int64_t numIndices, int64_t outerPerBatch) {
  WM_REQUIRE(outerPerBatch > 0, "gather: outerPerBatch must be positive");
  // Validate first: nothing is written when an index is bad.
  int64_t batches = outer / outerPerBatch;
  for (int64_t p = 0; p < batches * numIndices; ++p) {
    if (indices[p] < 0 || indices[p] >= axisDim) return p;
  }
  int64_t rowBytes = inner * elemSize;
  auto xs = static_cast<const uint8_t*>(x);
  auto ys = static_cast<uint8_t*>(y);
  parallelFor(outer * numIndices, std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(rowBytes, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      int64_t o = r / numIndices, i = r % numIndices;
      int64_t k = indices[(o / outerPerBatch) * numIndices + i];
      std::memcpy(ys + r * rowBytes, xs + (o * axisDim + k) * rowBytes, rowBytes);
    }
  });
  return -1;
}

}  // namespace host
}  // namespace wm

namespace {
// The lowest and one past the highest element a strided view over `dims` reaches from `offset`.
std::pair<int64_t, int64_t> reach(int64_t offset, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides) {
  int64_t lo = offset, hi = offset;
  for (size_t k = 0; k < dims.size(); ++k) {
    const int64_t span = (dims[k] - 1) * (k < strides.size() ? strides[k] : 0);
    (span < 0 ? lo : hi) += span;
  }
  return {lo, hi + 1};
}
}  // namespace

WM_OP(stridedCopy, Host, a) {
  const int elemSize = static_cast<int>(a.count(0, "elemSize"));
  if (elemSize != 1 && elemSize != 4) a.reject(0, "elemSize", "must be 1 or 4");
  const auto srcStrides = a.dims(3, "srcStrides"), srcMod = a.dims(4, "srcMod"), dstStrides = a.dims(7, "dstStrides"),
             shape = a.dims(8, "shape");
  const int64_t srcOffset = a.count(2, "srcOffset"), dstOffset = a.count(6, "dstOffset");
  if (srcStrides.size() != shape.size() || srcMod.size() != shape.size() || dstStrides.size() != shape.size())
    a.reject(8, "shape", "must have as many entries as the strides");
  int64_t count = 1;
  std::vector<int64_t> srcDims(shape.size());
  for (size_t k = 0; k < shape.size(); ++k) {
    count *= shape[k];
    srcDims[k] = std::min(shape[k], srcMod[k]);
  }
  void* src = a.bytes(1, "src", 0, elemSize);
  void* dst = a.bytes(5, "dst", 0, elemSize);
  if (count > 0) {
    const auto s = reach(srcOffset, srcDims, srcStrides), d = reach(dstOffset, shape, dstStrides);
    if (s.first < 0 || s.second > a.length(1, "src")) a.reject(1, "src", "is shorter than the view's offset and strides reach");
    if (d.first < 0 || d.second > a.length(5, "dst")) a.reject(5, "dst", "is shorter than the view's offset and strides reach");
  }
  wm::host::stridedCopy(elemSize, src, srcOffset, srcStrides, srcMod, dst, dstOffset, dstStrides, shape);
}

// gather(dtype, x, indices, y, outer, axisDim, inner, numIndices, outerPerBatch, errorFlag) -> the first bad position, or -1
// (nothing written then); errorFlag is the device's and unused here.
WM_OP(gather, Host, a) {
  const wm::DType dt = a.dtype(0, "dtype");
  const int64_t outer = a.count(4, "outer"), axisDim = a.count(5, "axisDim"), inner = a.count(6, "inner"),
                numIndices = a.count(7, "numIndices"), perBatch = a.count(8, "outerPerBatch");
  const int64_t batches = perBatch == 0 ? 0 : (outer + perBatch - 1) / perBatch;
  a.returns(static_cast<double>(wm::host::gather(
      static_cast<int>(wm::dtypeSize(dt)), a.tensor(1, "x", dt, outer * axisDim * inner), a.ints(2, "indices", batches * numIndices),
      a.tensor(3, "y", dt, outer * numIndices * inner), outer, axisDim, inner, numIndices, perBatch)));
}

// segmentSum(dtype, x, ids, y, rows, inner, numSegments): y zero-filled by the caller.
WM_OP(segmentSum, Host, a) {
  const wm::DType dt = a.dtype(0, "dtype");
  const int64_t rows = a.count(4, "rows"), inner = a.count(5, "inner"), numSegments = a.count(6, "numSegments");
  wm::host::segmentSum(dt, a.tensor(1, "x", dt, rows * inner), a.ints(2, "ids", rows), a.tensor(3, "y", dt, numSegments * inner), rows,
                       inner, numSegments);
}
