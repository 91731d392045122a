// Knowledge-graph scores of groups of queries against groups of candidates on the CPU, every pair's
// score without the [queries, candidates, width] differences tfjs ops would hold: what ranking against
// every entity and a query's top candidates score. The scorers and their rules are the chunk loss's
// (kge_chunk_loss.h); the GPU scores through tfjs ops (a product for the dot and L2 scorers).
#include <string>

#include "embedding/kge_host_rows.h"
#include "runtime/parallel.h"
#include "wm/op_registry.h"

namespace wm {
namespace host {
namespace {

struct Scores {
  KgeScorer scorer;
  float margin;
  int64_t n, m, width;
  const float *q, *c;
  float* out;
};

// Query rows [lo, hi) of every group (row r of group r / n): each one's scores against its group's candidates.
template <KgeScorer S>
__attribute__((always_inline)) inline void scoreRows(const Scores& a, int64_t lo, int64_t hi) {
  const int64_t w = a.width;
  for (int64_t r = lo; r < hi; ++r) {
    const float* q = a.q + r * w;
    const float* c = a.c + (r / a.n) * a.m * w;
    float* out = a.out + r * a.m;
    for (int64_t j = 0; j < a.m; ++j) out[j] = kge::score<S>(raw<S>(q, c + j * w, w), a.margin);
  }
}

template <KgeScorer S>
void run(const Scores& a, int64_t rows) {
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(a.m * a.width, 1));
  parallelFor(rows, grain, [&](int64_t lo, int64_t hi) { widest<scoreRows<S>>(a, lo, hi); });
}

}  // namespace
}  // namespace host
}  // namespace wm

// kgeGroupScores(scorer, margin, groups, n, m, width, q, c, out): out [groups, n, m] = the scores of queries
// q [groups, n, width] against candidates c [groups, m, width], group by group.
WM_OP(kgeGroupScores, Host, a) {
  const int64_t scorer = a.count(0, "scorer");
  if (scorer > 3) a.reject(0, "scorer", "must be 0 (dot), 1 (L1), 2 (L2) or 3 (complex), got " + std::to_string(scorer));
  const double margin = a.number(1, "margin");
  if (!std::isfinite(margin)) a.reject(1, "margin", "must be finite");
  const int64_t groups = a.count(2, "groups"), n = a.count(3, "n"), m = a.count(4, "m"), width = a.count(5, "width");
  if (scorer == 3 && width % 2 != 0)
    a.reject(5, "width", "must be even for the complex scorer (real and imaginary halves), got " + std::to_string(width));
  wm::host::Scores s{
      static_cast<wm::KgeScorer>(scorer),   static_cast<float>(margin),        n, m, width, a.floats(6, "q", groups * n * width),
      a.floats(7, "c", groups * m * width), a.floats(8, "out", groups * n * m)};
  switch (s.scorer) {
    case wm::KgeScorer::Dot:
      return wm::host::run<wm::KgeScorer::Dot>(s, groups * n);
    case wm::KgeScorer::L1:
      return wm::host::run<wm::KgeScorer::L1>(s, groups * n);
    case wm::KgeScorer::L2:
      return wm::host::run<wm::KgeScorer::L2>(s, groups * n);
    case wm::KgeScorer::Complex:
      return wm::host::run<wm::KgeScorer::Complex>(s, groups * n);
  }
}
