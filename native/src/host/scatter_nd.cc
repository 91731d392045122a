// ScatterNd on the CPU core: out (zero-filled by the caller) gets every
// update added at the row its index names, in update order, so duplicate
// indices sum the same way every run. Threads split the slice's columns,
// each walking all updates. The caller has checked every index.
#include <cstdint>
#include <vector>

#include "parallel.h"
#include "wm/host_ops.h"

namespace wm {
namespace host {
namespace {

template <typename T>
void scatter(const int32_t* idx, const T* updates, T* y, int64_t numUpdates, int64_t depth, int64_t sliceSize,
             const std::vector<int64_t>& dims) {
  std::vector<int64_t> row(static_cast<size_t>(numUpdates));
  for (int64_t u = 0; u < numUpdates; ++u) {
    int64_t r = 0;
    for (int64_t k = 0; k < depth; ++k) r = r * dims[k] + idx[u * depth + k];
    row[u] = r;
  }
  parallelFor(sliceSize, 1024, [&](int64_t c0, int64_t c1) {
    for (int64_t u = 0; u < numUpdates; ++u) {
      const T* src = updates + u * sliceSize;
      T* dst = y + row[u] * sliceSize;
      for (int64_t c = c0; c < c1; ++c) dst[c] += src[c];
    }
  });
}

}  // namespace

void scatterNd(DType t, const int32_t* indices, const void* updates, void* y, int64_t numUpdates, int64_t indexDepth,
               int64_t sliceSize, const std::vector<int64_t>& dims) {
  switch (t) {
    case DType::F32:
      scatter(indices, static_cast<const float*>(updates), static_cast<float*>(y), numUpdates, indexDepth, sliceSize, dims);
      break;
    case DType::I32:
      scatter(indices, static_cast<const int32_t*>(updates), static_cast<int32_t*>(y), numUpdates, indexDepth, sliceSize, dims);
      break;
    case DType::Bool:
      throw std::invalid_argument("scatterNd: bool updates are not summed natively");
  }
}

}  // namespace host
}  // namespace wm
