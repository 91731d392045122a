// Dense optimizer steps over many tensors in one pass (one kernel launch on
// the GPU), the arithmetic in the order tfjs' own optimizers use, so a fused
// step gives what the optimizer's ops give.
#pragma once
#include <cstdint>
#include <vector>

namespace wm {

// tfjs' Adam: m' = b1 m + (1 - b1) g, v' = b2 v + (1 - b2) g^2,
// p' = p - lr * (m' / c1) / (sqrt(v' / c2) + eps) with c = 1 - beta^t.
// Each rounded to float32 from the double tfjs rounds it from: 1 - beta1 is
// computed in double before rounding, 1 - beta1^t in float32.
struct AdamScalars {
  float lr, beta1, beta2, epsilon;
  float oneMinusBeta1, oneMinusBeta2;
  float oneMinusAcc1, oneMinusAcc2;  // 1 - beta1^t, 1 - beta2^t
};

// One tensor's buffers: inputs param, grad, m, v; outputs param', m', v'
// (an output may be its input: the update is elementwise).
template <typename P>
struct AdamTensor {
  P param, grad, m, v, outParam, outM, outV;
  int64_t n;
};

void denseAdam(const std::vector<AdamTensor<uint64_t>>& tensors, const AdamScalars& s);

namespace host {
void denseAdam(const std::vector<AdamTensor<float*>>& tensors, const AdamScalars& s);
}  // namespace host

}  // namespace wm
