// Uniform vertex ids on the CPU: the draws of the CUDA kernel.
#include "runtime/parallel.h"
#include "wm/op_registry.h"
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

// randomVertices(count, numVertices, seed, out)
WM_OP(randomVertices, Host, a) {
  const int64_t count = a.count(0, "count");
  wm::host::randomVertices(count, a.count(1, "numVertices"), static_cast<uint64_t>(a.count(2, "seed")), a.ints(3, "out", count));
}
