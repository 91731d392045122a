// The reduction step of the one-shot all-reduce: out[i] = scale * sum over
// ranks r of slice r (the slices are the ranks' parts of one WholeMemory
// range, read over NVLink). Sums in rank order, so every rank computes
// bit-identical results.
#include "launch.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

__global__ void sumSlicesKernel(const float* base, int slices, int64_t strideElems, int64_t n, float scale, float* out) {
  WM_GRID_STRIDE(i, n / 4) {
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int r = 0; r < slices; ++r) {
      float4 v = reinterpret_cast<const float4*>(base + r * strideElems)[i];
      acc.x += v.x;
      acc.y += v.y;
      acc.z += v.z;
      acc.w += v.w;
    }
    reinterpret_cast<float4*>(out)[i] = make_float4(acc.x * scale, acc.y * scale, acc.z * scale, acc.w * scale);
  }
  for (int64_t i = (n / 4) * 4 + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    float acc = 0.f;
    for (int r = 0; r < slices; ++r) acc += base[r * strideElems + i];
    out[i] = acc * scale;
  }
}

}  // namespace

void sumSlices(uint64_t base, int slices, int64_t strideElems, int64_t n, float scale, uint64_t out) {
  if (n == 0) return;
  WM_REQUIRE(base % 16 == 0 && out % 16 == 0 && strideElems % 4 == 0, "sumSlices: buffers must be 16-byte aligned");
  sumSlicesKernel<<<gridFor(n / 4 + 1), kThreads, 0, stream()>>>(as<float>(base), slices, strideElems, n, scale, as<float>(out));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// sumSlices(base, slices, strideElems, n, scale, out)
WM_OP(sumSlices, Device, a) {
  wm::sumSlices(a.address(0, "base"), static_cast<int>(a.count(1, "slices")), a.count(2, "strideElems"), a.count(3, "n"),
                static_cast<float>(a.number(4, "scale")), a.address(5, "out"));
}
