// The row strides the GAT ops take after their other arguments (featStride, srcStride, dstStride; each missing
// one packed), each checked to hold a row, and how many floats a strided matrix spans.
#pragma once

#include <string>

#include "wm/graph_ops.h"
#include "wm/op_registry.h"

namespace wm {

inline GatStrides gatStrides(const OpArgs& a, size_t first, int64_t heads, int64_t dim) {
  const char* names[3] = {"featStride", "srcStride", "dstStride"};
  const int64_t packed[3] = {heads * dim, heads, heads};
  int64_t s[3];
  for (size_t k = 0; k < 3; ++k) {
    s[k] = a.present(first + k) ? a.count(first + k, names[k]) : packed[k];
    if (s[k] < packed[k]) a.reject(first + k, names[k], "must be at least a row's " + std::to_string(packed[k]) + " floats");
  }
  return {s[0], s[1], s[2]};
}

// The floats `rows` rows of `width`, each `stride` after the previous, span.
inline int64_t stridedSpan(int64_t rows, int64_t stride, int64_t width) { return rows == 0 ? 0 : (rows - 1) * stride + width; }

}  // namespace wm
