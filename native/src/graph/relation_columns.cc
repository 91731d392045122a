// R-GAT's weight columns on the CPU core (relation_columns.h): the columns written a relation's row of the input
// at a time, the gradient an output row (of dW, of the attention vectors, of root) a time, summed in a fixed order.
#include <vector>

#include "graph/relation_columns.h"
#include "runtime/parallel.h"
#include "wm/op_registry.h"

namespace wm {
namespace host {

void relationColumns(const float* w, const float* attSrc, const float* attDst, const float* root, int64_t relations, int64_t inDim,
                     int64_t heads, int64_t units, int64_t rootOut, const RelationBlocks& b, float* out) {
  const int64_t wide = heads * units;
  parallelFor(relations * inDim, 64, [&](int64_t w0, int64_t w1) {
    for (int64_t q = w0; q < w1; ++q) {
      const int64_t r = q / inDim, i = q % inDim;
      const float* wr = w + q * wide;
      const int32_t* s = &b.start[3 * r];
      if (s[0] >= 0)
        for (int64_t c = 0; c < wide; ++c) out[(s[0] + c) * inDim + i] = wr[c];
      for (int k = 1; k <= 2; ++k) {
        if (s[k] < 0) continue;
        const float* att = (k == 1 ? attSrc : attDst) + r * wide;
        for (int64_t h = 0; h < heads; ++h) {
          float acc = 0.f;
          for (int64_t u = 0; u < units; ++u) acc += wr[h * units + u] * att[h * units + u];
          out[(s[k] + h) * inDim + i] = acc;
        }
      }
    }
  });
  for (int32_t first : b.roots)
    for (int64_t i = 0; i < inDim; ++i)
      for (int64_t j = 0; j < rootOut; ++j) out[(first + j) * inDim + i] = root[i * rootOut + j];
}

void relationColumnsGrad(const float* d, const float* w, const float* attSrc, const float* attDst, int64_t relations, int64_t inDim,
                         int64_t heads, int64_t units, int64_t rootOut, const RelationBlocks& b, float* dW, float* dAttSrc, float* dAttDst,
                         float* dRoot) {
  const int64_t wide = heads * units;
  parallelFor(relations * inDim, 64, [&](int64_t w0, int64_t w1) {
    for (int64_t q = w0; q < w1; ++q) {
      const int64_t r = q / inDim, i = q % inDim;
      const int32_t* s = &b.start[3 * r];
      for (int64_t c = 0; c < wide; ++c) {
        const int64_t h = c / units;
        float g = s[0] >= 0 ? d[(s[0] + c) * inDim + i] : 0.f;
        if (s[1] >= 0) g += d[(s[1] + h) * inDim + i] * attSrc[r * wide + c];
        if (s[2] >= 0) g += d[(s[2] + h) * inDim + i] * attDst[r * wide + c];
        dW[q * wide + c] = g;
      }
    }
  });
  parallelFor(relations * wide, 64, [&](int64_t w0, int64_t w1) {
    for (int64_t q = w0; q < w1; ++q) {
      const int64_t r = q / wide, c = q % wide, h = c / units;
      for (int k = 1; k <= 2; ++k) {
        const int32_t s = b.start[3 * r + k];
        float acc = 0.f;
        if (s >= 0)
          for (int64_t i = 0; i < inDim; ++i) acc += w[(r * inDim + i) * wide + c] * d[(s + h) * inDim + i];
        (k == 1 ? dAttSrc : dAttDst)[q] = acc;
      }
    }
  });
  if (dRoot != nullptr)
    for (int64_t i = 0; i < inDim; ++i)
      for (int64_t j = 0; j < rootOut; ++j) {
        float acc = 0.f;
        for (int32_t first : b.roots) acc += d[(first + j) * inDim + i];
        dRoot[i * rootOut + j] = acc;
      }
}

}  // namespace host
}  // namespace wm

// relationColumns(w, attSrc, attDst, root, relations, inDim, heads, units, rootOut, blocks, rootStarts, out, outRows)
WM_OP(relationColumns, Host, a) {
  const wm::RelationArgs r = wm::relationArgs(a, 12);
  const int64_t R = r.relations, wide = r.wide();
  wm::host::relationColumns(a.floats(0, "w", R * r.inDim * wide), a.floats(1, "attSrc", R * wide), a.floats(2, "attDst", R * wide),
                            r.blocks.roots.empty() ? nullptr : a.floats(3, "root", r.inDim * r.rootOut), R, r.inDim, r.heads, r.units,
                            r.rootOut, r.blocks, a.floats(11, "out", r.outRows * r.inDim));
}

// relationColumnsGrad(dOut, w, attSrc, attDst, relations, inDim, heads, units, rootOut, blocks, rootStarts, outRows, dW, dAttSrc,
// dAttDst, dRoot): dRoot (rootOut > 0) the root copies' gradients summed.
WM_OP(relationColumnsGrad, Host, a) {
  const wm::RelationArgs r = wm::relationArgs(a, 11);
  const int64_t R = r.relations, wide = r.wide();
  wm::host::relationColumnsGrad(a.floats(0, "dOut", r.outRows * r.inDim), a.floats(1, "w", R * r.inDim * wide),
                                a.floats(2, "attSrc", R * wide), a.floats(3, "attDst", R * wide), R, r.inDim, r.heads, r.units, r.rootOut,
                                r.blocks, a.floats(12, "dW", R * r.inDim * wide), a.floats(13, "dAttSrc", R * wide),
                                a.floats(14, "dAttDst", R * wide), r.rootOut > 0 ? a.floats(15, "dRoot", r.inDim * r.rootOut) : nullptr);
}
