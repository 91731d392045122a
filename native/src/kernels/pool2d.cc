// tf.maxPool / tf.avgPool, the maxima's window positions, and both pools'
// gradients on the CPU core, over the window geometry the CUDA kernels use
// (wm/window2d.h), each element's terms in the same order.
#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/parallel.h"
#include "kernels/window_rows.h"
#include "kernels/window2d_args.h"
#include "kernels/host_ops.h"
#include "wm/window2d.h"

namespace wm {
namespace host {

namespace {

// Per output pixel the window is walked once with the channels innermost
// (vectorised), each element's maximum or sum taken in window order as
// window::poolAt takes it, so the CUDA kernel and this agree exactly.
// I: int where every tensor is below 2^31 elements.
template <typename I>
void poolRows(PoolOp op, const float* x, void* y, const Window2DOf<I>& g) {
  parallelFor(static_cast<int64_t>(g.batch) * g.outH, 1, [&](int64_t r0, int64_t r1) {
    std::vector<float> best(static_cast<size_t>(g.chans)), sum(static_cast<size_t>(g.chans));
    std::vector<int> at(static_cast<size_t>(g.chans));
    for (int64_t r = r0; r < r1; ++r) {
      const I n = static_cast<I>(r / g.outH), oy = static_cast<I>(r % g.outH);
      I i0, i1;
      window::inside<I>(oy, g.sH, g.top, g.fH, g.dH, g.inH, i0, i1);
      for (I ox = 0; ox < g.outW; ++ox) {
        I j0, j1;
        window::inside<I>(ox, g.sW, g.left, g.fW, g.dW, g.inW, j0, j1);
        std::fill(best.begin(), best.end(), -INFINITY);
        std::fill(sum.begin(), sum.end(), 0.f);
        std::fill(at.begin(), at.end(), -1);
        for (I i = i0; i < i1; ++i) {
          for (I j = j0; j < j1; ++j) {
            const float* px =
                x + ((static_cast<int64_t>(n) * g.inH + oy * g.sH - g.top + i * g.dH) * g.inW + ox * g.sW - g.left + j * g.dW) * g.chans;
            const int pos = static_cast<int>(i * g.fW + j);
            if (op == PoolOp::Avg) {
              for (I c = 0; c < g.chans; ++c) sum[c] += px[c];
            } else {
              for (I c = 0; c < g.chans; ++c) {
                if (px[c] > best[c]) {
                  best[c] = px[c];
                  at[c] = pos;
                }
              }
            }
          }
        }
        const int64_t o = (r * g.outW + ox) * g.chans;
        if (op == PoolOp::ArgMax) {
          std::copy(at.begin(), at.end(), static_cast<int*>(y) + o);
        } else if (op == PoolOp::Max) {
          std::copy(best.begin(), best.end(), static_cast<float*>(y) + o);
        } else {
          const float count = static_cast<float>((i1 - i0) * (j1 - j0));
          for (I c = 0; c < g.chans; ++c) static_cast<float*>(y)[o + c] = sum[c] / count;
        }
      }
    }
  });
}

}  // namespace

void pool2d(PoolOp op, const float* x, void* y, const Window2D& g) {
  withIndexWidth(windowNarrow(g), g, [&](const auto& gi) { poolRows(op, x, y, gi); });
}

void pool2dGrad(PoolOp op, const float* dy, const int* argmax, float* dx, const Window2D& g64) {
  WM_REQUIRE(op != PoolOp::ArgMax, "pool2dGrad: op must be Max or Avg");
  WM_REQUIRE(op != PoolOp::Max || argmax != nullptr, "pool2dGrad: Max needs the argmax positions");
  withIndexWidth(windowNarrow(g64), g64, [&](const auto& g) {
    using I = decltype(g.batch);
    gatherPerInputPixel(
        g, dx,
        [&](float* out, I n, I i, I j, I oy, I ox) {
          const int64_t at = ((static_cast<int64_t>(n) * g.outH + oy) * g.outW + ox) * g.chans;
          if (op == PoolOp::Avg) {
            for (I c = 0; c < g.chans; ++c) out[c] += dy[at + c];
          } else {
            const int pos = static_cast<int>(i * g.fW + j);
            for (I c = 0; c < g.chans; ++c) {
              if (argmax[at + c] == pos) out[c] += dy[at + c];
            }
          }
        },
        [&](float* out) {
          // Avg divides by the full window size, padding or not (tfjs-backend-cpu's rule).
          if (op != PoolOp::Avg) return;
          const float size = static_cast<float>(g.fH * g.fW);
          for (I c = 0; c < g.chans; ++c) out[c] /= size;
        });
  });
}

}  // namespace host
}  // namespace wm

// pool2d(op, x, y, geometry): y is an Int32Array for ArgMax.
WM_OP(pool2d, Host, a) {
  const wm::PoolOp op = wm::poolOpArg(a, 0);
  const wm::Window2D g = a.window(3, "geometry");
  const float* x = a.floats(1, "x", wm::windowInSize(g));
  void* y = op == wm::PoolOp::ArgMax ? static_cast<void*>(a.ints(2, "y", wm::windowOutSize(g))) : a.floats(2, "y", wm::windowOutSize(g));
  wm::host::pool2d(op, x, y, g);
}

// pool2dGrad(op, dy, argmax, dx, geometry): argmax is read for Max only (null for Avg).
WM_OP(pool2dGrad, Host, a) {
  const wm::PoolOp op = wm::poolOpArg(a, 0);
  if (op == wm::PoolOp::ArgMax) a.reject(0, "op", "must be max or avg");
  const wm::Window2D g = a.window(4, "geometry");
  const float* dy = a.floats(1, "dy", wm::windowOutSize(g));
  const int* argmax = op == wm::PoolOp::Max ? a.ints(2, "argmax", wm::windowOutSize(g)) : nullptr;
  wm::host::pool2dGrad(op, dy, argmax, a.floats(3, "dx", wm::windowInSize(g)), g);
}
