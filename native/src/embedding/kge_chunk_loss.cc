// The KGE chunk loss on the CPU (the GPU's definitions, wm::kge's per-coordinate rules), and the
// argument reader both bodies share.
#include "embedding/kge_chunk_loss.h"

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/host_ops.h"
#include "runtime/cpu_features.h"
#include "runtime/parallel.h"
#include "wm/op_registry.h"

namespace wm {

KgeChunkArgs kgeChunkArgs(const OpArgs& a) {
  KgeChunkArgs k;
  const int64_t scorer = a.count(0, "scorer"), loss = a.count(1, "lossKind");
  if (scorer > 3) a.reject(0, "scorer", "must be 0 (dot), 1 (L1), 2 (L2) or 3 (complex), got " + std::to_string(scorer));
  if (loss > 1) a.reject(1, "lossKind", "must be 0 (logistic) or 1 (margin), got " + std::to_string(loss));
  k.scorer = static_cast<KgeScorer>(scorer);
  k.loss = static_cast<KgeLoss>(loss);
  k.rows = a.count(2, "rows");
  k.chunk = a.count(3, "chunk");
  k.negatives = a.count(4, "negatives");
  k.width = a.count(5, "width");
  if (k.chunk < 1) a.reject(3, "chunk", "must be at least 1, got 0");
  if (k.rows % k.chunk != 0)
    a.reject(3, "chunk", "must divide rows (" + std::to_string(k.rows) + ") into whole groups, got " + std::to_string(k.chunk));
  if (k.negatives < 1) a.reject(4, "negatives", "must be at least 1, got 0");
  if (k.scorer == KgeScorer::Complex && k.width % 2 != 0)
    a.reject(5, "width", "must be even for the complex scorer (real and imaginary halves), got " + std::to_string(k.width));
  const double margin = a.number(6, "margin"), temperature = a.number(7, "temperature"), lossMargin = a.number(8, "lossMargin");
  if (!std::isfinite(margin)) a.reject(6, "margin", "must be finite");
  if (!(std::isfinite(temperature) && temperature >= 0)) a.reject(7, "temperature", "must be a finite number >= 0");
  if (!(std::isfinite(lossMargin) && lossMargin >= 0)) a.reject(8, "lossMargin", "must be a finite number >= 0");
  k.margin = static_cast<float>(margin);
  k.temperature = static_cast<float>(temperature);
  k.lossMargin = static_cast<float>(lossMargin);
  const double weight = a.number(9, "weight");
  if (!std::isfinite(weight)) a.reject(9, "weight", "must be finite");
  k.weight = static_cast<float>(weight);
  return k;
}

namespace host {
namespace {

template <KgeScorer S>
__attribute__((always_inline)) inline float raw(const float* q, const float* c, int64_t width) {
  float sum = 0.f;
  if (S == KgeScorer::Complex) {
    const int64_t h = width / 2;
    for (int64_t k = 0; k < h; ++k) sum += kge::term<S>(q[k], c[k], q[h + k], c[h + k]);
  } else {
    for (int64_t k = 0; k < width; ++k) sum += kge::term<S>(q[k], c[k], 0.f, 0.f);
  }
  return kge::finish<S>(sum);
}

// out (+)= g * d term / d q over a pair's coordinates; the candidate's side with `candidate`.
template <KgeScorer S>
__attribute__((always_inline)) inline void addGrad(const float* q, const float* c, int64_t width, float g, bool candidate, float* out) {
  const int64_t n = S == KgeScorer::Complex ? width / 2 : width;
  for (int64_t k = 0; k < n; ++k) {
    float re = 0.f, im = 0.f;
    const bool cx = S == KgeScorer::Complex;
    kge::termGrad<S>(q[k], c[k], cx ? q[n + k] : 0.f, cx ? c[n + k] : 0.f, &re, &im);
    if (candidate) {
      if (S == KgeScorer::Dot)
        re = q[k];
      else
        re = -re, im = -im;
    }
    out[k] += g * re;
    if (cx) out[n + k] += g * im;
  }
}

// The loss of row i from its positive score and its negative scores s[0..K) (overwritten with the
// coefficients G); returns the row's loss and sets *gPos.
template <KgeScorer S>
float rowLoss(const KgeChunkArgs& k, float posRaw, float* r, float* gPos) {
  const int64_t K = k.negatives;
  const float pos = kge::score<S>(posRaw, k.margin);
  double loss = 0;
  float dPos = 0.f;
  if (k.loss == KgeLoss::Logistic) {
    const float scale = k.weight / (2.f * static_cast<float>(k.rows));
    float mx = -INFINITY;
    for (int64_t j = 0; j < K; ++j) mx = std::max(mx, k.temperature * kge::score<S>(r[j], k.margin));
    float z = 0.f;
    for (int64_t j = 0; j < K; ++j) z += k.temperature > 0.f ? expf(k.temperature * kge::score<S>(r[j], k.margin) - mx) : 1.f;
    loss += kge::softplus(-pos);
    dPos = -kge::sigmoid(-pos) * scale;
    for (int64_t j = 0; j < K; ++j) {
      const float s = kge::score<S>(r[j], k.margin);
      const float w = (k.temperature > 0.f ? expf(k.temperature * s - mx) : 1.f) / z;
      loss += w * kge::softplus(s);
      r[j] = kge::coefficient<S>(w * kge::sigmoid(s) * scale, r[j]);
    }
    loss *= scale;
  } else {
    const float scale = k.weight / (static_cast<float>(k.rows) * static_cast<float>(K));
    for (int64_t j = 0; j < K; ++j) {
      const float s = kge::score<S>(r[j], k.margin);
      const float x = k.lossMargin - pos + s;
      const bool active = x > 0.f;
      if (active) loss += x, dPos -= scale;
      r[j] = kge::coefficient<S>(active ? scale : 0.f, r[j]);
    }
    loss *= scale;
  }
  *gPos = kge::coefficient<S>(dPos, posRaw);
  return static_cast<float>(loss);
}

// What both passes read and write.
struct Pass {
  const KgeChunkArgs& k;
  const float *q, *own, *neg;
  float *loss, *dq, *dOwn, *dNeg;
  float* coef;  // G's of every (positive, negative) pair: [rows, K]
};

// Positives [lo, hi): their scores, losses, coefficients and the queries' and own candidates' gradients.
// Always inlined, so the AVX2 variants below compile these loops (and the scorers' rules) for AVX2.
template <KgeScorer S>
__attribute__((always_inline)) inline void positives(const Pass& p, int64_t lo, int64_t hi) {
  const int64_t w = p.k.width, C = p.k.chunk, K = p.k.negatives;
  for (int64_t i = lo; i < hi; ++i) {
    const float* qi = p.q + i * w;
    const float* negs = p.neg + (i / C) * K * w;
    float* r = p.coef + i * K;
    for (int64_t j = 0; j < K; ++j) r[j] = raw<S>(qi, negs + j * w, w);
    float gPos = 0.f;
    p.loss[i] = rowLoss<S>(p.k, raw<S>(qi, p.own + i * w, w), r, &gPos);
    float* dqi = p.dq + i * w;
    float* doi = p.dOwn + i * w;
    std::fill(dqi, dqi + w, 0.f);
    std::fill(doi, doi + w, 0.f);
    addGrad<S>(qi, p.own + i * w, w, gPos, false, dqi);
    addGrad<S>(qi, p.own + i * w, w, gPos, true, doi);
    for (int64_t j = 0; j < K; ++j) addGrad<S>(qi, negs + j * w, w, r[j], false, dqi);
  }
}

// Negatives [lo, hi) (over every group's): each one's gradient, its group's positives in order.
template <KgeScorer S>
__attribute__((always_inline)) inline void negatives(const Pass& p, int64_t lo, int64_t hi) {
  const int64_t w = p.k.width, C = p.k.chunk, K = p.k.negatives;
  for (int64_t n = lo; n < hi; ++n) {
    const int64_t g = n / K, j = n % K;
    float* dn = p.dNeg + n * w;
    std::fill(dn, dn + w, 0.f);
    for (int64_t i = g * C; i < (g + 1) * C; ++i) addGrad<S>(p.q + i * w, p.neg + n * w, w, p.coef[i * K + j], true, dn);
  }
}

#ifdef WM_HOST_AVX2
// Eight lanes (AVX2) or sixteen (AVX-512) where the baseline build has four: the L1, L2 and complex scorers
// are elementwise work (a square root per complex coordinate), not products. No FMA: AVX2's loops round as the
// baseline's; AVX-512's vector exp and log (libmvec) round within their documented error, not as the scalar
// ones (a run's loss can move in its fourth place). Pass P (positives or negatives) over [lo, hi), compiled
// for each target.
template <void (*P)(const Pass&, int64_t, int64_t)>
__attribute__((target("avx2"))) void avx2(const Pass& p, int64_t lo, int64_t hi) {
  P(p, lo, hi);
}
template <void (*P)(const Pass&, int64_t, int64_t)>
__attribute__((target("avx512f"))) void avx512(const Pass& p, int64_t lo, int64_t hi) {
  P(p, lo, hi);
}
#endif

// Pass P over [lo, hi) with the widest vectors this CPU has.
template <void (*P)(const Pass&, int64_t, int64_t)>
void widest(const Pass& p, int64_t lo, int64_t hi) {
#ifdef WM_HOST_AVX2
  if (hasAvx512()) return avx512<P>(p, lo, hi);
  if (hasAvx2Fma()) return avx2<P>(p, lo, hi);
#endif
  P(p, lo, hi);
}

template <KgeScorer S>
void run(const KgeChunkArgs& k, const float* q, const float* own, const float* neg, float* loss, float* dq, float* dOwn, float* dNeg) {
  std::vector<float> coef(static_cast<size_t>(k.rows * k.negatives));
  const Pass p{k, q, own, neg, loss, dq, dOwn, dNeg, coef.data()};
  parallelFor(k.rows, 16, [&](int64_t lo, int64_t hi) { widest<positives<S>>(p, lo, hi); });
  parallelFor(k.groups() * k.negatives, 16, [&](int64_t lo, int64_t hi) { widest<negatives<S>>(p, lo, hi); });
}

// The dot scorer over chunks of at least kProductSide positives and negatives: its three sums over pairs as
// matrix products, every group's at once (the host's packed product): a group's scores Q Nᵀ, the queries'
// gradient G N, the negatives' Gᵀ Q, with G the pairs' coefficients.
constexpr int64_t kProductSide = 16;

void runDotProducts(const KgeChunkArgs& k, const float* q, const float* own, const float* neg, float* loss, float* dq, float* dOwn,
                    float* dNeg) {
  const int64_t w = k.width, C = k.chunk, K = k.negatives, G = k.groups();
  std::vector<float> coef(static_cast<size_t>(k.rows * K)), gPos(static_cast<size_t>(k.rows));
  batchMatMul(q, neg, coef.data(), G, C, K, w, false, true, C * w, K * w);
  parallelFor(k.rows, 16, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      loss[i] = rowLoss<KgeScorer::Dot>(k, raw<KgeScorer::Dot>(q + i * w, own + i * w, w), coef.data() + i * K, &gPos[i]);
  });
  batchMatMul(coef.data(), neg, dq, G, C, w, K, false, false, C * K, K * w);
  batchMatMul(coef.data(), q, dNeg, G, K, w, C, true, false, C * K, C * w);
  parallelFor(k.rows, 16, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const float g = gPos[i];
      for (int64_t e = 0; e < w; ++e) {
        dq[i * w + e] += g * own[i * w + e];
        dOwn[i * w + e] = g * q[i * w + e];
      }
    }
  });
}

}  // namespace

void kgeChunkLoss(const KgeChunkArgs& k, const float* q, const float* own, const float* neg, float* loss, float* dq, float* dOwn,
                  float* dNeg) {
  switch (k.scorer) {
    case KgeScorer::Dot:
      if (k.chunk >= kProductSide && k.negatives >= kProductSide) return runDotProducts(k, q, own, neg, loss, dq, dOwn, dNeg);
      return run<KgeScorer::Dot>(k, q, own, neg, loss, dq, dOwn, dNeg);
    case KgeScorer::L1:
      return run<KgeScorer::L1>(k, q, own, neg, loss, dq, dOwn, dNeg);
    case KgeScorer::L2:
      return run<KgeScorer::L2>(k, q, own, neg, loss, dq, dOwn, dNeg);
    case KgeScorer::Complex:
      return run<KgeScorer::Complex>(k, q, own, neg, loss, dq, dOwn, dNeg);
  }
}

}  // namespace host
}  // namespace wm

// kgeChunkLoss(scorer, lossKind, rows, chunk, negatives, width, margin, temperature, lossMargin, weight, q, own, neg, loss, dq, dOwn,
// dNeg)
WM_OP(kgeChunkLoss, Host, a) {
  const wm::KgeChunkArgs k = wm::kgeChunkArgs(a);
  const int64_t qs = k.rows * k.width, ns = k.groups() * k.negatives * k.width;
  wm::host::kgeChunkLoss(k, a.floats(10, "q", qs), a.floats(11, "own", qs), a.floats(12, "neg", ns), a.floats(13, "loss", k.rows),
                         a.floats(14, "dq", qs), a.floats(15, "dOwn", qs), a.floats(16, "dNeg", ns));
}
