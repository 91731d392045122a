// tf.maxPool / tf.avgPool, the maxima's window positions, and both pools'
// gradients on the CPU core, over the per-element definitions the CUDA
// kernels use (wm/window2d.h).
#include "parallel.h"
#include "wm/host_ops.h"
#include "wm/window2d.h"

namespace wm {
namespace host {

namespace {

// I: int where every tensor is below 2^31 elements (the per-element loops divide in 32 bits).
template <typename I>
void poolRows(PoolOp op, const float* x, void* y, const Window2DOf<I>& g) {
  parallelFor(static_cast<int64_t>(g.batch) * g.outH, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const I n = static_cast<I>(r / g.outH), oy = static_cast<I>(r % g.outH);
      for (I ox = 0; ox < g.outW; ++ox) {
        const int64_t at = (r * g.outW + ox) * g.chans;
        for (I c = 0; c < g.chans; ++c) {
          int argmax;
          const float v = window::poolAt<I>(op, x, g, n, oy, ox, c, argmax);
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

template <typename I>
void poolGradRows(PoolOp op, const float* dy, const int* argmax, float* dx, const Window2DOf<I>& g) {
  parallelFor(static_cast<int64_t>(g.batch) * g.inH, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const I n = static_cast<I>(r / g.inH), y = static_cast<I>(r % g.inH);
      for (I x = 0; x < g.inW; ++x) {
        float* out = dx + (r * g.inW + x) * g.chans;
        for (I c = 0; c < g.chans; ++c) out[c] = window::poolGradAt<I>(op, dy, argmax, g, n, y, x, c);
      }
    }
  });
}

}  // namespace

void pool2d(PoolOp op, const float* x, void* y, const Window2D& g) {
  if (windowNarrow(g)) {
    poolRows<int>(op, x, y, g.as<int>());
  } else {
    poolRows<int64_t>(op, x, y, g);
  }
}

void pool2dGrad(PoolOp op, const float* dy, const int* argmax, float* dx, const Window2D& g) {
  WM_REQUIRE(op != PoolOp::ArgMax, "pool2dGrad: op must be Max or Avg");
  WM_REQUIRE(op != PoolOp::Max || argmax != nullptr, "pool2dGrad: Max needs the argmax positions");
  if (windowNarrow(g)) {
    poolGradRows<int>(op, dy, argmax, dx, g.as<int>());
  } else {
    poolGradRows<int64_t>(op, dy, argmax, dx, g);
  }
}

}  // namespace host
}  // namespace wm
