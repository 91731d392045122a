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

// The file's ids in place: edge i's are (i, m + i) in [2, m], (2i, 2i + 1) in [m, 2], int32 or int64.
struct EdgeIds {
  explicit EdgeIds(const EdgeMatrix& e)
      : raw(PageArray::mapPath(e.path, e.offset, 2 * static_cast<size_t>(e.m) * (e.int64 ? 8 : 4))),
        int64(e.int64),
        step(e.pairsInRows ? 2 : 1),
        d0(e.pairsInRows ? 1 : e.m) {}
  int64_t at(int64_t k) const {
    if (int64) {
      int64_t v;
      std::memcpy(&v, static_cast<const char*>(raw.data()) + static_cast<size_t>(k) * 8, 8);
      return v;
    }
    return static_cast<const int32_t*>(raw.data())[k];
  }
  int64_t src(int64_t i) const { return at(step * i); }
  int64_t dst(int64_t i) const { return at(d0 + step * i); }
  // The first edge holding an id that is not a vertex id, refused naming the file and the edge.
  void check(const EdgeMatrix& e) const {
    const int64_t bad = parallelFirst(e.m, 1 << 16, [&](int64_t i) {
      const int64_t u = src(i), v = dst(i);
      return u < 0 || u >= kIdLimit || v < 0 || v >= kIdLimit;
    });
    if (bad < e.m)
      fail(e.path + ": edge " + std::to_string(bad) + " (" + std::to_string(src(bad)) + ", " + std::to_string(dst(bad)) +
           ") holds an id outside [0, 2^31 - 1)");
  }
  PageArray raw;
  bool int64;
  int64_t step, d0;
};

// The two id columns of the file's edges as int32: mapped where the file holds them so, else converted
// in parallel, each id checked to fit.
std::pair<PageArray, PageArray> idColumns(const EdgeMatrix& e) {
  const int64_t m = e.m;
  WM_REQUIRE(m >= 0, e.path + ": the edge count must not be negative");
  if (!e.int64 && !e.pairsInRows) {
    const size_t bytes = static_cast<size_t>(m) * 4;
    return {PageArray::mapPath(e.path, e.offset, bytes), PageArray::mapPath(e.path, e.offset + bytes, bytes)};
  }
  const EdgeIds ids(e);
  ids.check(e);
  PageArray src = PageArray::allocate(static_cast<size_t>(m) * 4, "edge sources");
  PageArray dst = PageArray::allocate(static_cast<size_t>(m) * 4, "edge destinations");
  int32_t* s = static_cast<int32_t*>(src.data());
  int32_t* d = static_cast<int32_t*>(dst.data());
  parallelFor(m, 1 << 16, [&](int64_t b, int64_t end) {
    for (int64_t i = b; i < end; ++i) {
      s[i] = static_cast<int32_t>(ids.src(i));
      d[i] = static_cast<int32_t>(ids.dst(i));
    }
  });
  return {std::move(src), std::move(dst)};
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
  WM_REQUIRE(e.m >= 0, e.path + ": the edge count must not be negative");
  // Read in place: the ids checked and their largest found without converting a column.
  const EdgeIds ids(e);
  ids.check(e);
  std::atomic<int64_t> mostSrc{-1}, mostDst{-1};
  const auto raise = [](std::atomic<int64_t>& most, int64_t mine) {
    int64_t cur = most.load();
    while (mine > cur && !most.compare_exchange_weak(cur, mine)) {
    }
  };
  parallelFor(e.m, 1 << 16, [&](int64_t b, int64_t end) {
    int64_t s = -1, d = -1;
    for (int64_t i = b; i < end; ++i) {
      s = std::max(s, ids.src(i));
      d = std::max(d, ids.dst(i));
    }
    raise(mostSrc, s);
    raise(mostDst, d);
  });
  return {mostSrc.load(), mostDst.load()};
}

}  // namespace host
}  // namespace wm
