// Uniform neighbour sampling over a CSR graph, the same on the GPU and the
// CPU: choices come from a counter-based hash of (seed, seed position, draw),
// so a run is reproducible and both devices pick the same neighbours.
#pragma once
#include <cstdint>

#include "wm/hash.h"

namespace wm {

WM_EHD uint64_t sampleHash(uint64_t seed, uint64_t i, uint64_t k) {
  return splitmix64(splitmix64(seed ^ 0x5bd1e9955bd1e995ull) + i * 0x9e3779b97f4a7c15ull + k);
}

// Uniform integer in [0, n) from a 64-bit hash (multiply-shift, no modulo bias to speak of).
WM_EHD int64_t hashBelow(uint64_t h, int64_t n) {
  return static_cast<int64_t>((static_cast<unsigned __int128>(h) * static_cast<uint64_t>(n)) >> 64);
}

// Device: out[i * fanout + k] = a uniformly chosen neighbour of seeds[i]
// (with replacement; a vertex without neighbours samples itself).
// wideOffsets: rowPtr holds int64 offsets (a native graph's), else int32.
void sampleWithReplacement(uint64_t rowPtr, uint64_t colIdx, int64_t numVertices, uint64_t seeds, int64_t n, int fanout, uint64_t seed,
                           uint64_t out, uint64_t errorFlag, bool keyByVertex = false, bool wideOffsets = false);
// Device: up to fanout distinct neighbours per seed (all when fewer), at
// out[offsets[i] ..]; offsets (n + 1 entries) are computed here.
void sampleWithoutReplacement(uint64_t rowPtr, uint64_t colIdx, int64_t numVertices, uint64_t seeds, int64_t n, int fanout, uint64_t seed,
                              uint64_t offsets, uint64_t out, uint64_t errorFlag, bool keyByVertex = false, bool wideOffsets = false);

namespace host {
// keyByVertex: draws keyed by the seed vertex instead of its position, so a
// vertex gets the same neighbours whichever call (or process) samples it.
// rowPtr: int32 offsets (graphs from JavaScript arrays) or int64 (native graphs).
template <typename Off>
int64_t sampleWithReplacement(const Off* rowPtr, const int32_t* colIdx, int64_t nnz, int64_t numVertices, const int32_t* seeds, int64_t n,
                              int fanout, uint64_t seed, int32_t* out, bool keyByVertex = false);
// offsets must hold n + 1 entries; out must hold offsets[n] (call with out = null first to size it).
template <typename Off>
int64_t sampleWithoutReplacement(const Off* rowPtr, const int32_t* colIdx, int64_t nnz, int64_t numVertices, const int32_t* seeds,
                                 int64_t n, int fanout, uint64_t seed, int32_t* offsets, int32_t* out, bool keyByVertex = false);
}  // namespace host

}  // namespace wm
