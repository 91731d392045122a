// Uniform neighbour sampling on the GPU: a thread per draw with replacement; without, a group of lanes per seed
// vertex (a thread per seed past a warp's fan-out). The rules of graph/sampling_rules.h (the CPU runs the same),
// draws keyed by the seed's position or, for exact data parallelism, by the vertex.
#include <cub/device/device_scan.cuh>

#include "runtime/lane_groups.cuh"
#include "runtime/launch.cuh"
#include "graph/vertex_guard.cuh"
#include "wm/runtime.h"
#include "graph/sampling_rules.h"

namespace wm {
namespace {

// A thread per draw: a seed's fan-out draws are independent, so each runs apart (its offsets read from
// L1 or L2 after the first), every warp's stores coalesced.
template <typename Off>
__global__ void withReplacement(const Off* rowPtr, const int32_t* colIdx, int64_t nv, const int32_t* seeds, int64_t n, int fanout,
                                uint64_t seed, int32_t* out, unsigned long long* err, bool byVertex) {
  WM_GRID_STRIDE(t, n * fanout) {
    const int64_t i = t / fanout;
    const int k = static_cast<int>(t - i * fanout);
    const int32_t v = seeds[i];
    if (v < 0 || v >= nv) {
      if (err && k == 0) atomicMin(err, static_cast<unsigned long long>(i));
      out[t] = 0;
      continue;
    }
    out[t] = drawWithReplacement(rowPtr, colIdx, v, byVertex ? v : i, k, seed);
  }
}

template <typename Off>
__global__ void counts(const Off* rowPtr, int64_t nv, const int32_t* seeds, int64_t n, int fanout, int32_t* c, unsigned long long* err) {
  WM_GRID_STRIDE(i, n) {
    const int32_t v = seeds[i];
    if (!startInGraph(v, nv, i, err, c, 1)) continue;
    const int64_t d = rowPtr[v + 1] - rowPtr[v];
    c[i] = static_cast<int32_t>(d < fanout ? d : fanout);
  }
}

template <typename Off>
__global__ void withoutReplacement(const Off* rowPtr, const int32_t* colIdx, int64_t nv, const int32_t* seeds, int64_t n, int fanout,
                                   uint64_t seed, const int32_t* offsets, int32_t* out, bool byVertex) {
  WM_GRID_STRIDE(i, n) {
    const int32_t v = seeds[i];
    if (!startInGraph(v, nv, i, nullptr, out, 0)) continue;  // counts() flagged it; its row has no entries
    sampleOneWithoutReplacement(rowPtr, colIdx, v, byVertex ? v : i, fanout, seed, out + offsets[i]);
  }
}

// A group of LANES lanes per seed (LANES >= fan-out, a power of two up to a warp), the same draws as the one-thread
// rule (sampleOneWithoutReplacement): a row of at most fan-out entries copied by the group; else Floyd's draws with
// lane q holding draw q's candidate position, resolved in draw order by the group's votes (draw q keeps its
// candidate unless an earlier draw chose it, then takes its own j), each lane then reading its entry. The row's
// reads and the output's writes are the group's, side by side, where a thread per seed walks them alone.
template <typename Off, int LANES>
__global__ void withoutReplacementGroups(const Off* rowPtr, const int32_t* colIdx, int64_t nv, const int32_t* seeds, int64_t n, int fanout,
                                         uint64_t seed, const int32_t* offsets, int32_t* out, bool byVertex) {
  const int lane = static_cast<int>(threadIdx.x % LANES);
  const unsigned mask = LANES == 32 ? 0xffffffffu : ((1u << LANES) - 1u) << (threadIdx.x % 32 / LANES * LANES);
  const int64_t perBlock = blockDim.x / LANES;
  for (int64_t i = blockIdx.x * perBlock + threadIdx.x / LANES; i < n; i += static_cast<int64_t>(gridDim.x) * perBlock) {
    const int32_t v = seeds[i];
    if (v < 0 || v >= nv) continue;  // counts() flagged it; its row has no entries
    const int64_t start = rowPtr[v], deg = rowPtr[v + 1] - start;
    int32_t* o = out + offsets[i];
    if (deg <= fanout) {
      for (int64_t k = lane; k < deg; k += LANES) o[k] = colIdx[start + k];
      continue;
    }
    const int64_t j = deg - fanout + lane;
    const uint64_t key = static_cast<uint64_t>(byVertex ? v : i);
    const int32_t candidate = lane < fanout ? static_cast<int32_t>(hashBelow(sampleHash(seed, key, static_cast<uint64_t>(j)), j + 1)) : -1;
    int32_t chosen = candidate;
    for (int q = 1; q < fanout; ++q) {
      const int32_t t = __shfl_sync(mask, candidate, q, LANES);
      if (__ballot_sync(mask, lane < q && chosen == t) && lane == q) chosen = static_cast<int32_t>(j);
    }
    if (lane < fanout) o[lane] = colIdx[start + chosen];
  }
}

template <typename Off>
void launchWithReplacement(uint64_t rowPtr, uint64_t colIdx, int64_t numVertices, uint64_t seeds, int64_t n, int fanout, uint64_t seed,
                           uint64_t out, uint64_t errorFlag, bool keyByVertex) {
  if (n == 0 || fanout == 0) return;
  withReplacement<Off><<<gridFor(n * fanout), kThreads, 0, stream()>>>(as<Off>(rowPtr), as<int32_t>(colIdx), numVertices,
                                                                       as<int32_t>(seeds), n, fanout, seed, as<int32_t>(out),
                                                                       reinterpret_cast<unsigned long long*>(errorFlag), keyByVertex);
  WM_CUDA_LAUNCHED();
}

template <typename Off>
void launchWithoutReplacement(uint64_t rowPtr, uint64_t colIdx, int64_t numVertices, uint64_t seeds, int64_t n, int fanout, uint64_t seed,
                              uint64_t offsets, uint64_t out, uint64_t errorFlag, bool keyByVertex) {
  cudaStream_t s = stream();
  auto* off = as<int32_t>(offsets);
  WM_CUDA(cudaMemsetAsync(off, 0, sizeof(int32_t), s));
  if (n == 0) return;
  counts<Off><<<gridFor(n), kThreads, 0, s>>>(as<Off>(rowPtr), numVertices, as<int32_t>(seeds), n, fanout, off + 1,
                                              reinterpret_cast<unsigned long long*>(errorFlag));
  WM_CUDA_LAUNCHED();
  size_t temp = 0;
  WM_CUDA(cub::DeviceScan::InclusiveSum(nullptr, temp, off + 1, off + 1, static_cast<int>(n), s));
  uint64_t scratch = deviceAlloc(temp);
  WM_CUDA(cub::DeviceScan::InclusiveSum(reinterpret_cast<void*>(scratch), temp, off + 1, off + 1, static_cast<int>(n), s));
  deviceFree(scratch);
  if (out == 0) return;  // sizing pass: the caller reads offsets[n]
  if (fanout <= 32) {
    lanes::with(lanes::forVectors(fanout), [&](auto g) {
      constexpr int kLanes = decltype(g)::value;
      withoutReplacementGroups<Off, kLanes><<<gridFor(n * kLanes), kThreads, 0, s>>>(
          as<Off>(rowPtr), as<int32_t>(colIdx), numVertices, as<int32_t>(seeds), n, fanout, seed, off, as<int32_t>(out), keyByVertex);
    });
  } else {
    withoutReplacement<Off><<<gridFor(n), kThreads, 0, s>>>(as<Off>(rowPtr), as<int32_t>(colIdx), numVertices, as<int32_t>(seeds), n,
                                                            fanout, seed, off, as<int32_t>(out), keyByVertex);
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace

void sampleWithReplacement(uint64_t rowPtr, uint64_t colIdx, int64_t numVertices, uint64_t seeds, int64_t n, int fanout, uint64_t seed,
                           uint64_t out, uint64_t errorFlag, bool keyByVertex, bool wideOffsets) {
  if (n == 0 || fanout == 0) return;
  (wideOffsets ? launchWithReplacement<int64_t> : launchWithReplacement<int32_t>)(rowPtr, colIdx, numVertices, seeds, n, fanout, seed, out,
                                                                                  errorFlag, keyByVertex);
}

void sampleWithoutReplacement(uint64_t rowPtr, uint64_t colIdx, int64_t numVertices, uint64_t seeds, int64_t n, int fanout, uint64_t seed,
                              uint64_t offsets, uint64_t out, uint64_t errorFlag, bool keyByVertex, bool wideOffsets) {
  (wideOffsets ? launchWithoutReplacement<int64_t> : launchWithoutReplacement<int32_t>)(rowPtr, colIdx, numVertices, seeds, n, fanout, seed,
                                                                                        offsets, out, errorFlag, keyByVertex);
}

}  // namespace wm
