// The input gradient of tf.depthwiseConv2d in one kernel: each input
// element sums, over the window offsets and multipliers whose output pixel
// read it, dy times the filter (a gather: no atomics, a fixed order).
#include "runtime/launch.cuh"
#include "kernels/window2d_args.h"
#include "wm/window2d.h"

namespace wm {
namespace {

template <typename I>
__global__ void depthwiseInputGradKernel(const float* __restrict__ dy, const float* __restrict__ w, float* __restrict__ dx, Window2DOf<I> g,
                                         I mult, I dyH, I dyW, int64_t total) {
  WM_GRID_STRIDE(t, total) {
    I p = static_cast<I>(t);
    const I c = p % g.chans;
    p /= g.chans;
    const I x = p % g.inW;
    p /= g.inW;
    dx[t] = window::depthwiseInputGradAt(dy, w, g, mult, dyH, dyW, p / g.inH, p % g.inH, x, c);
  }
}

}  // namespace

void depthwiseConv2dInputGrad(uint64_t dy, uint64_t w, uint64_t dx, const Window2D& g, int64_t mult, int64_t dyH, int64_t dyW) {
  const int64_t total = g.batch * g.inH * g.inW * g.chans;
  if (total == 0) return;
  if (windowNarrow(g, mult, g.batch * dyH * dyW * g.chans * mult)) {
    depthwiseInputGradKernel<int><<<gridFor(total), kThreads, 0, stream()>>>(as<float>(dy), as<float>(w), as<float>(dx), g.as<int>(),
                                                                             static_cast<int>(mult), static_cast<int>(dyH),
                                                                             static_cast<int>(dyW), total);
  } else {
    depthwiseInputGradKernel<int64_t>
        <<<gridFor(total), kThreads, 0, stream()>>>(as<float>(dy), as<float>(w), as<float>(dx), g, mult, dyH, dyW, total);
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// depthwiseConv2dInputGrad(dy, w, dx, geometry, mult, dyH, dyW)
WM_OP(depthwiseConv2dInputGrad, Device, a) {
  const wm::Window2D g = a.window(3, "geometry");
  const int64_t dyH = a.count(5, "dyH"), dyW = a.count(6, "dyW");
  wm::dyCoversOutput(a, g, dyH, dyW);
  wm::depthwiseConv2dInputGrad(a.address(0, "dy"), a.address(1, "w"), a.address(2, "dx"), g, a.count(4, "mult"), dyH, dyW);
}
