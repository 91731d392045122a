// Dropout on the host: the CUDA kernel's loop (native/src/cuda/dropout.cu).
#include "parallel.h"
#include "wm/dropout_mask.h"
#include "wm/host_ops.h"

namespace wm {
namespace host {

void dropout(const float* x, float* y, int64_t n, uint32_t threshold, float scale, uint64_t seed) {
  parallelFor(n, 1 << 14, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) y[i] = dropoutKeeps(seed, i, threshold) ? x[i] * scale : 0.f;
  });
}

}  // namespace host
}  // namespace wm
