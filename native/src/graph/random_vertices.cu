// Uniform vertex ids on the GPU (negatives for skip-gram training): the hash
// draws of wm/random_walk.h's randomVertex, so the CPU returns the same ids.
#include "runtime/launch.cuh"
#include "wm/op_registry.h"
#include "wm/random_walk.h"
#include "wm/runtime.h"

namespace wm {
namespace {

__global__ void randomVerticesKernel(int64_t count, int64_t numVertices, uint64_t seed, int32_t* out) {
  WM_GRID_STRIDE(i, count) out[i] = randomVertex(seed, i, numVertices);
}

}  // namespace

void randomVertices(int64_t count, int64_t numVertices, uint64_t seed, uint64_t out) {
  if (count == 0) return;
  randomVerticesKernel<<<gridFor(count), kThreads, 0, stream()>>>(count, numVertices, seed, as<int32_t>(out));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// randomVertices(count, numVertices, seed, out)
WM_OP(randomVertices, Device, a) {
  wm::randomVertices(a.count(0, "count"), a.count(1, "numVertices"), static_cast<uint64_t>(a.count(2, "seed")), a.address(3, "out"));
}
