// A knowledge-graph embedding step from the rows it reads to their gradients, in one op: the fixed side's
// entity rows composed with their relations' rows into queries (the model's composition: a translation, a
// diagonal product, a complex product, a rotation), the chunk loss of those queries against their own
// candidates and their chunk's negatives (kge_chunk_loss.h), and the queries' gradients carried back through
// the composition. Its input is every entity row the step reads, [heads; tails; negatives], as one gather
// makes it; its output their gradients laid out alike, as the table's sparse step takes them.
#pragma once
#include <cstdint>

#include "embedding/complex_product.h"
#include "embedding/complex_rotation.h"
#include "embedding/kge_chunk_loss.h"
#include "wm/op_registry.h"

#if defined(__CUDACC__)
#define WM_KGS_HD __host__ __device__ __forceinline__
#else
#define WM_KGS_HD inline
#endif

namespace wm {

// How a query is made from the fixed row f and the relation row r (the candidates fill the head side when
// `head`): Translate f + r (f - r), Diagonal f * r, ComplexProduct f * r (f * conj(r)) over complex rows,
// Rotate f turned by the phases scale * r (back by them).
enum class KgeCompose : int { Translate = 0, Diagonal = 1, ComplexProduct = 2, Rotate = 3 };

struct KgeStepArgs {
  KgeChunkArgs chunk;  // chunk.rows positives, chunk.width the entity rows' width
  KgeCompose compose;
  bool head;
  float scale;
  // The relation rows' width: a phase per complex coordinate for Rotate, else the entity width.
  WM_KGS_HD int64_t relationWidth() const { return compose == KgeCompose::Rotate ? chunk.width / 2 : chunk.width; }
  // Coordinates a thread composes: complex numbers for the complex compositions.
  WM_KGS_HD int64_t coords() const {
    return compose == KgeCompose::ComplexProduct || compose == KgeCompose::Rotate ? chunk.width / 2 : chunk.width;
  }
};

// The op's arguments 0..12 read and checked once for both bodies: kgeChunkLoss's ten, then compose, head, scale.
KgeStepArgs kgeStepArgs(const OpArgs& a);

// Device: rows [2 positives + groups x negatives, width] ([heads; tails; negatives]), relation [positives,
// relationWidth]; loss [positives] (its sum is the loss), dRows like rows, dRelation like relation.
void kgeStep(const KgeStepArgs& s, uint64_t rows, uint64_t relation, uint64_t loss, uint64_t dRows, uint64_t dRelation);

namespace host {
void kgeStep(const KgeStepArgs& s, const float* rows, const float* relation, float* loss, float* dRows, float* dRelation);
}  // namespace host

namespace kge {

// Coordinate c of row i: the query from f and r (both rows' starts), into q.
WM_KGS_HD void compose(const KgeStepArgs& s, const float* f, const float* r, int64_t c, float* q) {
  const int64_t h = s.chunk.width / 2;
  switch (s.compose) {
    case KgeCompose::Translate:
      q[c] = s.head ? f[c] - r[c] : f[c] + r[c];
      return;
    case KgeCompose::Diagonal:
      q[c] = f[c] * r[c];
      return;
    case KgeCompose::ComplexProduct:
      complexTimes(f[c], f[h + c], r[c], r[h + c], false, s.head, &q[c], &q[h + c]);
      return;
    case KgeCompose::Rotate:
      rotate(f[c], f[h + c], s.scale * r[c], s.head, &q[c], &q[h + c]);
      return;
  }
}

// Coordinate c's gradients of f and r given the query's, g.
WM_KGS_HD void composeGrad(const KgeStepArgs& s, const float* f, const float* r, const float* g, int64_t c, float* df, float* dr) {
  const int64_t h = s.chunk.width / 2;
  switch (s.compose) {
    case KgeCompose::Translate:
      df[c] = g[c];
      dr[c] = s.head ? -g[c] : g[c];
      return;
    case KgeCompose::Diagonal:
      df[c] = g[c] * r[c];
      dr[c] = g[c] * f[c];
      return;
    case KgeCompose::ComplexProduct:
      // q = f * r' (r' = r or conj(r)): d f = g * conj(r'), d r = g * conj(f), conjugated once more when r' = conj(r).
      complexTimes(g[c], g[h + c], r[c], r[h + c], false, !s.head, &df[c], &df[h + c]);
      if (s.head)
        complexTimes(g[c], g[h + c], f[c], f[h + c], true, false, &dr[c], &dr[h + c]);
      else
        complexTimes(g[c], g[h + c], f[c], f[h + c], false, true, &dr[c], &dr[h + c]);
      return;
    case KgeCompose::Rotate:
      rotateGrad(f[c], f[h + c], s.scale * r[c], s.head, s.scale, g[c], g[h + c], &df[c], &df[h + c], &dr[c]);
      return;
  }
}

}  // namespace kge
}  // namespace wm
