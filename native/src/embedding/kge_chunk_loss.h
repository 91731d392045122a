// A knowledge-graph embedding step's scores, loss and gradients in one op: B positives in groups of
// `chunk`, each group scored against its own `negatives` candidates. Each positive's query q_i (the
// fixed side composed with the relation) meets its own candidate (the positive score) and every
// negative of its group (the negative scores); the loss is the logistic one (self-adversarial weights
// at temperature > 0, held constant) or the margin one, and the gradients with respect to the queries,
// the own candidates and the negatives come out of the same call. Scorers: a dot product, margin - L1
// distance, margin - L2 distance, margin - the sum of complex moduli (rows as [real | imaginary]).
#pragma once
#include <cmath>
#include <cstdint>

#include "wm/op_registry.h"

#if defined(__CUDACC__)
#define WM_KGE_HD __host__ __device__ __forceinline__
#else
#define WM_KGE_HD inline
#endif

namespace wm {

enum class KgeScorer : int { Dot = 0, L1 = 1, L2 = 2, Complex = 3 };
enum class KgeLoss : int { Logistic = 0, Margin = 1 };

struct KgeChunkArgs {
  KgeScorer scorer;
  KgeLoss loss;
  int64_t rows, chunk, negatives, width;
  float margin, temperature, lossMargin;
  float weight;  // the loss and every gradient times this (a rank's share of a step's mean)
  WM_KGE_HD int64_t groups() const { return chunk > 0 ? rows / chunk : 0; }
  // Coordinates a pair's score sums over: complex numbers for Complex, else the width.
  WM_KGE_HD int64_t coords() const { return scorer == KgeScorer::Complex ? width / 2 : width; }
};

// The op's arguments 0..9 read and checked once for both bodies.
KgeChunkArgs kgeChunkArgs(const OpArgs& a);

// Device: q, own [rows, width], neg [groups * negatives, width]; loss [rows] (its sum is the loss),
// dq, dOwn [rows, width], dNeg [groups * negatives, width].
void kgeChunkLoss(const KgeChunkArgs& k, uint64_t q, uint64_t own, uint64_t neg, uint64_t loss, uint64_t dq, uint64_t dOwn, uint64_t dNeg);

namespace host {
void kgeChunkLoss(const KgeChunkArgs& k, const float* q, const float* own, const float* neg, float* loss, float* dq, float* dOwn,
                  float* dNeg);
}  // namespace host

namespace kge {

constexpr float kEps = 1e-12f;

// One coordinate's part of a pair's raw value (the dot product or the distance before its finish).
template <KgeScorer S>
WM_KGE_HD float term(float q, float c, float qi, float ci) {
  if (S == KgeScorer::Dot) return q * c;
  if (S == KgeScorer::L1) return fabsf(q - c);
  if (S == KgeScorer::L2) return (q - c) * (q - c);
  const float dr = q - c, di = qi - ci;
  return sqrtf(dr * dr + di * di + kEps);
}

template <KgeScorer S>
WM_KGE_HD float finish(float sum) {
  return S == KgeScorer::L2 ? sqrtf(sum + kEps) : sum;
}

// The score of a raw value: the dot product, or margin - distance.
template <KgeScorer S>
WM_KGE_HD float score(float raw, float margin) {
  return S == KgeScorer::Dot ? raw : margin - raw;
}

// The coefficient G of a pair given d loss / d score: the pair's gradient is G times termGrad.
template <KgeScorer S>
WM_KGE_HD float coefficient(float dScore, float raw) {
  if (S == KgeScorer::Dot) return dScore;
  if (S == KgeScorer::L2) return -dScore / raw;
  return -dScore;
}

// Selects, not (x > 0) - (x < 0) converted: an integer-to-float conversion runs at a quarter of the
// float rate on a GPU, once per pair and coordinate in the L1 gradients. NaN gives 0 either way.
WM_KGE_HD float sign(float x) { return x > 0.f ? 1.f : (x < 0.f ? -1.f : 0.f); }

// d term / d q for one coordinate (Complex: the real part's into *re, the imaginary part's into *im);
// d term / d candidate is its negative for the distances and q for the dot product.
template <KgeScorer S>
WM_KGE_HD void termGrad(float q, float c, float qi, float ci, float* re, float* im) {
  if (S == KgeScorer::Dot) {
    *re = c;
  } else if (S == KgeScorer::L1) {
    *re = sign(q - c);
  } else if (S == KgeScorer::L2) {
    *re = q - c;
  } else {
    const float dr = q - c, di = qi - ci, x = dr * dr + di * di + kEps;
#if defined(__CUDA_ARCH__)
    const float inv = rsqrtf(x);  // one multi-function-unit instruction where a square root and two divisions take dozens
#else
    const float inv = 1.f / sqrtf(x);
#endif
    *re = dr * inv;
    *im = di * inv;
  }
}

WM_KGE_HD float softplus(float x) { return x > 0.f ? x + log1pf(expf(-x)) : log1pf(expf(x)); }
WM_KGE_HD float sigmoid(float x) {
  if (x >= 0.f) return 1.f / (1.f + expf(-x));
  const float e = expf(x);
  return e / (1.f + e);
}

}  // namespace kge
}  // namespace wm
