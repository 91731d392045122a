// The product of complex rows on the GPU: a thread per complex coordinate, grid-stride.
#include "embedding/complex_product.h"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"
#include "wm/runtime.h"

namespace wm {
namespace {

__global__ void complexProductKernel(int64_t rows, int64_t half, bool conjA, bool conjB, const float* a, const float* b, float* out) {
  WM_GRID_STRIDE(t, rows * half) {
    const int64_t r = t / half, c = t % half, re = r * 2 * half + c, im = re + half;
    complexTimes(a[re], a[im], b[re], b[im], conjA, conjB, &out[re], &out[im]);
  }
}

}  // namespace

void complexProduct(int64_t rows, int64_t half, bool conjA, bool conjB, uint64_t a, uint64_t b, uint64_t out) {
  if (rows * half == 0) return;
  complexProductKernel<<<gridFor(rows * half), kThreads, 0, stream()>>>(rows, half, conjA, conjB, as<float>(a), as<float>(b),
                                                                        as<float>(out));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// complexProduct(rows, half, conjA, conjB, a, b, out)
WM_OP(complexProduct, Device, a) {
  wm::complexProduct(a.count(0, "rows"), a.count(1, "half"), a.flag(2, "conjA"), a.flag(3, "conjB"), a.address(4, "a"), a.address(5, "b"),
                     a.address(6, "out"));
}
