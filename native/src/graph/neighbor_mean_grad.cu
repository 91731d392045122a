// Gradient of the fixed fan-out mean: dx[i] = sum of dy[r] / fanout over the entries (r, e) with
// neighbors[r * fanout + e] == i. The entries are sorted by the row they add into (stable: each row's adds
// in entry order), and a thread per 16-byte vector of dx sums its row's share in that order and writes it
// once: no zeroing pass, no atomics, the same bits every run, and dy (the layer's few output rows) read
// from cache, where adds scattered by atomics would each go to memory. Past 2^31 - 1 entries (beyond the
// sort's count) the adds go by atomics into a zeroed dx instead.
#include <algorithm>

#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "wm/op_registry.h"
#include "wm/graph_ops.h"
#include "wm/runtime.h"

namespace wm {
namespace {

// start[i] = the first sorted position whose row is at least i (a binary search in sortedRow), for i <= rows.
__global__ void rowStartsKernel(const int32_t* sortedRow, int64_t entries, int64_t rows, int32_t* start) {
  WM_GRID_STRIDE(i, rows + 1) {
    int64_t lo = 0, hi = entries;
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      if (sortedRow[mid] < i)
        lo = mid + 1;
      else
        hi = mid;
    }
    start[i] = static_cast<int32_t>(lo);
  }
}

template <int VEC>
__global__ void sumRowsKernel(const int32_t* start, const int32_t* sortedEntry, int64_t rows, int fanout, const float* dy, int64_t dim,
                              float* dx) {
  const float scale = 1.f / static_cast<float>(fanout);
  const int64_t perRow = dim / VEC;
  WM_GRID_STRIDE(t, rows * perRow) {
    const int64_t i = t / perRow, j = (t - i * perRow) * VEC;
    float acc[VEC];
#pragma unroll
    for (int c = 0; c < VEC; ++c) acc[c] = 0.f;
    for (int32_t p = start[i]; p < start[i + 1]; ++p) {
      const float* from = dy + static_cast<int64_t>(sortedEntry[p] / fanout) * dim + j;
      if constexpr (VEC == 4) {
        const float4 v = *reinterpret_cast<const float4*>(from);
        acc[0] += v.x * scale, acc[1] += v.y * scale, acc[2] += v.z * scale, acc[3] += v.w * scale;
      } else {
        acc[0] += from[0] * scale;
      }
    }
    float* to = dx + i * dim + j;
    if constexpr (VEC == 4)
      *reinterpret_cast<float4*>(to) = make_float4(acc[0], acc[1], acc[2], acc[3]);
    else
      to[0] = acc[0];
  }
}

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
  Scratch s;
  auto* sortedRow = s.get<int32_t>(entries);
  auto* sortedEntry = s.get<int32_t>(entries);
  auto* start = s.get<int32_t>(numInputs + 1);
  if (entries > 0) {
    auto* entry = s.get<int32_t>(entries);
    iota(entry, entries);
    radixSortPairs(s, as<int32_t>(neighbors), sortedRow, entry, sortedEntry, entries, bitsBelow(std::max<int64_t>(numInputs, 2)));
  }
  rowStartsKernel<<<gridFor(numInputs + 1), kThreads, 0, st>>>(sortedRow, entries, numInputs, start);
  WM_CUDA_LAUNCHED();
  if (dim % 4 == 0 && dy % 16 == 0 && dx % 16 == 0)
    sumRowsKernel<4>
        <<<gridFor(numInputs * dim / 4), kThreads, 0, st>>>(start, sortedEntry, numInputs, f, as<float>(dy), dim, as<float>(dx));
  else
    sumRowsKernel<1><<<gridFor(numInputs * dim), kThreads, 0, st>>>(start, sortedEntry, numInputs, f, as<float>(dy), dim, as<float>(dx));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// neighborMeanGrad(neighbors, numRows, fanout, dy, dim, dx, numInputs)
WM_OP(neighborMeanGrad, Device, a) {
  wm::neighborMeanGrad(a.address(0, "neighbors"), a.count(1, "numRows"), a.count(2, "fanout"), a.address(3, "dy"), a.count(4, "dim"),
                       a.address(5, "dx"), a.count(6, "numInputs"));
}
