// Row dots and their gradient on the CPU: the GPU's definitions, a row of a
// per iteration, its blocks in order; each dot summed in lanes, every loop in the
// widest vectors the CPU has.
#include "runtime/host_vectors.h"
#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "graph/row_dots.h"

namespace wm {
namespace host {
namespace {

// Rows [lo, hi)'s dots with their m blocks' rows, each summed in lanes (runtime/host_vectors.h).
__attribute__((always_inline)) inline void dotsOfRows(const float* a, const float* b, int64_t lo, int64_t hi, int64_t n, int64_t m,
                                                      int64_t d, float* out) {
  for (int64_t i = lo; i < hi; ++i) {
    const float* ar = a + i * d;
    for (int64_t j = 0; j < m; ++j) {
      const float* br = b + (j * n + i) * d;
      out[j * n + i] = laneSum(d, [&](int64_t k) { return ar[k] * br[k]; });
    }
  }
}

// Rows [lo, hi)'s gradients: dA[i] summed over the blocks in order, dB[j, i] = g[j, i] a[i].
__attribute__((always_inline)) inline void gradsOfRows(const float* a, const float* b, const float* g, int64_t lo, int64_t hi, int64_t n,
                                                       int64_t m, int64_t d, float* dA, float* dB) {
  for (int64_t i = lo; i < hi; ++i) {
    const float* __restrict__ ar = a + i * d;
    float* __restrict__ da = dA + i * d;
    for (int64_t k = 0; k < d; ++k) da[k] = 0.f;
    for (int64_t j = 0; j < m; ++j) {
      const float gj = g[j * n + i];
      const float* __restrict__ br = b + (j * n + i) * d;
      float* __restrict__ db = dB + (j * n + i) * d;
      for (int64_t k = 0; k < d; ++k) {
        da[k] += gj * br[k];
        db[k] = gj * ar[k];
      }
    }
  }
}

}  // namespace

void rowDots(const float* a, const float* b, int64_t n, int64_t m, int64_t d, float* out) {
  parallelFor(n, 256, [&](int64_t lo, int64_t hi) { widest<dotsOfRows>(a, b, lo, hi, n, m, d, out); });
}

void rowDotsGrad(const float* a, const float* b, const float* g, int64_t n, int64_t m, int64_t d, float* dA, float* dB) {
  parallelFor(n, 256, [&](int64_t lo, int64_t hi) { widest<gradsOfRows>(a, b, g, lo, hi, n, m, d, dA, dB); });
}

}  // namespace host
}  // namespace wm

WM_OP(rowDots, Host, a) {
  const int64_t n = a.count(2, "n"), m = a.count(3, "m"), d = a.count(4, "d");
  wm::host::rowDots(a.floats(0, "a", n * d), a.floats(1, "b", m * n * d), n, m, d, a.floats(5, "out", m * n));
}

WM_OP(rowDotsGrad, Host, a) {
  const int64_t n = a.count(3, "n"), m = a.count(4, "m"), d = a.count(5, "d");
  wm::host::rowDotsGrad(a.floats(0, "a", n * d), a.floats(1, "b", m * n * d), a.floats(2, "g", m * n), n, m, d, a.floats(6, "dA", n * d),
                        a.floats(7, "dB", m * n * d));
}
