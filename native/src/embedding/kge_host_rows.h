// The host's KGE scoring loops, shared by the chunk loss and the group scores on the CPU: a pair's raw value
// and the other sums over a row in lanes, and the dispatch of a pass to the widest vectors this CPU has.
// Host code only.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "embedding/kge_chunk_loss.h"
#include "runtime/cpu_features.h"
#include "runtime/vector_math.h"

namespace wm {
namespace host {

// A pair's raw value. The sum runs in kLanes partial sums (lane l takes coordinates l, l + kLanes, ...) added
// at the end: independent lanes the compiler keeps in vector registers, where one running sum is a chain of
// dependent scalar additions (a compiler may not reorder a floating-point sum by itself).
constexpr int64_t kLanes = 16;

template <KgeScorer S>
__attribute__((always_inline)) inline float raw(const float* q, const float* c, int64_t width) {
  const bool cx = S == KgeScorer::Complex;
  const int64_t n = cx ? width / 2 : width;
  float lanes[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] += kge::term<S>(q[k + l], c[k + l], cx ? q[n + k + l] : 0.f, cx ? c[n + k + l] : 0.f);
  float sum = 0.f;
  for (; k < n; ++k) sum += kge::term<S>(q[k], c[k], cx ? q[n + k] : 0.f, cx ? c[n + k] : 0.f);
  for (int64_t l = 0; l < kLanes; ++l) sum += lanes[l];
  return kge::finish<S>(sum);
}

// Sums and maxima over kLanes partial results, as raw() sums.
__attribute__((always_inline)) inline float laneSum(const float* x, int64_t n) {
  float lanes[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] += x[j + l];
  float sum = 0.f;
  for (; j < n; ++j) sum += x[j];
  for (int64_t l = 0; l < kLanes; ++l) sum += lanes[l];
  return sum;
}

__attribute__((always_inline)) inline float laneMax(const float* x, int64_t n) {
  float lanes[kLanes];
  std::fill(lanes, lanes + kLanes, -INFINITY);
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] = lanes[l] > x[j + l] ? lanes[l] : x[j + l];
  float mx = -INFINITY;
  for (; j < n; ++j) mx = mx > x[j] ? mx : x[j];
  for (int64_t l = 0; l < kLanes; ++l) mx = mx > lanes[l] ? mx : lanes[l];
  return mx;
}

// Squared norm of a row, in lanes.
__attribute__((always_inline)) inline float squaredNorm(const float* x, int64_t w) {
  float lanes[kLanes] = {};
  int64_t e = 0;
  for (; e + kLanes <= w; e += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] += x[e + l] * x[e + l];
  float sum = 0.f;
  for (; e < w; ++e) sum += x[e] * x[e];
  for (int64_t l = 0; l < kLanes; ++l) sum += lanes[l];
  return sum;
}

// Eight lanes (AVX2) or sixteen (AVX-512) where the baseline build has four: the L1, L2 and complex scorers
// are elementwise work (a square root per complex coordinate), not products. No FMA: AVX2's loops round as the
// baseline's; AVX-512's vector exp and log (libmvec) round within their documented error, not as the scalar
// ones (a run's loss can move in its fourth place). Pass P over [lo, hi) of what `Args` holds, compiled for
// each target; P is always inlined, so its loops (and the scorers' rules) compile for that target.
#ifdef WM_HOST_AVX2
template <typename Args, void (*P)(const Args&, int64_t, int64_t)>
__attribute__((target("avx2"))) void avx2(const Args& p, int64_t lo, int64_t hi) {
  P(p, lo, hi);
}
template <typename Args, void (*P)(const Args&, int64_t, int64_t)>
__attribute__((target("avx512f"))) void avx512(const Args& p, int64_t lo, int64_t hi) {
  P(p, lo, hi);
}
#endif

// Pass P over [lo, hi) with the widest vectors this CPU has.
template <typename Args, void (*P)(const Args&, int64_t, int64_t)>
void widest(const Args& p, int64_t lo, int64_t hi) {
#ifdef WM_HOST_AVX2
  if (hasAvx512()) return avx512<Args, P>(p, lo, hi);
  if (hasAvx2Fma()) return avx2<Args, P>(p, lo, hi);
#endif
  P(p, lo, hi);
}

}  // namespace host
}  // namespace wm
