// The gradient of R-GAT's weight columns on the GPU (relation_columns.h), a thread per gradient element: dW's
// (its W^T row and its folded rows' terms), each attention vector element's (a sum over the input dimension in
// order), root's (its copies' rows summed in order; a launch after the first adds its copies to what is there).
#include "graph/relation_blocks.cuh"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

__global__ void relationColumnsGradKernel(const float* __restrict__ d, const float* __restrict__ w, const float* __restrict__ attSrc,
                                          const float* __restrict__ attDst, LaunchBlocks b, int64_t inDim, int64_t heads, int64_t units,
                                          int64_t rootOut, float* __restrict__ dW, float* __restrict__ dAttSrc, float* __restrict__ dAttDst,
                                          float* __restrict__ dRoot) {
  const int64_t wide = heads * units, nW = b.nRel * inDim * wide, nAtt = 2 * b.nRel * wide;
  const int64_t nRoot = dRoot != nullptr && (b.nRoot > 0 || b.firstRoots) ? inDim * rootOut : 0;
  WM_GRID_STRIDE(e, nW + nAtt + nRoot) {
    if (e < nW) {
      // Consecutive threads along i: d's rows read coalesced.
      const int64_t k = e / (inDim * wide), rem = e % (inDim * wide), c = rem / inDim, i = rem % inDim, r = b.r0 + k, h = c / units;
      const int32_t* s = b.start[k];
      float g = s[0] >= 0 ? d[(s[0] + c) * inDim + i] : 0.f;
      if (s[1] >= 0) g += d[(s[1] + h) * inDim + i] * attSrc[r * wide + c];
      if (s[2] >= 0) g += d[(s[2] + h) * inDim + i] * attDst[r * wide + c];
      dW[(r * inDim + i) * wide + c] = g;
    } else if (e < nW + nAtt) {
      const int64_t f = e - nW, which = 1 + f / (b.nRel * wide), q = f % (b.nRel * wide), k = q / wide, c = q % wide, r = b.r0 + k;
      const int32_t s = b.start[k][which];
      float acc = 0.f;
      if (s >= 0)
        for (int64_t i = 0; i < inDim; ++i) acc += w[(r * inDim + i) * wide + c] * d[(s + c / units) * inDim + i];
      (which == 1 ? dAttSrc : dAttDst)[r * wide + c] = acc;
    } else {
      const int64_t f = e - nW - nAtt, i = f / rootOut, j = f % rootOut;
      float acc = b.firstRoots ? 0.f : dRoot[f];
      for (int q = 0; q < b.nRoot; ++q) acc += d[(b.root[q] + j) * inDim + i];
      dRoot[i * rootOut + j] = acc;
    }
  }
}

}  // namespace
}  // namespace wm

// relationColumnsGrad(dOut, w, attSrc, attDst, relations, inDim, heads, units, rootOut, blocks, rootStarts, outRows, dW, dAttSrc,
// dAttDst, dRoot): dRoot (rootOut > 0) the root copies' gradients summed.
WM_OP(relationColumnsGrad, Device, a) {
  const wm::RelationArgs r = wm::relationArgs(a, 11);
  const uint64_t d = a.address(0, "dOut"), w = a.address(1, "w"), attSrc = a.address(2, "attSrc"), attDst = a.address(3, "attDst");
  const uint64_t dW = a.address(12, "dW"), dAttSrc = a.address(13, "dAttSrc"), dAttDst = a.address(14, "dAttDst");
  const uint64_t dRoot = r.rootOut > 0 ? a.address(15, "dRoot") : 0;
  if (r.rootOut > 0 && dRoot == 0) a.reject(15, "dRoot", "must be a device address where there is a root (rootOut > 0)");
  wm::forEachLaunch(r.blocks, [&](const wm::LaunchBlocks& l) {
    const int64_t n = l.nRel * r.wide() * (r.inDim + 2) + (dRoot != 0 && (l.nRoot > 0 || l.firstRoots) ? r.inDim * r.rootOut : 0);
    if (n == 0) return;
    wm::relationColumnsGradKernel<<<wm::gridFor(n), wm::kThreads, 0, wm::stream()>>>(
        wm::as<float>(d), wm::as<float>(w), wm::as<float>(attSrc), wm::as<float>(attDst), l, r.inDim, r.heads, r.units, r.rootOut,
        wm::as<float>(dW), wm::as<float>(dAttSrc), wm::as<float>(dAttDst), dRoot == 0 ? nullptr : wm::as<float>(dRoot));
    WM_CUDA_LAUNCHED();
  });
}
