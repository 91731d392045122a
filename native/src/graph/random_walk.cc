// Random walks on the CPU: the per-step rules of wm/random_walk.h, the same
// draws as the CUDA kernel. Each thread advances a group of walks one step at
// a time, so the group's reads of the graph are independent of each other
// and overlap in the memory system (one walk alone waits on every read).
#include <algorithm>
#include <atomic>

#include "graph/csr_guard.h"
#include "runtime/parallel.h"
#include "wm/random_walk.h"

namespace wm {
namespace host {
namespace {
constexpr int kGroup = 16;
}  // namespace

template <typename Off>
int64_t randomWalks(const Off* rowPtr, const int32_t* colIdx, int64_t nnz, int64_t numVertices, const int32_t* starts, int64_t n,
                    int length, uint64_t seed, WalkBias bias, int32_t* out) {
  for (int64_t i = 0; i < n; ++i)
    if (starts[i] < 0 || starts[i] >= numVertices) return i;
  if (length == 0) return -1;
  const CsrGuard<Off> guard{rowPtr, numVertices, nnz};
  std::atomic<bool> changed{false};
  parallelFor(n, 256, [&](int64_t b, int64_t e) {
    for (int64_t g0 = b; g0 < e; g0 += kGroup) {
      int g = static_cast<int>(std::min<int64_t>(kGroup, e - g0));
      int32_t prev[kGroup], cur[kGroup];
      for (int k = 0; k < g; ++k) {
        prev[k] = -1;
        cur[k] = starts[g0 + k];
        out[(g0 + k) * length] = cur[k];
      }
      for (int s = 1; s < length; ++s) {
        for (int k = 0; k < g; ++k) {
          // A biased step reads the previous vertex's row too.
          if (!guard.rowOk(cur[k]) || (prev[k] >= 0 && !bias.uniform && !guard.rowOk(prev[k]))) {
            changed = true;
            cur[k] = prev[k] = starts[g0 + k];  // walk on a valid row; the result is discarded
            continue;
          }
          int32_t next = walkStep(rowPtr, colIdx, prev[k], cur[k], seed, g0 + k, s, bias);
          out[(g0 + k) * length + s] = next;
          prev[k] = cur[k];
          cur[k] = next;
        }
      }
    }
  });
  if (changed) CsrGuard<Off>::changed("randomWalks");
  return -1;
}

template int64_t randomWalks<int32_t>(const int32_t*, const int32_t*, int64_t, int64_t, const int32_t*, int64_t, int, uint64_t, WalkBias,
                                      int32_t*);
template int64_t randomWalks<int64_t>(const int64_t*, const int32_t*, int64_t, int64_t, const int32_t*, int64_t, int, uint64_t, WalkBias,
                                      int32_t*);

}  // namespace host
}  // namespace wm
