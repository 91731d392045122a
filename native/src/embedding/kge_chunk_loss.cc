// The KGE chunk loss on the CPU (the GPU's definitions, wm::kge's per-coordinate rules), and the
// argument reader both bodies share.
#include "embedding/kge_chunk_loss.h"

#include <algorithm>
#include <string>
#include <vector>

#include "embedding/kge_host_rows.h"
#include "kernels/host_ops.h"
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

// One pair's gradients from one evaluation of d term / d q: dq (+)= g times it, dc (+)= g times the
// candidate's (its negative for the distances, q for the dot product).
template <KgeScorer S>
__attribute__((always_inline)) inline void pairGrad(const float* __restrict__ q, const float* __restrict__ c, int64_t width, float g,
                                                    float* __restrict__ dq, float* __restrict__ dc) {
  const bool cx = S == KgeScorer::Complex;
  const int64_t n = cx ? width / 2 : width;
  for (int64_t k = 0; k < n; ++k) {
    float re = 0.f, im = 0.f;
    kge::termGrad<S>(q[k], c[k], cx ? q[n + k] : 0.f, cx ? c[n + k] : 0.f, &re, &im);
    dq[k] += g * re;
    if (S == KgeScorer::Dot)
      dc[k] += g * q[k];
    else
      dc[k] -= g * re;
    if (cx) {
      dq[n + k] += g * im;
      dc[n + k] -= g * im;
    }
  }
}

// The loss of row i from its positive score and its negative scores r[0..K) (overwritten with the
// coefficients G); returns the row's loss and sets *gPos. tmp: K floats of scratch. Loops without a running
// sum (the sums over tmp after), so the exponentials and logarithms go a vector at a time where libmvec
// has them; softplus and sigmoid (kge::softplus, kge::sigmoid) from one exponential, exp(-|s|).
template <KgeScorer S>
__attribute__((always_inline)) inline float rowLoss(const KgeChunkArgs& k, float posRaw, float* r, float* gPos, float* tmp) {
  const int64_t K = k.negatives;
  const float pos = kge::score<S>(posRaw, k.margin), T = k.temperature;
  float loss = 0.f, dPos = 0.f;
  if (k.loss == KgeLoss::Logistic) {
    const float scale = k.weight / (2.f * static_cast<float>(k.rows));
    float z = static_cast<float>(K);
    if (T > 0.f) {
      for (int64_t j = 0; j < K; ++j) tmp[j] = T * kge::score<S>(r[j], k.margin);
      const float mx = laneMax(tmp, K);
      for (int64_t j = 0; j < K; ++j) tmp[j] = expf(tmp[j] - mx);
      z = rowSum(tmp, K);
    } else {
      std::fill(tmp, tmp + K, 1.f);
    }
    for (int64_t j = 0; j < K; ++j) {
      const float s = kge::score<S>(r[j], k.margin), w = tmp[j] / z, e = expf(-fabsf(s));
      const float softplus = std::max(s, 0.f) + log1pf(e), sigmoid = (s >= 0.f ? 1.f : e) / (1.f + e);
      tmp[j] = w * softplus;
      r[j] = kge::coefficient<S>(w * sigmoid * scale, r[j]);
    }
    loss = (kge::softplus(-pos) + rowSum(tmp, K)) * scale;
    dPos = -kge::sigmoid(-pos) * scale;
  } else {
    const float scale = k.weight / (static_cast<float>(k.rows) * static_cast<float>(K));
    for (int64_t j = 0; j < K; ++j) {
      const float x = k.lossMargin - pos + kge::score<S>(r[j], k.margin);
      tmp[j] = x > 0.f ? x : 0.f;
      r[j] = kge::coefficient<S>(x > 0.f ? scale : 0.f, r[j]);
    }
    loss = rowSum(tmp, K) * scale;
    for (int64_t j = 0; j < K; ++j) tmp[j] = tmp[j] > 0.f ? 1.f : 0.f;
    dPos = -rowSum(tmp, K) * scale;
  }
  *gPos = kge::coefficient<S>(dPos, posRaw);
  return loss;
}

// The pairs' gradients go in tiles, a tile a run of one group's positives against all its negatives: each
// pair's d term / d q evaluated once for both sides, the queries' gradients the tile's own rows, the
// negatives' summed in the tile's part (the group's rows of dNeg where a group is one tile), the parts
// added after in tile order. Tiles per group from the sizes alone (kTiles tiles a step at least where the
// chunks allow), so a run's sums are the same on every host.
constexpr int64_t kTiles = 16, kTileRows = 16;

// What the passes read and write.
struct Pass {
  const KgeChunkArgs& k;
  const float *q, *own, *neg;
  float *loss, *dq, *dOwn, *dNeg;
  float* coef;  // G's of every (positive, negative) pair: [rows, K]
  int64_t tilesPerGroup = 1, tileRows = 0;
  float* parts = nullptr;        // [groups * tilesPerGroup, K, width] where tilesPerGroup > 1
  float* gPos = nullptr;         // runProducts: the positives' coefficients [rows]
  const float* nNorm = nullptr;  // runProducts with L2: the negatives' squared norms [groups * K]
};

// Positives [lo, hi): their scores, losses, coefficients, and their own candidates' pair's gradients.
// Always inlined, so widest (runtime/host_vectors.h) compiles these loops for each vector width.
template <KgeScorer S>
__attribute__((always_inline)) inline void positives(const Pass& p, int64_t lo, int64_t hi) {
  const int64_t w = p.k.width, C = p.k.chunk, K = p.k.negatives;
  std::vector<float> tmp(static_cast<size_t>(K));
  for (int64_t i = lo; i < hi; ++i) {
    const float* qi = p.q + i * w;
    const float* negs = p.neg + (i / C) * K * w;
    float* r = p.coef + i * K;
    for (int64_t j = 0; j < K; ++j) r[j] = raw<S>(qi, negs + j * w, w);
    float gPos = 0.f;
    p.loss[i] = rowLoss<S>(p.k, raw<S>(qi, p.own + i * w, w), r, &gPos, tmp.data());
    float* dqi = p.dq + i * w;
    float* doi = p.dOwn + i * w;
    std::fill(dqi, dqi + w, 0.f);
    std::fill(doi, doi + w, 0.f);
    pairGrad<S>(qi, p.own + i * w, w, gPos, dqi, doi);
  }
}

// Tiles [lo, hi): every pair's gradients (see kTiles).
template <KgeScorer S>
__attribute__((always_inline)) inline void pairTiles(const Pass& p, int64_t lo, int64_t hi) {
  const int64_t w = p.k.width, C = p.k.chunk, K = p.k.negatives;
  for (int64_t t = lo; t < hi; ++t) {
    const int64_t g = t / p.tilesPerGroup, first = g * C + (t % p.tilesPerGroup) * p.tileRows;
    const int64_t end = std::min(first + p.tileRows, (g + 1) * C);
    const float* negs = p.neg + g * K * w;
    float* out = p.tilesPerGroup == 1 ? p.dNeg + g * K * w : p.parts + t * K * w;
    std::fill(out, out + K * w, 0.f);
    for (int64_t i = first; i < end; ++i)
      for (int64_t j = 0; j < K; ++j) pairGrad<S>(p.q + i * w, negs + j * w, w, p.coef[i * K + j], p.dq + i * w, out + j * w);
  }
}

// runProducts' positives [lo, hi): the dot products in coef made distances (L2), the rows' losses and
// coefficients.
template <KgeScorer S>
__attribute__((always_inline)) inline void productRows(const Pass& p, int64_t lo, int64_t hi) {
  const int64_t w = p.k.width, C = p.k.chunk, K = p.k.negatives;
  std::vector<float> tmp(static_cast<size_t>(K));
  for (int64_t i = lo; i < hi; ++i) {
    float* r = p.coef + i * K;
    if (S == KgeScorer::L2) {
      const float qn = squaredNorm(p.q + i * w, w);
      const float* nn = p.nNorm + (i / C) * K;
      for (int64_t j = 0; j < K; ++j) r[j] = kge::finish<S>(std::max(qn + nn[j] - 2.f * r[j], 0.f));
    }
    p.loss[i] = rowLoss<S>(p.k, raw<S>(p.q + i * w, p.own + i * w, w), r, p.gPos + i, tmp.data());
  }
}

template <KgeScorer S>
void run(const KgeChunkArgs& k, const float* q, const float* own, const float* neg, float* loss, float* dq, float* dOwn, float* dNeg) {
  const int64_t C = k.chunk, K = k.negatives, G = k.groups(), w = k.width;
  const int64_t perGroup = std::clamp<int64_t>((kTiles + G - 1) / G, 1, (C + kTileRows - 1) / kTileRows);
  const int64_t tileRows = (C + perGroup - 1) / perGroup, tilesPerGroup = (C + tileRows - 1) / tileRows;
  std::vector<float> coef(static_cast<size_t>(k.rows * K));
  std::vector<float> parts(tilesPerGroup > 1 ? static_cast<size_t>(G * tilesPerGroup * K * w) : 0);
  Pass p{k, q, own, neg, loss, dq, dOwn, dNeg, coef.data()};
  p.tilesPerGroup = tilesPerGroup;
  p.tileRows = tileRows;
  p.parts = parts.data();
  parallelFor(k.rows, 16, [&](int64_t lo, int64_t hi) { widest<positives<S>>(p, lo, hi); });
  parallelFor(G * tilesPerGroup, 1, [&](int64_t lo, int64_t hi) { widest<pairTiles<S>>(p, lo, hi); });
  if (tilesPerGroup == 1) return;
  parallelFor(G * K, 16, [&](int64_t lo, int64_t hi) {
    for (int64_t n = lo; n < hi; ++n) {
      const int64_t g = n / K, j = n % K;
      float* dn = dNeg + n * w;
      std::copy_n(parts.data() + ((g * tilesPerGroup) * K + j) * w, w, dn);
      for (int64_t t = 1; t < tilesPerGroup; ++t) {
        const float* part = parts.data() + ((g * tilesPerGroup + t) * K + j) * w;
        for (int64_t e = 0; e < w; ++e) dn[e] += part[e];
      }
    }
  });
}

// The dot and L2 scorers over chunks of at least kProductSide positives and negatives: their three sums over
// pairs as matrix products, every group's at once (the host's packed product), as on the GPU: a group's dot
// products Q Nᵀ, the queries' gradient G N, the negatives' Gᵀ Q, with G the pairs' coefficients. L2 through
// |q - n|^2 = |q|^2 + |n|^2 - 2 q . n, its gradients' other halves the coefficients' sums times the rows.
constexpr int64_t kProductSide = 16;

template <KgeScorer S>
void runProducts(const KgeChunkArgs& k, const float* q, const float* own, const float* neg, float* loss, float* dq, float* dOwn,
                 float* dNeg) {
  constexpr bool l2 = S == KgeScorer::L2;
  const int64_t w = k.width, C = k.chunk, K = k.negatives, G = k.groups();
  std::vector<float> coef(static_cast<size_t>(k.rows * K)), gPos(static_cast<size_t>(k.rows));
  std::vector<float> nNorm(l2 ? static_cast<size_t>(G * K) : 0);
  Pass p{k, q, own, neg, loss, dq, dOwn, dNeg, coef.data()};
  p.gPos = gPos.data();
  p.nNorm = nNorm.data();
  batchMatMul(q, neg, coef.data(), G, C, K, w, false, true, C * w, K * w);
  if (l2)
    parallelFor(G * K, 64, [&](int64_t lo, int64_t hi) {
      for (int64_t n = lo; n < hi; ++n) nNorm[n] = squaredNorm(neg + n * w, w);
    });
  parallelFor(k.rows, 16, [&](int64_t lo, int64_t hi) { widest<productRows<S>>(p, lo, hi); });
  // dq = G N and dNeg = Gᵀ Q, negated for L2 (d term / d q is q - n there).
  batchMatMul(coef.data(), neg, dq, G, C, w, K, false, false, C * K, K * w);
  batchMatMul(coef.data(), q, dNeg, G, K, w, C, true, false, C * K, C * w);
  parallelFor(k.rows, 16, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      float* dqi = dq + i * w;
      float* doi = dOwn + i * w;
      if (l2) {
        const float sum = rowSum(coef.data() + i * K, K);
        for (int64_t e = 0; e < w; ++e) dqi[e] = sum * q[i * w + e] - dqi[e];
      }
      std::fill(doi, doi + w, 0.f);
      pairGrad<S>(q + i * w, own + i * w, w, gPos[i], dqi, doi);
    }
  });
  if (l2)
    parallelFor(G * K, 16, [&](int64_t lo, int64_t hi) {
      for (int64_t n = lo; n < hi; ++n) {
        const int64_t g = n / K, j = n % K;
        float sum = 0.f;
        for (int64_t i = g * C; i < (g + 1) * C; ++i) sum += coef[i * K + j];
        for (int64_t e = 0; e < w; ++e) dNeg[n * w + e] = sum * neg[n * w + e] - dNeg[n * w + e];
      }
    });
}

}  // namespace

void kgeChunkLoss(const KgeChunkArgs& k, const float* q, const float* own, const float* neg, float* loss, float* dq, float* dOwn,
                  float* dNeg) {
  if (k.rows == 0) return;
  const bool products = k.chunk >= kProductSide && k.negatives >= kProductSide;
  switch (k.scorer) {
    case KgeScorer::Dot:
      if (products) return runProducts<KgeScorer::Dot>(k, q, own, neg, loss, dq, dOwn, dNeg);
      return run<KgeScorer::Dot>(k, q, own, neg, loss, dq, dOwn, dNeg);
    case KgeScorer::L1:
      return run<KgeScorer::L1>(k, q, own, neg, loss, dq, dOwn, dNeg);
    case KgeScorer::L2:
      if (products) return runProducts<KgeScorer::L2>(k, q, own, neg, loss, dq, dOwn, dNeg);
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
