// The 64-bit mixer every seeded draw starts from (splitmix64's finaliser), for host and device code
// alike, and the qualifier that makes a small function both; and mulberry32, the generator of
// src/util/random.ts, for host code that must draw what the JavaScript draws.
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define WM_EHD __host__ __device__ __forceinline__
#else
#define WM_EHD inline
#endif

namespace wm {

WM_EHD uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// mulberry32 as src/util/random.ts writes it (all arithmetic mod 2^32): a double in [0, 1).
struct Mulberry32 {
  uint32_t a;
  double next() {
    a += 0x6d2b79f5u;
    uint32_t t = a;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
  }
};

}  // namespace wm
