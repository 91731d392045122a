// A dense layer's epilogue in place: y = act(y + bias), one pass (tfjs would
// run an add with broadcasting and a ReLU, writing y twice).
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "runtime/vec4.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

template <typename I>
__global__ void biasActivationKernel(float* y, const float* bias, int64_t rows, int64_t cols, bool relu) {
  const I c = static_cast<I>(cols);
  WM_GRID_STRIDE(i, rows * cols) {
    const I j = static_cast<I>(i);
    const float v = y[i] + bias[j - j / c * c];
    y[i] = relu ? fmaxf(v, 0.f) : v;
  }
}

// Four columns at a time where the rows allow it (see vec4.cuh).
template <typename I>
__global__ void biasActivation4(float* y, const float* bias, int64_t rows, int64_t cols4, bool relu) {
  forEachRow4<I>(rows, cols4, [&](I, I c4, int64_t k) {
    float4 v = zip4(load4(y + 4 * k), load4(bias + 4 * c4), [](float u, float b) { return u + b; });
    if (relu) v = map4(v, [](float u) { return fmaxf(u, 0.f); });
    store4(y + 4 * k, v);
  });
}

}  // namespace

void biasActivation(uint64_t y, uint64_t bias, int64_t rows, int64_t cols, bool relu) {
  const int64_t n = rows * cols;
  if (n == 0) return;
  if (cols % 4 == 0 && aligned16({y, bias})) {
    auto kernel = narrowIndex(n / 4) ? biasActivation4<uint32_t> : biasActivation4<int64_t>;
    kernel<<<gridFor4(n / 4), kThreads, 0, stream()>>>(as<float>(y), as<float>(bias), rows, cols / 4, relu);
  } else {
    auto kernel = narrowIndex(n) ? biasActivationKernel<uint32_t> : biasActivationKernel<int64_t>;
    kernel<<<gridFor(n), kThreads, 0, stream()>>>(as<float>(y), as<float>(bias), rows, cols, relu);
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// biasActivation(y, bias, rows, cols, relu)
WM_OP(biasActivation, Device, a) {
  wm::biasActivation(a.address(0, "y"), a.address(1, "bias"), a.count(2, "rows"), a.count(3, "cols"), a.flag(4, "relu"));
}
