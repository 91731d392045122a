#include <algorithm>
#include <cstring>

#include "runtime/check.h"
#include "wm/runtime.h"
#include "wm/shared_buffer.h"

namespace wm {

uint64_t sharedDeviceAlloc(size_t bytes, std::string* handle) {
  void* p = nullptr;
  WM_CUDA(cudaMalloc(&p, std::max<size_t>(bytes, 256)));
  cudaIpcMemHandle_t h;
  cudaError_t e = cudaIpcGetMemHandle(&h, p);
  if (e != cudaSuccess) {
    cudaFree(p);
    WM_CUDA(e);
  }
  handle->assign(reinterpret_cast<const char*>(&h), sizeof h);
  return reinterpret_cast<uint64_t>(p);
}

void sharedDeviceFree(uint64_t ptr) {
  // Work queued on the stream may still read it.
  cudaStreamSynchronize(stream());
  WM_CUDA(cudaFree(reinterpret_cast<void*>(ptr)));
}

uint64_t sharedDeviceOpen(const std::string& handle) {
  static_assert(sizeof(cudaIpcMemHandle_t) == kIpcHandleBytes, "CUDA IPC handles are 64 bytes");
  WM_REQUIRE(handle.size() == sizeof(cudaIpcMemHandle_t), "open: the descriptor's ipcHandle is not a CUDA IPC handle");
  cudaIpcMemHandle_t h;
  std::memcpy(&h, handle.data(), sizeof h);
  void* p = nullptr;
  cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
  if (e != cudaSuccess) {
    cudaGetLastError();
    fail(std::string("open: the shared GPU buffer could not be mapped (") + cudaGetErrorName(e) +
         "): it was deleted, its owner exited, or it lives in this same process");
  }
  return reinterpret_cast<uint64_t>(p);
}

void sharedDeviceClose(uint64_t ptr) {
  cudaStreamSynchronize(stream());
  cudaIpcCloseMemHandle(reinterpret_cast<void*>(ptr));
}

}  // namespace wm
