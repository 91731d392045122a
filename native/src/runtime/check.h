// Every CUDA call goes through WM_CUDA: a failure throws wm::Error naming the
// call, the CUDA error and where it happened.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "wm/status.h"

#define WM_CUDA(call)                                                                                                                     \
  do {                                                                                                                                    \
    cudaError_t wm_err_ = (call);                                                                                                         \
    if (wm_err_ != cudaSuccess) {                                                                                                         \
      ::wm::fail(std::string(#call) + " failed: " + cudaGetErrorName(wm_err_) + " (" + cudaGetErrorString(wm_err_) + ") at " + __FILE__ + \
                 ":" + std::to_string(__LINE__));                                                                                         \
    }                                                                                                                                     \
  } while (0)

// After a kernel launch: catches bad launch configurations at once.
#define WM_CUDA_LAUNCHED() WM_CUDA(cudaGetLastError())

namespace wm {
cudaStream_t stream();  // the process's stream, created on first use
}
