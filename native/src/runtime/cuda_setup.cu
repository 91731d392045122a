#include <cuda_runtime.h>

#include <string>

#include "runtime/check.h"
#include "runtime/cublas_loader.h"
#include "wm/cuda_setup.h"
#include "wm/runtime.h"

#ifndef WM_CUDA_ARCHS_BUILT
#define WM_CUDA_ARCHS_BUILT "unknown"
#endif

namespace wm {
namespace {
// Compiled for every target like the other kernels, so its attributes say
// which image of this file the driver picked for the GPU.
__global__ void probeKernel() {}
}  // namespace

CudaSetup cudaSetup() {
  CudaSetup s;
  s.runtimeVersion = CUDART_VERSION;
  s.archs = WM_CUDA_ARCHS_BUILT;
  if (cudaDriverGetVersion(&s.driverVersion) != cudaSuccess) {
    s.driverVersion = 0;
    cudaGetLastError();
  }
  int n = deviceCount();
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp p;
    WM_CUDA(cudaGetDeviceProperties(&p, d));
    GpuProperties g;
    g.name = p.name;
    g.major = p.major;
    g.minor = p.minor;
    g.totalBytes = p.totalGlobalMem;
    g.multiprocessors = p.multiProcessorCount;
    char bus[32] = {0};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, d) == cudaSuccess) g.pciBusId = bus;
    s.gpus.push_back(g);
  }
  s.peerAccess.assign(n, std::vector<bool>(n, false));
  s.peerAtomics.assign(n, std::vector<bool>(n, false));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      int can = i == j ? 1 : 0, atomics = i == j ? 1 : 0;
      if (i != j) WM_CUDA(cudaDeviceCanAccessPeer(&can, i, j));
      if (i != j && can) WM_CUDA(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, i, j));
      s.peerAccess[i][j] = can != 0;
      s.peerAtomics[i][j] = can != 0 && atomics != 0;
    }
  return s;
}

KernelImage kernelImage() {
  synchronize();  // selects the device and makes its context, as every call on it does
  cudaFuncAttributes a;
  WM_CUDA(cudaFuncGetAttributes(&a, probeKernel));
  return KernelImage{a.binaryVersion, a.ptxVersion};
}

std::string cublasLocation() {
  Cublas* c = cublas();
  return c ? c->path : "";
}

}  // namespace wm
