// Shape simplification shared by the CUDA and host elementwise kernels:
// drops dims of size 1 and merges neighbouring dims that are contiguous in
// every operand, so the common cases (same shape, scalar operand, bias row)
// run with rank 1 or 2 and little index arithmetic.
#pragma once
#include <cstdint>
#include <vector>

namespace wm {

inline void collapseDims(std::vector<int64_t>& shape, std::vector<std::vector<int64_t>*> strides) {
  std::vector<int64_t> s;
  std::vector<std::vector<int64_t>> st(strides.size());
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1) continue;
    bool merge = !s.empty();
    for (size_t j = 0; merge && j < strides.size(); ++j) merge = st[j].back() == (*strides[j])[k] * shape[k];
    if (merge) {
      s.back() *= shape[k];
      for (size_t j = 0; j < strides.size(); ++j) st[j].back() = (*strides[j])[k];
    } else {
      s.push_back(shape[k]);
      for (size_t j = 0; j < strides.size(); ++j) st[j].push_back((*strides[j])[k]);
    }
  }
  if (s.empty()) {
    s.push_back(1);
    for (auto& v : st) v.push_back(0);
  }
  shape = s;
  for (size_t j = 0; j < strides.size(); ++j) *strides[j] = st[j];
}

// The strided copy's form of it: an axis whose source wraps at every element
// (srcMod 1: Tile of a size-1 axis, a broadcast) reads one place (stride 0);
// when no axis wraps any more, the axes are collapsed like an elementwise
// op's and srcMod becomes the shape. Returns whether some axis still wraps.
inline bool collapseCopy(std::vector<int64_t>& shape, std::vector<int64_t>& srcStrides, std::vector<int64_t>& srcMod,
                         std::vector<int64_t>& dstStrides) {
  bool wraps = false;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (srcMod[k] == 1) {
      srcStrides[k] = 0;
      srcMod[k] = shape[k];
    }
    wraps = wraps || srcMod[k] < shape[k];
  }
  if (wraps) return true;
  collapseDims(shape, {&srcStrides, &dstStrides});
  srcMod = shape;
  return false;
}

}  // namespace wm
