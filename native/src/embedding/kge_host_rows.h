// The host's KGE scoring loops, shared by the chunk loss and the group scores on the CPU: a pair's raw value
// and a row's squared norm, in lanes (runtime/host_vectors.h, which has a row's sum and maximum).
// Host code only.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "embedding/kge_chunk_loss.h"
#include "runtime/host_vectors.h"
#include "runtime/vector_math.h"

namespace wm {
namespace host {

// A pair's raw value, summed in lanes.
template <KgeScorer S>
__attribute__((always_inline)) inline float raw(const float* q, const float* c, int64_t width) {
  const bool cx = S == KgeScorer::Complex;
  const int64_t n = cx ? width / 2 : width;
  return kge::finish<S>(laneSum(n, [&](int64_t k) { return kge::term<S>(q[k], c[k], cx ? q[n + k] : 0.f, cx ? c[n + k] : 0.f); }));
}

// Squared norm of a row, in lanes.
__attribute__((always_inline)) inline float squaredNorm(const float* x, int64_t w) {
  return laneSum(w, [x](int64_t e) { return x[e] * x[e]; });
}

}  // namespace host
}  // namespace wm
