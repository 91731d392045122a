// Softmax cross-entropy in one pass over the logits (tfjs' composite loss is
// about fifteen kernels): a warp per row computes the row's log-sum-exp
// online and its loss; one block then sums the rows in order (a fixed order:
// the same loss on every run).
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "graph/softmax_rows.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

__global__ void rowLossKernel(const float* x, const void* labels, bool classIds, int64_t rows, int64_t classes, float* rowLoss) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t r = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; r < rows; r += warps) {
    const float* xr = x + r * classes;
    const float lse = rowLogSumExp(xr, classes, lane);
    float loss;
    if (classIds) {
      loss = lse - xr[static_cast<const int32_t*>(labels)[r]];
    } else {
      const float* yr = static_cast<const float*>(labels) + r * classes;
      float sy = 0.f, syx = 0.f;
      for (int64_t c = lane; c < classes; c += 32) sy += yr[c], syx += yr[c] * xr[c];
      loss = warpSum(sy) * lse - warpSum(syx);
    }
    if (lane == 0) rowLoss[r] = loss;
  }
}

// One block: thread t sums rows t, t + blockDim, ... then a tree; the order is fixed.
__global__ void totalKernel(const float* rowLoss, int64_t rows, float scale, float* total) {
  __shared__ float part[kThreads];
  float s = 0.f;
  for (int64_t r = threadIdx.x; r < rows; r += blockDim.x) s += rowLoss[r];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) *total = part[0] * scale;
}

}  // namespace

void softmaxCrossEntropy(uint64_t logits, uint64_t labels, bool classIds, int64_t rows, int64_t classes, float scale, uint64_t rowLoss,
                         uint64_t total) {
  WM_REQUIRE(rows >= 0 && classes >= 1, "softmaxCrossEntropy: needs rows >= 0 and at least one class");
  Scratch s;
  float* losses = rowLoss ? as<float>(rowLoss) : s.get<float>(rows);
  if (rows > 0) {
    rowLossKernel<<<gridFor(rows * 32), kThreads, 0, stream()>>>(as<float>(logits), reinterpret_cast<const void*>(labels), classIds, rows,
                                                                 classes, losses);
    WM_CUDA_LAUNCHED();
  }
  if (total) {
    totalKernel<<<1, kThreads, 0, stream()>>>(losses, rows, scale, as<float>(total));
    WM_CUDA_LAUNCHED();
  }
}

}  // namespace wm

// softmaxCrossEntropy(logits, labels, classIds, rows, classes, scale, rowLoss | 0, total | 0)
WM_OP(softmaxCrossEntropy, Device, a) {
  wm::softmaxCrossEntropy(a.address(0, "logits"), a.address(1, "labels"), a.flag(2, "classIds"), a.count(3, "rows"), a.count(4, "classes"),
                          static_cast<float>(a.number(5, "scale")), a.address(6, "rowLoss"), a.address(7, "total"));
}
