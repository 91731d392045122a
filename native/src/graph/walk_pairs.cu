// Skip-gram pairs of walks on the GPU: a thread per pair, wm/random_walk.h's
// walkPair order (what the tfjs slices and concats of walkPairs gave, in one
// launch instead of four per offset).
#include "runtime/launch.cuh"
#include "wm/op_registry.h"
#include "wm/random_walk.h"
#include "wm/runtime.h"

namespace wm {
namespace {

__global__ void walkPairsKernel(const int32_t* walks, int64_t n, int length, int window, int64_t total, int32_t* center, int32_t* context) {
  WM_GRID_STRIDE(p, total) walkPair(walks, n, length, window, p, center + p, context + p);
}

}  // namespace

void walkPairs(uint64_t walks, int64_t n, int length, int window, uint64_t center, uint64_t context) {
  const int64_t total = walkPairCount(n, length, window);
  if (total == 0) return;
  walkPairsKernel<<<gridFor(total), kThreads, 0, stream()>>>(as<int32_t>(walks), n, length, window, total, as<int32_t>(center),
                                                             as<int32_t>(context));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// walkPairs(walks, n, length, window, center, context)
WM_OP(walkPairs, Device, a) {
  wm::walkPairs(a.address(0, "walks"), a.count(1, "n"), static_cast<int>(a.count(2, "length")), static_cast<int>(a.count(3, "window")),
                a.address(4, "center"), a.address(5, "context"));
}
