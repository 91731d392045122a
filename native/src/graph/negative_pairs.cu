// Negative pairs for link prediction: each thread draws pairs from the same
// counter-based hash as the CPU version (so both return the same pairs)
// until one is not an edge.
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"
#include "wm/graph_ops.h"
#include "wm/runtime.h"

namespace wm {
namespace {

template <typename Off>
__global__ void negativeKernel(const Off* rowPtr, const int32_t* colIdx, int64_t numVertices, int64_t count, uint64_t seed, int32_t* src,
                               int32_t* dst, unsigned long long* exhausted) {
  WM_GRID_STRIDE(i, count) {
    int32_t u = 0, v = 0;
    int k = 0;
    for (; k < kNegativeTries; ++k) {
      negativeDraw(seed, i, k, numVertices, &u, &v);
      if (u != v && !csrHasEdge(rowPtr, colIdx, u, v)) break;
    }
    if (k == kNegativeTries) atomicAdd(exhausted, 1ull);
    src[i] = u;
    dst[i] = v;
  }
}

}  // namespace

int64_t negativePairs(uint64_t rowPtr, uint64_t colIdx, int64_t numVertices, int64_t count, uint64_t seed, uint64_t src, uint64_t dst,
                      bool wideOffsets) {
  if (count == 0) return 0;
  uint64_t flag = deviceAlloc(sizeof(unsigned long long));
  WM_CUDA(cudaMemsetAsync(reinterpret_cast<void*>(flag), 0, sizeof(unsigned long long), stream()));
  auto launch = [&](auto offsets) {
    negativeKernel<<<gridFor(count), kThreads, 0, stream()>>>(offsets, as<int32_t>(colIdx), numVertices, count, seed, as<int32_t>(src),
                                                              as<int32_t>(dst), reinterpret_cast<unsigned long long*>(flag));
  };
  if (wideOffsets)
    launch(as<int64_t>(rowPtr));
  else
    launch(as<int32_t>(rowPtr));
  WM_CUDA_LAUNCHED();
  unsigned long long exhausted = 0;
  copyDeviceToHost(&exhausted, flag, sizeof exhausted);
  deviceFree(flag);
  return static_cast<int64_t>(exhausted);
}

}  // namespace wm

// negativePairs(rowPtr, colIdx, numVertices, count, seed, src, dst, wideOffsets?) -> pairs that exhausted their tries
WM_OP(negativePairs, Device, a) {
  a.returns(static_cast<double>(wm::negativePairs(a.address(0, "rowPtr"), a.address(1, "colIdx"), a.count(2, "numVertices"),
                                                  a.count(3, "count"), static_cast<uint64_t>(a.count(4, "seed")), a.address(5, "src"),
                                                  a.address(6, "dst"), a.flag(7, "wideOffsets", false))));
}
