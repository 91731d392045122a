// Shared launch helpers: grid sizing, grid-stride loops, 32-bit indexing where it fits.
#pragma once
#include <cstdint>

#include "runtime/check.h"

namespace wm {

constexpr int kThreads = 256;

inline unsigned gridFor(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks > 8192) blocks = 8192;  // grid-stride loops cover the rest
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

// Blocks of kThreads for a warp per row over `rows` rows (grid-stride loops cover past 65,535 blocks).
inline unsigned warpBlocks(int64_t rows) {
  const int64_t perBlock = kThreads / 32;
  const int64_t blocks = (rows + perBlock - 1) / perBlock;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > 65535 ? 65535 : blocks);
}

// Whether a launch over n elements may index in 32 bits.
inline bool narrowIndex(int64_t n) { return n <= static_cast<int64_t>(UINT32_MAX); }

#define WM_GRID_STRIDE(i, n) for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n); i += (int64_t)blockDim.x * gridDim.x)

template <typename T>
__host__ __device__ __forceinline__ T* as(uint64_t p) {
  return reinterpret_cast<T*>(p);
}

}  // namespace wm
