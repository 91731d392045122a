// What a user needs to know about this install's CUDA side: the runtime linked
// in, the driver, the targets compiled into the addon, each GPU and which
// image of our kernels it runs (SASS built for it, or PTX the driver compiled),
// peer access between GPUs, and where cuBLAS and NCCL were found.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace wm {

struct GpuProperties {
  std::string name;
  int major = 0, minor = 0;  // compute capability
  size_t totalBytes = 0;
  int multiprocessors = 0;
  std::string pciBusId;
};

struct CudaSetup {
  int runtimeVersion = 0;  // the CUDA runtime compiled in, e.g. 13000 (0: built without CUDA)
  int driverVersion = 0;   // the newest CUDA the driver supports (0: no driver)
  std::string archs;       // the CUDA targets compiled in, CMake's form, comma separated
  std::vector<GpuProperties> gpus;
  std::vector<std::vector<bool>> peerAccess;   // [i][j]: GPU i can reach GPU j's memory
  std::vector<std::vector<bool>> peerAtomics;  // [i][j]: and its atomics there are native (NVLink)
};
CudaSetup cudaSetup();

// The image of our kernels the current GPU runs: binaryVersion is the SASS
// target (e.g. 90), ptxVersion the PTX it came from (80 when the driver compiled
// compute_80 PTX for it). Creates the device's context.
struct KernelImage {
  int binaryVersion = 0, ptxVersion = 0;
};
KernelImage kernelImage();

// The file each optional library was loaded from; empty when it is absent.
std::string cublasLocation();
std::string ncclLocation();

}  // namespace wm
