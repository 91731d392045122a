// Our own float32 GEMM for the small products of a GNN step (a layer's
// [rows, 128] x [128, 128] and its gradients). cuBLAS spends 12-18 µs of host
// time per call choosing and launching (H100; a plain launch is ~4 µs),
// which is most of a step's matmul cost when the GPU work takes a few µs.
// 64x64 tiles, 16-deep k slices in shared memory, 4x4 outputs per thread;
// transposes are index arithmetic in the tile loads. Products with a long
// k and few output tiles (weight gradients, k = rows) split k over blocks
// into partial sums that a second kernel adds in a fixed order.
#include <cstdlib>
#include <cstring>

#include "runtime/check.h"
#include "kernels/gemm_tile.cuh"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"

namespace wm {
namespace {

using gemm::kBK;
using gemm::kBM;
using gemm::kBN;
constexpr int kGemmThreads = gemm::kThreads;

template <bool TA, bool TB>
__global__ void __launch_bounds__(kGemmThreads)
    gemmTile(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, int64_t kPerSplit, float beta, float* partial) {
  __shared__ gemm::Tiles t;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  // Tile rows on x (up to 2^31 - 1): tall products (millions of rows, few columns) fit the grid.
  const int64_t row0 = static_cast<int64_t>(blockIdx.x) * kBM, col0 = static_cast<int64_t>(blockIdx.y) * kBN;
  const int64_t kBegin = static_cast<int64_t>(blockIdx.z) * kPerSplit, kEnd = min(k, kBegin + kPerSplit);
  float acc[4][4];
  gemm::zero(acc);
  for (int64_t k0 = kBegin; k0 < kEnd; k0 += kBK) {
    // Each thread loads 4 of A's 64x16 and 4 of B's 16x64, walking memory contiguously.
#pragma unroll
    for (int e = threadIdx.x; e < kBM * kBK; e += kGemmThreads) {
      const int r = TA ? e % kBM : e / kBK, kk = TA ? e / kBM : e % kBK;
      const int64_t gr = row0 + r, gk = k0 + kk;
      t.a[kk][r] = gr < m && gk < kEnd ? (TA ? A[gk * m + gr] : A[gr * k + gk]) : 0.f;
    }
    if constexpr (TB) {
#pragma unroll
      for (int e = threadIdx.x; e < kBN * kBK; e += kGemmThreads) {
        const int c = e / kBK, kk = e % kBK;
        const int64_t gc = col0 + c, gk = k0 + kk;
        t.b[kk][c] = gc < n && gk < kEnd ? B[gc * k + gk] : 0.f;
      }
    } else {
      gemm::loadRowMajorB(t, B, n, col0, k0, kEnd);
    }
    __syncthreads();
    gemm::multiply(t, acc, tx, ty);
    __syncthreads();
  }
  gemm::store(acc, C, partial, blockIdx.z, m, n, row0, col0, tx, ty, beta);
}

template <bool TA, bool TB>
void launchTiles(dim3 grid, const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, int64_t kPerSplit, float beta,
                 float* partial) {
  gemmTile<TA, TB><<<grid, kGemmThreads, 0, stream()>>>(a, b, c, m, n, k, kPerSplit, beta, partial);
}

}  // namespace

bool ownGemmFits(int64_t n) {
  // The grid's y dimension holds the column tiles (at most 65,535: 4.2M columns).
  return (n + kBN - 1) / kBN <= 65535;
}

bool preferOwnGemm(int64_t m, int64_t n, int64_t k, bool tensorCores) {
  // WM_GEMM=cublas / own forces a side (benchmarks, tests); by default ours up to ~1 GFLOP, where
  // cuBLAS's host time outweighs its faster kernel; with its tensor cores allowed (a precision below
  // 'highest'), cuBLAS from ~64 MFLOP, where it passes ours.
  static const char* forced = std::getenv("WM_GEMM");
  if (!ownGemmFits(n)) return false;
  if (forced && std::strcmp(forced, "cublas") == 0) return false;
  if (forced && std::strcmp(forced, "own") == 0) return true;
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <= (tensorCores ? 6.4e7 : 1e9);
}

void smallGemm(uint64_t a, uint64_t b, uint64_t c, int64_t m, int64_t n, int64_t k, bool transA, bool transB, float beta) {
  const int64_t tilesM = (m + kBM - 1) / kBM, tilesN = (n + kBN - 1) / kBN;
  WM_REQUIRE(tilesN <= 65535, "smallGemm: too many columns");
  // Split k when the output has few tiles and k is long: every SM gets work.
  int64_t splits = gemm::splitsFor(tilesM * tilesN, k);
  const int64_t kPerSplit = ((k + splits - 1) / splits + kBK - 1) / kBK * kBK;
  splits = (k + kPerSplit - 1) / kPerSplit;
  Scratch s;
  float* partial = splits > 1 ? s.get<float>(splits * m * n) : nullptr;
  dim3 grid(static_cast<unsigned>(tilesM), static_cast<unsigned>(tilesN), static_cast<unsigned>(splits));
  const float *A = as<float>(a), *B = as<float>(b);
  float* C = as<float>(c);
  if (transA && transB)
    launchTiles<true, true>(grid, A, B, C, m, n, k, kPerSplit, beta, partial);
  else if (transA)
    launchTiles<true, false>(grid, A, B, C, m, n, k, kPerSplit, beta, partial);
  else if (transB)
    launchTiles<false, true>(grid, A, B, C, m, n, k, kPerSplit, beta, partial);
  else
    launchTiles<false, false>(grid, A, B, C, m, n, k, kPerSplit, beta, partial);
  WM_CUDA_LAUNCHED();
  if (partial) {
    gemm::addSplits<<<gridFor(m * n), kThreads, 0, stream()>>>(partial, static_cast<int>(splits), m * n, beta, C);
    WM_CUDA_LAUNCHED();
  }
}

}  // namespace wm
