// 2-D windows over NHWC images: the geometry of tfjs' Conv2DInfo, the walks
// over a window and over the outputs that read a pixel (both compilers),
// and, per output element, what a depthwise convolution, a pool and their
// gradients compute: the CUDA kernels run these one thread per element; the
// CPU core's loops (src/host/depthwise_conv.cc, pool2d.cc, window_rows.h)
// walk a whole pixel's channels at once over the same walks, each element's
// terms in the same order, so both paths agree exactly. Padding is implicit:
// a window position outside the image is skipped, nothing is copied first.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "wm/status.h"

#ifdef __CUDACC__
#define WM_WD __host__ __device__ __forceinline__
#else
#define WM_WD inline
#endif

namespace wm {

// Output pixel (oy, ox) of image n reads input rows oy*sH - top + i*dH for
// i < fH, and columns alike. I is int where every tensor involved has fewer
// than 2^31 elements (kernels then divide in 32 bits), else int64_t.
template <typename I>
struct Window2DOf {
  I batch, inH, inW, chans, outH, outW, fH, fW, sH, sW, dH, dW, top, left;

  template <typename J>
  Window2DOf<J> as() const {
    return {J(batch), J(inH), J(inW), J(chans), J(outH), J(outW), J(fH), J(fW), J(sH), J(sW), J(dH), J(dW), J(top), J(left)};
  }
};
using Window2D = Window2DOf<int64_t>;

// From the 14 numbers the addon receives, in the order of the struct.
inline Window2D window2dFrom(const std::vector<int64_t>& v, const char* name) {
  WM_REQUIRE(v.size() == 14, std::string(name) +
                                 " must hold 14 numbers (batch, inH, inW, chans, outH, outW, fH, fW, sH, "
                                 "sW, dH, dW, top, left), got " +
                                 std::to_string(v.size()));
  Window2D g{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13]};
  for (int i = 0; i < 8; ++i) WM_REQUIRE(v[i] >= 0, std::string(name) + ": sizes must be >= 0");
  for (int i = 8; i < 12; ++i) WM_REQUIRE(v[i] >= 1, std::string(name) + ": strides and dilations must be >= 1");
  return g;
}

// Whether every tensor a window kernel touches (input, output, filter, and
// `other` elements more) has fewer than 2^31 elements, so it may index and
// divide in 32 bits (Window2DOf<int>).
inline bool windowNarrow(const Window2D& g, int64_t mult = 1, int64_t other = 0) {
  constexpr int64_t kLimit = int64_t{1} << 31;
  const int64_t in = g.batch * g.inH * g.inW * g.chans * mult;
  const int64_t out = g.batch * g.outH * g.outW * g.chans * mult;
  const int64_t filter = g.fH * g.fW * g.chans * mult;
  return in < kLimit && out < kLimit && filter < kLimit && other < kLimit;
}

// Pool kinds. Max skips NaN and -Infinity as tfjs' pools do (a window with
// nothing else gives -Infinity); ArgMax is the position i*fW + j of that
// maximum in its window, the first on ties, -1 when there is none; Avg
// divides by the window's pixels inside the image.
enum class PoolOp : int { Max = 0, ArgMax, Avg };

namespace window {

// The first window offset i whose row oy*s - pad + i*d lies in [0, n), and
// one past the last.
template <typename I>
WM_WD void inside(I o, I s, I pad, I f, I d, I n, I& i0, I& i1) {
  const I start = o * s - pad;
  i0 = 0;
  i1 = f;
  if (start < 0) i0 = (-start + d - 1) / d;
  const I last = start + (f - 1) * d;
  if (last >= n) i1 = f - (last - n + d) / d;
  if (i1 < i0) i1 = i0;
}

// y[n, oy, ox, c*mult + m] of a depthwise convolution (filter [fH, fW, chans, mult]).
template <typename I>
WM_WD float depthwiseAt(const float* x, const float* w, const Window2DOf<I>& g, I mult, I n, I oy, I ox, I cm) {
  const I c = cm / mult, cms = g.chans * mult;
  I i0, i1, j0, j1;
  inside(oy, g.sH, g.top, g.fH, g.dH, g.inH, i0, i1);
  inside(ox, g.sW, g.left, g.fW, g.dW, g.inW, j0, j1);
  float acc = 0.f;
  for (I i = i0; i < i1; ++i) {
    const I row = ((n * g.inH + oy * g.sH - g.top + i * g.dH) * g.inW + ox * g.sW - g.left) * g.chans + c;
    for (I j = j0; j < j1; ++j) acc += x[row + j * g.dW * g.chans] * w[(i * g.fW + j) * cms + cm];
  }
  return acc;
}

// The window offsets that put input row t - pad into some output row: i
// from i0 below i1 in steps of `step`, output row (t - i*d) / s. With d = 1
// (every pool, most convolutions) the offsets that divide evenly are stepped
// to directly; otherwise every offset is tried (`exact` is false: the caller
// checks divisibility and range).
template <typename I>
struct Offsets {
  I i0, i1, step;
  bool exact;
};
template <typename I>
WM_WD Offsets<I> gatherOffsets(I t, I s, I d, I f, I outN) {
  if (d != 1) return {0, f, 1, false};
  I lo = t - s * (outN - 1);
  if (lo < 0) lo = 0;
  const I hi = t + 1 < f ? t + 1 : f;
  return {lo + (t - lo) % s, hi, s, true};
}

// Calls visit(i, j, oy, ox) for every window offset (i, j) whose output
// pixel (oy, ox) reads input pixel (y, x): what an input gradient gathers,
// in increasing i, then j.
template <typename I, typename F>
WM_WD void forEachReader(const Window2DOf<I>& g, I y, I x, F&& visit) {
  const Offsets<I> oi = gatherOffsets(y + g.top, g.sH, g.dH, g.fH, g.outH);
  const Offsets<I> oj = gatherOffsets(x + g.left, g.sW, g.dW, g.fW, g.outW);
  for (I i = oi.i0; i < oi.i1; i += oi.step) {
    const I ty = y + g.top - i * g.dH;
    if (!oi.exact && (ty < 0 || ty % g.sH != 0 || ty / g.sH >= g.outH)) continue;
    for (I j = oj.i0; j < oj.i1; j += oj.step) {
      const I tx = x + g.left - j * g.dW;
      if (!oj.exact && (tx < 0 || tx % g.sW != 0 || tx / g.sW >= g.outW)) continue;
      visit(i, j, ty / g.sH, tx / g.sW);
    }
  }
}

// dx[n, y, x, c] of a depthwise convolution: every (window offset, multiplier)
// whose output pixel reads (y, x). dy is [batch, dyH, dyW, chans*mult]; only
// its first outH x outW pixels are read.
template <typename I>
WM_WD float depthwiseInputGradAt(const float* dy, const float* w, const Window2DOf<I>& g, I mult, I dyH, I dyW, I n, I y, I x, I c) {
  const I cms = g.chans * mult;
  float acc = 0.f;
  forEachReader(g, y, x, [&](I i, I j, I oy, I ox) {
    const float* d = dy + ((n * dyH + oy) * dyW + ox) * cms + c * mult;
    const float* f = w + (i * g.fW + j) * cms + c * mult;
    for (I m = 0; m < mult; ++m) acc += d[m] * f[m];
  });
  return acc;
}

// Max / ArgMax / Avg of the window of output pixel (oy, ox), channel c.
template <typename I>
WM_WD float poolAt(PoolOp op, const float* x, const Window2DOf<I>& g, I n, I oy, I ox, I c, int& argmax) {
  I i0, i1, j0, j1;
  inside(oy, g.sH, g.top, g.fH, g.dH, g.inH, i0, i1);
  inside(ox, g.sW, g.left, g.fW, g.dW, g.inW, j0, j1);
  float best = -INFINITY, sum = 0.f;
  argmax = -1;
  for (I i = i0; i < i1; ++i) {
    const I row = ((n * g.inH + oy * g.sH - g.top + i * g.dH) * g.inW + ox * g.sW - g.left) * g.chans + c;
    for (I j = j0; j < j1; ++j) {
      const float v = x[row + j * g.dW * g.chans];
      sum += v;
      if (v > best) {
        best = v;
        argmax = static_cast<int>(i * g.fW + j);
      }
    }
  }
  if (op != PoolOp::Avg) return best;
  return sum / static_cast<float>((i1 - i0) * (j1 - j0));
}

// dx[n, y, x, c] of a pool from dy [batch, outH, outW, chans]: Max adds the
// dy of every window whose ArgMax (argmax, [batch, outH, outW, chans]) is
// (y, x); Avg adds every window's dy and divides by the full window size, as
// tfjs-backend-cpu does whatever the padding.
template <typename I>
WM_WD float poolGradAt(PoolOp op, const float* dy, const int* argmax, const Window2DOf<I>& g, I n, I y, I x, I c) {
  float acc = 0.f;
  forEachReader(g, y, x, [&](I i, I j, I oy, I ox) {
    const I at = ((n * g.outH + oy) * g.outW + ox) * g.chans + c;
    if (op == PoolOp::Avg || argmax[at] == i * g.fW + j) acc += dy[at];
  });
  return op == PoolOp::Avg ? acc / static_cast<float>(g.fH * g.fW) : acc;
}

}  // namespace window
}  // namespace wm
