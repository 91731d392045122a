// Edge weights in a CSR's entry order, from the weighted edge list the CSR was built from: each edge
// (u, v, w) adds w to entry u -> v (and v -> u for a symmetric graph), so duplicates add up (PyG's
// coalesce with 'add'); self loops, which the builder drops, are skipped. Rows are sorted, so an entry
// is found by binary search; edges are spread over every core, each entry added to atomically.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "runtime/parallel.h"
#include "wm/native_graph.h"
#include "wm/op_registry.h"

namespace wm {
namespace host {
namespace {

// Adds w to the float at p (a compare-and-swap on its bits).
void atomicAdd(float* p, float w) {
  auto* word = reinterpret_cast<std::atomic<uint32_t>*>(p);
  uint32_t seen = word->load(std::memory_order_relaxed);
  for (;;) {
    float now;
    std::memcpy(&now, &seen, 4);
    const float next = now + w;
    uint32_t bits;
    std::memcpy(&bits, &next, 4);
    if (word->compare_exchange_weak(seen, bits, std::memory_order_relaxed)) return;
  }
}

}  // namespace

// Returns -1, or the first edge whose entry the graph lacks (a graph built from other edges).
int64_t csrEdgeWeights(const NativeGraph& g, const int32_t* src, const int32_t* dst, const float* w, int64_t m, bool symmetric,
                       float* out) {
  const int64_t* rowPtr = g.rowPtr();
  const int32_t* col = g.colIdx();
  const int64_t n = g.numVertices();
  std::fill(out, out + g.numEdges(), 0.f);
  auto entry = [&](int32_t u, int32_t v) -> int64_t {
    if (u < 0 || u >= n || v < 0 || v >= n) return -1;
    const int32_t* b = col + rowPtr[u];
    const int32_t* e = col + rowPtr[u + 1];
    const int32_t* at = std::lower_bound(b, e, v);
    return at != e && *at == v ? at - col : -1;
  };
  const int64_t bad = parallelFirst(m, 1 << 14, [&](int64_t i) {
    if (src[i] == dst[i]) return false;
    const int64_t k = entry(src[i], dst[i]);
    const int64_t r = symmetric ? entry(dst[i], src[i]) : 0;
    if (k < 0 || r < 0) return true;
    atomicAdd(out + k, w[i]);
    if (symmetric) atomicAdd(out + r, w[i]);
    return false;
  });
  return bad == m ? -1 : bad;
}

}  // namespace host
}  // namespace wm

// csrEdgeWeights(graph, src, dst, weights, m, symmetric, out) -> -1, or the first edge the graph lacks.
// out: a Float32Array of the graph's entries.
WM_OP(csrEdgeWeights, Host, a) {
  const wm::host::NativeGraph& g = a.graph(0, "graph");
  const int64_t m = a.count(4, "m");
  const int32_t* src = a.ints(1, "src", m);
  const int32_t* dst = a.ints(2, "dst", m);
  const float* w = a.floats(3, "weights", m);
  float* out = a.floats(6, "out", g.numEdges());
  a.returns(static_cast<double>(wm::host::csrEdgeWeights(g, src, dst, w, m, a.flag(5, "symmetric"), out)));
}
