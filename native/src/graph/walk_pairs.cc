// Skip-gram pairs of walks on the CPU: wm/random_walk.h's walkPair order.
#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "wm/random_walk.h"

namespace wm {
namespace host {

void walkPairs(const int32_t* walks, int64_t n, int length, int window, int32_t* center, int32_t* context) {
  parallelFor(walkPairCount(n, length, window), 1 << 15, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) walkPair(walks, n, length, window, p, center + p, context + p);
  });
}

}  // namespace host
}  // namespace wm

// walkPairs(walks, n, length, window, center, context)
WM_OP(walkPairs, Host, a) {
  const int64_t n = a.count(1, "n"), length = a.count(2, "length"), window = a.count(3, "window");
  const int64_t total = wm::walkPairCount(n, static_cast<int>(length), static_cast<int>(window));
  wm::host::walkPairs(a.ints(0, "walks", n * length), n, static_cast<int>(length), static_cast<int>(window), a.ints(4, "center", total),
                      a.ints(5, "context", total));
}
