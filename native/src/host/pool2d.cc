// tf.maxPool / tf.avgPool, the maxima's window positions, and both pools'
// gradients on the CPU core, over the per-element definitions the CUDA
// kernels use (wm/window2d.h).
#include "parallel.h"
#include "wm/host_ops.h"
#include "wm/window2d.h"

namespace wm {
namespace host {

void pool2d(PoolOp op, const float* x, void* y, const Window2D& g) {
  parallelFor(g.batch * g.outH, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / g.outH, oy = r % g.outH;
      for (int64_t ox = 0; ox < g.outW; ++ox) {
        const int64_t at = (r * g.outW + ox) * g.chans;
        for (int64_t c = 0; c < g.chans; ++c) {
          int argmax;
          const float v = window::poolAt<int64_t>(op, x, g, n, oy, ox, c, argmax);
          if (op == PoolOp::ArgMax) {
            static_cast<int*>(y)[at + c] = argmax;
          } else {
            static_cast<float*>(y)[at + c] = v;
          }
        }
      }
    }
  });
}

void pool2dGrad(PoolOp op, const float* dy, const int* argmax, float* dx, const Window2D& g) {
  WM_REQUIRE(op != PoolOp::ArgMax, "pool2dGrad: op must be Max or Avg");
  WM_REQUIRE(op != PoolOp::Max || argmax != nullptr, "pool2dGrad: Max needs the argmax positions");
  parallelFor(g.batch * g.inH, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / g.inH, y = r % g.inH;
      for (int64_t x = 0; x < g.inW; ++x) {
        float* out = dx + (r * g.inW + x) * g.chans;
        for (int64_t c = 0; c < g.chans; ++c) out[c] = window::poolGradAt<int64_t>(op, dy, argmax, g, n, y, x, c);
      }
    }
  });
}

}  // namespace host
}  // namespace wm
