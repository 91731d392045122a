// Complex rows rotated by their phases on the GPU, and the backward pass: a thread per complex coordinate.
#include "embedding/complex_rotation.h"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"
#include "wm/runtime.h"

namespace wm {
namespace {

__global__ void rotationKernel(int64_t rows, int64_t half, float scale, bool conj, const float* x, const float* phase, float* out) {
  WM_GRID_STRIDE(t, rows * half) {
    const int64_t r = t / half, c = t % half, re = r * 2 * half + c, im = re + half;
    rotate(x[re], x[im], scale * phase[t], conj, &out[re], &out[im]);
  }
}

__global__ void rotationGradKernel(int64_t rows, int64_t half, float scale, bool conj, const float* x, const float* phase, const float* g,
                                   float* dx, float* dPhase) {
  WM_GRID_STRIDE(t, rows * half) {
    const int64_t r = t / half, c = t % half, re = r * 2 * half + c, im = re + half;
    rotateGrad(x[re], x[im], scale * phase[t], conj, scale, g[re], g[im], &dx[re], &dx[im], &dPhase[t]);
  }
}

}  // namespace

void complexRotation(int64_t rows, int64_t half, float scale, bool conj, uint64_t x, uint64_t phase, uint64_t out) {
  if (rows * half == 0) return;
  rotationKernel<<<gridFor(rows * half), kThreads, 0, stream()>>>(rows, half, scale, conj, as<float>(x), as<float>(phase), as<float>(out));
  WM_CUDA_LAUNCHED();
}

void complexRotationGrad(int64_t rows, int64_t half, float scale, bool conj, uint64_t x, uint64_t phase, uint64_t g, uint64_t dx,
                         uint64_t dPhase) {
  if (rows * half == 0) return;
  rotationGradKernel<<<gridFor(rows * half), kThreads, 0, stream()>>>(rows, half, scale, conj, as<float>(x), as<float>(phase), as<float>(g),
                                                                      as<float>(dx), as<float>(dPhase));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// complexRotation(rows, half, scale, conj, x, phase, out)
WM_OP(complexRotation, Device, a) {
  wm::complexRotation(a.count(0, "rows"), a.count(1, "half"), static_cast<float>(a.number(2, "scale")), a.flag(3, "conj"),
                      a.address(4, "x"), a.address(5, "phase"), a.address(6, "out"));
}

// complexRotationGrad(rows, half, scale, conj, x, phase, g, dx, dPhase)
WM_OP(complexRotationGrad, Device, a) {
  wm::complexRotationGrad(a.count(0, "rows"), a.count(1, "half"), static_cast<float>(a.number(2, "scale")), a.flag(3, "conj"),
                          a.address(4, "x"), a.address(5, "phase"), a.address(6, "g"), a.address(7, "dx"), a.address(8, "dPhase"));
}
