// Host batched matrix product, float32, row-major. B is brought into [k, n]
// row order once per batch; A is read in place, transposed or not (strided).
// Where the CPU has AVX2 and FMA (checked at run time), blocks of 4 rows x 16
// columns are accumulated in registers, so each load of B feeds eight FMAs,
// then 8 columns and a masked tail; elsewhere the inner loop is a contiguous
// axpy the compiler vectorises.
#include <algorithm>
#include <utility>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/huge_pages.h"
#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "kernels/host_ops.h"

#ifdef WM_HOST_AVX2
#include <immintrin.h>
#endif

namespace wm {
namespace host {
namespace {

// A as the kernels read it: element (i, p) at a[i * rs + p * cs]. A row-major [m, k] matrix has rs = k,
// cs = 1; a transposed one (stored [k, m]) rs = 1, cs = m, read in place: no copy of A is made.
struct StridedA {
  const float* a;
  int64_t rs, cs;
  const float* row(int64_t i) const { return a + i * rs; }
};

// C[i, j0..n) for rows [rb, re) over a strided A, the plain way (edge rows and machines without AVX2).
void axpyStrided(StridedA A, const float* B, float* C, int64_t rb, int64_t re, int64_t j0, int64_t n, int64_t k) {
  for (int64_t i = rb; i < re; ++i) {
    float* ci = C + i * n;
    for (int64_t j = j0; j < n; ++j) ci[j] = 0.f;
    const float* ai = A.row(i);
    for (int64_t p = 0; p < k; ++p) {
      const float s = ai[p * A.cs];
      const float* bp = B + p * n;
      for (int64_t j = j0; j < n; ++j) ci[j] += s * bp[j];
    }
  }
}

#ifdef WM_HOST_AVX2
// The packed product (the BLIS scheme, one level): B is packed a panel of kKc rows at a time into
// strips of 16 columns (zero-padded; a transposed B is packed from where it is), and each task computes
// a tile of up to 6 rows x 16 columns of C with 12 accumulators in registers over the panel: each
// 16-float row of the strip feeds 12 FMAs. A is read in place (strided: transposed or not).
constexpr int64_t kKc = 256;

// f(integral_constant<int, 0>) ... f(integral_constant<int, R - 1>): a tile's rows unrolled in the source, so
// its accumulators are registers (a loop over an array of them leaves GCC storing each to the stack per step).
template <typename F, int... I>
__attribute__((always_inline)) inline void unrolled(F&& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int R, typename F>
__attribute__((always_inline)) inline void eachRow(F&& f) {
  unrolled(f, std::make_integer_sequence<int, R>{});
}

// Rows [p0, p0 + kc) of B (element (p, j) at b[p * rsB + j * csB]) into strips [kc][W]. A row of a
// B with contiguous rows is copied in pieces of 4, 2 and 1 floats over a zeroed strip row (an element loop
// costs as much as the product over a short strip; a copy loop becomes a memcpy call per row).
template <int W>
void packB(const float* b, int64_t rsB, int64_t csB, int64_t p0, int64_t kc, int64_t n, int64_t strip, float* out) {
  const int64_t j0 = strip * W, w = std::min<int64_t>(W, n - j0);
  for (int64_t p = 0; p < kc; ++p) {
    float* o = out + p * W;
    const float* row = b + (p0 + p) * rsB + j0 * csB;
    if (csB != 1) {
      int64_t j = 0;
      for (; j < w; ++j) o[j] = row[j * csB];
      for (; j < W; ++j) o[j] = 0.f;
      continue;
    }
    if (w < W)
      for (int j = 0; j < W; j += 4) _mm_storeu_ps(o + j, _mm_setzero_ps());
    int64_t j = 0;
    for (; j + 4 <= w; j += 4) _mm_storeu_ps(o + j, _mm_loadu_ps(row + j));
    if (w - j >= 2) _mm_store_sd(reinterpret_cast<double*>(o + j), _mm_load_sd(reinterpret_cast<const double*>(row + j))), j += 2;
    if (w - j == 1) o[j] = row[j];
  }
}

// A tile's results (R rows of W floats, in t) into R rows of C (from C, ldc apart), w columns, added to
// what C holds when `accumulate`.
template <int R, int W>
void storeTile(const float* t, float* C, int64_t ldc, int64_t w, bool accumulate) {
  for (int r = 0; r < R; ++r) {
    float* c = C + r * ldc;
    for (int64_t j = 0; j < w; ++j) c[j] = accumulate ? c[j] + t[r * W + j] : t[r * W + j];
  }
}

// R rows x w columns of C (+)= R rows of A times the packed strip over kc rows: AVX2, 16
// columns as two registers a row. Columns: A's rows are columns of the stored matrix (a transposed A,
// rs = 1): one pointer walks its rows.
#pragma GCC push_options
#pragma GCC target("avx2,fma")
template <int R, bool Columns>
void tile16(StridedA A, const float* strip, int64_t kc, float* C, int64_t ldc, int64_t w, bool accumulate) {
  const float* a[R];
  eachRow<R>([&](auto r) { a[r] = A.row(r); });
  const float* q = a[0];
  const int64_t cs = A.cs;
  __m256 lo[R], hi[R];
  eachRow<R>([&](auto r) { lo[r] = hi[r] = _mm256_setzero_ps(); });
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_loadu_ps(strip + p * 16), b1 = _mm256_loadu_ps(strip + p * 16 + 8);
    eachRow<R>([&](auto r) {
      const __m256 x = _mm256_broadcast_ss(Columns ? q + r : a[r] + p);
      lo[r] = _mm256_fmadd_ps(x, b0, lo[r]);
      hi[r] = _mm256_fmadd_ps(x, b1, hi[r]);
    });
    if (Columns) q += cs;
  }
  if (w == 16) {
    eachRow<R>([&](auto r) {
      float* c = C + r * ldc;
      if (accumulate) lo[r] = _mm256_add_ps(lo[r], _mm256_loadu_ps(c)), hi[r] = _mm256_add_ps(hi[r], _mm256_loadu_ps(c + 8));
      _mm256_storeu_ps(c, lo[r]);
      _mm256_storeu_ps(c + 8, hi[r]);
    });
    return;
  }
  alignas(32) float t[R * 16];
  eachRow<R>([&](auto r) { _mm256_store_ps(t + r * 16, lo[r]), _mm256_store_ps(t + r * 16 + 8, hi[r]); });
  storeTile<R, 16>(t, C, ldc, w, accumulate);
}
#pragma GCC pop_options

// Up to 8 columns (a product into a few classes, H W2 or its gradient): one register a row, up to 12 rows,
// where a 16-column strip would be half padding.
#pragma GCC push_options
#pragma GCC target("avx2,fma")
template <int R, bool Columns>
void tile8(StridedA A, const float* strip, int64_t kc, float* C, int64_t ldc, int64_t w, bool accumulate) {
  const float* a[R];
  eachRow<R>([&](auto r) { a[r] = A.row(r); });
  const float* q = a[0];
  const int64_t cs = A.cs;
  __m256 acc[R];
  eachRow<R>([&](auto r) { acc[r] = _mm256_setzero_ps(); });
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_loadu_ps(strip + p * 8);
    eachRow<R>([&](auto r) { acc[r] = _mm256_fmadd_ps(_mm256_broadcast_ss(Columns ? q + r : a[r] + p), b0, acc[r]); });
    if (Columns) q += cs;
  }
  // The first w lanes of each row straight into C, in pieces of 4, 2 and 1 (a masked store is microcoded
  // on AMD's cores; a copy loop becomes a memmove call per row).
  eachRow<R>([&](auto r) {
    float* c = C + r * ldc;
    if (w == 8) {
      _mm256_storeu_ps(c, accumulate ? _mm256_add_ps(acc[r], _mm256_loadu_ps(c)) : acc[r]);
      return;
    }
    __m128 v = _mm256_castps256_ps128(acc[r]);
    int64_t j = 0;
    if (w >= 4) {
      _mm_storeu_ps(c, accumulate ? _mm_add_ps(v, _mm_loadu_ps(c)) : v);
      v = _mm256_extractf128_ps(acc[r], 1);
      j = 4;
    }
    if (w - j >= 2) {
      const __m128 old = accumulate ? _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(c + j))) : _mm_setzero_ps();
      _mm_store_sd(reinterpret_cast<double*>(c + j), _mm_castps_pd(_mm_add_ps(v, old)));
      v = _mm_movehl_ps(v, v);
      j += 2;
    }
    if (w - j == 1) _mm_store_ss(c + j, accumulate ? _mm_add_ss(v, _mm_load_ss(c + j)) : v);
  });
}
#pragma GCC pop_options

// The same with AVX-512: 32 columns as two registers a row, up to 12 rows (24 accumulators).
#pragma GCC push_options
#pragma GCC target("avx512f")
template <int R, bool Columns>
void tile32(StridedA A, const float* strip, int64_t kc, float* C, int64_t ldc, int64_t w, bool accumulate) {
  const float* a[R];
  eachRow<R>([&](auto r) { a[r] = A.row(r); });
  const float* q = a[0];
  const int64_t cs = A.cs;
  __m512 lo[R], hi[R];
  eachRow<R>([&](auto r) { lo[r] = hi[r] = _mm512_setzero_ps(); });
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_loadu_ps(strip + p * 32), b1 = _mm512_loadu_ps(strip + p * 32 + 16);
    eachRow<R>([&](auto r) {
      const __m512 x = _mm512_set1_ps(Columns ? q[r] : a[r][p]);
      lo[r] = _mm512_fmadd_ps(x, b0, lo[r]);
      hi[r] = _mm512_fmadd_ps(x, b1, hi[r]);
    });
    if (Columns) q += cs;
  }
  if (w == 32) {
    eachRow<R>([&](auto r) {
      float* c = C + r * ldc;
      if (accumulate) lo[r] = _mm512_add_ps(lo[r], _mm512_loadu_ps(c)), hi[r] = _mm512_add_ps(hi[r], _mm512_loadu_ps(c + 16));
      _mm512_storeu_ps(c, lo[r]);
      _mm512_storeu_ps(c + 16, hi[r]);
    });
    return;
  }
  alignas(64) float t[R * 32];
  eachRow<R>([&](auto r) { _mm512_store_ps(t + r * 32, lo[r]), _mm512_store_ps(t + r * 32 + 16, hi[r]); });
  storeTile<R, 32>(t, C, ldc, w, accumulate);
}
#pragma GCC pop_options

// A tile: A at its first row and the panel's first column, C at its first row and the strip's first column.
using TileFn = void (*)(StridedA, const float*, int64_t, float*, int64_t, int64_t, bool);

// The tile function for `rows` rows (1 to R) and A's layout, for W-column strips.
template <int W, int R>
TileFn tileFor(int64_t rows, bool columns) {
  if constexpr (R > 1)
    if (rows < R) return tileFor<W, R - 1>(rows, columns);
  if constexpr (W == 8) return columns ? &tile8<R, true> : &tile8<R, false>;
  if constexpr (W == 16) return columns ? &tile16<R, true> : &tile16<R, false>;
  return columns ? &tile32<R, true> : &tile32<R, false>;
}

// Rows [i, i + R) of a row-major A over columns [p0, p0 + kc) into out as [kc][R] (out's element (r, p)
// at out[p * R + r]: a transposed A's layout, whose tile walks one pointer). Rows whose length is a
// multiple of 4 KiB fall in the same few cache sets, so a tile reading 12 of them in place evicts its own
// lines; packed, they are one contiguous run.
void packA(StridedA A, int64_t i, int64_t p0, int64_t R, int64_t kc, float* out) {
  for (int64_t r = 0; r < R; ++r) {
    const float* a = A.row(i + r) + p0;
    for (int64_t p = 0; p < kc; ++p) out[p * R + r] = a[p];
  }
}

// C [m, n] = A [m, k] B [k, n] (B's element (p, j) at b[p * rsB + j * csB]) in tiles of MR rows by W
// columns; `threads`: spread the tiles over the pool (else on this thread). Each panel's tiles cover C
// once, so the sums of every element run in the same order whatever the thread count. Where a row tile
// meets more than one strip, a task packs its rows of A once for all the strips it computes.
template <int W, int MR>
void packedProduct(StridedA A, const float* b, int64_t rsB, int64_t csB, float* C, int64_t m, int64_t n, int64_t k, bool threads) {
  // Tiles of equal height where MR does not divide m (16 rows: 8 + 8, not 12 + 4: a short tile feeds fewer
  // FMAs per load of B).
  const int64_t strips = (n + W - 1) / W, rowTiles = (m + MR - 1) / MR, rows = (m + rowTiles - 1) / rowTiles;
  const int64_t lastRows = m - (rowTiles - 1) * rows;
  const bool packRows = strips > 1 && A.cs == 1, columns = packRows || A.cs != 1;  // a transposed A's tile reads runs already
  const TileFn full = tileFor<W, MR>(rows, columns), last = tileFor<W, MR>(lastRows, columns);
  std::vector<float> packed(static_cast<size_t>(strips * std::min(k, kKc) * W));
  if (k == 0) std::fill(C, C + m * n, 0.f);
  for (int64_t p0 = 0; p0 < k; p0 += kKc) {
    const int64_t kc = std::min(kKc, k - p0);
    const bool acc = p0 > 0;
    auto pack = [&](int64_t sb, int64_t se) {
      for (int64_t s = sb; s < se; ++s) packB<W>(b, rsB, csB, p0, kc, n, s, packed.data() + s * kc * W);
    };
    auto tiles = [&](int64_t tb, int64_t te) {
      alignas(64) float rowsOfA[kKc * MR];
      int64_t packedTile = -1;
      for (int64_t t = tb; t < te; ++t) {
        const int64_t it = t / strips, s = t % strips, h = it == rowTiles - 1 ? lastRows : rows;
        StridedA At{A.row(it * rows) + p0 * A.cs, A.rs, A.cs};
        if (packRows) {
          if (packedTile != it) packA(A, it * rows, p0, h, kc, rowsOfA), packedTile = it;
          At = {rowsOfA, 1, h};
        }
        (it == rowTiles - 1 ? last : full)(At, packed.data() + s * kc * W, kc, C + it * rows * n + s * W, n,
                                           std::min<int64_t>(W, n - s * W), acc);
      }
    };
    if (threads) {
      parallelFor(strips, std::max<int64_t>(1, (1 << 14) / (kc * W)), pack);
      parallelFor(rowTiles * strips, std::max<int64_t>(1, (1 << 16) / (kc * MR * W)), tiles);
    } else {
      pack(0, strips);
      tiles(0, rowTiles * strips);
    }
  }
}
#endif

// C [m, n] = A [m, k] times B (element (p, j) at b[p * rsB + j * csB]).
void product(StridedA A, const float* b, int64_t rsB, int64_t csB, float* C, int64_t m, int64_t n, int64_t k, bool threads) {
#ifdef WM_HOST_AVX2
  if (hasAvx2Fma() && n <= 8) {
    packedProduct<8, 12>(A, b, rsB, csB, C, m, n, k, threads);
    return;
  }
  if (hasAvx512() && n > 16) {  // 16 columns or fewer: a 32-column strip would be half padding
    packedProduct<32, 12>(A, b, rsB, csB, C, m, n, k, threads);
    return;
  }
  if (hasAvx2Fma()) {
    packedProduct<16, 6>(A, b, rsB, csB, C, m, n, k, threads);
    return;
  }
#endif
  // Without AVX2: B in [k, n] row order, then rows of C as contiguous axpys.
  std::vector<float> bt;
  const float* B = b;
  if (csB != 1) {
    bt.resize(static_cast<size_t>(k * n));
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) bt[p * n + j] = b[p * rsB + j * csB];
    B = bt.data();
  }
  if (threads)
    parallelFor(m, std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(n * k, 1)),
                [&](int64_t rb, int64_t re) { axpyStrided(A, B, C, rb, re, 0, n, k); });
  else
    axpyStrided(A, B, C, 0, m, 0, n, k);
}

// A product with a long k and a small result (a weight gradient X^T dY over many rows; a convolution's
// filter gradient; a few classes' H^T dY): every block of the result would stream all of B, k x n floats,
// from memory, and a panel at a time over the threads pays a handover per panel for little work. Split k
// into fixed chunks instead (their length set by the result's size alone), each a product whose B panel
// stays in cache, one thread each, and add the partial results in chunk order: the same sums whatever the
// thread count.
constexpr int64_t kSplitK = 4096, kSplitKSmall = 512, kSmallResult = 4096;
int64_t splitKChunk(int64_t m, int64_t n) { return m * n <= kSmallResult ? kSplitKSmall : kSplitK; }

void splitK(StridedA A, const float* b, int64_t rsB, int64_t csB, float* C, int64_t m, int64_t n, int64_t k) {
  const int64_t step = splitKChunk(m, n), chunks = (k + step - 1) / step;
  std::vector<float> partial(static_cast<size_t>(chunks * m * n));
  parallelFor(chunks, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t ch = cb; ch < ce; ++ch) {
      const int64_t p0 = ch * step, kc = std::min(k, p0 + step) - p0;
      product({A.a + p0 * A.cs, A.rs, A.cs}, b + p0 * rsB, rsB, csB, partial.data() + ch * m * n, m, n, kc, false);
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
  preferHugePages(c, static_cast<size_t>(batch * m * n) * sizeof(float));  // a fresh output: fewer page faults
  const bool split = m * n <= (1 << 16) && k >= 2 * splitKChunk(m, n);
  // Many small products: one per thread (each on its own), not each spread over the threads.
  const bool perThread = batch > 1 && m * n * k < (1 << 21) && !split;
  auto one = [&](int64_t z, bool threads) {
    const float* A = a + z * aBatchStride;
    const float* B = b + z * bBatchStride;
    float* C = c + z * m * n;
    const StridedA As = transA ? StridedA{A, 1, m} : StridedA{A, k, 1};  // a transposed A ([k, m]) read in place
    // A transposed B ([n, k]) is read in place too: element (p, j) at B[j * k + p].
    const int64_t rsB = transB ? 1 : n, csB = transB ? k : 1;
    if (split)
      splitK(As, B, rsB, csB, C, m, n, k);
    else
      product(As, B, rsB, csB, C, m, n, k, threads);
  };
  if (perThread)
    parallelFor(batch, 1, [&](int64_t zb, int64_t ze) {
      for (int64_t z = zb; z < ze; ++z) one(z, false);
    });
  else
    for (int64_t z = 0; z < batch; ++z) one(z, true);
}

}  // namespace host
}  // namespace wm

// batchMatMul(a, b, c, batch, m, n, k, transA, transB, aBatchStride, bBatchStride, beta?): C = op(A) op(B) + beta C.
WM_OP(batchMatMul, Host, a) {
  const int64_t batch = a.count(3, "batch"), m = a.count(4, "m"), n = a.count(5, "n"), k = a.count(6, "k");
  const int64_t sa = a.count(9, "aBatchStride"), sb = a.count(10, "bBatchStride");
  const float beta = a.present(11) ? static_cast<float>(a.number(11, "beta")) : 0.f;
  const int64_t needA = batch == 0 ? 0 : (batch - 1) * sa + m * k, needB = batch == 0 ? 0 : (batch - 1) * sb + k * n;
  const float *A = a.floats(0, "a", needA), *B = a.floats(1, "b", needB);
  float* C = a.floats(2, "c", batch * m * n);
  if (beta == 0.f) return wm::host::batchMatMul(A, B, C, batch, m, n, k, a.flag(7, "transA"), a.flag(8, "transB"), sa, sb);
  // The product beside C, then added in: C's old values are read once, after the product.
  std::vector<float> product(static_cast<size_t>(batch * m * n));
  wm::host::batchMatMul(A, B, product.data(), batch, m, n, k, a.flag(7, "transA"), a.flag(8, "transB"), sa, sb);
  for (int64_t e = 0; e < batch * m * n; ++e) C[e] = product[e] + beta * C[e];
}
