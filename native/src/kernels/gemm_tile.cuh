// The register tile every GEMM-shaped kernel of ours multiplies with: a
// 64x64 block of C per 256 threads, 4x4 outputs per thread, 16-deep k
// slices staged in shared memory. What differs between kernels is only how
// a slice is loaded (a dense matrix, transposed or not, or windows of an
// image read in place: the implicit GEMM of a convolution), so the loads
// stay in each kernel and the multiply and the store live here.
#pragma once
#include <cstdint>

namespace wm {
namespace gemm {

constexpr int kBM = 64, kBN = 64, kBK = 16, kThreads = 256;

struct Tiles {
  __align__(16) float a[kBK][kBM + 4];  // [k][row]
  __align__(16) float b[kBK][kBN + 4];  // [k][col]
};

__device__ __forceinline__ void zero(float (&acc)[4][4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.f;
}

// Loads k slice [k0, k0 + kBK) of a row-major B [k, n], columns from col0,
// with the threads along the columns (contiguous), zeros past n and kEnd.
template <typename I>
__device__ __forceinline__ void loadRowMajorB(Tiles& t, const float* B, I n, I col0, I k0, I kEnd) {
#pragma unroll
  for (int e = threadIdx.x; e < kBN * kBK; e += kThreads) {
    const int col = e % kBN, kb = e / kBN;
    const I gc = col0 + col, gk = k0 + kb;
    t.b[kb][col] = gc < n && gk < kEnd ? B[gk * n + gc] : 0.f;
  }
}

// acc += the slice's product for this thread's 4x4 outputs (rows ty*4.., columns tx*4..).
__device__ __forceinline__ void multiply(const Tiles& t, float (&acc)[4][4], int tx, int ty) {
#pragma unroll
  for (int kk = 0; kk < kBK; ++kk) {
    const float4 a = *reinterpret_cast<const float4*>(&t.a[kk][ty * 4]);
    const float4 b = *reinterpret_cast<const float4*>(&t.b[kk][tx * 4]);
    const float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
  }
}

// Writes this thread's outputs of the block at (row0, col0) of C [m, n]: to
// partial[split] when splitting k (added later in split order), else
// C = acc + beta * C.
__device__ __forceinline__ void store(const float (&acc)[4][4], float* C, float* partial, int64_t split, int64_t m, int64_t n, int64_t row0,
                                      int64_t col0, int tx, int ty, float beta) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int64_t r = row0 + ty * 4 + i;
    if (r >= m) continue;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int64_t c = col0 + tx * 4 + j;
      if (c >= n) continue;
      if (partial) {
        partial[split * m * n + r * n + c] = acc[i][j];
      } else {
        float* out = C + r * n + c;
        *out = beta == 0.f ? acc[i][j] : acc[i][j] + beta * *out;
      }
    }
  }
}

// How many splits of k a product with `tiles` output blocks takes: enough
// blocks for every SM of an H100 when the output is small and k is long.
inline int64_t splitsFor(int64_t tiles, int64_t k) {
  if (tiles >= 132 || k < 1024) return 1;
  int64_t s = (264 + tiles - 1) / tiles;
  if (s > k / 256) s = k / 256;
  if (s > 64) s = 64;
  return s < 1 ? 1 : s;
}

namespace {
// C = the sum of the splits' partial products, in split order (+ beta C).
__global__ void addSplits(const float* partial, int splits, int64_t mn, float beta, float* C) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < mn; i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    float s = 0.f;
    for (int z = 0; z < splits; ++z) s += partial[z * mn + i];
    C[i] = beta == 0.f ? s : s + beta * C[i];
  }
}
}  // namespace

}  // namespace gemm
}  // namespace wm
