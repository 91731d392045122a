// R-MAT edges in C++, draw for draw the generator of src/graph/rmat.ts
// (graph/rmat_draws.h), so a seed gives the same graph either way, only many
// times faster, which large graphs need.
#include "graph/rmat_draws.h"
#include "wm/graph_ops.h"
#include "wm/op_registry.h"

namespace wm {
namespace host {

void rmatEdges(int scale, int64_t m, double a, double b, double c, uint32_t seed, bool permute, int32_t* src, int32_t* dst) {
  const RmatDraws draws{scale, m, a, b, c, seed};
  if (!permute) {
    draws.forEach([&](int64_t e, int32_t u, int32_t v) {
      src[e] = u;
      dst[e] = v;
    });
    return;
  }
  const std::vector<int32_t> perm = draws.permutation();
  draws.forEach([&](int64_t e, int32_t u, int32_t v) {
    src[e] = perm[static_cast<size_t>(u)];
    dst[e] = perm[static_cast<size_t>(v)];
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
