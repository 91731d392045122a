// Uploads of a few bytes (the scalars tfjs makes for `tf.mul(x, 0.5)`, a
// mean's divisor, a loss weight) carried as kernel arguments: a launch on
// the stream, where cudaMemcpyAsync from pageable memory first stages the
// bytes through the driver (an add of a tensor and a fresh scalar took
// twice as long as an add of two device tensors on an H100). Off unless
// WM_SMALL_UPLOAD=1 until it has passed the tests on a GPU (session 10 ran
// out of device time; DEVELOPERS.md says what to run).
#include <cstdlib>
#include <cstring>

#include "launch.cuh"
#include "wm/runtime.h"

namespace wm {
namespace {

struct Payload {
  unsigned char b[kSmallUploadBytes];
};

__global__ void smallUploadKernel(unsigned char* dst, Payload p, int bytes) {
  if (static_cast<int>(threadIdx.x) < bytes) dst[threadIdx.x] = p.b[threadIdx.x];
}

}  // namespace

void uploadTensorBytes(uint64_t dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  static const bool enabled = [] {
    const char* v = std::getenv("WM_SMALL_UPLOAD");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  if (!enabled || bytes > kSmallUploadBytes) {
    copyHostToDevice(dst, src, bytes);
    return;
  }
  Payload p{};
  const auto* s = static_cast<const unsigned char*>(src);
  for (size_t i = 0; i < bytes; ++i) p.b[i] = s[i];
  smallUploadKernel<<<1, kSmallUploadBytes, 0, stream()>>>(as<unsigned char>(dst), p, static_cast<int>(bytes));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm
