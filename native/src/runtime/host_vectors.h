// Host loops written once for every vector width: sums in lanes the compiler keeps in vector registers, and a
// call compiled for AVX2 and AVX-512 as well as the baseline, run with the widest this CPU has. Host code only.
#pragma once
#include <cstdint>
#include <utility>

#include "runtime/cpu_features.h"

namespace wm {
namespace host {

// The sum of term(0) .. term(n - 1) in kLanes partial sums (lane l takes l, l + kLanes, ...; the rest after),
// added at the end: independent lanes in vector registers, where one running sum is a chain of dependent scalar
// additions (a compiler may not reorder a floating-point sum by itself).
constexpr int64_t kLanes = 16;

template <typename Term>
__attribute__((always_inline)) inline float laneSum(int64_t n, Term&& term) {
  float lanes[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] += term(k + l);
  float sum = 0.f;
  for (; k < n; ++k) sum += term(k);
  for (int64_t l = 0; l < kLanes; ++l) sum += lanes[l];
  return sum;
}

// The sum of x[0] .. x[n - 1], in lanes.
__attribute__((always_inline)) inline float rowSum(const float* x, int64_t n) {
  return laneSum(n, [x](int64_t j) { return x[j]; });
}

// The largest of x[0] .. x[n - 1] (-infinity for none), in kLanes partial maxima.
__attribute__((always_inline)) inline float laneMax(const float* x, int64_t n) {
  float lanes[kLanes];
  for (int64_t l = 0; l < kLanes; ++l) lanes[l] = -__builtin_inff();
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] = lanes[l] > x[k + l] ? lanes[l] : x[k + l];
  float mx = -__builtin_inff();
  for (; k < n; ++k) mx = mx > x[k] ? mx : x[k];
  for (int64_t l = 0; l < kLanes; ++l) mx = mx > lanes[l] ? mx : lanes[l];
  return mx;
}

// F(args...) compiled for each target; F is always inlined, so its loops compile for that target. AVX2 without FMA
// rounds as the baseline does; AVX-512's vector exp and log (libmvec) round within their documented error.
#ifdef WM_HOST_AVX2
template <auto F, typename... A>
__attribute__((target("avx2"))) auto onAvx2(A&&... a) {
  return F(std::forward<A>(a)...);
}
template <auto F, typename... A>
__attribute__((target("avx512f"))) auto onAvx512(A&&... a) {
  return F(std::forward<A>(a)...);
}
#endif

// F(args...) with the widest vectors this CPU has (eight lanes with AVX2, sixteen with AVX-512, four without).
template <auto F, typename... A>
auto widest(A&&... a) {
#ifdef WM_HOST_AVX2
  if (hasAvx512()) return onAvx512<F>(std::forward<A>(a)...);
  if (hasAvx2Fma()) return onAvx2<F>(std::forward<A>(a)...);
#endif
  return F(std::forward<A>(a)...);
}

}  // namespace host
}  // namespace wm
