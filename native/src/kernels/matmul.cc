// Host batched matrix product, float32, row-major. B is brought into [k, n]
// row order (A into [m, k]) once per batch. Where the CPU has AVX2 and FMA
// (checked at run time), blocks of 4 rows x 16 columns are accumulated in
// registers, so each load of B feeds eight FMAs; elsewhere, and for the edge
// rows and columns, the inner loop is a contiguous axpy the compiler vectorises.
#include <algorithm>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "kernels/host_ops.h"

#ifdef WM_HOST_AVX2
#include <immintrin.h>
#endif

namespace wm {
namespace host {
namespace {

// C[i, j0..n) for rows [rb, re): c = sum_p A[i, p] B[p, j], the plain way.
void axpyRows(const float* A, const float* B, float* C, int64_t rb, int64_t re, int64_t j0, int64_t n, int64_t k) {
  for (int64_t i = rb; i < re; ++i) {
    float* ci = C + i * n;
    for (int64_t j = j0; j < n; ++j) ci[j] = 0.f;
    const float* ai = A + i * k;
    for (int64_t p = 0; p < k; ++p) {
      const float s = ai[p];
      const float* bp = B + p * n;
      for (int64_t j = j0; j < n; ++j) ci[j] += s * bp[j];
    }
  }
}

// dst [cols, rows] = rows [r0, r1) of src [rows, cols] transposed, in 32x32
// tiles (a column walk of a large matrix misses the cache at every element).
void transposeRows(const float* src, float* dst, int64_t rows, int64_t cols, int64_t r0, int64_t r1) {
  constexpr int64_t kTile = 32;
  for (int64_t rt = r0; rt < r1; rt += kTile) {
    const int64_t re = std::min(r1, rt + kTile);
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t c1 = std::min(cols, c0 + kTile);
      for (int64_t r = rt; r < re; ++r)
        for (int64_t c = c0; c < c1; ++c) dst[c * rows + r] = src[r * cols + c];
    }
  }
}

// The same over the threads: a convolution's filter gradient transposes its
// window matrix (2.4M floats).
void transposeInto(const float* src, float* dst, int64_t rows, int64_t cols) {
  parallelFor(rows, std::max<int64_t>(32, (1 << 14) / std::max<int64_t>(cols, 1)),
              [&](int64_t rb, int64_t re) { transposeRows(src, dst, rows, cols, rb, re); });
}

// Few columns (a depthwise convolution's channel multiplier, a matrix times
// a vector): one running sum per output over B's column made contiguous
// (Bt is [n, k]); the axpy form spent its time restarting a loop of n.
void dotRows(const float* A, const float* Bt, float* C, int64_t rb, int64_t re, int64_t n, int64_t k) {
  for (int64_t i = rb; i < re; ++i) {
    const float* ai = A + i * k;
    for (int64_t j = 0; j < n; ++j) {
      const float* bj = Bt + j * k;
      float s = 0.f;
      for (int64_t p = 0; p < k; ++p) s += ai[p] * bj[p];
      C[i * n + j] = s;
    }
  }
}

#ifdef WM_HOST_AVX2
__attribute__((target("avx2,fma"))) void blockedRows(const float* A, const float* B, float* C, int64_t rb, int64_t re, int64_t n,
                                                     int64_t k) {
  int64_t i = rb;
  for (; i + 4 <= re; i += 4) {
    const float* a0 = A + i * k;
    const float* a1 = a0 + k;
    const float* a2 = a1 + k;
    const float* a3 = a2 + k;
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
      __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps(), c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
      __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps(), c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
      for (int64_t p = 0; p < k; ++p) {
        const __m256 b0 = _mm256_loadu_ps(B + p * n + j), b1 = _mm256_loadu_ps(B + p * n + j + 8);
        __m256 x = _mm256_broadcast_ss(a0 + p);
        c00 = _mm256_fmadd_ps(x, b0, c00), c01 = _mm256_fmadd_ps(x, b1, c01);
        x = _mm256_broadcast_ss(a1 + p);
        c10 = _mm256_fmadd_ps(x, b0, c10), c11 = _mm256_fmadd_ps(x, b1, c11);
        x = _mm256_broadcast_ss(a2 + p);
        c20 = _mm256_fmadd_ps(x, b0, c20), c21 = _mm256_fmadd_ps(x, b1, c21);
        x = _mm256_broadcast_ss(a3 + p);
        c30 = _mm256_fmadd_ps(x, b0, c30), c31 = _mm256_fmadd_ps(x, b1, c31);
      }
      float* c = C + i * n + j;
      _mm256_storeu_ps(c, c00), _mm256_storeu_ps(c + 8, c01);
      _mm256_storeu_ps(c + n, c10), _mm256_storeu_ps(c + n + 8, c11);
      _mm256_storeu_ps(c + 2 * n, c20), _mm256_storeu_ps(c + 2 * n + 8, c21);
      _mm256_storeu_ps(c + 3 * n, c30), _mm256_storeu_ps(c + 3 * n + 8, c31);
    }
    if (j < n) axpyRows(A, B, C, i, i + 4, j, n, k);
  }
  if (i < re) axpyRows(A, B, C, i, re, 0, n, k);
}

#endif

// C [m, n] = rows [0, m) of A [m, k] times B [k, n], on this thread.
void rowsSerial(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
#ifdef WM_HOST_AVX2
  if (hasAvx2Fma()) {
    blockedRows(A, B, C, 0, m, n, k);
    return;
  }
#endif
  axpyRows(A, B, C, 0, m, 0, n, k);
}

// A^T B with a long k and a small result (a weight gradient X^T dY over many
// rows; a convolution's filter gradient): every 4-row block of the result
// streamed all of B, k x n floats, from memory. Split k into fixed chunks
// instead, each a product whose B panel stays in cache, and add the partial
// results in chunk order (the same sums whatever the thread count).
constexpr int64_t kSplitK = 4096;
void splitKTransposedA(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
  const int64_t chunks = (k + kSplitK - 1) / kSplitK;
  std::vector<float> partial(static_cast<size_t>(chunks * m * n));
  parallelFor(chunks, 1, [&](int64_t cb, int64_t ce) {
    std::vector<float> at;
    for (int64_t ch = cb; ch < ce; ++ch) {
      const int64_t p0 = ch * kSplitK, kc = std::min(k, p0 + kSplitK) - p0;
      at.resize(static_cast<size_t>(m * kc));
      transposeRows(A + p0 * m, at.data(), kc, m, 0, kc);
      rowsSerial(at.data(), B + p0 * n, partial.data() + ch * m * n, m, n, kc);
    }
  });
  for (int64_t e = 0; e < m * n; ++e) {
    float sum = partial[e];
    for (int64_t ch = 1; ch < chunks; ++ch) sum += partial[ch * m * n + e];
    C[e] = sum;
  }
}

}  // namespace

void batchMatMul(const float* a, const float* b, float* c, int64_t batch, int64_t m, int64_t n, int64_t k, bool transA, bool transB,
                 int64_t aBatchStride, int64_t bBatchStride) {
  std::vector<float> at, bt;
  for (int64_t z = 0; z < batch; ++z) {
    const float* A = a + z * aBatchStride;
    const float* B = b + z * bBatchStride;
    float* C = c + z * m * n;
    if (transA && !transB && k >= 2 * kSplitK && m * n <= (1 << 16)) {
      splitKTransposedA(A, B, C, m, n, k);
      continue;
    }
    if (transA) {  // A is [k, m]
      at.resize(m * k);
      transposeInto(A, at.data(), k, m);
      A = at.data();
    }
    const float* Ar = A;
    constexpr int64_t kFewColumns = 4;
    if (n <= kFewColumns) {
      // dotRows wants B's columns contiguous: a transposed B already is.
      const float* Bt = B;
      if (!transB) {
        bt.resize(k * n);
        transposeInto(B, bt.data(), k, n);
        Bt = bt.data();
      }
      parallelFor(m, std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(n * k, 1)),
                  [&](int64_t rb, int64_t re) { dotRows(Ar, Bt, C, rb, re, n, k); });
      continue;
    }
    if (transB) {  // B is [n, k]
      bt.resize(k * n);
      transposeInto(B, bt.data(), n, k);
      B = bt.data();
    }
    const float* Br = B;
    // Chunks of whole 4-row blocks, so only the last chunk has edge rows.
    const int64_t minRows = std::max<int64_t>(4, ((1 << 16) / std::max<int64_t>(n * k, 1) + 3) / 4 * 4);
    parallelFor((m + 3) / 4, std::max<int64_t>(1, minRows / 4), [&](int64_t qb, int64_t qe) {
      const int64_t rb = qb * 4, re = std::min(m, qe * 4);
#ifdef WM_HOST_AVX2
      if (hasAvx2Fma()) {
        blockedRows(Ar, Br, C, rb, re, n, k);
        return;
      }
#endif
      axpyRows(Ar, Br, C, rb, re, 0, n, k);
    });
  }
}

}  // namespace host
}  // namespace wm

// batchMatMul(a, b, c, batch, m, n, k, transA, transB, aBatchStride, bBatchStride): beta is the GPU's alone.
WM_OP(batchMatMul, Host, a) {
  const int64_t batch = a.count(3, "batch"), m = a.count(4, "m"), n = a.count(5, "n"), k = a.count(6, "k");
  const int64_t sa = a.count(9, "aBatchStride"), sb = a.count(10, "bBatchStride");
  if (a.present(11) && a.number(11, "beta") != 0) a.reject(11, "beta", "must be 0 on the CPU");
  const int64_t needA = batch == 0 ? 0 : (batch - 1) * sa + m * k, needB = batch == 0 ? 0 : (batch - 1) * sb + k * n;
  wm::host::batchMatMul(a.floats(0, "a", needA), a.floats(1, "b", needB), a.floats(2, "c", batch * m * n), batch, m, n, k,
                        a.flag(7, "transA"), a.flag(8, "transB"), sa, sb);
}
