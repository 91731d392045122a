// What every probe checks its CUDA calls with: CK for the runtime API, CU for the driver API; either prints the
// call and its error and exits.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CK(x)                                                      \
  do {                                                             \
    cudaError_t ck_ = (x);                                         \
    if (ck_ != cudaSuccess) {                                      \
      printf("%s: %s\n", #x, cudaGetErrorString(ck_));             \
      exit(1);                                                     \
    }                                                              \
  } while (0)

#define CU(x)                                                      \
  do {                                                             \
    CUresult cu_ = (x);                                            \
    if (cu_ != CUDA_SUCCESS) {                                     \
      const char* s_ = nullptr;                                    \
      cuGetErrorString(cu_, &s_);                                  \
      printf("%s: %s\n", #x, s_ ? s_ : "?");                       \
      exit(1);                                                     \
    }                                                              \
  } while (0)
