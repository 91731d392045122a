// cuBLAS reached through dlopen with the few prototypes we need, so the addon
// links and loads on machines without cuBLAS (or without any driver).
#pragma once
#include <cuda_runtime.h>

#include <string>

namespace wm {

using CublasHandle = void*;
enum { kCublasOpN = 0, kCublasOpT = 1 };

struct Cublas {
  int (*create)(CublasHandle*);
  int (*setStream)(CublasHandle, cudaStream_t);
  int (*sgemmStridedBatched)(CublasHandle, int, int, int, int, int, const float*, const float*, int, long long, const float*, int,
                             long long, const float*, float*, int, long long, int);
  CublasHandle handle;
  std::string path;  // the file it was loaded from
};

// The loaded library bound to our stream, or nullptr when cuBLAS is absent
// (then our own kernel runs); WM_NO_CUBLAS=1 forces the latter.
Cublas* cublas();

}  // namespace wm
