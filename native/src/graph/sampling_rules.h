// The per-seed sampling rules, shared by the CUDA and host implementations.
#pragma once
#include "wm/sampling.h"

namespace wm {

// Off: the row offsets' type (int32 for graphs from JavaScript arrays, int64 for native graphs).
// Draw k of vertex v's (keyed by i): a uniform neighbour, or v itself where it has none.
template <typename Off>
WM_EHD int32_t drawWithReplacement(const Off* rowPtr, const int32_t* colIdx, int32_t v, int64_t i, int k, uint64_t seed) {
  const int64_t start = rowPtr[v], deg = rowPtr[v + 1] - start;
  return deg == 0 ? v : colIdx[start + hashBelow(sampleHash(seed, i, k), deg)];
}

template <typename Off>
WM_EHD void sampleOneWithReplacement(const Off* rowPtr, const int32_t* colIdx, int32_t v, int64_t i, int fanout, uint64_t seed,
                                     int32_t* out) {
  for (int k = 0; k < fanout; ++k) out[k] = drawWithReplacement(rowPtr, colIdx, v, i, k, seed);
}

// Floyd's algorithm: `take` distinct positions out of deg, O(take^2) checks
// (fan-outs are small), no scratch beyond the output.
template <typename Off>
WM_EHD void sampleOneWithoutReplacement(const Off* rowPtr, const int32_t* colIdx, int32_t v, int64_t i, int fanout, uint64_t seed,
                                        int32_t* out) {
  int64_t start = rowPtr[v], deg = rowPtr[v + 1] - start;
  if (deg <= fanout) {
    for (int64_t k = 0; k < deg; ++k) out[k] = colIdx[start + k];
    return;
  }
  int taken = 0;
  for (int64_t j = deg - fanout; j < deg; ++j) {
    int64_t t = hashBelow(sampleHash(seed, i, static_cast<uint64_t>(j)), j + 1);
    bool seen = false;
    for (int q = 0; q < taken; ++q) seen = seen || out[q] == static_cast<int32_t>(t);
    // Positions within the row (< deg < 2^31) are tracked first, mapped to vertices below.
    out[taken++] = static_cast<int32_t>(seen ? j : t);
  }
  for (int q = 0; q < taken; ++q) out[q] = colIdx[start + out[q]];
}

}  // namespace wm
