// How a binary op's result is stored in its output dtype (bool: nonzero;
// int32 from float: as an Int32Array store would), for binary.cu and
// binary_scalar.cu.
#pragma once
#include <cstdint>

#include "wm/elementwise.h"

namespace wm {

template <typename To, typename V>
__device__ __forceinline__ To storeAs(V v) { return static_cast<To>(v); }
template <>
__device__ __forceinline__ uint8_t storeAs<uint8_t, float>(float v) { return v != 0.f; }
template <>
__device__ __forceinline__ uint8_t storeAs<uint8_t, int>(int v) { return v != 0; }
template <>
__device__ __forceinline__ int storeAs<int, float>(float v) { return scalar::doubleToInt32(v); }

}  // namespace wm
