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

__global__ void neighborMeanGradKernel(const int32_t* neighbors, int64_t entries, int fanout, const float* dy, int64_t dim, float* dx) {
  const float scale = 1.f / static_cast<float>(fanout);
  WM_GRID_STRIDE(t, entries * dim) {
    const int64_t entry = t / dim, j = t - entry * dim;
    const int64_t r = entry / fanout;
    atomicAdd(dx + static_cast<int64_t>(neighbors[entry]) * dim + j, dy[r * dim + j] * scale);
  }
}

}  // namespace

void neighborMeanGrad(uint64_t neighbors, int64_t numRows, int64_t fanout, uint64_t dy, int64_t dim, uint64_t dx, int64_t numInputs) {
  WM_REQUIRE(fanout >= 1 && fanout <= 0x7fffffff, "neighborMeanGrad: fanout must be a positive 32-bit integer");
  if (numInputs * dim == 0) return;
  WM_CUDA(cudaMemsetAsync(reinterpret_cast<void*>(dx), 0, numInputs * dim * sizeof(float), stream()));
  const int64_t entries = numRows * fanout;
  if (entries * dim == 0) return;
  neighborMeanGradKernel<<<gridFor(entries * dim), kThreads, 0, stream()>>>(as<int32_t>(neighbors), entries, static_cast<int>(fanout),
                                                                            as<float>(dy), dim, as<float>(dx));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// neighborMeanGrad(neighbors, numRows, fanout, dy, dim, dx, numInputs)
WM_OP(neighborMeanGrad, Device, a) {
  wm::neighborMeanGrad(a.address(0, "neighbors"), a.count(1, "numRows"), a.count(2, "fanout"), a.address(3, "dy"), a.count(4, "dim"),
                       a.address(5, "dx"), a.count(6, "numInputs"));
}
