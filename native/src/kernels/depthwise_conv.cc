// tf.depthwiseConv2d and its two gradients on the CPU core, over the window
// geometry of wm/window2d.h. The forward pass and the input gradient walk a
// pixel's window offsets (or readers) outermost so the inner loop runs over
// the channels (vectorised), each element's terms in the order the CUDA
// kernels' per-element definitions add them.
#include <algorithm>
#include <vector>

#include "runtime/parallel.h"
#include "kernels/window_rows.h"
#include "kernels/window2d_args.h"
#include "kernels/host_ops.h"
#include "wm/window2d.h"

namespace wm {
namespace host {

void depthwiseConv2d(const float* x, const float* w, float* y, const Window2D& g, int64_t mult) {
  const int64_t cms = g.chans * mult, rows = g.batch * g.outH;
  parallelFor(rows, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / g.outH, oy = r % g.outH;
      int64_t i0, i1;
      window::inside<int64_t>(oy, g.sH, g.top, g.fH, g.dH, g.inH, i0, i1);
      for (int64_t ox = 0; ox < g.outW; ++ox) {
        float* out = y + (r * g.outW + ox) * cms;
        for (int64_t cm = 0; cm < cms; ++cm) out[cm] = 0.f;
        int64_t j0, j1;
        window::inside<int64_t>(ox, g.sW, g.left, g.fW, g.dW, g.inW, j0, j1);
        for (int64_t i = i0; i < i1; ++i) {
          for (int64_t j = j0; j < j1; ++j) {
            const float* in = x + ((n * g.inH + oy * g.sH - g.top + i * g.dH) * g.inW + ox * g.sW - g.left + j * g.dW) * g.chans;
            const float* f = w + (i * g.fW + j) * cms;
            if (mult == 1) {
              for (int64_t c = 0; c < g.chans; ++c) out[c] += in[c] * f[c];
            } else {
              for (int64_t cm = 0; cm < cms; ++cm) out[cm] += in[cm / mult] * f[cm];
            }
          }
        }
      }
    }
  });
}

void depthwiseConv2dInputGrad(const float* dy, const float* w, float* dx, const Window2D& g64, int64_t mult64, int64_t dyH64,
                              int64_t dyW64) {
  withIndexWidth(windowNarrow(g64, mult64, g64.batch * dyH64 * dyW64 * g64.chans * mult64), g64, [&](const auto& g) {
    using I = decltype(g.batch);
    const I mult = static_cast<I>(mult64), dyH = static_cast<I>(dyH64), dyW = static_cast<I>(dyW64), cms = g.chans * mult;
    gatherPerInputPixel(
        g, dx,
        [&](float* out, I n, I i, I j, I oy, I ox) {
          const float* d = dy + ((static_cast<int64_t>(n) * dyH + oy) * dyW + ox) * cms;
          const float* f = w + static_cast<int64_t>(i * g.fW + j) * cms;
          if (mult == 1) {
            for (I c = 0; c < g.chans; ++c) out[c] += d[c] * f[c];
          } else {
            for (I c = 0; c < g.chans; ++c) {
              for (I m = 0; m < mult; ++m) out[c] += d[c * mult + m] * f[c * mult + m];
            }
          }
        },
        [](float*) {});
  });
}

// One task per window offset (i, j): its row of dw [fH*fW, chans*mult] sums
// over every output pixel in order, in doubles.
void depthwiseConv2dFilterGrad(const float* x, const float* dy, float* dw, const Window2D& g, int64_t mult) {
  const int64_t cms = g.chans * mult, pixels = g.batch * g.outH * g.outW;
  parallelFor(g.fH * g.fW, 1, [&](int64_t k0, int64_t k1) {
    std::vector<double> acc(static_cast<size_t>(cms));
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t i = k / g.fW, j = k % g.fW;
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t p = 0; p < pixels; ++p) {
        const int64_t ox = p % g.outW, q = p / g.outW, oy = q % g.outH, n = q / g.outH;
        const int64_t iy = oy * g.sH - g.top + i * g.dH, ix = ox * g.sW - g.left + j * g.dW;
        if (iy < 0 || iy >= g.inH || ix < 0 || ix >= g.inW) continue;
        const float* in = x + ((n * g.inH + iy) * g.inW + ix) * g.chans;
        const float* d = dy + p * cms;
        if (mult == 1) {
          for (int64_t c = 0; c < cms; ++c) acc[c] += static_cast<double>(in[c]) * d[c];
        } else {
          for (int64_t cm = 0; cm < cms; ++cm) acc[cm] += static_cast<double>(in[cm / mult]) * d[cm];
        }
      }
      for (int64_t cm = 0; cm < cms; ++cm) dw[k * cms + cm] = static_cast<float>(acc[cm]);
    }
  });
}

}  // namespace host
}  // namespace wm

// The window ops' host bodies: every buffer checked against the geometry first.
WM_OP(depthwiseConv2d, Host, a) {
  const wm::Window2D g = a.window(3, "geometry");
  const int64_t mult = a.count(4, "mult");
  // Checked in argument order (a call's arguments are evaluated in any order).
  const float* x = a.floats(0, "x", wm::windowInSize(g));
  const float* w = a.floats(1, "w", g.fH * g.fW * g.chans * mult);
  wm::host::depthwiseConv2d(x, w, a.floats(2, "y", wm::windowOutSize(g) * mult), g, mult);
}

WM_OP(depthwiseConv2dInputGrad, Host, a) {
  const wm::Window2D g = a.window(3, "geometry");
  const int64_t mult = a.count(4, "mult"), dyH = a.count(5, "dyH"), dyW = a.count(6, "dyW");
  wm::dyCoversOutput(a, g, dyH, dyW);
  const float* dy = a.floats(0, "dy", g.batch * dyH * dyW * g.chans * mult);
  const float* w = a.floats(1, "w", g.fH * g.fW * g.chans * mult);
  wm::host::depthwiseConv2dInputGrad(dy, w, a.floats(2, "dx", wm::windowInSize(g)), g, mult, dyH, dyW);
}

WM_OP(depthwiseConv2dFilterGrad, Host, a) {
  const wm::Window2D g = a.window(3, "geometry");
  const int64_t mult = a.count(4, "mult");
  const float* x = a.floats(0, "x", wm::windowInSize(g));
  const float* dy = a.floats(1, "dy", wm::windowOutSize(g) * mult);
  wm::host::depthwiseConv2dFilterGrad(x, dy, a.floats(2, "dw", g.fH * g.fW * g.chans * mult), g, mult);
}
