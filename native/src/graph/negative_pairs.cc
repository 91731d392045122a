#include <atomic>

#include "graph/csr_guard.h"
#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "wm/graph_ops.h"
#include "wm/native_graph.h"

namespace wm {
namespace host {

template <typename Off>
int64_t negativePairs(const Off* rowPtr, const int32_t* colIdx, int64_t nnz, int64_t numVertices, int64_t count, uint64_t seed,
                      int32_t* src, int32_t* dst) {
  std::atomic<int64_t> exhausted{0};
  const CsrGuard<Off> guard{rowPtr, numVertices, nnz};
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
  if (changed) CsrGuard<Off>::changed("negativePairs");
  return exhausted;
}

template int64_t negativePairs<int32_t>(const int32_t*, const int32_t*, int64_t, int64_t, int64_t, uint64_t, int32_t*, int32_t*);
template int64_t negativePairs<int64_t>(const int64_t*, const int32_t*, int64_t, int64_t, int64_t, uint64_t, int32_t*, int32_t*);

}  // namespace host
}  // namespace wm

// negativePairs(rowPtr, colIdx, numVertices, count, seed, src, dst) -> pairs that exhausted their tries
// rowPtr: an Int32Array (int32 offsets), or a NativeGraph read in place (int64 offsets; colIdx then null).
WM_OP(negativePairs, Host, a) {
  const int64_t numVertices = a.count(2, "numVertices"), count = a.count(3, "count");
  const uint64_t seed = static_cast<uint64_t>(a.count(4, "seed"));
  int32_t* src = a.ints(5, "src", count);
  int32_t* dst = a.ints(6, "dst", count);
  if (a.kind(0) == wm::OpArgs::Kind::Other) {
    const wm::host::NativeGraph& g = a.graph(0, "rowPtr");
    if (g.numVertices() != numVertices) a.reject(2, "numVertices", "must be the graph's " + std::to_string(g.numVertices()));
    a.returns(static_cast<double>(wm::host::negativePairs(g.rowPtr(), g.colIdx(), g.numEdges(), numVertices, count, seed, src, dst)));
    return;
  }
  a.returns(static_cast<double>(wm::host::negativePairs(a.ints(0, "rowPtr", numVertices + 1), a.ints(1, "colIdx", 0), a.length(1, "colIdx"),
                                                        numVertices, count, seed, src, dst)));
}
