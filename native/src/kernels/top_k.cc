// The host TopK (wm::host::topK): per row a partial sort of positions by
// (value descending, position ascending) — tfjs' order; NaN sorts first,
// as on the GPU. Rows split over the pool's threads.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "kernels/host_ops.h"
#include "wm/status.h"

namespace wm {
namespace host {

namespace {
template <typename T>
bool before(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && !std::isnan(b);
  }
  return a > b;
}

template <typename T>
void rowsTopK(const T* x, T* values, int32_t* indices, int64_t rows, int64_t n, int64_t k) {
  parallelFor(rows, std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(n, 1)), [&](int64_t begin, int64_t end) {
    std::vector<int32_t> pos(static_cast<size_t>(n));
    for (int64_t r = begin; r < end; ++r) {
      const T* row = x + r * n;
      std::iota(pos.begin(), pos.end(), 0);
      std::partial_sort(pos.begin(), pos.begin() + k, pos.end(),
                        [&](int32_t a, int32_t b) { return before(row[a], row[b]) || (!before(row[b], row[a]) && a < b); });
      for (int64_t j = 0; j < k; ++j) {
        indices[r * k + j] = pos[j];
        values[r * k + j] = row[pos[j]];
      }
    }
  });
}
}  // namespace

void topK(DType dt, const void* x, void* values, int32_t* indices, int64_t rows, int64_t n, int64_t k) {
  if (k < 0 || k > n) fail("topK: k must be in [0, n]");
  if (rows * k == 0) return;
  switch (dt) {
    case DType::F32:
      rowsTopK(static_cast<const float*>(x), static_cast<float*>(values), indices, rows, n, k);
      break;
    case DType::I32:
      rowsTopK(static_cast<const int32_t*>(x), static_cast<int32_t*>(values), indices, rows, n, k);
      break;
    default:
      fail("topK: float32 or int32 only");
  }
}

}  // namespace host
}  // namespace wm

WM_OP(topK, Host, a) {
  const wm::DType dt = a.dtype(0, "dtype");
  const int64_t rows = a.count(4, "rows"), n = a.count(5, "n"), k = a.count(6, "k");
  wm::host::topK(dt, a.tensor(1, "x", dt, rows * n), a.tensor(2, "values", dt, rows * k), a.ints(3, "indices", rows * k), rows, n, k);
}
