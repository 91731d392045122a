// Which elements dropout keeps: a pure function of (seed, position), so the
// CUDA kernel and the host loop keep the same ones, the backward pass
// rebuilds the forward's mask from the seed, and a test can recompute it.
// 32-bit arithmetic (Wellons' lowbias32 hash) so the host loop vectorises:
// SplitMix64 per element took 10 % of the CPU main job. A key per seed and
// 2^32-element block; the hash of (position ^ key) gives a 24-bit draw u,
// kept when u >= threshold (rate * 2^24 rounded up).
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define WM_DHD __host__ __device__ __forceinline__
#else
#define WM_DHD inline
#endif

namespace wm {

WM_DHD uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// The key of elements [block * 2^32, (block + 1) * 2^32).
WM_DHD uint32_t dropoutKey(uint64_t seed, uint32_t block) {
  return hash32(static_cast<uint32_t>(seed) ^ hash32(static_cast<uint32_t>(seed >> 32) + 0x9e3779b9u * (block + 1)));
}

WM_DHD bool dropoutKeeps(uint32_t key, uint32_t position, uint32_t threshold) { return (hash32(position ^ key) >> 8) >= threshold; }

}  // namespace wm
