// Elementwise unary ops and casts. Float inputs compute in float, int32/bool
// inputs in integers where the op keeps the integer dtype (as tfjs does).
#include <cmath>

#include "launch.cuh"

namespace wm {
namespace {

__device__ __forceinline__ float unaryF(int op, float x, float alpha, float beta) {
  switch (static_cast<UnaryOp>(op)) {
    case UnaryOp::Neg: return -x;
    case UnaryOp::Abs: return fabsf(x);
    case UnaryOp::Exp: return expf(x);
    case UnaryOp::Log: return logf(x);
    case UnaryOp::Log1p: return log1pf(x);
    case UnaryOp::Sqrt: return sqrtf(x);
    case UnaryOp::Rsqrt: return rsqrtf(x);
    case UnaryOp::Square: return x * x;
    // NaN must pass through: fmaxf(0, NaN) would give 0.
    case UnaryOp::Relu: return x != x ? x : (x > 0.f ? x : 0.f);
    case UnaryOp::Relu6: return x != x ? x : fminf(fmaxf(x, 0.f), 6.f);
    case UnaryOp::Elu: return x >= 0.f ? x : expm1f(x);
    case UnaryOp::LeakyRelu: return x < 0.f ? alpha * x : x;
    case UnaryOp::Sigmoid: return 1.f / (1.f + expf(-x));
    case UnaryOp::Tanh: return tanhf(x);
    case UnaryOp::Softplus: {
      // Thresholds of tfjs-backend-cpu, so both backends agree at the ends.
      const float threshold = -13.942385152878742f;  // log(2^-23) + 2
      if (x < threshold) return expf(x);
      if (x > -threshold) return x;
      return log1pf(expf(x));
    }
    case UnaryOp::Step: return x != x ? x : (x > 0.f ? 1.f : alpha);
    case UnaryOp::Cast: return x;
    case UnaryOp::LogicalNot: return x == 0.f ? 1.f : 0.f;
    case UnaryOp::Reciprocal: return 1.f / x;
    case UnaryOp::Floor: return floorf(x);
    case UnaryOp::Ceil: return ceilf(x);
    case UnaryOp::Sign: return x != x ? 0.f : (x > 0.f ? 1.f : (x < 0.f ? -1.f : 0.f));
    case UnaryOp::Sin: return sinf(x);
    case UnaryOp::Cos: return cosf(x);
    case UnaryOp::Expm1: return expm1f(x);
    case UnaryOp::Round: return rintf(x);  // half to even, as tfjs
    case UnaryOp::IsNan: return x != x ? 1.f : 0.f;
    case UnaryOp::Selu: {
      const float scale = 1.0507009873554804934193349852946f;
      const float a = 1.6732632423543772848170429916717f;
      return x >= 0.f ? scale * x : scale * a * expm1f(x);
    }
    case UnaryOp::ClipByValue: return x != x ? x : fminf(fmaxf(x, alpha), beta);
    case UnaryOp::Erf: return erff(x);
    case UnaryOp::Acos: return acosf(x);
    case UnaryOp::Asin: return asinf(x);
    case UnaryOp::Atan: return atanf(x);
    case UnaryOp::Sinh: return sinhf(x);
    case UnaryOp::Cosh: return coshf(x);
    case UnaryOp::Asinh: return asinhf(x);
    case UnaryOp::Acosh: return acoshf(x);
    case UnaryOp::Atanh: return atanhf(x);
    // In double: tanf drifts for large arguments where tfjs-backend-cpu's Math.tan does not.
    case UnaryOp::Tan: return static_cast<float>(tan(static_cast<double>(x)));
    case UnaryOp::IsInf: return isinf(x) ? 1.f : 0.f;
    case UnaryOp::IsFinite: return isfinite(x) ? 1.f : 0.f;
  }
  return x;
}

__device__ __forceinline__ int unaryI(int op, int x, float alpha, float beta) {
  switch (static_cast<UnaryOp>(op)) {
    case UnaryOp::Neg: return static_cast<int>(0u - static_cast<unsigned>(x));
    case UnaryOp::Abs: return x < 0 ? -x : x;
    case UnaryOp::Square: return static_cast<int>(static_cast<unsigned>(x) * static_cast<unsigned>(x));
    case UnaryOp::Relu: return x > 0 ? x : 0;
    case UnaryOp::Relu6: return x < 0 ? 0 : (x > 6 ? 6 : x);
    case UnaryOp::Cast: return x;
    case UnaryOp::LogicalNot: return x == 0;
    case UnaryOp::Sign: return (x > 0) - (x < 0);
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round: return x;
    case UnaryOp::IsNan: return 0;
    case UnaryOp::IsInf: return 0;
    case UnaryOp::IsFinite: return 1;
    default: return static_cast<int>(unaryF(op, static_cast<float>(x), alpha, beta));
  }
}

template <typename To>
__device__ __forceinline__ To convertF(float v) { return static_cast<To>(v); }
template <>
__device__ __forceinline__ int convertF<int>(float v) { return doubleToInt32(v); }
template <>
__device__ __forceinline__ uint8_t convertF<uint8_t>(float v) { return v != 0.f; }
template <typename To>
__device__ __forceinline__ To convertI(int v) { return static_cast<To>(v); }
template <>
__device__ __forceinline__ uint8_t convertI<uint8_t>(int v) { return v != 0; }

template <typename To>
__global__ void unaryFromFloat(int op, const float* x, To* y, int64_t n, float alpha, float beta) {
  WM_GRID_STRIDE(i, n) { y[i] = convertF<To>(unaryF(op, x[i], alpha, beta)); }
}

template <typename Ti, typename To>
__global__ void unaryFromInt(int op, const Ti* x, To* y, int64_t n, float alpha, float beta) {
  WM_GRID_STRIDE(i, n) {
    y[i] = convertI<To>(unaryI(op, static_cast<int>(x[i]), alpha, beta));
  }
}

// Ops whose integer result is computed in float (Exp of an int32, ...)
// produce float output; the caller chooses the output dtype.
template <typename Ti>
__global__ void unaryIntToFloat(int op, const Ti* x, float* y, int64_t n, float alpha, float beta) {
  WM_GRID_STRIDE(i, n) { y[i] = unaryF(op, static_cast<float>(x[i]), alpha, beta); }
}

template <typename Ti>
void launchFromInt(UnaryOp op, DType out, const Ti* x, uint64_t y, int64_t n,
                   float alpha, float beta) {
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

void unary(UnaryOp op, DType in, DType out, uint64_t x, uint64_t y, int64_t n,
           float alpha, float beta) {
  if (n == 0) return;
  auto s = stream();
  int o = static_cast<int>(op);
  switch (in) {
    case DType::F32:
      switch (out) {
        case DType::F32:
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
    case DType::I32: launchFromInt<int>(op, out, as<int>(x), y, n, alpha, beta); break;
    case DType::Bool: launchFromInt<uint8_t>(op, out, as<uint8_t>(x), y, n, alpha, beta); break;
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm
