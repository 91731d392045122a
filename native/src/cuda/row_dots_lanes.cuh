// What the row-dot kernels share: a group of lanes per row of a (a power of
// two up to a warp, enough that each lane holds at most a few float4 of it),
// float4 loads when rows are 16-byte aligned, sums across the group by shuffles.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace wm {
namespace rowdots {

// Lanes per row: the smallest power of two at least d/4, at most 32.
inline int lanesFor(int64_t d) {
  int lanes = 1;
  while (lanes < 32 && lanes * 4 < d) lanes *= 2;
  return lanes;
}

// Calls f(std::integral_constant<int, lanesFor(d)>{}): each kernel is compiled per group size.
template <typename F>
void withLanes(int64_t d, F&& f) {
  switch (lanesFor(d)) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    case 8: f(std::integral_constant<int, 8>{}); break;
    case 16: f(std::integral_constant<int, 16>{}); break;
    default: f(std::integral_constant<int, 32>{}); break;
  }
}

template <int LANES>
__device__ __forceinline__ float groupSum(float v) {
  for (int s = LANES / 2; s > 0; s >>= 1) v += __shfl_xor_sync(0xffffffffu, v, s, LANES);
  return v;
}

}  // namespace rowdots
}  // namespace wm
