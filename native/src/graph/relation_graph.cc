// A typed graph's relation as a NativeGraph (wm/native_graph.h): row d lists the sources of the edges into
// d, every edge kept. Built in parallel: each row's count by atomic adds, each edge placed at its row's
// cursor, then each row sorted, so the entries do not depend on the number of threads.
#include <algorithm>
#include <string>

#include "graph/csr_offsets.h"
#include "runtime/parallel.h"
#include "wm/native_graph.h"
#include "wm/status.h"

namespace wm {
namespace host {

namespace {

constexpr int64_t kMaxRows = INT32_MAX;  // column ids are int32

}  // namespace

std::unique_ptr<NativeGraph> NativeGraph::relation(int64_t n, const int32_t* src, const int32_t* dst, int64_t m, int64_t numSrc,
                                                   int64_t numDst) {
  WM_REQUIRE(n >= 0 && n <= kMaxRows, "relation: numVertices must be in [0, 2^31 - 1], got " + std::to_string(n));
  WM_REQUIRE(m >= 0, "relation: the edge count must not be negative");
  if (numSrc < 0) numSrc = n;
  if (numDst < 0) numDst = n;
  WM_REQUIRE(numSrc <= n && numDst <= n, "relation: the types' counts must not pass numVertices");
  const int64_t bad =
      parallelFirst(m, 1 << 16, [&](int64_t e) { return src[e] < 0 || src[e] >= numSrc || dst[e] < 0 || dst[e] >= numDst; });
  if (bad < m) {
    const bool source = src[bad] < 0 || src[bad] >= numSrc;
    fail("edge " + std::to_string(bad) + ": " + (source ? "source " : "destination ") + std::to_string(source ? src[bad] : dst[bad]) +
         " is not an id in [0, " + std::to_string(source ? numSrc : numDst) + ")");
  }
  PageArray start = PageArray::allocate(static_cast<size_t>(n + 1) * 8, "relation row offsets");
  int64_t* st = static_cast<int64_t*>(start.data());
  parallelFor(m, 1 << 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) fetchAdd(st + dst[i] + 1, 1);
  });
  inclusiveScan(st + 1, st + 1, n);
  PageArray cursorPages = PageArray::allocate(static_cast<size_t>(std::max<int64_t>(n, 1)) * 8, "relation cursors");
  int64_t* cursor = static_cast<int64_t*>(cursorPages.data());
  std::copy(st, st + n, cursor);
  PageArray col = PageArray::allocate(static_cast<size_t>(std::max<int64_t>(m, 1)) * 4, "relation columns");
  int32_t* c = static_cast<int32_t*>(col.data());
  parallelFor(m, 1 << 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) c[fetchAdd(cursor + dst[i], 1)] = src[i];
  });
  cursorPages = PageArray();
  parallelForByCost(
      n, 1 << 16, [&](int64_t v) { return st[v] + v; },
      [&](int64_t b, int64_t e) {
        for (int64_t v = b; v < e; ++v) std::sort(c + st[v], c + st[v + 1]);
      });
  auto g = std::unique_ptr<NativeGraph>(new NativeGraph());
  g->numVertices_ = n;
  g->numEdges_ = m;
  g->rowPtr_ = std::move(start);
  col.shrink(static_cast<size_t>(m) * 4);
  g->colIdx_ = std::move(col);
  return g;
}

std::unique_ptr<NativeGraph> NativeGraph::relationFrom(const NativeGraph& g, RelationEdges which) {
  const int64_t n = g.numVertices(), m = g.numEdges();
  const int64_t total = which == RelationEdges::Both ? 2 * m : m;
  PageArray srcPages = PageArray::allocate(static_cast<size_t>(std::max<int64_t>(total, 1)) * 4, "relation sources");
  PageArray dstPages = PageArray::allocate(static_cast<size_t>(std::max<int64_t>(total, 1)) * 4, "relation destinations");
  int32_t* src = static_cast<int32_t*>(srcPages.data());
  int32_t* dst = static_cast<int32_t*>(dstPages.data());
  const int64_t* off = g.rowPtr();
  const int32_t* col = g.colIdx();
  const bool reversed = which == RelationEdges::Reversed;
  // Entry e of row v is the edge col[e] -> v.
  parallelForByCost(
      n, 1 << 16, [&](int64_t v) { return off[v] + v; },
      [&](int64_t b, int64_t e) {
        for (int64_t v = b; v < e; ++v)
          for (int64_t k = off[v]; k < off[v + 1]; ++k) {
            src[k] = reversed ? static_cast<int32_t>(v) : col[k];
            dst[k] = reversed ? col[k] : static_cast<int32_t>(v);
            if (which == RelationEdges::Both) {
              src[m + k] = static_cast<int32_t>(v);
              dst[m + k] = col[k];
            }
          }
      });
  return relation(n, src, dst, total);
}

}  // namespace host
}  // namespace wm
