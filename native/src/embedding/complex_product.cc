// The product of complex rows on the CPU, rows split over the thread pool.
#include "embedding/complex_product.h"

#include <algorithm>

#include "runtime/parallel.h"
#include "wm/op_registry.h"

namespace wm {
namespace host {

void complexProduct(int64_t rows, int64_t half, bool conjA, bool conjB, const float* a, const float* b, float* out) {
  const int64_t w = 2 * half;
  parallelFor(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(w, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float *ar = a + r * w, *br = b + r * w;
      float* o = out + r * w;
      for (int64_t c = 0; c < half; ++c) complexTimes(ar[c], ar[half + c], br[c], br[half + c], conjA, conjB, &o[c], &o[half + c]);
    }
  });
}

}  // namespace host
}  // namespace wm

// complexProduct(rows, half, conjA, conjB, a, b, out)
WM_OP(complexProduct, Host, a) {
  const int64_t rows = a.count(0, "rows"), half = a.count(1, "half");
  wm::host::complexProduct(rows, half, a.flag(2, "conjA"), a.flag(3, "conjB"), a.floats(4, "a", rows * 2 * half),
                           a.floats(5, "b", rows * 2 * half), a.floats(6, "out", rows * 2 * half));
}
