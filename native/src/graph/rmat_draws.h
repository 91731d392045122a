// The R-MAT draws of src/graph/rmat.ts, draw for draw (mulberry32, the same
// comparisons, the same shuffle): one seed gives one graph in TypeScript, in
// rmatEdges and in NativeGraph::rmat.
#pragma once
#include <cmath>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "runtime/parallel.h"
#include "wm/hash.h"

namespace wm {
namespace host {

struct RmatDraws {
  int scale;
  int64_t m;  // edges drawn
  double a, b, c;
  uint32_t seed;

  // Mulberry32's state only counts (+0x6d2b79f5 a draw) and every edge takes `scale` draws, so
  // edge e's first state is known: edges are drawn in parallel and still equal the sequential stream.
  uint32_t perEdge() const { return static_cast<uint32_t>(scale) * 0x6d2b79f5u; }

  // f(e, u, v) for every edge, in parallel ranges (f must be safe to call from several threads).
  template <typename F>
  void forEach(F&& f) const {
    forEachIn(0, m, f);
  }

  // f(e, u, v) for the edges [from, to).
  template <typename F>
  void forEachIn(int64_t from, int64_t to, F&& f) const {
    // (a + b) + c as the TypeScript evaluates it; branch-free quadrant picks (random draws mispredict).
    const double ab = a + b, abc = ab + c;
    parallelFor(to - from, 1 << 16, [&](int64_t b, int64_t e) {
      const int64_t first = from + b, last = from + e;
      Mulberry32 rng{seed + static_cast<uint32_t>(first) * perEdge()};
      for (int64_t e = first; e < last; ++e) {
        uint32_t u = 0, v = 0;
        for (int bit = scale - 1; bit >= 0; --bit) {
          const double r = rng.next();
          const uint32_t right = static_cast<uint32_t>(r >= a) & (static_cast<uint32_t>(r < ab) | static_cast<uint32_t>(r >= abc));
          const uint32_t down = static_cast<uint32_t>(r >= ab);
          u |= down << bit;
          v |= right << bit;
        }
        f(e, static_cast<int32_t>(u), static_cast<int32_t>(v));
      }
    });
  }

  // The relabelling drawn after the m edges (a Fisher-Yates shuffle of 2^scale ids).
  std::vector<int32_t> permutation() const {
    const int64_t n = int64_t{1} << scale;
    std::vector<int32_t> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    Mulberry32 rng{seed + static_cast<uint32_t>(m) * perEdge()};
    for (int64_t i = n - 1; i > 0; --i) {
      const int64_t j = static_cast<int64_t>(std::floor(rng.next() * static_cast<double>(i + 1)));
      std::swap(perm[i], perm[j]);
    }
    return perm;
  }
};

}  // namespace host
}  // namespace wm
