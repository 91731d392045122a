// R-MAT edges in C++, draw for draw the generator of src/graph/rmat.ts
// (mulberry32, the same comparisons, the same shuffle), so a seed gives the
// same graph either way — only many times faster, which large graphs need.
#include <cmath>
#include <numeric>
#include <vector>

#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "wm/graph_ops.h"

namespace wm {
namespace host {
namespace {

struct Mulberry32 {
  uint32_t a;
  double next() {
    a += 0x6d2b79f5u;
    uint32_t t = a;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
  }
};

}  // namespace

void rmatEdges(int scale, int64_t m, double a, double b, double c, uint32_t seed, bool permute, int32_t* src, int32_t* dst) {
  // (a + b) + c as the TypeScript evaluates it; branch-free quadrant picks
  // (the draws are random, so branches would mispredict half the time).
  const double ab = a + b, abc = ab + c;
  // Mulberry32's state only counts (+0x6d2b79f5 a draw) and every edge takes
  // `scale` draws, so edge e's first state is known: edges are drawn in
  // parallel and still equal the sequential stream, draw for draw.
  const uint32_t perEdge = static_cast<uint32_t>(scale) * 0x6d2b79f5u;
  parallelFor(m, 1 << 16, [&](int64_t first, int64_t last) {
    Mulberry32 rng{seed + static_cast<uint32_t>(first) * perEdge};
    for (int64_t e = first; e < last; ++e) {
      uint32_t u = 0, v = 0;
      for (int bit = scale - 1; bit >= 0; --bit) {
        const double r = rng.next();
        const uint32_t right = static_cast<uint32_t>(r >= a) & (static_cast<uint32_t>(r < ab) | static_cast<uint32_t>(r >= abc));
        const uint32_t down = static_cast<uint32_t>(r >= ab);
        u |= down << bit;
        v |= right << bit;
      }
      src[e] = static_cast<int32_t>(u);
      dst[e] = static_cast<int32_t>(v);
    }
  });
  if (!permute) return;
  const int64_t n = int64_t{1} << scale;
  std::vector<int32_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  Mulberry32 rng{seed + static_cast<uint32_t>(m) * perEdge};
  for (int64_t i = n - 1; i > 0; --i) {
    const int64_t j = static_cast<int64_t>(std::floor(rng.next() * static_cast<double>(i + 1)));
    std::swap(perm[i], perm[j]);
  }
  parallelFor(m, 1 << 16, [&](int64_t first, int64_t last) {
    for (int64_t e = first; e < last; ++e) {
      src[e] = perm[src[e]];
      dst[e] = perm[dst[e]];
    }
  });
}

}  // namespace host
}  // namespace wm

// rmat(scale, a, b, c, seed, permute, src, dst): fills src and dst (as many edges as src holds).
WM_OP(rmat, Host, a) {
  const int64_t m = a.length(6, "src");
  wm::host::rmatEdges(static_cast<int>(a.count(0, "scale")), m, a.number(1, "a"), a.number(2, "b"), a.number(3, "c"),
                      static_cast<uint32_t>(a.count(4, "seed")), a.flag(5, "permute"), a.ints(6, "src", m), a.ints(7, "dst", m));
}
