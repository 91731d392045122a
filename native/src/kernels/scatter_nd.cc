// ScatterNd on the CPU core: out (zero-filled by the caller) gets every
// update added at the row its index names, in update order, so duplicate
// indices sum the same way every run. Threads split the slice's columns,
// each walking all updates. The caller has checked every index.
#include <cstdint>
#include <vector>

#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "kernels/host_ops.h"

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

void scatterNd(DType t, const int32_t* indices, const void* updates, void* y, int64_t numUpdates, int64_t indexDepth, int64_t sliceSize,
               const std::vector<int64_t>& dims) {
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

// scatterNd(dtype, indices, updates, y, numUpdates, indexDepth, sliceSize, dims, errorFlag): y zero-filled; every index is
// checked here (a bad one is an error, not a stray write); errorFlag is the device's and unused here.
WM_OP(scatterNd, Host, a) {
  const wm::DType dt = a.dtype(0, "dtype");
  const int64_t numUpdates = a.count(4, "numUpdates"), depth = a.count(5, "indexDepth"), sliceSize = a.count(6, "sliceSize");
  const auto dims = a.dims(7, "dims");
  if (static_cast<int64_t>(dims.size()) != depth) a.reject(7, "dims", "must hold indexDepth entries");
  int64_t rows = 1;
  for (int64_t d : dims) rows *= d;
  const int32_t* ip = a.ints(1, "indices", numUpdates * depth);
  const void* updates = a.tensor(2, "updates", dt, numUpdates * sliceSize);
  void* y = a.tensor(3, "y", dt, rows * sliceSize);
  for (int64_t e = 0; e < numUpdates * depth; ++e) {
    if (ip[e] < 0 || ip[e] >= dims[e % depth])
      a.reject(1, "indices",
               "index " + std::to_string(ip[e]) + " of update " + std::to_string(e / depth) + " is outside [0, " +
                   std::to_string(dims[e % depth]) + ")");
  }
  wm::host::scatterNd(dt, ip, updates, y, numUpdates, depth, sliceSize, dims);
}
