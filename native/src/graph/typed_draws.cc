// Generated relations of typed graphs (wm/native_graph.h TypedDrawSpec): every edge from a counter-based hash of
// (seed, edge, draw), so a relation is the same whatever the thread count and any thread draws any edge. The
// edges are held until the relation is built (NativeGraph::relation), then dropped.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/parallel.h"
#include "wm/native_graph.h"
#include "wm/sampling.h"
#include "wm/status.h"

namespace wm {
namespace host {
namespace {

constexpr uint64_t kDrawStream = 0x7479706564726177ull, kLabelStream = 0x747970656c61626cull;

double unitOf(uint64_t h) { return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0); }

// floor(n u^skew): skew 1 is uniform; above it the low ids are drawn more often (heavy-tailed degrees).
int64_t skewed(uint64_t h, int64_t n, double skew) {
  const double u = unitOf(h);
  const int64_t i = static_cast<int64_t>(static_cast<double>(n) * (skew == 1 ? u : std::pow(u, skew)));
  return std::min(i, n - 1);
}

}  // namespace

void hashLabels(int64_t n, int32_t classes, uint64_t seed, int32_t* out) {
  WM_REQUIRE(n >= 0 && classes >= 1, "hashLabels: n must be >= 0 and classes >= 1");
  parallelFor(n, 1 << 16, [&](int64_t b, int64_t e) {
    for (int64_t v = b; v < e; ++v)
      out[v] = static_cast<int32_t>(hashBelow(sampleHash(seed ^ kLabelStream, static_cast<uint64_t>(v), 0), classes));
  });
}

std::unique_ptr<NativeGraph> NativeGraph::typedDraw(const TypedDrawSpec& s, const int32_t* srcLabels, const int32_t* dstLabels) {
  WM_REQUIRE(s.numSrc >= 1 && s.numSrc <= INT32_MAX && s.numDst >= 1 && s.numDst <= INT32_MAX,
             "typedDraw: numSrc and numDst must be in [1, 2^31 - 1]");
  WM_REQUIRE(s.m >= 0, "typedDraw: the edge count must not be negative");
  WM_REQUIRE(s.srcSkew >= 1 && s.dstSkew >= 1 && std::isfinite(s.srcSkew) && std::isfinite(s.dstSkew),
             "typedDraw: skews must be finite and >= 1");
  WM_REQUIRE(s.homophily >= 0 && s.homophily <= 1, "typedDraw: homophily must be in [0, 1]");
  WM_REQUIRE(s.homophily == 0 || (srcLabels && dstLabels && s.classes >= 1), "typedDraw: homophily needs both types' labels");
  WM_REQUIRE(!s.both || s.numSrc == s.numDst, "typedDraw: both ways needs one vertex count on both ends");
  // The destinations of each class, contiguous and ascending (a counting sort by label).
  std::vector<int64_t> start;
  PageArray members;
  if (s.homophily > 0) {
    const int64_t c = s.classes;
    start.assign(static_cast<size_t>(c) + 1, 0);
    for (int64_t v = 0; v < s.numDst; ++v) {
      WM_REQUIRE(dstLabels[v] >= 0 && dstLabels[v] < c, "typedDraw: destination label out of [0, classes) at " + std::to_string(v));
      ++start[static_cast<size_t>(dstLabels[v]) + 1];
    }
    for (int64_t y = 0; y < c; ++y) start[static_cast<size_t>(y) + 1] += start[static_cast<size_t>(y)];
    members = PageArray::allocate(static_cast<size_t>(s.numDst) * 4, "typedDraw class members");
    int32_t* mem = static_cast<int32_t*>(members.data());
    std::vector<int64_t> fill(start.begin(), start.end() - 1);
    for (int64_t v = 0; v < s.numDst; ++v) mem[fill[static_cast<size_t>(dstLabels[v])]++] = static_cast<int32_t>(v);
  }
  const int64_t total = s.both ? 2 * s.m : s.m;
  PageArray srcPages = PageArray::allocate(static_cast<size_t>(std::max<int64_t>(total, 1)) * 4, "typedDraw sources");
  PageArray dstPages = PageArray::allocate(static_cast<size_t>(std::max<int64_t>(total, 1)) * 4, "typedDraw destinations");
  int32_t* su = static_cast<int32_t*>(srcPages.data());
  int32_t* dv = static_cast<int32_t*>(dstPages.data());
  const int32_t* mem = static_cast<const int32_t*>(members.data());
  const uint64_t seed = s.seed ^ kDrawStream;
  parallelFor(s.m, 1 << 14, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const uint64_t k = static_cast<uint64_t>(i);
      const int64_t u = skewed(sampleHash(seed, k, 0), s.numSrc, s.srcSkew);
      int64_t v;
      if (s.homophily > 0 && unitOf(sampleHash(seed, k, 1)) < s.homophily) {
        const int32_t y = srcLabels[u];
        const int64_t lo = y < s.classes ? start[static_cast<size_t>(y)] : 0,
                      size = y < s.classes ? start[static_cast<size_t>(y) + 1] - lo : 0;
        v = size > 0 ? mem[lo + skewed(sampleHash(seed, k, 2), size, s.dstSkew)] : skewed(sampleHash(seed, k, 3), s.numDst, s.dstSkew);
      } else {
        v = skewed(sampleHash(seed, k, 3), s.numDst, s.dstSkew);
      }
      su[i] = static_cast<int32_t>(u);
      dv[i] = static_cast<int32_t>(v);
      if (s.both) {
        su[s.m + i] = static_cast<int32_t>(v);
        dv[s.m + i] = static_cast<int32_t>(u);
      }
    }
  });
  members = PageArray();
  const int64_t n = std::max(s.numSrc, s.numDst);
  // Rows are the destinations; with reverse the sources (the relation drawn the other way).
  return s.reverse ? relation(n, dv, su, total) : relation(n, su, dv, total);
}

}  // namespace host
}  // namespace wm
