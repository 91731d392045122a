// The gradients of tf.maxPool and tf.avgPool in one kernel: each input
// element sums the dy of the windows that hold it (for Max, only those whose
// maximum it is), a gather with a fixed order instead of a scatter.
#include "kernels/ops.h"
#include "runtime/launch.cuh"
#include "kernels/window2d_args.h"
#include "wm/window2d.h"

namespace wm {
namespace {

template <typename I>
__global__ void pool2dGradKernel(PoolOp op, const float* __restrict__ dy, const int* __restrict__ argmax, float* __restrict__ dx,
                                 Window2DOf<I> g, int64_t total) {
  WM_GRID_STRIDE(t, total) {
    I p = static_cast<I>(t);
    const I c = p % g.chans;
    p /= g.chans;
    const I x = p % g.inW;
    p /= g.inW;
    dx[t] = window::poolGradAt(op, dy, argmax, g, p / g.inH, p % g.inH, x, c);
  }
}

}  // namespace

void pool2dGrad(PoolOp op, uint64_t dy, uint64_t argmax, uint64_t dx, const Window2D& g) {
  WM_REQUIRE(op != PoolOp::ArgMax, "pool2dGrad: op must be Max or Avg");
  WM_REQUIRE(op != PoolOp::Max || argmax != 0, "pool2dGrad: Max needs the argmax positions");
  const int64_t total = g.batch * g.inH * g.inW * g.chans;
  if (total == 0) return;
  if (windowNarrow(g)) {
    pool2dGradKernel<int><<<gridFor(total), kThreads, 0, stream()>>>(op, as<float>(dy), as<int>(argmax), as<float>(dx), g.as<int>(), total);
  } else {
    pool2dGradKernel<int64_t><<<gridFor(total), kThreads, 0, stream()>>>(op, as<float>(dy), as<int>(argmax), as<float>(dx), g, total);
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// pool2dGrad(op, dy, argmax, dx, geometry): argmax (int32, from pool2d's ArgMax) is read for Max only.
WM_OP(pool2dGrad, Device, a) {
  const wm::PoolOp op = wm::poolOpArg(a, 0);
  if (op == wm::PoolOp::ArgMax) a.reject(0, "op", "must be max or avg");
  wm::pool2dGrad(op, a.address(1, "dy"), op == wm::PoolOp::Max ? a.address(2, "argmax") : 0, a.address(3, "dx"), a.window(4, "geometry"));
}
