// Adam over every dense parameter of a step in one launch (tfjs' optimizer
// runs 14 kernels per variable). Each blockIdx.y is one tensor; the list
// travels in the kernel's parameters, so nothing is uploaded per step.
// Rounded intrinsics keep nvcc from contracting into FMAs: the result is
// what tfjs' separate float32 ops give.
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "wm/dense_optimizer.h"

namespace wm {
namespace {

constexpr int kTensorsPerLaunch = 48;  // 48 * 64 bytes: inside the 4 KiB of kernel parameters

struct AdamBatch {
  AdamTensor<float*> t[kTensorsPerLaunch];
};

__global__ void denseAdamKernel(const __grid_constant__ AdamBatch batch, AdamScalars s) {
  const AdamTensor<float*>& t = batch.t[blockIdx.y];
  const float c1 = s.oneMinusBeta1, c2 = s.oneMinusBeta2, negLr = -s.lr;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < t.n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float g = t.grad[i];
    const float m = __fadd_rn(__fmul_rn(t.m[i], s.beta1), __fmul_rn(g, c1));
    const float v = __fadd_rn(__fmul_rn(t.v[i], s.beta2), __fmul_rn(__fmul_rn(g, g), c2));
    const float mHat = __fdiv_rn(m, s.oneMinusAcc1), vHat = __fdiv_rn(v, s.oneMinusAcc2);
    const float step = __fmul_rn(__fdiv_rn(mHat, __fadd_rn(__fsqrt_rn(vHat), s.epsilon)), negLr);
    const float p = __fadd_rn(step, t.param[i]);
    t.outM[i] = m;
    t.outV[i] = v;
    t.outParam[i] = p;
  }
}

}  // namespace

void denseAdam(const std::vector<AdamTensor<uint64_t>>& tensors, const AdamScalars& s) {
  for (size_t first = 0; first < tensors.size(); first += kTensorsPerLaunch) {
    AdamBatch batch{};
    int count = 0;
    int64_t largest = 0;
    for (size_t k = first; k < tensors.size() && count < kTensorsPerLaunch; ++k) {
      const auto& in = tensors[k];
      WM_REQUIRE(in.n >= 0, "denseAdam: tensor sizes must be non-negative");
      if (in.n == 0) continue;
      batch.t[count++] = {as<float>(in.param),    as<float>(in.grad), as<float>(in.m),    as<float>(in.v),
                          as<float>(in.outParam), as<float>(in.outM), as<float>(in.outV), in.n};
      largest = std::max(largest, in.n);
    }
    if (count == 0) continue;
    dim3 grid(static_cast<unsigned>(std::min<int64_t>((largest + kThreads - 1) / kThreads, 1024)), static_cast<unsigned>(count));
    denseAdamKernel<<<grid, kThreads, 0, stream()>>>(batch, s);
    WM_CUDA_LAUNCHED();
  }
}

}  // namespace wm
