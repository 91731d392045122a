// tf.depthwiseConv2d and its two gradients on the CPU core, over the same
// per-element definitions as the CUDA kernels (wm/window2d.h). The forward
// pass runs each output pixel's window offsets outermost so the inner loop
// walks the channels (vectorised), in the same summation order.
#include <algorithm>
#include <vector>

#include "parallel.h"
#include "wm/host_ops.h"
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

namespace {

// Per input pixel the outputs that read it are found once (window::forEachReader) and the channels
// added innermost, each element's terms in the order window::depthwiseInputGradAt adds them.
// I: int where every tensor is below 2^31 elements.
template <typename I>
void inputGradRows(const float* dy, const float* w, float* dx, const Window2DOf<I>& g, I mult, I dyH, I dyW) {
  const I cms = g.chans * mult;
  parallelFor(static_cast<int64_t>(g.batch) * g.inH, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const I n = static_cast<I>(r / g.inH), y = static_cast<I>(r % g.inH);
      for (I x = 0; x < g.inW; ++x) {
        float* out = dx + (r * g.inW + x) * g.chans;
        std::fill(out, out + g.chans, 0.f);
        window::forEachReader(g, y, x, [&](I i, I j, I oy, I ox) {
          const float* d = dy + ((static_cast<int64_t>(n) * dyH + oy) * dyW + ox) * cms;
          const float* f = w + static_cast<int64_t>(i * g.fW + j) * cms;
          if (mult == 1) {
            for (I c = 0; c < g.chans; ++c) out[c] += d[c] * f[c];
          } else {
            for (I c = 0; c < g.chans; ++c) {
              for (I m = 0; m < mult; ++m) out[c] += d[c * mult + m] * f[c * mult + m];
            }
          }
        });
      }
    }
  });
}

}  // namespace

void depthwiseConv2dInputGrad(const float* dy, const float* w, float* dx, const Window2D& g, int64_t mult, int64_t dyH,
                              int64_t dyW) {
  if (windowNarrow(g, mult, g.batch * dyH * dyW * g.chans * mult)) {
    inputGradRows<int>(dy, w, dx, g.as<int>(), static_cast<int>(mult), static_cast<int>(dyH), static_cast<int>(dyW));
  } else {
    inputGradRows<int64_t>(dy, w, dx, g, mult, dyH, dyW);
  }
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
