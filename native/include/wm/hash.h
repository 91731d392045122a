// The 64-bit mixer every seeded draw starts from (splitmix64's finaliser), for host and device code
// alike, and the qualifier that makes a small function both.
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

}  // namespace wm
