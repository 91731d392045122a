// The filter gradient of tf.conv2d as one implicit GEMM: dw [fH*fW*inC,
// outC] = windows^T [fH*fW*inC, pixels] x dy [pixels, outC], the windows
// read from the image in place. The sum runs over every output pixel, so k
// is long and the output small: k is split over blocks into partial
// products added in split order by a second pass (a fixed order: the
// result does not depend on timing).
#include "kernels/gemm_tile.cuh"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "kernels/window2d_args.h"
#include "wm/window2d.h"

namespace wm {
namespace {

using gemm::kBK;
using gemm::kBM;
using gemm::kBN;

template <typename I>
__global__ void __launch_bounds__(gemm::kThreads)
    conv2dFilterGradKernel(const float* __restrict__ x, const float* __restrict__ dy, float* __restrict__ out, float* __restrict__ partial,
                           Window2DOf<I> g, I outC, I kPerSplit) {
  __shared__ gemm::Tiles t;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const I m = g.fH * g.fW * g.chans, k = g.batch * g.outH * g.outW;
  const I row0 = static_cast<I>(blockIdx.x) * kBM, col0 = static_cast<I>(blockIdx.y) * kBN;
  const I kBegin = static_cast<I>(blockIdx.z) * kPerSplit, kEnd = min(k, kBegin + kPerSplit);
  // This thread loads row r of A (one filter element: its window offset and channel) for k rows
  // kk0 + 4s of every slice, so the channels are read along a warp.
  const int r = threadIdx.x % kBM, kk0 = threadIdx.x / kBM;
  const I gr = row0 + r;
  const bool rowIn = gr < m;
  const I c = rowIn ? gr % g.chans : 0, ij = rowIn ? gr / g.chans : 0;
  const I di = ij / g.fW * g.dH - g.top, dj = ij % g.fW * g.dW - g.left;
  float acc[4][4];
  gemm::zero(acc);
  for (I k0 = kBegin; k0 < kEnd; k0 += kBK) {
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const int kk = kk0 + 4 * s;
      const I p = k0 + kk;
      float v = 0.f;
      if (rowIn && p < kEnd) {
        const I ox = p % g.outW, q = p / g.outW, oy = q % g.outH, n = q / g.outH;
        const I iy = oy * g.sH + di, ix = ox * g.sW + dj;
        if (iy >= 0 && iy < g.inH && ix >= 0 && ix < g.inW) v = x[((n * g.inH + iy) * g.inW + ix) * g.chans + c];
      }
      t.a[kk][r] = v;
    }
    gemm::loadRowMajorB(t, dy, outC, col0, k0, kEnd);
    __syncthreads();
    gemm::multiply(t, acc, tx, ty);
    __syncthreads();
  }
  gemm::store(acc, out, partial, blockIdx.z, m, outC, row0, col0, tx, ty, 0.f);
}

}  // namespace

void conv2dFilterGrad(uint64_t x, uint64_t dy, uint64_t dw, const Window2D& g, int64_t outC) {
  const int64_t m = g.fH * g.fW * g.chans, k = g.batch * g.outH * g.outW;
  if (m * outC == 0) return;
  const int64_t tilesM = (m + kBM - 1) / kBM, tilesN = (outC + kBN - 1) / kBN;
  WM_REQUIRE(tilesM <= INT32_MAX && tilesN <= 65535, "conv2dFilterGrad: the filter is too large for one launch");
  int64_t splits = gemm::splitsFor(tilesM * tilesN, k);
  const int64_t kPerSplit = std::max<int64_t>(kBK, ((k + splits - 1) / splits + kBK - 1) / kBK * kBK);
  splits = std::max<int64_t>(1, (k + kPerSplit - 1) / kPerSplit);
  Scratch scratch;
  float* partial = splits > 1 ? scratch.get<float>(splits * m * outC) : nullptr;
  dim3 grid(static_cast<unsigned>(tilesM), static_cast<unsigned>(tilesN), static_cast<unsigned>(splits));
  auto s = stream();
  if (windowNarrow(g, 1, g.batch * g.outH * g.outW * outC + splits * m * outC)) {
    conv2dFilterGradKernel<int><<<grid, gemm::kThreads, 0, s>>>(as<float>(x), as<float>(dy), as<float>(dw), partial, g.as<int>(),
                                                                static_cast<int>(outC), static_cast<int>(kPerSplit));
  } else {
    conv2dFilterGradKernel<int64_t>
        <<<grid, gemm::kThreads, 0, s>>>(as<float>(x), as<float>(dy), as<float>(dw), partial, g, outC, kPerSplit);
  }
  WM_CUDA_LAUNCHED();
  if (partial) {
    gemm::addSplits<<<gridFor(m * outC), kThreads, 0, s>>>(partial, static_cast<int>(splits), m * outC, 0.f, as<float>(dw));
    WM_CUDA_LAUNCHED();
  }
}

}  // namespace wm

// conv2dFilterGrad(x, dy, dw, geometry, outC): GPU only.
WM_OP(conv2dFilterGrad, Device, a) {
  wm::conv2dFilterGrad(a.address(0, "x"), a.address(1, "dy"), a.address(2, "dw"), a.window(3, "geometry"), a.count(4, "outC"));
}
