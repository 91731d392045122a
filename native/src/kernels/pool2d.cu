// tf.maxPool / tf.avgPool (and the window positions of the maxima that
// MaxPoolGrad needs) in one kernel: one thread per output element, the
// window read in place.
#include "kernels/ops.h"
#include "runtime/launch.cuh"
#include "kernels/window2d_args.h"
#include "wm/window2d.h"

namespace wm {
namespace {

template <typename I>
__global__ void pool2dKernel(PoolOp op, const float* __restrict__ x, float* __restrict__ y, int* __restrict__ argmax, Window2DOf<I> g,
                             int64_t total) {
  WM_GRID_STRIDE(t, total) {
    I p = static_cast<I>(t);
    const I c = p % g.chans;
    p /= g.chans;
    const I ox = p % g.outW;
    p /= g.outW;
    int at;
    const float v = window::poolAt(op, x, g, p / g.outH, p % g.outH, ox, c, at);
    if (op == PoolOp::ArgMax) {
      argmax[t] = at;
    } else {
      y[t] = v;
    }
  }
}

}  // namespace

void pool2d(PoolOp op, uint64_t x, uint64_t y, const Window2D& g) {
  const int64_t total = g.batch * g.outH * g.outW * g.chans;
  if (total == 0) return;
  if (windowNarrow(g)) {
    pool2dKernel<int><<<gridFor(total), kThreads, 0, stream()>>>(op, as<float>(x), as<float>(y), as<int>(y), g.as<int>(), total);
  } else {
    pool2dKernel<int64_t><<<gridFor(total), kThreads, 0, stream()>>>(op, as<float>(x), as<float>(y), as<int>(y), g, total);
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// pool2d(op, x, y, geometry): y is int32 for ArgMax.
WM_OP(pool2d, Device, a) { wm::pool2d(wm::poolOpArg(a, 0), a.address(1, "x"), a.address(2, "y"), a.window(3, "geometry")); }
