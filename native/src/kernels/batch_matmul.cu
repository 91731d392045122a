// BatchMatMul: single products up to ~1 GFLOP on our own tiles
// (small_gemm.cu), larger ones and batches on cuBLAS (loaded at run time)
// when present, else a shared-memory tiled kernel. cuBLAS runs full float32
// unless the matmul precision (wm/matmul_precision.h) allows its tensor cores.
#include "runtime/cublas_loader.h"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"

namespace wm {

bool preferOwnGemm(int64_t m, int64_t n, int64_t k, bool tensorCores);  // small_gemm.cu
bool ownGemmFits(int64_t n);
void smallGemm(uint64_t a, uint64_t b, uint64_t c, int64_t m, int64_t n, int64_t k, bool transA, bool transB, float beta);

namespace {

constexpr int kTile = 16;

__global__ void matmulTiled(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, bool ta, bool tb, int64_t sa,
                            int64_t sb, float beta) {
  __shared__ float as_[kTile][kTile + 1];
  __shared__ float bs_[kTile][kTile + 1];
  const float* a = A + blockIdx.z * sa;
  const float* b = B + blockIdx.z * sb;
  float* c = C + blockIdx.z * m * n;
  int64_t row = blockIdx.y * kTile + threadIdx.y;
  int64_t col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.f;
  for (int64_t t = 0; t < k; t += kTile) {
    int64_t ak = t + threadIdx.x, bk = t + threadIdx.y;
    as_[threadIdx.y][threadIdx.x] = (row < m && ak < k) ? (ta ? a[ak * m + row] : a[row * k + ak]) : 0.f;
    bs_[threadIdx.y][threadIdx.x] = (col < n && bk < k) ? (tb ? b[col * k + bk] : b[bk * n + col]) : 0.f;
    __syncthreads();
#pragma unroll
    for (int q = 0; q < kTile; ++q) acc += as_[threadIdx.y][q] * bs_[q][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = beta == 0.f ? acc : acc + beta * c[row * n + col];
}

}  // namespace

bool cublasAvailable() { return cublas() != nullptr; }

void batchMatMul(uint64_t a, uint64_t b, uint64_t c, int64_t batch, int64_t m, int64_t n, int64_t k, bool transA, bool transB,
                 int64_t aBatchStride, int64_t bBatchStride, float beta) {
  if (batch * m * n == 0) return;
  if (k == 0) {
    // An empty product: C = beta C.
    if (beta == 1.f) return;
    WM_REQUIRE(beta == 0.f, "batchMatMul: an empty product with beta other than 0 or 1 is not supported");
    WM_CUDA(cudaMemsetAsync(reinterpret_cast<void*>(c), 0, batch * m * n * sizeof(float), stream()));
    return;
  }
  Cublas* cb = cublas();
  const int64_t kIntMax = 0x7fffffff;
  const bool fitsCublas = cb && m <= kIntMax && n <= kIntMax && k <= kIntMax && batch <= kIntMax;
  const bool tensorCores = fitsCublas && cublasTensorCores(cb);
  // Single products small enough that cuBLAS's host time would dominate: our tiles (small_gemm.cu).
  if (batch == 1 && (preferOwnGemm(m, n, k, tensorCores) || (!cb && ownGemmFits(n)))) {
    smallGemm(a, b, c, m, n, k, transA, transB, beta);
    return;
  }
  if (fitsCublas) {
    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
    // The handle follows whichever stream is current (the main or the side stream).
    WM_REQUIRE(cb->setStream(cb->handle, stream()) == 0, "cublasSetStream failed");
    stridedGemm(cb, transB, transA, n, m, k, 1.f, as<float>(b), transB ? k : n, bBatchStride, as<float>(a), transA ? m : k, aBatchStride,
                beta, as<float>(c), n, m * n, batch, "batchMatMul");
    return;
  }
  WM_REQUIRE(batch <= 65535, "batchMatMul: batch over 65535 needs cuBLAS");
  dim3 block(kTile, kTile);
  dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile), static_cast<unsigned>((m + kTile - 1) / kTile), static_cast<unsigned>(batch));
  matmulTiled<<<grid, block, 0, stream()>>>(as<float>(a), as<float>(b), as<float>(c), m, n, k, transA, transB, aBatchStride, bBatchStride,
                                            beta);
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// batchMatMul(a, b, c, batch, m, n, k, transA, transB, aBatchStride, bBatchStride, beta = 0)
WM_OP(batchMatMul, Device, a) {
  wm::batchMatMul(a.address(0, "a"), a.address(1, "b"), a.address(2, "c"), a.count(3, "batch"), a.count(4, "m"), a.count(5, "n"),
                  a.count(6, "k"), a.flag(7, "transA"), a.flag(8, "transB"), a.count(9, "aBatchStride"), a.count(10, "bBatchStride"),
                  a.present(11) ? static_cast<float>(a.number(11, "beta")) : 0.f);
}
