// A dense layer's epilogue in place: y = act(y + bias), one pass (tfjs would
// run an add with broadcasting and a ReLU, writing y twice).
#include "check.h"
#include "launch.cuh"

namespace wm {
namespace {

__global__ void biasActivationKernel(float* y, const float* bias, int64_t rows, int64_t cols, bool relu) {
  WM_GRID_STRIDE(i, rows * cols) {
    const float v = y[i] + bias[i % cols];
    y[i] = relu ? fmaxf(v, 0.f) : v;
  }
}

}  // namespace

void biasActivation(uint64_t y, uint64_t bias, int64_t rows, int64_t cols, bool relu) {
  if (rows * cols == 0) return;
  biasActivationKernel<<<gridFor(rows * cols), kThreads, 0, stream()>>>(as<float>(y), as<float>(bias), rows, cols, relu);
  WM_CUDA_LAUNCHED();
}

}  // namespace wm
