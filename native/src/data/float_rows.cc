// Rows of a feature file as float32, checked: float16 and float64 converted,
// float32 checked in place. A table the size of papers100M's features (14
// billion values) passes through here a window at a time, so the loop runs on
// every core instead of in JavaScript.
#include <cmath>
#include <cstdint>

#include "runtime/parallel.h"
#include "wm/embedding_math.h"
#include "wm/op_registry.h"

namespace wm {
namespace host {
namespace {

// Converts in[0, n) into out (when given); the first position that is not finite, or n.
template <typename T>
int64_t convert(const T* in, float* out, int64_t n) {
  return parallelFirst(n, 1 << 16, [&](int64_t i) {
    const float v = static_cast<float>(toFloat(in[i]));
    if (out) out[i] = v;
    return !std::isfinite(v);
  });
}

}  // namespace

int64_t floatRows(const void* in, int stored, int64_t n, float* out) {
  const int64_t first = stored == 0   ? convert(static_cast<const float*>(in), out == in ? nullptr : out, n)
                        : stored == 1 ? convert(static_cast<const Half16*>(in), out, n)
                                      : convert(static_cast<const double*>(in), out, n);
  return first == n ? -1 : first;
}

}  // namespace host
}  // namespace wm

// floatRows(values, stored, n, out) -> the first position holding a value that is not finite, or -1.
// stored: 0 float32 (Float32Array; out may be null or values itself: checked only), 1 float16 (its bits, a
// Uint16Array), 2 float64; out: a Float32Array of n.
WM_OP(floatRows, Host, a) {
  const int stored = static_cast<int>(a.count(1, "stored"));
  if (stored > 2) a.reject(1, "stored", "must be 0 (float32), 1 (float16) or 2 (float64)");
  const int64_t n = a.count(2, "n");
  const int width = stored == 0 ? 4 : stored == 1 ? 2 : 8;
  const void* in = a.bytes(0, "values", n, width);
  float* out = stored == 0 ? a.floatsOrNull(3, "out", n) : a.floats(3, "out", n);
  a.returns(static_cast<double>(wm::host::floatRows(in, stored, n, out)));
}
