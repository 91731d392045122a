#include <atomic>

#include "graph/csr_guard.h"
#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "wm/graph_ops.h"

namespace wm {
namespace host {

int64_t negativePairs(const int32_t* rowPtr, const int32_t* colIdx, int64_t nnz, int64_t numVertices, int64_t count, uint64_t seed,
                      int32_t* src, int32_t* dst) {
  std::atomic<int64_t> exhausted{0};
  const CsrGuard<int32_t> guard{rowPtr, numVertices, nnz};
  std::atomic<bool> changed{false};
  parallelFor(count, 4096, [&](int64_t begin, int64_t end) {
    int64_t mine = 0;
    for (int64_t i = begin; i < end; ++i) {
      int32_t u = 0, v = 0;
      int k = 0;
      for (; k < kNegativeTries; ++k) {
        negativeDraw(seed, i, k, numVertices, &u, &v);
        if (!guard.rowOk(u)) {
          changed = true;
          break;
        }
        if (u != v && !csrHasEdge(rowPtr, colIdx, u, v)) break;
      }
      mine += k == kNegativeTries;
      src[i] = u;
      dst[i] = v;
    }
    exhausted += mine;
  });
  if (changed) CsrGuard<int32_t>::changed("negativePairs");
  return exhausted;
}

}  // namespace host
}  // namespace wm

// negativePairs(rowPtr, colIdx, numVertices, count, seed, src, dst) -> pairs that exhausted their tries
WM_OP(negativePairs, Host, a) {
  const int64_t numVertices = a.count(2, "numVertices"), count = a.count(3, "count");
  a.returns(static_cast<double>(wm::host::negativePairs(a.ints(0, "rowPtr", numVertices + 1), a.ints(1, "colIdx", 0), a.length(1, "colIdx"),
                                                        numVertices, count, static_cast<uint64_t>(a.count(4, "seed")),
                                                        a.ints(5, "src", count), a.ints(6, "dst", count))));
}
