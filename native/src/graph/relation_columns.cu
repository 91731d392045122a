// R-GAT's weight columns on the GPU (relation_columns.h): a thread per element written, consecutive threads along
// the input dimension (the output's rows written coalesced); a folded column sums its head's units in order.
#include "graph/relation_blocks.cuh"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

__global__ void relationColumnsKernel(const float* __restrict__ w, const float* __restrict__ attSrc, const float* __restrict__ attDst,
                                      const float* __restrict__ root, LaunchBlocks b, int64_t inDim, int64_t heads, int64_t units,
                                      int64_t rootOut, float* __restrict__ out) {
  const int64_t wide = heads * units, per = (wide + 2 * heads) * inDim, relTotal = b.nRel * per;
  WM_GRID_STRIDE(e, relTotal + b.nRoot * rootOut * inDim) {
    if (e < relTotal) {
      const int64_t k = e / per, rem = e % per, c = rem / inDim, i = rem % inDim, r = b.r0 + k;
      const float* wr = w + (r * inDim + i) * wide;
      if (c < wide) {
        if (b.start[k][0] >= 0) out[(b.start[k][0] + c) * inDim + i] = wr[c];
      } else {
        const int which = c < wide + heads ? 1 : 2;
        const int64_t h = c - wide - (which - 1) * heads;
        if (b.start[k][which] >= 0) {
          const float* att = (which == 1 ? attSrc : attDst) + r * wide + h * units;
          float acc = 0.f;
          for (int64_t u = 0; u < units; ++u) acc += wr[h * units + u] * att[u];
          out[(b.start[k][which] + h) * inDim + i] = acc;
        }
      }
    } else {
      const int64_t f = e - relTotal, q = f / (rootOut * inDim), rem = f % (rootOut * inDim), j = rem / inDim, i = rem % inDim;
      out[(b.root[q] + j) * inDim + i] = root[i * rootOut + j];
    }
  }
}

}  // namespace
}  // namespace wm

// relationColumns(w, attSrc, attDst, root, relations, inDim, heads, units, rootOut, blocks, rootStarts, out, outRows)
WM_OP(relationColumns, Device, a) {
  const wm::RelationArgs r = wm::relationArgs(a, 12);
  const uint64_t w = a.address(0, "w"), attSrc = a.address(1, "attSrc"), attDst = a.address(2, "attDst"), out = a.address(11, "out");
  const uint64_t root = r.blocks.roots.empty() ? 0 : a.address(3, "root");
  if (!r.blocks.roots.empty() && root == 0) a.reject(3, "root", "must be a device address where there are root copies");
  wm::forEachLaunch(r.blocks, [&](const wm::LaunchBlocks& l) {
    const int64_t n = l.nRel * (r.wide() + 2 * r.heads) * r.inDim + l.nRoot * r.rootOut * r.inDim;
    if (n == 0) return;
    wm::relationColumnsKernel<<<wm::gridFor(n), wm::kThreads, 0, wm::stream()>>>(wm::as<float>(w), wm::as<float>(attSrc),
                                                                                 wm::as<float>(attDst), wm::as<float>(root), l, r.inDim,
                                                                                 r.heads, r.units, r.rootOut, wm::as<float>(out));
    WM_CUDA_LAUNCHED();
  });
}
