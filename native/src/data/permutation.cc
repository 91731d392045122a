// A seeded random permutation of 0 .. n-1 on the host: Fisher-Yates over the stream of
// src/util/random.ts (seededRng: mulberry32, and randInt), so it makes exactly what the JavaScript
// shuffle of 0 .. n-1 makes. At tens of millions of rows the shuffle waits on its random reads; the
// draws do not depend on the array, so the rows a few swaps ahead are fetched early.
#include <cmath>
#include <cstdint>
#include <string>

#include "wm/hash.h"
#include "wm/op_registry.h"

namespace wm {
namespace host {

void seededPermutation(int32_t* out, int64_t n, uint32_t seed) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(i);
  if (n < 2) return;
  Mulberry32 rng{seed};
  constexpr int kAhead = 16;  // a power of two
  int64_t ahead[kAhead];
  // Swap k (k = 0, 1, ...) exchanges out[n - 1 - k] with out[j_k], j_k = floor(u_k (n - k)).
  const int64_t swaps = n - 1;
  auto draw = [&](int64_t k) { return static_cast<int64_t>(std::floor(rng.next() * static_cast<double>(n - k))); };
  for (int64_t k = 0; k < kAhead && k < swaps; ++k) {
    ahead[k] = draw(k);
    __builtin_prefetch(out + ahead[k], 1);
  }
  for (int64_t k = 0; k < swaps; ++k) {
    const int64_t i = n - 1 - k, j = ahead[k % kAhead];
    if (k + kAhead < swaps) {
      const int64_t later = draw(k + kAhead);
      ahead[(k + kAhead) % kAhead] = later;
      __builtin_prefetch(out + later, 1);
    }
    const int32_t t = out[i];
    out[i] = out[j];
    out[j] = t;
  }
}

}  // namespace host
}  // namespace wm

// seededPermutation(n, seed, out): seed below 2^32.
WM_OP(seededPermutation, Host, a) {
  const int64_t n = a.count(0, "n"), seed = a.count(1, "seed");
  if (n > 2147483647) a.reject(0, "n", "must be below 2^31, got " + std::to_string(n));
  if (seed > 4294967295) a.reject(1, "seed", "must be below 2^32, got " + std::to_string(seed));
  wm::host::seededPermutation(a.ints(2, "out", n), n, static_cast<uint32_t>(seed));
}
