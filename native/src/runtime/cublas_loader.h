// cuBLAS reached through dlopen with the few prototypes we need, so the addon
// links and loads on machines without cuBLAS (or without any driver).
#pragma once
#include <cuda_runtime.h>

#include <string>
#include <utility>
#include <vector>

namespace wm {

using CublasHandle = void*;
enum { kCublasOpN = 0, kCublasOpT = 1 };

struct Cublas {
  int (*create)(CublasHandle*);
  int (*setStream)(CublasHandle, cudaStream_t);
  int (*setWorkspace)(CublasHandle, void*, size_t);
  int (*sgemmStridedBatched)(CublasHandle, int, int, int, int, int, const float*, const float*, int, long long, const float*, int,
                             long long, const float*, float*, int, long long, int);
  CublasHandle handle;
  std::string path;              // the file it was loaded from
  cudaStream_t bound = nullptr;  // the stream the handle runs on
  // Our workspace for each stream the handle has run on (the main and the
  // side stream): kernels on two streams may run at once and must not share one.
  std::vector<std::pair<cudaStream_t, void*>> workspaces;
};

// The loaded library, or nullptr when cuBLAS is absent (then our own kernel
// runs); WM_NO_CUBLAS=1 forces the latter.
Cublas* cublas();

// The library with its handle on stream `s` and that stream's workspace:
// rebinds only when the stream changed (the main and the side stream take
// turns), and sets the workspace again then, since cublasSetStream drops it
// back to cuBLAS's default pool. Throws when cuBLAS refuses either call.
Cublas* cublasOn(cudaStream_t s);

}  // namespace wm
