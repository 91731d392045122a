// tf.depthwiseConv2d in one kernel: one thread per output element, the
// window read in place (padding skipped, nothing copied first): one launch,
// as cuDNN's, where a pad, a window copy and a batched matmul take three.
#include "runtime/launch.cuh"
#include "kernels/window2d_args.h"
#include "wm/window2d.h"

namespace wm {
namespace {

template <typename I>
__global__ void depthwiseConvKernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, Window2DOf<I> g,
                                    I mult, int64_t total) {
  const I cms = g.chans * mult;
  WM_GRID_STRIDE(t, total) {
    I p = static_cast<I>(t);
    const I cm = p % cms;
    p /= cms;
    const I ox = p % g.outW;
    p /= g.outW;
    y[t] = window::depthwiseAt(x, w, g, mult, p / g.outH, p % g.outH, ox, cm);
  }
}

}  // namespace

void depthwiseConv2d(uint64_t x, uint64_t w, uint64_t y, const Window2D& g, int64_t mult) {
  const int64_t total = g.batch * g.outH * g.outW * g.chans * mult;
  if (total == 0) return;
  if (windowNarrow(g, mult)) {
    depthwiseConvKernel<int>
        <<<gridFor(total), kThreads, 0, stream()>>>(as<float>(x), as<float>(w), as<float>(y), g.as<int>(), static_cast<int>(mult), total);
  } else {
    depthwiseConvKernel<int64_t><<<gridFor(total), kThreads, 0, stream()>>>(as<float>(x), as<float>(w), as<float>(y), g, mult, total);
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// depthwiseConv2d(x, w, y, geometry, mult)
WM_OP(depthwiseConv2d, Device, a) {
  wm::depthwiseConv2d(a.address(0, "x"), a.address(1, "w"), a.address(2, "y"), a.window(3, "geometry"), a.count(4, "mult"));
}
