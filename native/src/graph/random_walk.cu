// Random walks on the GPU: one thread per walk, the per-walk rules of
// wm/random_walk.h (the CPU runs the same), so both walk the same vertices.
#include "runtime/launch.cuh"
#include "graph/vertex_guard.cuh"
#include "wm/random_walk.h"
#include "wm/runtime.h"

namespace wm {
namespace {

template <typename Off>
__global__ void walkKernel(const Off* rowPtr, const int32_t* colIdx, int64_t nv, const int32_t* starts, int64_t n, int length,
                           uint64_t seed, WalkBias bias, int32_t* out, unsigned long long* err) {
  WM_GRID_STRIDE(i, n) {
    const int32_t v = starts[i];
    if (!startInGraph(v, nv, i, err, out, length)) continue;
    walkOne(rowPtr, colIdx, v, i, length, seed, bias, out + i * length);
  }
}

}  // namespace

void randomWalks(uint64_t rowPtr, uint64_t colIdx, int64_t numVertices, uint64_t starts, int64_t n, int length, uint64_t seed,
                 WalkBias bias, uint64_t out, uint64_t errorFlag, bool wideOffsets) {
  if (n == 0 || length == 0) return;
  auto launch = [&](auto offsets) {
    walkKernel<<<gridFor(n), kThreads, 0, stream()>>>(offsets, as<int32_t>(colIdx), numVertices, as<int32_t>(starts), n, length, seed, bias,
                                                      as<int32_t>(out), reinterpret_cast<unsigned long long*>(errorFlag));
  };
  if (wideOffsets)
    launch(as<int64_t>(rowPtr));
  else
    launch(as<int32_t>(rowPtr));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm
