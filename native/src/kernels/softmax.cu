// Row-wise softmax / log-softmax, one block per row, max-subtracted for
// stability.
#include <cfloat>

#include "runtime/launch.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

template <bool LOG>
__global__ void softmaxRows(const float* x, float* y, int64_t inner) {
  __shared__ float sh[kThreads];
  const float* xr = x + blockIdx.x * inner;
  float* yr = y + blockIdx.x * inner;
  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < inner; j += blockDim.x) m = fmaxf(m, xr[j]);
  sh[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] = fmaxf(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  m = sh[0];
  __syncthreads();
  float sum = 0.f;
  for (int64_t j = threadIdx.x; j < inner; j += blockDim.x) sum += expf(xr[j] - m);
  sh[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  sum = sh[0];
  if (LOG) {
    float l = logf(sum);
    for (int64_t j = threadIdx.x; j < inner; j += blockDim.x) yr[j] = xr[j] - m - l;
  } else {
    float inv = 1.f / sum;
    for (int64_t j = threadIdx.x; j < inner; j += blockDim.x) yr[j] = expf(xr[j] - m) * inv;
  }
}

}  // namespace

void softmax(uint64_t x, uint64_t y, int64_t outer, int64_t inner, bool log) {
  if (outer * inner == 0) return;
  WM_REQUIRE(outer <= 0x7fffffff, "softmax: too many rows");
  auto s = stream();
  if (log)
    softmaxRows<true><<<static_cast<unsigned>(outer), kThreads, 0, s>>>(as<float>(x), as<float>(y), inner);
  else
    softmaxRows<false><<<static_cast<unsigned>(outer), kThreads, 0, s>>>(as<float>(x), as<float>(y), inner);
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// softmax(x, y, outer, inner, log)
WM_OP(softmax, Device, a) { wm::softmax(a.address(0, "x"), a.address(1, "y"), a.count(2, "outer"), a.count(3, "inner"), a.flag(4, "log")); }
