// Dropout on the host: the CUDA kernel's loop (native/src/kernels/dropout.cu),
// split at 2^32-element blocks so the inner loop (one key) vectorises.
#include <algorithm>
#include <cstring>

#include "runtime/huge_pages.h"
#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "kernels/dropout_mask.h"
#include "kernels/host_ops.h"

namespace wm {
namespace host {

void dropout(const float* x, float* y, int64_t n, uint32_t threshold, float scale, uint64_t seed) {
  constexpr int64_t kBlock = int64_t{1} << 32;
  preferHugePages(y, static_cast<size_t>(n) * sizeof(float));  // a fresh output: fewer page faults
  parallelFor(n, 1 << 14, [=](int64_t b, int64_t e) {
    for (int64_t lo = b; lo < e;) {
      const int64_t hi = std::min(e, (lo / kBlock + 1) * kBlock);
      const uint32_t key = dropoutKey(seed, static_cast<uint32_t>(lo / kBlock));
      const uint32_t base = static_cast<uint32_t>(lo);  // lo mod 2^32
      const float* xs = x + lo;
      float* ys = y + lo;
      // The dropped values are masked to 0 bit by bit: with a branch (or a
      // select GCC 12 sees as one) the loop did not vectorise, 3 ns per
      // element on the CPU box.
      for (int64_t j = 0, m = hi - lo; j < m; ++j) {
        const float v = xs[j] * scale;
        uint32_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        bits &= 0u - static_cast<uint32_t>(dropoutKeeps(key, base + static_cast<uint32_t>(j), threshold));
        std::memcpy(ys + j, &bits, sizeof bits);
      }
      lo = hi;
    }
  });
}

}  // namespace host
}  // namespace wm

// dropout(x, y, n, threshold, scale, seedHigh, seedLow)
WM_OP(dropout, Host, a) {
  const int64_t n = a.count(2, "n");
  const uint64_t seed = (static_cast<uint64_t>(a.count(5, "seedHigh")) << 32) | static_cast<uint32_t>(a.count(6, "seedLow"));
  wm::host::dropout(a.floats(0, "x", n), a.floats(1, "y", n), n, static_cast<uint32_t>(a.count(3, "threshold")),
                    static_cast<float>(a.number(4, "scale")), seed);
}
