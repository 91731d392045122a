#include <algorithm>
#include <cstring>

#include "runtime/cpu_features.h"
#include "runtime/parallel.h"
#include "runtime/prefetch.h"
#include "wm/op_registry.h"
#include "wm/graph_ops.h"

namespace wm {
namespace host {
namespace {

struct Spmm {
  const int32_t* rowPtr;
  const int32_t* colIdx;
  const float* weight;
  const float* rowScale;
  const float* x;
  int64_t dim;
  float* out;
};

// Rows [begin, end): always inlined, so the AVX2 variant below compiles it
// with 32-byte vectors. Not FMA: a fused multiply-add would round differently
// from the plain path, and the sums would depend on the CPU. The rows of x an
// entry a few ahead reads are asked for first (runtime/prefetch.h).
__attribute__((always_inline)) inline void spmmRows(const Spmm& s, int64_t begin, int64_t end) {
  constexpr int64_t kAhead = 8;
  const int64_t dim = s.dim, rowBytes = dim * static_cast<int64_t>(sizeof(float)), last = s.rowPtr[end];
  for (int64_t r = begin; r < end; ++r) {
    float* o = s.out + r * dim;
    std::memset(o, 0, static_cast<size_t>(dim) * sizeof(float));
    for (int64_t e = s.rowPtr[r]; e < s.rowPtr[r + 1]; ++e) {
      if (e + kAhead < last) prefetchRow(s.x + static_cast<int64_t>(s.colIdx[e + kAhead]) * dim, rowBytes);
      const float w = s.weight ? s.weight[e] : 1.f;
      const float* xr = s.x + static_cast<int64_t>(s.colIdx[e]) * dim;
      for (int64_t j = 0; j < dim; ++j) o[j] += w * xr[j];
    }
    if (s.rowScale) {
      const float scale = s.rowScale[r];
      for (int64_t j = 0; j < dim; ++j) o[j] *= scale;
    }
  }
}

#ifdef WM_HOST_AVX2
__attribute__((target("avx2"))) void spmmRowsAvx2(const Spmm& s, int64_t begin, int64_t end) { spmmRows(s, begin, end); }
#endif

}  // namespace

void csrSpmm(const int32_t* rowPtr, const int32_t* colIdx, const float* weight, const float* rowScale, int64_t numRows, const float* x,
             int64_t dim, float* out) {
  const Spmm s{rowPtr, colIdx, weight, rowScale, x, dim, out};
  // Cut by entries (and a row's own cost), not by rows: R-MAT's hubs sit at the low ids.
  const auto cost = [&](int64_t r) { return static_cast<int64_t>(rowPtr[r]) + r; };
  parallelForByCost(numRows, std::max<int64_t>(4096 / std::max<int64_t>(dim, 1), 16), cost, [&](int64_t begin, int64_t end) {
#ifdef WM_HOST_AVX2
    if (hasAvx2Fma()) {
      spmmRowsAvx2(s, begin, end);
      return;
    }
#endif
    spmmRows(s, begin, end);
  });
}

}  // namespace host
}  // namespace wm

// csrSpmm(rowPtr, colIdx, weight | null, rowScale | null, numRows, x, dim, out, ...): the long-row split
// arguments are the GPU's; the CPU splits rows over threads itself.
WM_OP(csrSpmm, Host, a) {
  const int64_t rows = a.count(4, "numRows"), dim = a.count(6, "dim");
  const int32_t* rowPtr = a.ints(0, "rowPtr", rows + 1);
  const int64_t nnz = rows == 0 ? 0 : rowPtr[rows];
  const int64_t cols = dim == 0 ? 0 : a.length(5, "x") / dim;
  wm::host::csrSpmm(rowPtr, a.ints(1, "colIdx", nnz), a.floatsOrNull(2, "weight", nnz), a.floatsOrNull(3, "rowScale", rows), rows,
                    a.floats(5, "x", cols * dim), dim, a.floats(7, "out", rows * dim));
}
