// A row's log-sum-exp for a warp: max and sum in one online pass over the
// row (each lane its strided elements, then a butterfly).
#pragma once
#include <cmath>

namespace wm {

__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float rowLogSumExp(const float* xr, int64_t n, int lane) {
  float m = -INFINITY, s = 0.f;
  for (int64_t c = lane; c < n; c += 32) {
    const float v = xr[c];
    if (v > m) {
      s = s * expf(m - v) + 1.f;
      m = v;
    } else {
      s += expf(v - m);
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
    const float mm = fmaxf(m, m2);
    // A lane that saw no element has m = -inf, s = 0: contributes nothing.
    s = (m == -INFINITY ? 0.f : s * expf(m - mm)) + (m2 == -INFINITY ? 0.f : s2 * expf(m2 - mm));
    m = mm;
  }
  return m + logf(s);
}

}  // namespace wm
