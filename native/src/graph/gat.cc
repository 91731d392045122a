// Graph attention (GAT) on the CPU core: the three passes of
// wm/graph_ops.h, rows (or sources) split over the threads, each summed in
// entry order.
#include <cmath>
#include <vector>

#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "graph/gat_math.h"
#include "wm/graph_ops.h"
#include "graph/gat_strides.h"

namespace wm {
namespace host {

void gatForward(const int32_t* rowPtr, const int32_t* colIdx, int64_t numRows, const float* feat, const float* src, const float* dst,
                int64_t heads, int64_t dim, float slope, float* out, float* alpha, GatStrides st) {
  parallelFor(numRows * heads, 16, [&](int64_t w0, int64_t w1) {
    std::vector<float> ex;  // the row's exponentials, each taken once
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t r = w / heads, h = w % heads, begin = rowPtr[r], end = rowPtr[r + 1];
      const float d = dst[r * st.dst + h];
      ex.resize(static_cast<size_t>(end - begin));
      float m = -INFINITY, s = 0.f;
      for (int64_t e = begin; e < end; ++e) {
        ex[e - begin] = gat::logit(src[colIdx[e] * st.src + h], d, slope);
        m = std::fmax(m, ex[e - begin]);
      }
      for (int64_t e = begin; e < end; ++e) s += (ex[e - begin] = std::exp(ex[e - begin] - m));
      float* o = out + w * dim;
      for (int64_t j = 0; j < dim; ++j) o[j] = 0.f;
      for (int64_t e = begin; e < end; ++e) {
        const float a = ex[e - begin] / s;
        alpha[e * heads + h] = a;
        const float* f = feat + colIdx[e] * st.feat + h * dim;
        for (int64_t j = 0; j < dim; ++j) o[j] += a * f[j];
      }
    }
  });
}

void gatBackwardRows(const int32_t* rowPtr, const int32_t* colIdx, int64_t numRows, const float* feat, const float* src, const float* dst,
                     int64_t heads, int64_t dim, float slope, const float* alpha, const float* dOut, float* dz, float* dDst,
                     GatStrides st) {
  parallelFor(numRows * heads, 16, [&](int64_t w0, int64_t w1) {
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t r = w / heads, h = w % heads, begin = rowPtr[r], end = rowPtr[r + 1];
      const float* go = dOut + w * dim;
      float t = 0.f;
      for (int64_t e = begin; e < end; ++e) {
        const float* f = feat + colIdx[e] * st.feat + h * dim;
        float dot = 0.f;
        for (int64_t j = 0; j < dim; ++j) dot += go[j] * f[j];
        dz[e * heads + h] = dot;
        t += alpha[e * heads + h] * dot;
      }
      const float d = dst[r * st.dst + h];
      float sum = 0.f;
      for (int64_t e = begin; e < end; ++e) {
        const float g = alpha[e * heads + h] * (dz[e * heads + h] - t) * gat::logitSlope(src[colIdx[e] * st.src + h], d, slope);
        dz[e * heads + h] = g;
        sum += g;
      }
      dDst[r * st.dst + h] = sum;
    }
  });
}

void gatBackwardCols(const int32_t* rowPtrT, const int32_t* colIdxT, const int32_t* edgeT, int64_t numCols, const float* alpha,
                     const float* dz, const float* dOut, int64_t heads, int64_t dim, float* dFeat, float* dSrc, GatStrides st) {
  parallelFor(numCols * heads, 16, [&](int64_t w0, int64_t w1) {
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t s = w / heads, h = w % heads, begin = rowPtrT[s], end = rowPtrT[s + 1];
      float* g = dFeat + s * st.feat + h * dim;
      for (int64_t j = 0; j < dim; ++j) g[j] = 0.f;
      float sum = 0.f;
      for (int64_t e = begin; e < end; ++e) {
        const int64_t edge = edgeT[e];
        const float a = alpha[edge * heads + h];
        const float* go = dOut + (colIdxT[e] * heads + h) * dim;
        for (int64_t j = 0; j < dim; ++j) g[j] += a * go[j];
        sum += dz[edge * heads + h];
      }
      dSrc[s * st.src + h] = sum;
    }
  });
}

}  // namespace host
}  // namespace wm

// The host bodies check the CSR and every buffer against the block first: a wrong one is an error, not a stray read.
// Each op's last three arguments are the row strides of feat, src and dst (and of their gradients): gatStrides.
WM_OP(gatForward, Host, a) {
  const int64_t rows = a.count(2, "numRows"), cols = a.count(3, "numCols"), heads = a.count(7, "heads"), dim = a.count(8, "dim");
  const int64_t nnz = a.csr(0, 1, rows, cols);
  const wm::GatStrides st = wm::gatStrides(a, 12, heads, dim);
  wm::host::gatForward(
      a.ints(0, "rowPtr", rows + 1), a.ints(1, "colIdx", nnz), rows, a.floats(4, "feat", wm::stridedSpan(cols, st.feat, heads * dim)),
      a.floats(5, "src", wm::stridedSpan(cols, st.src, heads)), a.floats(6, "dst", wm::stridedSpan(rows, st.dst, heads)), heads, dim,
      static_cast<float>(a.number(9, "slope")), a.floats(10, "out", rows * heads * dim), a.floats(11, "alpha", nnz * heads), st);
}

WM_OP(gatBackwardRows, Host, a) {
  const int64_t rows = a.count(2, "numRows"), cols = a.count(3, "numCols"), heads = a.count(7, "heads"), dim = a.count(8, "dim");
  const int64_t nnz = a.csr(0, 1, rows, cols);
  const wm::GatStrides st = wm::gatStrides(a, 14, heads, dim);
  wm::host::gatBackwardRows(
      a.ints(0, "rowPtr", rows + 1), a.ints(1, "colIdx", nnz), rows, a.floats(4, "feat", wm::stridedSpan(cols, st.feat, heads * dim)),
      a.floats(5, "src", wm::stridedSpan(cols, st.src, heads)), a.floats(6, "dst", wm::stridedSpan(rows, st.dst, heads)), heads, dim,
      static_cast<float>(a.number(9, "slope")), a.floats(10, "alpha", nnz * heads), a.floats(11, "dOut", rows * heads * dim),
      a.floats(12, "dz", nnz * heads), a.floats(13, "dDst", wm::stridedSpan(rows, st.dst, heads)), st);
}

WM_OP(gatBackwardCols, Host, a) {
  const int64_t cols = a.count(3, "numCols"), rows = a.count(4, "numRows"), heads = a.count(8, "heads"), dim = a.count(9, "dim");
  const int64_t nnz = a.csr(0, 1, cols, rows);
  const wm::GatStrides st = wm::gatStrides(a, 12, heads, dim);
  const int32_t* edgeT = a.ints(2, "edgeT", nnz);
  for (int64_t e = 0; e < nnz; ++e)
    if (edgeT[e] < 0 || edgeT[e] >= nnz)
      a.reject(2, "edgeT", "entry " + std::to_string(e) + " is outside [0, " + std::to_string(nnz) + ")");
  wm::host::gatBackwardCols(a.ints(0, "rowPtrT", cols + 1), a.ints(1, "colIdxT", nnz), edgeT, cols, a.floats(5, "alpha", nnz * heads),
                            a.floats(6, "dz", nnz * heads), a.floats(7, "dOut", rows * heads * dim), heads, dim,
                            a.floats(10, "dFeat", wm::stridedSpan(cols, st.feat, heads * dim)),
                            a.floats(11, "dSrc", wm::stridedSpan(cols, st.src, heads)), st);
}
