// cuBLAS reached through dlopen with the few prototypes we need, so the addon
// links and loads on machines without cuBLAS (or without any driver).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace wm {

using CublasHandle = void*;
enum { kCublasOpN = 0, kCublasOpT = 1 };
// cudaDataType and cublasComputeType_t values (library_types.h, cublas_api.h).
enum { kCudaR32F = 0, kCublasCompute32FFast16BF = 75, kCublasCompute32FFastTF32 = 77, kCublasGemmDefault = -1 };

struct Cublas {
  int (*create)(CublasHandle*);
  int (*setStream)(CublasHandle, cudaStream_t);
  int (*sgemmStridedBatched)(CublasHandle, int, int, int, int, int, const float*, const float*, int, long long, const float*, int,
                             long long, const float*, float*, int, long long, int);
  // cublasGemmStridedBatchedEx, for float32 products on the tensor cores (wm/matmul_precision.h); nullptr
  // when the library lacks it.
  int (*gemmStridedBatchedEx)(CublasHandle, int, int, int, int, int, const void*, const void*, int, int, long long, const void*, int, int,
                              long long, const void*, void*, int, int, long long, int, int, int);
  CublasHandle handle;
  std::string path;  // the file it was loaded from
};

// The loaded library bound to our stream, or nullptr when cuBLAS is absent
// (then our own kernel runs); WM_NO_CUBLAS=1 forces the latter.
Cublas* cublas();

// Whether float32 products on cb may use the tensor cores: the matmul precision (wm/matmul_precision.h) allows
// them and the library has cublasGemmStridedBatchedEx.
bool cublasTensorCores(const Cublas* cb);

// Column-major C_i = alpha op(A_i) op(B_i) + beta C_i for i < batch, float32 in and out, on cb's stream: full
// float32, or TF32 / bfloat16 tensor cores with float32 sums where cublasTensorCores(cb). Every size at most
// INT_MAX; `what` names the caller in the error a failed call raises.
void stridedGemm(Cublas* cb, bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                 int64_t strideA, const float* B, int64_t ldb, int64_t strideB, float beta, float* C, int64_t ldc, int64_t strideC,
                 int64_t batch, const char* what);

}  // namespace wm
