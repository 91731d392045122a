// Which elements dropout keeps: a pure function of (seed, position), so the
// CUDA kernel and the host loop keep the same ones, the backward pass
// rebuilds the forward's mask from the seed, and a test can recompute it.
// SplitMix64's finaliser over seed + (i + 1) * golden ratio; the top 24 bits
// are a uniform draw u in [0, 2^24), kept when u >= threshold (rate * 2^24,
// rounded up: see dropoutThreshold).
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define WM_DHD __host__ __device__ __forceinline__
#else
#define WM_DHD inline
#endif

namespace wm {

WM_DHD uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

WM_DHD bool dropoutKeeps(uint64_t seed, int64_t i, uint32_t threshold) {
  const uint64_t h = mix64(seed + static_cast<uint64_t>(i + 1) * 0x9E3779B97F4A7C15ull);
  return static_cast<uint32_t>(h >> 40) >= threshold;
}

}  // namespace wm
