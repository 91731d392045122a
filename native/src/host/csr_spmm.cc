#include <cstring>

#include "parallel.h"
#include "wm/graph_ops.h"

namespace wm {
namespace host {

void csrSpmm(const int32_t* rowPtr, const int32_t* colIdx, const float* weight, const float* rowScale, int64_t numRows,
             const float* x, int64_t dim, float* out) {
  parallelFor(numRows, 256, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      float* o = out + r * dim;
      std::memset(o, 0, static_cast<size_t>(dim) * sizeof(float));
      for (int64_t e = rowPtr[r]; e < rowPtr[r + 1]; ++e) {
        const float w = weight ? weight[e] : 1.f;
        const float* xr = x + static_cast<int64_t>(colIdx[e]) * dim;
        for (int64_t j = 0; j < dim; ++j) o[j] += w * xr[j];
      }
      if (rowScale)
        for (int64_t j = 0; j < dim; ++j) o[j] *= rowScale[r];
    }
  });
}

}  // namespace host
}  // namespace wm
