// Uniform neighbour sampling on the GPU: a thread per draw with replacement,
// per seed vertex without, the rules of graph/sampling_rules.h (the CPU runs
// the same), draws keyed by the seed's position or, for exact data
// parallelism, by the vertex.
#include <cub/device/device_scan.cuh>

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
  withoutReplacement<Off><<<gridFor(n), kThreads, 0, s>>>(as<Off>(rowPtr), as<int32_t>(colIdx), numVertices, as<int32_t>(seeds), n, fanout,
                                                          seed, off, as<int32_t>(out), keyByVertex);
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
