// A group of G lanes of a warp (G = 8, 16 or 32) working on one item: the graph attention kernels give each (row,
// head) a group as wide as the head's features (up to a warp), so narrow heads keep every lane busy. Reductions
// within the group in a fixed pattern (the result does not depend on timing); groups of one warp run apart.
#pragma once

#include <cstdint>
#include <type_traits>

namespace wm {

template <int G>
struct LaneGroup {
  static_assert(G == 8 || G == 16 || G == 32, "a lane group is 8, 16 or 32 lanes");
  unsigned mask;
  int sub;  // this lane's place in its group

  __device__ __forceinline__ LaneGroup() {
    const int lane = threadIdx.x & 31;
    sub = lane & (G - 1);
    mask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << (lane & ~(G - 1));
  }
  // The item of this lane's group under a grid-stride loop, and the loop's stride.
  __device__ __forceinline__ static int64_t first() { return (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / G; }
  __device__ __forceinline__ static int64_t stride() { return static_cast<int64_t>(gridDim.x) * blockDim.x / G; }

  __device__ __forceinline__ float sum(float v) const {
#pragma unroll
    for (int o = G / 2; o > 0; o >>= 1) v += __shfl_xor_sync(mask, v, o, G);
    return v;
  }
  __device__ __forceinline__ float max(float v) const {
#pragma unroll
    for (int o = G / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(mask, v, o, G));
    return v;
  }
  __device__ __forceinline__ void sync() const { __syncwarp(mask); }
};

// Calls f with the lane group's width (a std::integral_constant) for heads of `dim` features.
template <typename F>
void withLaneGroup(int64_t dim, F&& f) {
  if (dim <= 8)
    f(std::integral_constant<int, 8>{});
  else if (dim <= 16)
    f(std::integral_constant<int, 16>{});
  else
    f(std::integral_constant<int, 32>{});
}

}  // namespace wm
