// What the CPU core's window kernels share: the choice of index width, and
// the input-gradient loop — every input pixel (rows split over the threads),
// its channels zeroed, then each output pixel that read it in
// window::forEachReader's order, so every element sums its terms in the
// order the CUDA kernels' per-element definitions do.
#pragma once
#include <algorithm>
#include <cstdint>

#include "runtime/parallel.h"
#include "wm/window2d.h"

namespace wm {
namespace host {

// f(geometry) with int indices when `narrow` (every tensor below 2^31 elements), else int64_t.
template <typename F>
void withIndexWidth(bool narrow, const Window2D& g, F&& f) {
  if (narrow) {
    f(g.as<int>());
  } else {
    f(g);
  }
}

// visit(out, n, i, j, oy, ox): out is input pixel (n, y, x)'s channels in dx;
// then finish(out) once the pixel's readers are all added.
template <typename I, typename F, typename G>
void gatherPerInputPixel(const Window2DOf<I>& g, float* dx, F&& visit, G&& finish) {
  parallelFor(static_cast<int64_t>(g.batch) * g.inH, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const I n = static_cast<I>(r / g.inH), y = static_cast<I>(r % g.inH);
      for (I x = 0; x < g.inW; ++x) {
        float* out = dx + (r * g.inW + x) * g.chans;
        std::fill(out, out + g.chans, 0.f);
        window::forEachReader(g, y, x, [&](I i, I j, I oy, I ox) { visit(out, n, i, j, oy, ox); });
        finish(out);
      }
    }
  });
}

}  // namespace host
}  // namespace wm
