// cuBLAS reached through dlopen with the few prototypes we need, so the addon
// links and loads on machines without cuBLAS (or without any driver).
#pragma once
#include <cuda_runtime.h>

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

}  // namespace wm
