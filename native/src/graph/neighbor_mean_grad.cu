// Gradient of the fixed fan-out mean: dx[i] = sum of dy[r] / fanout over the entries (r, e) with
// neighbors[r * fanout + e] == i, as a gather over the entries sorted by the row they add into
// (graph/sorted_scatter.cuh: no zeroing pass, no atomics, the same bits every run). Past 2^31 - 1 entries (beyond the
// sort's count) the adds go by atomics into a zeroed dx instead.
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"
#include "wm/graph_ops.h"
#include "wm/runtime.h"
#include "graph/sorted_scatter.cuh"

namespace wm {
namespace {

// Entry e of a fixed fan-out: output row e / fanout, weighing 1 / fanout.
struct FixedFanout {
  int fanout;
  float scale;
  __device__ int64_t row(int32_t e) const { return e / fanout; }
  __device__ float coef(int32_t) const { return scale; }
};

__global__ void atomicAddsKernel(const int32_t* neighbors, int64_t entries, int fanout, const float* dy, int64_t dim, float* dx) {
  const float scale = 1.f / static_cast<float>(fanout);
  WM_GRID_STRIDE(t, entries * dim) {
    const int64_t entry = t / dim, j = t - entry * dim;
    atomicAdd(dx + static_cast<int64_t>(neighbors[entry]) * dim + j, dy[(entry / fanout) * dim + j] * scale);
  }
}

}  // namespace

void neighborMeanGrad(uint64_t neighbors, int64_t numRows, int64_t fanout, uint64_t dy, int64_t dim, uint64_t dx, int64_t numInputs) {
  WM_REQUIRE(fanout >= 1 && fanout <= 0x7fffffff, "neighborMeanGrad: fanout must be a positive 32-bit integer");
  WM_REQUIRE(numInputs >= 0 && numInputs < (int64_t{1} << 31), "neighborMeanGrad: at most 2^31 - 1 input rows");
  if (numInputs * dim == 0) return;
  const int64_t entries = numRows * fanout;
  const int f = static_cast<int>(fanout);
  cudaStream_t st = stream();
  if (entries >= (int64_t{1} << 31)) {
    WM_CUDA(cudaMemsetAsync(reinterpret_cast<void*>(dx), 0, numInputs * dim * sizeof(float), st));
    atomicAddsKernel<<<gridFor(entries * dim), kThreads, 0, st>>>(as<int32_t>(neighbors), entries, f, as<float>(dy), dim, as<float>(dx));
    WM_CUDA_LAUNCHED();
    return;
  }
  scatterSorted(as<int32_t>(neighbors), entries, numInputs, FixedFanout{f, 1.f / static_cast<float>(f)}, as<float>(dy), dim, as<float>(dx));
}

}  // namespace wm

// neighborMeanGrad(neighbors, numRows, fanout, dy, dim, dx, numInputs)
WM_OP(neighborMeanGrad, Device, a) {
  wm::neighborMeanGrad(a.address(0, "neighbors"), a.count(1, "numRows"), a.count(2, "fanout"), a.address(3, "dy"), a.count(4, "dim"),
                       a.address(5, "dx"), a.count(6, "numInputs"));
}
