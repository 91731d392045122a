// How a binary op's result is stored in its output dtype (bool: nonzero;
// int32 from float: as an Int32Array store would), and the float ops fixed at
// compile time, for binary.cu and binary_scalar.cu.
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/elementwise.h"

namespace wm {

template <typename To, typename V>
__device__ __forceinline__ To storeAs(V v) {
  return static_cast<To>(v);
}
template <>
__device__ __forceinline__ uint8_t storeAs<uint8_t, float>(float v) {
  return v != 0.f;
}
template <>
__device__ __forceinline__ uint8_t storeAs<uint8_t, int>(int v) {
  return v != 0;
}
template <>
__device__ __forceinline__ int storeAs<int, float>(float v) {
  return scalar::doubleToInt32(v);
}

// The float op of a float4 pass. The run-time switch over every op (pow in
// double, fmod...) takes a thread 45-50 registers, which leaves an SM 1280
// of its 2048 threads and the pass short of bandwidth: 1 x H200, [2^20, 128],
// x * 0.5 took 298 µs against ReLU's 271 (32 registers) and torch's 256.
// The common ops (and the ReLU gradient) are compiled as constants instead
// (kAnyOp: the switch).
// Capping the switch at 32 registers by __launch_bounds__ spilled, and was
// slower still (x * 0.5 at width 512: 1192 against 1143 µs).
constexpr int kAnyOp = -1;

template <int Op>
__device__ __forceinline__ float floatOp(int op, float a, float b) {
  return scalar::binaryF(Op == kAnyOp ? op : Op, a, b);
}

// f(std::integral_constant<int, Op>{}) with Op = op for the common ops, kAnyOp for the rest.
template <typename F>
void withFloatOp(int op, F&& f) {
  switch (static_cast<BinaryOp>(op)) {
    case BinaryOp::Add:
      f(std::integral_constant<int, static_cast<int>(BinaryOp::Add)>{});
      break;
    case BinaryOp::Sub:
      f(std::integral_constant<int, static_cast<int>(BinaryOp::Sub)>{});
      break;
    case BinaryOp::Mul:
      f(std::integral_constant<int, static_cast<int>(BinaryOp::Mul)>{});
      break;
    case BinaryOp::Div:
      f(std::integral_constant<int, static_cast<int>(BinaryOp::Div)>{});
      break;
    case BinaryOp::ReluGrad:
      f(std::integral_constant<int, static_cast<int>(BinaryOp::ReluGrad)>{});
      break;
    default:
      f(std::integral_constant<int, kAnyOp>{});
      break;
  }
}

}  // namespace wm
