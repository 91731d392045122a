// Elementwise unary ops and casts. Float inputs compute in float, int32/bool
// inputs in integers where the op keeps the integer dtype (as tfjs does).
#include <cmath>

#include "kernels/ops.h"
#include "runtime/launch.cuh"
#include "runtime/vec4.cuh"
#include "wm/op_registry.h"
#include "kernels/elementwise.h"

namespace wm {
namespace {

using scalar::doubleToInt32;
using scalar::unaryF;
using scalar::unaryI;

template <typename To>
__device__ __forceinline__ To convertF(float v) {
  return static_cast<To>(v);
}
template <>
__device__ __forceinline__ int convertF<int>(float v) {
  return doubleToInt32(v);
}
template <>
__device__ __forceinline__ uint8_t convertF<uint8_t>(float v) {
  return v != 0.f;
}
template <typename To>
__device__ __forceinline__ To convertI(int v) {
  return static_cast<To>(v);
}
template <>
__device__ __forceinline__ uint8_t convertI<uint8_t>(int v) {
  return v != 0;
}

template <typename To>
__global__ void unaryFromFloat(int op, const float* x, To* y, int64_t n, float alpha, float beta) {
  WM_GRID_STRIDE(i, n) { y[i] = convertF<To>(unaryF(op, x[i], alpha, beta)); }
}

__global__ void unaryFloat4(int op, const float* x, float* y, int64_t n, float alpha, float beta) {
  const auto f = [=](float v) { return unaryF(op, v, alpha, beta); };
  forEach4(
      n, [&](int64_t i) { store4(y + 4 * i, map4(load4(x + 4 * i), f)); }, [&](int64_t i) { y[i] = f(x[i]); });
}

template <typename Ti, typename To>
__global__ void unaryFromInt(int op, const Ti* x, To* y, int64_t n, float alpha, float beta) {
  WM_GRID_STRIDE(i, n) { y[i] = convertI<To>(unaryI(op, static_cast<int>(x[i]), alpha, beta)); }
}

// Ops whose integer result is computed in float (Exp of an int32, ...)
// produce float output; the caller chooses the output dtype.
template <typename Ti>
__global__ void unaryIntToFloat(int op, const Ti* x, float* y, int64_t n, float alpha, float beta) {
  WM_GRID_STRIDE(i, n) { y[i] = unaryF(op, static_cast<float>(x[i]), alpha, beta); }
}

template <typename Ti>
void launchFromInt(UnaryOp op, DType out, const Ti* x, uint64_t y, int64_t n, float alpha, float beta) {
  auto s = stream();
  int o = static_cast<int>(op);
  switch (out) {
    case DType::F32:
      if (op == UnaryOp::Cast)
        unaryFromInt<Ti, float><<<gridFor(n), kThreads, 0, s>>>(o, x, as<float>(y), n, alpha, beta);
      else
        unaryIntToFloat<Ti><<<gridFor(n), kThreads, 0, s>>>(o, x, as<float>(y), n, alpha, beta);
      break;
    case DType::I32:
      unaryFromInt<Ti, int><<<gridFor(n), kThreads, 0, s>>>(o, x, as<int>(y), n, alpha, beta);
      break;
    case DType::Bool:
      unaryFromInt<Ti, uint8_t><<<gridFor(n), kThreads, 0, s>>>(o, x, as<uint8_t>(y), n, alpha, beta);
      break;
  }
}

}  // namespace

void unary(UnaryOp op, DType in, DType out, uint64_t x, uint64_t y, int64_t n, float alpha, float beta) {
  if (n == 0) return;
  auto s = stream();
  int o = static_cast<int>(op);
  switch (in) {
    case DType::F32:
      switch (out) {
        case DType::F32:
          if (aligned16({x, y}))
            unaryFloat4<<<gridFor4((n + 3) / 4), kThreads, 0, s>>>(o, as<float>(x), as<float>(y), n, alpha, beta);
          else
            unaryFromFloat<float><<<gridFor(n), kThreads, 0, s>>>(o, as<float>(x), as<float>(y), n, alpha, beta);
          break;
        case DType::I32:
          unaryFromFloat<int><<<gridFor(n), kThreads, 0, s>>>(o, as<float>(x), as<int>(y), n, alpha, beta);
          break;
        case DType::Bool:
          unaryFromFloat<uint8_t><<<gridFor(n), kThreads, 0, s>>>(o, as<float>(x), as<uint8_t>(y), n, alpha, beta);
          break;
      }
      break;
    case DType::I32:
      launchFromInt<int>(op, out, as<int>(x), y, n, alpha, beta);
      break;
    case DType::Bool:
      launchFromInt<uint8_t>(op, out, as<uint8_t>(x), y, n, alpha, beta);
      break;
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// unary(op, dtypeIn, dtypeOut, x, y, n, alpha, beta)
WM_OP(unary, Device, a) {
  wm::unary(static_cast<wm::UnaryOp>(a.count(0, "op")), a.dtype(1, "dtypeIn"), a.dtype(2, "dtypeOut"), a.address(3, "x"), a.address(4, "y"),
            a.count(5, "n"), static_cast<float>(a.number(6, "alpha")), static_cast<float>(a.number(7, "beta")));
}
