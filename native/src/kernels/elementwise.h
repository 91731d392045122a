// The scalar definition of every elementwise op, written once and compiled
// both by nvcc (device kernels) and by the host compiler (CPU kernels), so
// the GPU and CPU paths compute the same function.
#pragma once
#include <cmath>
#include <cstdint>

#include "wm/dtype.h"

#ifdef __CUDACC__
#define WM_HD __host__ __device__
#define WM_HD_OP WM_HD inline
#else
#define WM_HD
// The host loops pass the op as a constant (withOpConstant in host/elementwise.cc)
// so that the switch folds away and the loop vectorises, which needs the op's
// function inlined: g++ judged unaryF too large to inline and called it per
// element (1 thread, 2^18 floats: tf.neg 381 µs against tf.mul's 115).
#define WM_HD_OP inline __attribute__((always_inline))
#endif

namespace wm {

// Each op's code: the TypeScript side (src/kernel_utils/op_codes.ts) uses the same order.
enum class UnaryOp : int {
  Neg = 0,
  Abs,
  Exp,
  Log,
  Log1p,
  Sqrt,
  Rsqrt,
  Square,
  Relu,
  Relu6,
  Elu,
  LeakyRelu,
  Sigmoid,
  Tanh,
  Softplus,
  Step,
  Cast,
  LogicalNot,
  Reciprocal,
  Floor,
  Ceil,
  Sign,
  Sin,
  Cos,
  Expm1,
  Round,
  IsNan,
  Selu,
  ClipByValue,
  Erf,
  Acos,
  Asin,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh,
  Tan,
  IsInf,
  IsFinite
};

enum class BinaryOp : int {
  Add = 0,
  Sub,
  Mul,
  Div,
  Maximum,
  Minimum,
  Pow,
  SquaredDifference,
  Equal,
  NotEqual,
  Less,
  LessEqual,
  Greater,
  GreaterEqual,
  LogicalAnd,
  LogicalOr,
  FloorDiv,
  Mod,
  Atan2,
  Prelu,
  DivNoNan,
  EluGrad,
  ReluGrad
};

namespace scalar {

#ifndef __CUDACC__
using std::isfinite;
using std::isinf;
inline float rsqrtf(float x) { return 1.f / std::sqrt(x); }
#endif

// JavaScript's ToInt32 (what storing into an Int32Array does): non-finite to
// 0, otherwise truncate and wrap modulo 2^32.
WM_HD inline int doubleToInt32(double v) {
  if (!isfinite(v)) return 0;
  double m = fmod(trunc(v), 4294967296.0);
  if (m < 0) m += 4294967296.0;
  return static_cast<int>(static_cast<unsigned>(m));
}

WM_HD_OP float unaryF(int op, float x, float alpha, float beta) {
  switch (static_cast<UnaryOp>(op)) {
    case UnaryOp::Neg:
      return -x;
    case UnaryOp::Abs:
      return fabsf(x);
    case UnaryOp::Exp:
      return expf(x);
    case UnaryOp::Log:
      return logf(x);
    case UnaryOp::Log1p:
      return log1pf(x);
    case UnaryOp::Sqrt:
      return sqrtf(x);
    case UnaryOp::Rsqrt:
      return rsqrtf(x);
    case UnaryOp::Square:
      return x * x;
    // NaN must pass through: fmaxf(0, NaN) would give 0.
    case UnaryOp::Relu:
      return x != x ? x : (x > 0.f ? x : 0.f);
    // Math.min(Math.max(0, x), 6) as selects (they vectorise; fminf/fmaxf did not): NaN passes, -0 gives +0.
    case UnaryOp::Relu6:
      return x <= 0.f ? 0.f : (x > 6.f ? 6.f : x);
    case UnaryOp::Elu:
      return x >= 0.f ? x : expm1f(x);
    case UnaryOp::LeakyRelu:
      return x < 0.f ? alpha * x : x;
    case UnaryOp::Sigmoid:
      return 1.f / (1.f + expf(-x));
    case UnaryOp::Tanh:
      return tanhf(x);
    case UnaryOp::Softplus: {
      // Thresholds of tfjs-backend-cpu, so both backends agree at the ends.
      const float threshold = -13.942385152878742f;  // log(2^-23) + 2
      if (x < threshold) return expf(x);
      if (x > -threshold) return x;
      return log1pf(expf(x));
    }
    case UnaryOp::Step:
      return x != x ? x : (x > 0.f ? 1.f : alpha);
    case UnaryOp::Cast:
      return x;
    case UnaryOp::LogicalNot:
      return x == 0.f ? 1.f : 0.f;
    case UnaryOp::Reciprocal:
      return 1.f / x;
    case UnaryOp::Floor:
      return floorf(x);
    case UnaryOp::Ceil:
      return ceilf(x);
    case UnaryOp::Sign:
      return x != x ? 0.f : (x > 0.f ? 1.f : (x < 0.f ? -1.f : 0.f));
    case UnaryOp::Sin:
      return sinf(x);
    case UnaryOp::Cos:
      return cosf(x);
    case UnaryOp::Expm1:
      return expm1f(x);
    case UnaryOp::Round:
      return rintf(x);  // half to even, as tfjs
    case UnaryOp::IsNan:
      return x != x ? 1.f : 0.f;
    case UnaryOp::Selu: {
      const float scale = 1.0507009873554804934193349852946f;
      const float a = 1.6732632423543772848170429916717f;
      return x >= 0.f ? scale * x : scale * a * expm1f(x);
    }
    // tfjs-backend-cpu's order of tests: NaN passes.
    case UnaryOp::ClipByValue:
      return x > beta ? beta : (x < alpha ? alpha : x);
    case UnaryOp::Erf:
      return erff(x);
    case UnaryOp::Acos:
      return acosf(x);
    case UnaryOp::Asin:
      return asinf(x);
    case UnaryOp::Atan:
      return atanf(x);
    case UnaryOp::Sinh:
      return sinhf(x);
    case UnaryOp::Cosh:
      return coshf(x);
    case UnaryOp::Asinh:
      return asinhf(x);
    case UnaryOp::Acosh:
      return acoshf(x);
    case UnaryOp::Atanh:
      return atanhf(x);
    // In double: tanf drifts for large arguments where tfjs-backend-cpu's Math.tan does not.
    case UnaryOp::Tan:
      return static_cast<float>(tan(static_cast<double>(x)));
    case UnaryOp::IsInf:
      return isinf(x) ? 1.f : 0.f;
    case UnaryOp::IsFinite:
      return isfinite(x) ? 1.f : 0.f;
  }
  return x;
}

WM_HD_OP int unaryI(int op, int x, float alpha, float beta) {
  switch (static_cast<UnaryOp>(op)) {
    case UnaryOp::Neg:
      return static_cast<int>(0u - static_cast<unsigned>(x));
    case UnaryOp::Abs:
      return x < 0 ? -x : x;
    case UnaryOp::Square:
      return static_cast<int>(static_cast<unsigned>(x) * static_cast<unsigned>(x));
    case UnaryOp::Relu:
      return x > 0 ? x : 0;
    case UnaryOp::Relu6:
      return x < 0 ? 0 : (x > 6 ? 6 : x);
    case UnaryOp::Cast:
      return x;
    case UnaryOp::LogicalNot:
      return x == 0;
    case UnaryOp::Sign:
      return (x > 0) - (x < 0);
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
      return x;
    case UnaryOp::IsNan:
      return 0;
    case UnaryOp::IsInf:
      return 0;
    case UnaryOp::IsFinite:
      return 1;
    default:
      return static_cast<int>(unaryF(op, static_cast<float>(x), alpha, beta));
  }
}

WM_HD_OP float binaryF(int op, float a, float b) {
  switch (static_cast<BinaryOp>(op)) {
    case BinaryOp::Add:
      return a + b;
    case BinaryOp::Sub:
      return a - b;
    case BinaryOp::Mul:
      return a * b;
    case BinaryOp::Div:
      return a / b;
    // Math.max / Math.min as selects: NaN propagates (a + b), +0 beats -0 in max
    // (+0 + -0 = +0) and loses in min (-(+0 + -0) = -0). fmaxf kept the host loops scalar.
    case BinaryOp::Maximum:
      return a > b ? a : b > a ? b : (a == b && a != 0.f) ? a : a + b;
    case BinaryOp::Minimum:
      return a < b ? a : b < a ? b : (a == b && a != 0.f) ? a : -(-a + -b);
    case BinaryOp::Pow:
      return static_cast<float>(pow(static_cast<double>(a), static_cast<double>(b)));
    case BinaryOp::SquaredDifference: {
      float d = a - b;
      return d * d;
    }
    case BinaryOp::Equal:
      return a == b;
    case BinaryOp::NotEqual:
      return a != b;
    case BinaryOp::Less:
      return a < b;
    case BinaryOp::LessEqual:
      return a <= b;
    case BinaryOp::Greater:
      return a > b;
    case BinaryOp::GreaterEqual:
      return a >= b;
    case BinaryOp::LogicalAnd:
      return (a != 0.f) && (b != 0.f);
    case BinaryOp::LogicalOr:
      return (a != 0.f) || (b != 0.f);
    case BinaryOp::FloorDiv:
      return static_cast<float>(floor(static_cast<double>(a) / static_cast<double>(b)));
    case BinaryOp::Mod: {
      float r = fmodf(a, b);
      // JavaScript's sign rule, as tfjs-backend-cpu: result takes b's sign.
      if ((a < 0 && b < 0) || (a >= 0 && b >= 0)) return r;
      return fmodf(r + b, b);
    }
    case BinaryOp::Atan2:
      return atan2f(a, b);
    case BinaryOp::Prelu:
      return a < 0.f ? b * a : a;
    case BinaryOp::DivNoNan:
      return b == 0.f ? 0.f : a / b;
    // a = dy, b = y (elu's output): elu'(x) = 1 where y >= 0, else y + 1.
    case BinaryOp::EluGrad:
      return b >= 0.f ? a : a * (b + 1.f);
    // a = dy, b = x: dy * step(x), tfjs' relu gradient in one pass (a NaN x gives NaN, an infinite dy at x <= 0 NaN).
    case BinaryOp::ReluGrad:
      return a * (b != b ? b : (b > 0.f ? 1.f : 0.f));
  }
  return 0.f;
}

// Integer power by squaring: the device's double pow is not exact for small
// integers (3^1 may come out as 2.9999999999999996 and truncate to 2).
WM_HD inline int intPow(int a, int b) {
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b & 1) ? -1 : 1;
    return 0;  // |a| > 1 gives a fraction, a == 0 gives Infinity: both store as 0
  }
  double r = 1.0, base = a;
  while (b) {
    if (b & 1) r *= base;
    base *= base;
    b >>= 1;
  }
  return doubleToInt32(r);
}

WM_HD_OP int binaryI(int op, int a, int b) {
  unsigned ua = static_cast<unsigned>(a), ub = static_cast<unsigned>(b);
  switch (static_cast<BinaryOp>(op)) {
    case BinaryOp::Add:
      return static_cast<int>(ua + ub);
    case BinaryOp::Sub:
      return static_cast<int>(ua - ub);
    case BinaryOp::Mul:
      return doubleToInt32(static_cast<double>(a) * static_cast<double>(b));
    case BinaryOp::Div:
      return doubleToInt32(static_cast<double>(a) / static_cast<double>(b));
    case BinaryOp::Maximum:
      return a > b ? a : b;
    case BinaryOp::Minimum:
      return a < b ? a : b;
    case BinaryOp::Pow:
      return intPow(a, b);
    case BinaryOp::SquaredDifference: {
      double d = static_cast<double>(a) - b;
      return doubleToInt32(d * d);
    }
    case BinaryOp::Equal:
      return a == b;
    case BinaryOp::NotEqual:
      return a != b;
    case BinaryOp::Less:
      return a < b;
    case BinaryOp::LessEqual:
      return a <= b;
    case BinaryOp::Greater:
      return a > b;
    case BinaryOp::GreaterEqual:
      return a >= b;
    case BinaryOp::LogicalAnd:
      return a && b;
    case BinaryOp::LogicalOr:
      return a || b;
    case BinaryOp::FloorDiv:
      return doubleToInt32(floor(static_cast<double>(a) / static_cast<double>(b)));
    case BinaryOp::Mod: {
      if (b == 0) return 0;  // NaN in JavaScript, stored as 0
      long long r = static_cast<long long>(a) % b;
      if ((a < 0 && b < 0) || (a >= 0 && b >= 0)) return static_cast<int>(r);
      return static_cast<int>((r + b) % b);
    }
    case BinaryOp::Atan2:
      return doubleToInt32(atan2(static_cast<double>(a), static_cast<double>(b)));
    case BinaryOp::Prelu:
      return a < 0 ? doubleToInt32(static_cast<double>(b) * a) : a;
    case BinaryOp::DivNoNan:
      return b == 0 ? 0 : doubleToInt32(static_cast<double>(a) / b);
    case BinaryOp::EluGrad:
      return b >= 0 ? a : doubleToInt32(static_cast<double>(a) * (static_cast<double>(b) + 1));
    case BinaryOp::ReluGrad:
      return b > 0 ? a : 0;
  }
  return 0;
}

}  // namespace scalar
}  // namespace wm
