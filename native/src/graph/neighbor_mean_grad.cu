// Gradient of the fixed fan-out mean: dx[neighbors[r * fanout + e]] +=
// dy[r] / fanout, by atomics into a zeroed dx. One pass over dy per sampled
// neighbour; the tile-then-segment-sum it replaces wrote and read a
// [rows * fanout, dim] intermediate (128 MB per step for a 25-by-10 sample of
// 1,024 seeds at width 128). The summation order varies from run to run, as
// UnsortedSegmentSum's does.
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"
#include "wm/graph_ops.h"
#include "wm/runtime.h"

namespace wm {
namespace {

// A thread per VEC adjacent elements of an entry's row: with VEC = 4 (rows of whole float4s), code built for
// compute capability 9.0 on adds a float4 in one atomic (a quarter of the atomic operations), older code four.
template <int VEC>
__global__ void neighborMeanGradKernel(const int32_t* neighbors, int64_t entries, int fanout, const float* dy, int64_t dim, float* dx) {
  const float scale = 1.f / static_cast<float>(fanout);
  const int64_t perRow = dim / VEC;
  WM_GRID_STRIDE(t, entries * perRow) {
    const int64_t entry = t / perRow, j = (t - entry * perRow) * VEC;
    const int64_t r = entry / fanout;
    float* to = dx + static_cast<int64_t>(neighbors[entry]) * dim + j;
    const float* from = dy + r * dim + j;
    if constexpr (VEC == 4) {
      const float4 v = *reinterpret_cast<const float4*>(from);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
      atomicAdd(reinterpret_cast<float4*>(to), make_float4(v.x * scale, v.y * scale, v.z * scale, v.w * scale));
#else
      atomicAdd(to, v.x * scale), atomicAdd(to + 1, v.y * scale), atomicAdd(to + 2, v.z * scale), atomicAdd(to + 3, v.w * scale);
#endif
    } else {
      atomicAdd(to, from[0] * scale);
    }
  }
}

}  // namespace

void neighborMeanGrad(uint64_t neighbors, int64_t numRows, int64_t fanout, uint64_t dy, int64_t dim, uint64_t dx, int64_t numInputs) {
  WM_REQUIRE(fanout >= 1 && fanout <= 0x7fffffff, "neighborMeanGrad: fanout must be a positive 32-bit integer");
  if (numInputs * dim == 0) return;
  WM_CUDA(cudaMemsetAsync(reinterpret_cast<void*>(dx), 0, numInputs * dim * sizeof(float), stream()));
  const int64_t entries = numRows * fanout;
  if (entries * dim == 0) return;
  const int f = static_cast<int>(fanout);
  if (dim % 4 == 0 && dy % 16 == 0 && dx % 16 == 0)
    neighborMeanGradKernel<4>
        <<<gridFor(entries * dim / 4), kThreads, 0, stream()>>>(as<int32_t>(neighbors), entries, f, as<float>(dy), dim, as<float>(dx));
  else
    neighborMeanGradKernel<1>
        <<<gridFor(entries * dim), kThreads, 0, stream()>>>(as<int32_t>(neighbors), entries, f, as<float>(dy), dim, as<float>(dx));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// neighborMeanGrad(neighbors, numRows, fanout, dy, dim, dx, numInputs)
WM_OP(neighborMeanGrad, Device, a) {
  wm::neighborMeanGrad(a.address(0, "neighbors"), a.count(1, "numRows"), a.count(2, "fanout"), a.address(3, "dy"), a.count(4, "dim"),
                       a.address(5, "dx"), a.count(6, "numInputs"));
}
