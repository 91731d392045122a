// The scalar pieces of graph attention (GAT), shared by the CUDA kernels and
// the CPU core: the attention logit of an entry and the slope its gradient
// passes (tf.leakyRelu's: the negative side below zero, and at zero too).
#pragma once

#ifdef __CUDACC__
#define WM_GAT __host__ __device__ __forceinline__
#else
#define WM_GAT inline
#endif

namespace wm {
namespace gat {

WM_GAT float logit(float src, float dst, float slope) {
  const float z = src + dst;
  return z < 0.f ? slope * z : z;
}

WM_GAT float logitSlope(float src, float dst, float slope) { return src + dst > 0.f ? 1.f : slope; }

}  // namespace gat
}  // namespace wm
