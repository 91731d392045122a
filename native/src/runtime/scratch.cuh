// What multi-step device operations share: stream-ordered scratch, freed
// when the operation returns (or throws; the pool reuses it only after the
// work queued), a stable radix sort of (key, int32) pairs, and iota.
#pragma once
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <vector>

#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "wm/runtime.h"

namespace wm {

struct Scratch {
  std::vector<uint64_t> ptrs;
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <typename T>
  T* get(int64_t count) {
    uint64_t p = deviceAlloc(static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(T));
    ptrs.push_back(p);
    return reinterpret_cast<T*>(p);
  }
  ~Scratch() {
    for (auto p : ptrs) deviceFree(p);
  }
};

template <typename T>
__global__ void iotaKernel(T* out, int64_t n) {
  WM_GRID_STRIDE(i, n) out[i] = static_cast<T>(i);
}

inline void iota(int32_t* out, int64_t n) {
  if (n == 0) return;
  iotaKernel<int32_t><<<gridFor(n), kThreads, 0, stream()>>>(out, n);
  WM_CUDA_LAUNCHED();
}

// Stable sort of (key, value) pairs by the low `bits` bits of the keys.
template <typename K>
void radixSortPairs(Scratch& s, const K* keys, K* keysOut, const int32_t* vals, int32_t* valsOut, int64_t n, int bits) {
  size_t temp = 0;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, temp, keys, keysOut, vals, valsOut, static_cast<int>(n), 0, bits, stream()));
  void* t = s.get<uint8_t>(static_cast<int64_t>(temp));
  WM_CUDA(cub::DeviceRadixSort::SortPairs(t, temp, keys, keysOut, vals, valsOut, static_cast<int>(n), 0, bits, stream()));
}

// Bits needed for values below `limit`.
inline int bitsBelow(int64_t limit) {
  int bits = 1;
  while ((int64_t{1} << bits) < limit) ++bits;
  return bits;
}

}  // namespace wm
