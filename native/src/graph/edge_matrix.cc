// Graphs from an edge matrix in a file (NumPy's edge_index, as PyG and OGB save it): the two id columns a
// build takes, without reading the file through JavaScript. int32 ids in [2, m] layout are the columns
// already, so they are mapped copy-on-write; int64 ids or [m, 2] pairs are converted in parallel, each id
// checked to be a vertex id (ids are int32 in the graph). Homogeneous graphs and typed relations are built from them.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <utility>

#include "runtime/parallel.h"
#include "wm/native_graph.h"
#include "wm/status.h"

namespace wm {
namespace host {
namespace {

constexpr int64_t kIdLimit = INT32_MAX;  // ids below it: column ids are int32

// The two id columns of the file's edges as int32: mapped where the file holds them so, else converted
// in parallel, each id checked to fit.
std::pair<PageArray, PageArray> idColumns(const EdgeMatrix& e) {
  const int64_t m = e.m;
  const size_t width = e.int64 ? 8 : 4, bytes = static_cast<size_t>(m) * width;
  WM_REQUIRE(m >= 0, e.path + ": the edge count must not be negative");
  PageArray src, dst;
  if (!e.int64 && !e.pairsInRows) {
    src = PageArray::mapPath(e.path, e.offset, bytes);
    dst = PageArray::mapPath(e.path, e.offset + bytes, bytes);
  } else {
    const PageArray raw = PageArray::mapPath(e.path, e.offset, 2 * bytes);
    src = PageArray::allocate(static_cast<size_t>(m) * 4, "edge sources");
    dst = PageArray::allocate(static_cast<size_t>(m) * 4, "edge destinations");
    // Edge i's ids: (i, m + i) in [2, m], (2i, 2i + 1) in [m, 2].
    const int64_t s0 = 0, sStep = e.pairsInRows ? 2 : 1, d0 = e.pairsInRows ? 1 : m;
    auto at = [&](int64_t k) -> int64_t {
      if (e.int64) {
        int64_t v;
        std::memcpy(&v, static_cast<const char*>(raw.data()) + static_cast<size_t>(k) * 8, 8);
        return v;
      }
      return static_cast<const int32_t*>(raw.data())[k];
    };
    int32_t* s = static_cast<int32_t*>(src.data());
    int32_t* d = static_cast<int32_t*>(dst.data());
    // Converted in one pass over the file; the pass stops at an id that is not a vertex id.
    const int64_t bad = parallelFirst(m, 1 << 16, [&](int64_t i) {
      const int64_t u = at(s0 + sStep * i), v = at(d0 + sStep * i);
      if (u < 0 || u >= kIdLimit || v < 0 || v >= kIdLimit) return true;
      s[i] = static_cast<int32_t>(u);
      d[i] = static_cast<int32_t>(v);
      return false;
    });
    if (bad < m)
      fail(e.path + ": edge " + std::to_string(bad) + " (" + std::to_string(at(s0 + sStep * bad)) + ", " +
           std::to_string(at(d0 + sStep * bad)) + ") holds an id outside [0, 2^31 - 1)");
  }
  return {std::move(src), std::move(dst)};
}

// The largest of `ids` (m of them; -1 for none); a negative id is refused, naming the file and the edge.
int64_t largestId(const EdgeMatrix& e, const int32_t* ids, int64_t m, const char* what) {
  const int64_t bad = parallelFirst(m, 1 << 16, [&](int64_t i) { return ids[i] < 0; });
  if (bad < m) fail(e.path + ": edge " + std::to_string(bad) + " has " + what + " " + std::to_string(ids[bad]) + ", a negative id");
  std::atomic<int32_t> most{-1};
  parallelFor(m, 1 << 16, [&](int64_t b, int64_t end) {
    int32_t mine = -1;
    for (int64_t i = b; i < end; ++i) mine = std::max(mine, ids[i]);
    int32_t cur = most.load();
    while (mine > cur && !most.compare_exchange_weak(cur, mine)) {
    }
  });
  return most.load();
}

}  // namespace

std::unique_ptr<NativeGraph> NativeGraph::fromEdgeMatrix(const EdgeMatrix& e, int64_t numVertices, bool symmetric) {
  const int64_t m = e.m;
  WM_REQUIRE(numVertices >= -1 && numVertices <= kIdLimit,
             e.path + ": numVertices must be in [0, 2^31 - 1], got " + std::to_string(numVertices));
  auto [src, dst] = idColumns(e);
  if (numVertices < 0) {
    const int32_t* s = static_cast<const int32_t*>(src.data());
    const int32_t* d = static_cast<const int32_t*>(dst.data());
    // The largest id + 1 (negative ids are refused by the build, naming the edge).
    std::atomic<int32_t> most{-1};
    parallelFor(m, 1 << 16, [&](int64_t b, int64_t end) {
      int32_t mine = -1;
      for (int64_t i = b; i < end; ++i) mine = std::max({mine, s[i], d[i]});
      int32_t cur = most.load();
      while (mine > cur && !most.compare_exchange_weak(cur, mine)) {
      }
    });
    numVertices = static_cast<int64_t>(most.load()) + 1;
    WM_REQUIRE(numVertices <= kIdLimit, e.path + ": an id of 2^31 - 1 leaves no room for the vertex count");
  }
  try {
    return fromEdgeArrays(numVertices, std::move(src), std::move(dst), m, symmetric);
  } catch (const std::exception& ex) {
    fail(e.path + ": " + ex.what());
  }
}

std::unique_ptr<NativeGraph> NativeGraph::relationFromEdgeMatrix(const EdgeMatrix& e, int64_t numVertices) {
  auto [src, dst] = idColumns(e);
  try {
    return relation(numVertices, static_cast<const int32_t*>(src.data()), static_cast<const int32_t*>(dst.data()), e.m);
  } catch (const std::exception& ex) {
    fail(e.path + ": " + ex.what());
  }
}

std::pair<int64_t, int64_t> NativeGraph::edgeMatrixMaxIds(const EdgeMatrix& e) {
  auto [src, dst] = idColumns(e);
  return {largestId(e, static_cast<const int32_t*>(src.data()), e.m, "source"),
          largestId(e, static_cast<const int32_t*>(dst.data()), e.m, "destination")};
}

}  // namespace host
}  // namespace wm
