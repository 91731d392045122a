// The strided multi-index that broadcasting, transposes, slices and scatters
// reduce to: a shape and its strides passed by value to a kernel.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/ops.h"
#include "runtime/check.h"

namespace wm {

// Up to kMaxRank dims passed by value to kernels.
struct Dims {
  int rank;
  int64_t v[kMaxRank];
};

inline Dims toDims(const std::vector<int64_t>& d) {
  WM_REQUIRE(d.size() <= static_cast<size_t>(kMaxRank),
             "rank " + std::to_string(d.size()) + " exceeds the native limit of " + std::to_string(kMaxRank));
  Dims out{};
  out.rank = static_cast<int>(d.size());
  for (size_t i = 0; i < d.size(); ++i) out.v[i] = d[i];
  return out;
}

inline int64_t product(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

// Offset of linear index i of `shape` under `strides` (row-major walk). The
// loop is unrolled over kMaxRank so the Dims (kernel parameters) are read at
// constant indices: indexed at run time, nvcc copies every parameter block
// into each thread's local memory first, which made a 7-axis copy of 2.4M
// elements take 158 µs on an H100. I is uint32_t where the caller knows the
// element count is below 2^32 (a 64-bit division costs several 32-bit ones).
template <typename I>
__device__ __forceinline__ int64_t stridedOffset(I i, const Dims& shape, const Dims& strides) {
  int64_t off = 0;
#pragma unroll
  for (int k = kMaxRank - 1; k >= 0; --k) {
    if (k < shape.rank) {
      I d = static_cast<I>(shape.v[k]);
      I q = i / d;
      off += static_cast<int64_t>(i - q * d) * strides.v[k];
      i = q;
    }
  }
  return off;
}

}  // namespace wm
