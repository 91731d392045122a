// Float kernels that stream memory four floats at a time: one 16-byte load or
// store moves what four 4-byte ones did, which is what lets an elementwise
// pass reach the GPU's memory bandwidth (1 x H100, [2^20, 128] float32, ms
// per call, ours before / after / PyTorch: ReLU 0.46 / 0.40 / 0.38; a bias
// row added, whose index took a 64-bit division per element, 1.01 / 0.41 / 0.45).
// Binary passes fix the common ops at compile time (binary_store.cuh's
// floatOp): on an H100 that looked like no gain, on an H200, whose memory
// is faster, the run-time switch's registers cost 8-12%.
#pragma once
#include <cstdint>
#include <initializer_list>

#include "runtime/launch.cuh"

namespace wm {

__device__ __forceinline__ float4 load4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void store4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }
__device__ __forceinline__ float4 splat4(float v) { return make_float4(v, v, v, v); }

template <typename F>
__device__ __forceinline__ float4 map4(float4 a, F f) {
  return make_float4(f(a.x), f(a.y), f(a.z), f(a.w));
}
template <typename F>
__device__ __forceinline__ float4 zip4(float4 a, float4 b, F f) {
  return make_float4(f(a.x, b.x), f(a.y, b.y), f(a.z, b.z), f(a.w, b.w));
}

// Whether every pointer may be read as float4 (tensors that are views into
// another tensor's buffer can start anywhere).
inline bool aligned16(std::initializer_list<uint64_t> ptrs) {
  for (uint64_t p : ptrs)
    if (p % 16) return false;
  return true;
}

// Blocks for a float4 pass over n4 vectors: one vector per thread, not
// gridFor's cap of 8192 blocks striding. 1 x H200, [2^20, 128] float32, µs
// per call, capped / one per thread (torch): ReLU 270 / 258 (256), x + y
// (ops fixed at compile time) 391 / 376 (373); at width 512 ReLU 1082 / 1002
// (1014). Kernels still stride, so any n is covered.
inline unsigned gridFor4(int64_t n4) {
  const int64_t blocks = (n4 + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > INT32_MAX ? INT32_MAX : blocks);
}

// Calls vec(i) for each of the n / 4 whole float4s (grid-stride) and one(i)
// for each of the last n % 4 elements. (Loading four float4s per thread
// before storing any was slower: 1 x H100, ReLU on [2^20, 512] 1.59 ms
// against 1.52.)
template <typename Vec, typename One>
__device__ __forceinline__ void forEach4(int64_t n, Vec vec, One one) {
  const int64_t n4 = n / 4;
  WM_GRID_STRIDE(i, n4) vec(i);
  const int64_t tail = 4 * n4 + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (tail < n) one(tail);
}

// Calls f(r, c4, k) for every row r and float4 column c4 of a [rows, cols4 * 4]
// matrix, k = r * cols4 + c4 (grid-stride over k; I is
// uint32_t where rows * cols4 fits it: a 64-bit division costs several).
template <typename I, typename F>
__device__ __forceinline__ void forEachRow4(int64_t rows, int64_t cols4, F f) {
  const I c4s = static_cast<I>(cols4);
  WM_GRID_STRIDE(k, rows * cols4) {
    const I kk = static_cast<I>(k);
    const I r = kk / c4s;
    f(r, kk - r * c4s, k);
  }
}

}  // namespace wm
