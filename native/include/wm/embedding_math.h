// Storage conversions and the per-element optimizer rules, shared by the
// CUDA and the host implementations.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "wm/embedding.h"

#include "wm/hash.h"

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

namespace wm {

// 16-bit storage kept as raw bits so host code needs no CUDA headers.
struct Half16 {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

WM_EHD float bitsToFloat(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}
WM_EHD uint32_t floatToBits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}

WM_EHD float toFloat(float x) { return x; }
WM_EHD float toFloat(BFloat16 x) { return bitsToFloat(static_cast<uint32_t>(x.bits) << 16); }
WM_EHD float toFloat(Half16 x) {
#ifdef __CUDA_ARCH__
  return __half2float(__ushort_as_half(x.bits));
#else
  uint32_t sign = (x.bits & 0x8000u) << 16, exp = (x.bits >> 10) & 0x1f, man = x.bits & 0x3ffu;
  if (exp == 0) {
    if (man == 0) return bitsToFloat(sign);
    float f = std::ldexp(static_cast<float>(man), -24);  // subnormal
    return sign ? -f : f;
  }
  if (exp == 31) return bitsToFloat(sign | 0x7f800000u | (man << 13));
  return bitsToFloat(sign | ((exp + 112) << 23) | (man << 13));
#endif
}

template <typename T>
WM_EHD T fromFloat(float f);
template <>
WM_EHD float fromFloat<float>(float f) {
  return f;
}
// Round to nearest even, NaN stays NaN.
template <>
WM_EHD BFloat16 fromFloat<BFloat16>(float f) {
  uint32_t u = floatToBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return BFloat16{static_cast<uint16_t>((u >> 16) | 0x40)};
  u += 0x7fffu + ((u >> 16) & 1u);
  return BFloat16{static_cast<uint16_t>(u >> 16)};
}
template <>
WM_EHD Half16 fromFloat<Half16>(float f) {
#ifdef __CUDA_ARCH__
  return Half16{__half_as_ushort(__float2half_rn(f))};
#else
  uint32_t u = floatToBits(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return Half16{static_cast<uint16_t>(sign | 0x7e00u)};
  if (a >= 0x477ff000u) return Half16{static_cast<uint16_t>(sign | 0x7c00u)};  // overflow to inf
  if (a < 0x38800000u) {                                                       // subnormal or zero in half
    float m = bitsToFloat(a) * 16777216.f;                                     // scale by 2^24
    uint32_t r = static_cast<uint32_t>(std::nearbyint(m));
    return Half16{static_cast<uint16_t>(sign | r)};
  }
  uint32_t mant = a & 0x7fffffu, exp = (a >> 23) - 112;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return Half16{static_cast<uint16_t>(sign | h)};
#endif
}

// Counter-based random initial values: element e of a table seeded `seed`
// gets the same value on the GPU and on the CPU, with no state to carry.
WM_EHD float unitUniform(uint64_t h) { return static_cast<float>((h >> 40) + 0.5) * (1.f / 16777216.f); }  // (0, 1)
// kind 0: uniform in [-scale, scale]; 1: normal(0, scale); 2: zeros.
WM_EHD float initialValue(uint64_t seed, uint64_t element, int kind, float scale) {
  if (kind == 2) return 0.f;
  uint64_t h = splitmix64(seed * 0x632be59bd9b4e019ull + element);
  if (kind == 0) return scale * (2.f * unitUniform(h) - 1.f);
  float u1 = unitUniform(h), u2 = unitUniform(splitmix64(h));
  return scale * sqrtf(-2.f * logf(u1)) * cosf(6.283185307179586f * u2);
}

WM_EHD bool finite(float x) { return (floatToBits(x) & 0x7f800000u) != 0x7f800000u; }

// One element's update; returns false (nothing changed) for a non-finite g. The new values are made whatever
// g is and kept where it is finite (selects, not branches: the host's loops over a row run as vector loops).
WM_EHD bool applyRule(SparseOptimizer opt, const OptimizerParams& p, float& w, float* s0, float* s1, float g) {
  const bool ok = finite(g);
  g += p.weightDecay * w;
  float x = w;
  switch (opt) {
    case SparseOptimizer::SGD:
      x -= p.lr * g;
      break;
    case SparseOptimizer::Adam: {
      const float m = p.beta1 * *s0 + (1.f - p.beta1) * g;
      const float v = p.beta2 * *s1 + (1.f - p.beta2) * g * g;
      *s0 = ok ? m : *s0;
      *s1 = ok ? v : *s1;
      x -= p.lr * (m / p.biasCorrection1) / (sqrtf(v / p.biasCorrection2) + p.eps);
      break;
    }
    case SparseOptimizer::AdaGrad: {
      const float s = *s0 + g * g;
      *s0 = ok ? s : *s0;
      x -= p.lr * g / (sqrtf(s) + p.eps);
      break;
    }
    case SparseOptimizer::RMSProp: {
      const float s = p.rho * *s0 + (1.f - p.rho) * g * g;
      *s0 = ok ? s : *s0;
      x -= p.lr * g / (sqrtf(s) + p.eps);
      break;
    }
    case SparseOptimizer::RowAdaGrad:  // a rule per row: rowAdaGradSquare, then rowAdaGradStep
      return false;
  }
  w = ok ? x : w;
  return ok;
}

// Row-wise AdaGrad, in two passes over a row's summed gradient g: each finite element's square (weight decay
// added), whose mean over the row's dim elements the row's state grows by; then each finite element's step
// against the new state. Non-finite elements add nothing and keep their values (false).
WM_EHD float rowAdaGradSquare(const OptimizerParams& p, float w, float g) {
  const float d = g + p.weightDecay * w;
  return finite(g) ? d * d : 0.f;
}
WM_EHD bool rowAdaGradStep(const OptimizerParams& p, float& w, float g, float rowState) {
  const bool ok = finite(g);
  const float x = w - p.lr * (g + p.weightDecay * w) / (sqrtf(rowState) + p.eps);
  w = ok ? x : w;
  return ok;
}

}  // namespace wm
