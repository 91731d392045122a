// The host running sums and products (wm::host::cumulative): columns split
// over the pool's threads, each column element by element (tfjs-backend-cpu's order).
#include <algorithm>

#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "kernels/cumulative_step.h"
#include "kernels/host_ops.h"
#include "wm/status.h"

namespace wm {
namespace host {

namespace {
template <typename T>
void columns(bool product, const T* x, T* y, int64_t outer, int64_t n, int64_t inner, bool exclusive, bool reverse) {
  parallelFor(outer * inner, std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(n, 1)), [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const int64_t o = c / inner, i = c - o * inner;
      cumulativeColumn(product, x, y, n, inner, o * n * inner + i, exclusive, reverse);
    }
  });
}
}  // namespace

void cumulative(bool product, DType dt, const void* x, void* y, int64_t outer, int64_t n, int64_t inner, bool exclusive, bool reverse) {
  if (outer * n * inner == 0) return;
  switch (dt) {
    case DType::F32:
      columns(product, static_cast<const float*>(x), static_cast<float*>(y), outer, n, inner, exclusive, reverse);
      break;
    case DType::I32:
      columns(product, static_cast<const int32_t*>(x), static_cast<int32_t*>(y), outer, n, inner, exclusive, reverse);
      break;
    default:
      fail("cumulative: float32 or int32 only");
  }
}

}  // namespace host
}  // namespace wm

WM_OP(cumulative, Host, a) {
  const wm::DType dt = a.dtype(1, "dtype");
  const int64_t outer = a.count(4, "outer"), n = a.count(5, "n"), inner = a.count(6, "inner");
  wm::host::cumulative(a.flag(0, "product"), dt, a.tensor(2, "x", dt, outer * n * inner), a.tensor(3, "y", dt, outer * n * inner), outer, n,
                       inner, a.flag(7, "exclusive"), a.flag(8, "reverse"));
}
