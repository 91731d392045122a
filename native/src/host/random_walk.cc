// Random walks on the CPU: the per-walk rules of wm/random_walk.h, the same
// draws as the CUDA kernel.
#include "parallel.h"
#include "wm/random_walk.h"

namespace wm {
namespace host {

int64_t randomWalks(const int32_t* rowPtr, const int32_t* colIdx, int64_t numVertices, const int32_t* starts, int64_t n,
                    int length, uint64_t seed, WalkBias bias, int32_t* out) {
  for (int64_t i = 0; i < n; ++i)
    if (starts[i] < 0 || starts[i] >= numVertices) return i;
  parallelFor(n, 256, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) walkOne(rowPtr, colIdx, starts[i], i, length, seed, bias, out + i * length);
  });
  return -1;
}

}  // namespace host
}  // namespace wm
