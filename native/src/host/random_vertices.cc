// Uniform vertex ids on the CPU: the draws of the CUDA kernel.
#include "parallel.h"
#include "wm/random_walk.h"

namespace wm {
namespace host {

void randomVertices(int64_t count, int64_t numVertices, uint64_t seed, int32_t* out) {
  parallelFor(count, 1 << 15, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = randomVertex(seed, i, numVertices);
  });
}

}  // namespace host
}  // namespace wm
