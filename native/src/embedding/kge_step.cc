// The KGE step on the CPU (the queries composed, kgeChunkLoss's host body, the gradients carried back),
// and the argument reader both bodies share.
#include "embedding/kge_step.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/parallel.h"
#include "wm/op_registry.h"

namespace wm {

KgeStepArgs kgeStepArgs(const OpArgs& a) {
  KgeStepArgs s;
  s.chunk = kgeChunkArgs(a);
  const int64_t compose = a.count(10, "compose");
  if (compose > 3)
    a.reject(10, "compose", "must be 0 (translate), 1 (diagonal), 2 (complex product) or 3 (rotate), got " + std::to_string(compose));
  s.compose = static_cast<KgeCompose>(compose);
  s.head = a.flag(11, "head");
  const double scale = a.number(12, "scale");
  if (!std::isfinite(scale)) a.reject(12, "scale", "must be finite");
  s.scale = static_cast<float>(scale);
  if ((s.compose == KgeCompose::ComplexProduct || s.compose == KgeCompose::Rotate) && s.chunk.width % 2 != 0)
    a.reject(5, "width", "must be even for a complex composition (real and imaginary halves), got " + std::to_string(s.chunk.width));
  return s;
}

namespace host {

void kgeStep(const KgeStepArgs& s, const float* rows, const float* relation, float* loss, float* dRows, float* dRelation) {
  const int64_t b = s.chunk.rows, w = s.chunk.width, rw = s.relationWidth(), coords = s.coords();
  if (b == 0) return;
  const int64_t fixedAt = s.head ? b * w : 0, ownAt = s.head ? 0 : b * w;
  std::vector<float> q(static_cast<size_t>(b * w)), dq(static_cast<size_t>(b * w));
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(w, 1));
  parallelFor(b, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      for (int64_t c = 0; c < coords; ++c) kge::compose(s, rows + fixedAt + i * w, relation + i * rw, c, q.data() + i * w);
  });
  kgeChunkLoss(s.chunk, q.data(), rows + ownAt, rows + 2 * b * w, loss, dq.data(), dRows + ownAt, dRows + 2 * b * w);
  parallelFor(b, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      for (int64_t c = 0; c < coords; ++c)
        kge::composeGrad(s, rows + fixedAt + i * w, relation + i * rw, dq.data() + i * w, c, dRows + fixedAt + i * w, dRelation + i * rw);
  });
}

}  // namespace host
}  // namespace wm

// kgeStep(scorer, lossKind, positives, chunk, negatives, width, margin, temperature, lossMargin, weight, compose, head, scale, rows,
// relation, loss, dRows, dRelation)
WM_OP(kgeStep, Host, a) {
  const wm::KgeStepArgs s = wm::kgeStepArgs(a);
  const int64_t b = s.chunk.rows, n = (2 * b + s.chunk.groups() * s.chunk.negatives) * s.chunk.width, r = b * s.relationWidth();
  wm::host::kgeStep(s, a.floats(13, "rows", n), a.floats(14, "relation", r), a.floats(15, "loss", b), a.floats(16, "dRows", n),
                    a.floats(17, "dRelation", r));
}
