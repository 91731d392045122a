// Kernels that give each row a group of lanes (row dots, the CSR product): a
// power of two up to a warp, enough that each lane holds at most a few
// vectors of the row; every group size is its own kernel instance.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace wm {
namespace lanes {

// Lanes per row of `vectors` vectors: the smallest power of two at least that, at most 32.
inline int forVectors(int64_t vectors) {
  int lanes = 1;
  while (lanes < 32 && lanes < vectors) lanes *= 2;
  return lanes;
}

// Lanes per row of d floats read as float4.
inline int forFloat4(int64_t d) { return forVectors((d + 3) / 4); }

// Calls f(std::integral_constant<int, lanes>{}) for lanes a power of two up to 32.
template <typename F>
void with(int lanes, F&& f) {
  switch (lanes) {
    case 1:
      f(std::integral_constant<int, 1>{});
      break;
    case 2:
      f(std::integral_constant<int, 2>{});
      break;
    case 4:
      f(std::integral_constant<int, 4>{});
      break;
    case 8:
      f(std::integral_constant<int, 8>{});
      break;
    case 16:
      f(std::integral_constant<int, 16>{});
      break;
    default:
      f(std::integral_constant<int, 32>{});
      break;
  }
}

template <int LANES>
__device__ __forceinline__ float groupSum(float v) {
  for (int s = LANES / 2; s > 0; s >>= 1) v += __shfl_xor_sync(0xffffffffu, v, s, LANES);
  return v;
}

}  // namespace lanes
}  // namespace wm
