// What the 2-D window kernels share on the launch side.
#pragma once
#include <cstdint>

#include "wm/window2d.h"

namespace wm {

// Whether every tensor a window kernel touches (input, output, filter, and
// `other` elements more) has fewer than 2^31 elements, so it may index and
// divide in 32 bits.
inline bool windowNarrow(const Window2D& g, int64_t mult = 1, int64_t other = 0) {
  constexpr int64_t kLimit = int64_t{1} << 31;
  const int64_t in = g.batch * g.inH * g.inW * g.chans * mult;
  const int64_t out = g.batch * g.outH * g.outW * g.chans * mult;
  const int64_t filter = g.fH * g.fW * g.chans * mult;
  return in < kLimit && out < kLimit && filter < kLimit && other < kLimit;
}

}  // namespace wm
