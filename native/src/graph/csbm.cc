// The contextual stochastic block model drawn in parallel: every label, edge and feature comes from a
// counter-based hash of (seed, index, draw), so a graph is the same whatever the thread count and a
// feature row is the same whichever chunk asks for it. Only the CSR is built; the edges are dropped once
// placed (NativeGraph::fromEdgeArrays).
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

// Streams of the hash, one per kind of draw.
constexpr uint64_t kLabelStream = 0x6373626d6c61ull, kEdgeStream = 0x6373626d6564ull, kFeatureStream = 0x6373626d6665ull;
// Tries for a target outside the source's class before the last draw stands (a class holding nearly every
// vertex; with two or more classes of near-equal size a try fails with probability about 1 / classes).
constexpr int kOutsideTries = 64;

double unitOf(uint64_t h) { return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0); }

void checkSpec(const CsbmSpec& s) {
  WM_REQUIRE(s.vertices >= 2 && s.vertices <= INT32_MAX, "csbm: vertices must be in [2, 2^31 - 1], got " + std::to_string(s.vertices));
  WM_REQUIRE(s.classes >= 2 && s.classes <= s.vertices, "csbm: classes must be in [2, vertices], got " + std::to_string(s.classes));
  WM_REQUIRE(s.degree > 0 && s.degree < static_cast<double>(s.vertices), "csbm: degree must be in (0, vertices)");
  WM_REQUIRE(s.homophily >= 0 && s.homophily <= 1, "csbm: homophily must be in [0, 1]");
}

}  // namespace

std::unique_ptr<NativeGraph> NativeGraph::csbm(const CsbmSpec& s, int32_t* labels) {
  checkSpec(s);
  const int64_t n = s.vertices, c = s.classes;
  parallelFor(n, 1 << 16, [&](int64_t b, int64_t e) {
    for (int64_t v = b; v < e; ++v)
      labels[v] = static_cast<int32_t>(hashBelow(sampleHash(s.seed ^ kLabelStream, static_cast<uint64_t>(v), 0), c));
  });
  // Each class's vertices, contiguous (a counting sort by label).
  std::vector<int64_t> start(static_cast<size_t>(c) + 1, 0);
  for (int64_t v = 0; v < n; ++v) ++start[static_cast<size_t>(labels[v]) + 1];
  for (int64_t y = 0; y < c; ++y) start[static_cast<size_t>(y) + 1] += start[static_cast<size_t>(y)];
  PageArray members = PageArray::allocate(static_cast<size_t>(n) * 4, "csbm class members");
  int32_t* mem = static_cast<int32_t*>(members.data());
  {
    std::vector<int64_t> fill(start.begin(), start.end() - 1);
    for (int64_t v = 0; v < n; ++v) mem[fill[static_cast<size_t>(labels[v])]++] = static_cast<int32_t>(v);
  }
  const int64_t m = std::llround(static_cast<double>(n) * s.degree / 2);
  PageArray src = PageArray::allocate(static_cast<size_t>(m) * 4, "csbm edge sources");
  PageArray dst = PageArray::allocate(static_cast<size_t>(m) * 4, "csbm edge destinations");
  int32_t* su = static_cast<int32_t*>(src.data());
  int32_t* dv = static_cast<int32_t*>(dst.data());
  const uint64_t seed = s.seed ^ kEdgeStream;
  parallelFor(m, 1 << 14, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const uint64_t k = static_cast<uint64_t>(i);
      const int64_t u = hashBelow(sampleHash(seed, k, 0), n);
      const int32_t y = labels[u];
      int64_t v;
      if (unitOf(sampleHash(seed, k, 1)) < s.homophily) {
        const int64_t lo = start[static_cast<size_t>(y)], size = start[static_cast<size_t>(y) + 1] - lo;
        v = mem[lo + hashBelow(sampleHash(seed, k, 2), size)];
      } else {
        v = hashBelow(sampleHash(seed, k, 3), n);
        for (int t = 1; t < kOutsideTries && labels[v] == y; ++t) v = hashBelow(sampleHash(seed, k, 3 + static_cast<uint64_t>(t)), n);
      }
      su[i] = static_cast<int32_t>(u);
      dv[i] = static_cast<int32_t>(v);
    }
  });
  members = PageArray();
  return fromEdgeArrays(n, std::move(src), std::move(dst), m, true);
}

void csbmFeatures(const CsbmSpec& s, const int32_t* labels, const float* means, int64_t dim, int64_t first, int64_t count, float* out) {
  WM_REQUIRE(first >= 0 && count >= 0 && first + count <= s.vertices, "csbmFeatures: rows past the graph");
  const uint64_t seed = s.seed ^ kFeatureStream;
  parallelFor(count, 1 << 10, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t v = first + r;
      const float* mean = means + static_cast<int64_t>(labels[v]) * dim;
      float* row = out + r * dim;
      // Box-Muller: two uniforms give two normals; 1 - u keeps the log finite.
      for (int64_t k = 0; k < dim; k += 2) {
        const uint64_t h = sampleHash(seed, static_cast<uint64_t>(v), static_cast<uint64_t>(k));
        const double u1 = 1.0 - unitOf(h), u2 = unitOf(sampleHash(seed ^ 1, static_cast<uint64_t>(v), static_cast<uint64_t>(k)));
        const double radius = std::sqrt(-2.0 * std::log(u1)), angle = 6.283185307179586 * u2;
        row[k] = mean[k] + static_cast<float>(radius * std::cos(angle));
        if (k + 1 < dim) row[k + 1] = mean[k + 1] + static_cast<float>(radius * std::sin(angle));
      }
    }
  });
}

}  // namespace host
}  // namespace wm
