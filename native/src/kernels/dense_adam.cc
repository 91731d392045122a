// Adam over every dense parameter of a step in one native loop (the CPU
// path of dense_adam.cu), in tfjs' float32 operation order.
#include <cmath>

#include "runtime/parallel.h"
#include "wm/dense_optimizer.h"
#include "wm/status.h"

namespace wm {
namespace host {

void denseAdam(const std::vector<AdamTensor<float*>>& tensors, const AdamScalars& s) {
  const float c1 = s.oneMinusBeta1, c2 = s.oneMinusBeta2, negLr = -s.lr;
  for (const auto& t : tensors) {
    WM_REQUIRE(t.n >= 0, "denseAdam: tensor sizes must be non-negative");
    parallelFor(t.n, 1 << 16, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const float g = t.grad[i];
        const float gc1 = g * c1, mb = t.m[i] * s.beta1;
        const float m = mb + gc1;
        const float g2 = g * g;
        const float v = t.v[i] * s.beta2 + g2 * c2;
        const float mHat = m / s.oneMinusAcc1, vHat = v / s.oneMinusAcc2;
        const float den = std::sqrt(vHat) + s.epsilon;
        const float step = (mHat / den) * negLr;
        const float p = step + t.param[i];
        t.outM[i] = m;
        t.outV[i] = v;
        t.outParam[i] = p;
      }
    });
  }
}

}  // namespace host
}  // namespace wm
