// The gradient of softmax cross-entropy in the logits, one pass: a warp per
// row recomputes the row's log-sum-exp (cheaper than keeping the softmax)
// and writes (softmax * sum(y) - y) * g.
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "graph/softmax_rows.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

__global__ void gradKernel(const float* x, const void* labels, bool classIds, int64_t rows, int64_t classes, const float* dLoss,
                           bool perRow, float scale, float* dx) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t r = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; r < rows; r += warps) {
    const float* xr = x + r * classes;
    float* dr = dx + r * classes;
    const float g = scale * dLoss[perRow ? r : 0];
    const float lse = rowLogSumExp(xr, classes, lane);
    if (classIds) {
      const int32_t label = static_cast<const int32_t*>(labels)[r];
      for (int64_t c = lane; c < classes; c += 32) dr[c] = (expf(xr[c] - lse) - (c == label ? 1.f : 0.f)) * g;
    } else {
      const float* yr = static_cast<const float*>(labels) + r * classes;
      float sy = 0.f;
      for (int64_t c = lane; c < classes; c += 32) sy += yr[c];
      sy = warpSum(sy);
      for (int64_t c = lane; c < classes; c += 32) dr[c] = (expf(xr[c] - lse) * sy - yr[c]) * g;
    }
  }
}

}  // namespace

void softmaxCrossEntropyGrad(uint64_t logits, uint64_t labels, bool classIds, int64_t rows, int64_t classes, uint64_t dLoss, bool perRow,
                             float scale, uint64_t dLogits) {
  WM_REQUIRE(rows >= 0 && classes >= 1, "softmaxCrossEntropyGrad: needs rows >= 0 and at least one class");
  if (rows == 0) return;
  gradKernel<<<gridFor(rows * 32), kThreads, 0, stream()>>>(as<float>(logits), reinterpret_cast<const void*>(labels), classIds, rows,
                                                            classes, as<float>(dLoss), perRow, scale, as<float>(dLogits));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// softmaxCrossEntropyGrad(logits, labels, classIds, rows, classes, dLoss, perRow, scale, dLogits)
WM_OP(softmaxCrossEntropyGrad, Device, a) {
  wm::softmaxCrossEntropyGrad(a.address(0, "logits"), a.address(1, "labels"), a.flag(2, "classIds"), a.count(3, "rows"),
                              a.count(4, "classes"), a.address(5, "dLoss"), a.flag(6, "perRow"), static_cast<float>(a.number(7, "scale")),
                              a.address(8, "dLogits"));
}
