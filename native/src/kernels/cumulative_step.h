// One column of a running sum or product, shared by the CUDA kernel and the
// host loop so both give tfjs-backend-cpu's bits: element by element in
// order, each partial result stored in the element type (int32 wraps).
#pragma once
#include <cstdint>
#include <type_traits>

#include "wm/embedding_math.h"

namespace wm {

template <typename T>
WM_EHD T cumulativeOp(bool product, T a, T b) {
  if constexpr (std::is_integral_v<T>) {  // int32: wraps, without signed overflow
    const uint32_t ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
    return static_cast<T>(product ? ua * ub : ua + ub);
  } else {
    return product ? a * b : a + b;
  }
}

// Column (o, i) of an [outer, n, inner] view.
template <typename T>
WM_EHD void cumulativeColumn(bool product, const T* x, T* y, int64_t n, int64_t inner, int64_t base, bool exclusive, bool reverse) {
  T acc = product ? T(1) : T(0);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t at = base + (reverse ? n - 1 - k : k) * inner;
    if (exclusive) {
      y[at] = acc;
      acc = cumulativeOp(product, acc, x[at]);
    } else {
      acc = cumulativeOp(product, acc, x[at]);
      y[at] = acc;
    }
  }
}

}  // namespace wm
