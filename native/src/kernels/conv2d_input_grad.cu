// The input gradient of tf.conv2d (and conv2dTranspose) as one implicit
// GEMM: dx [pixels, inC] = A [pixels, fH*fW*outC] x B [fH*fW*outC, inC],
// where A's row for input pixel (y, x) holds, for each window offset (i, j),
// dy at the output pixel whose window put (y, x) at (i, j) (zero where
// there is none: the stride's gaps, the borders), and B is the filter with
// its channel axes swapped. Both are read in place by the tile loads: no
// spread-out copy of dy, no flipped filter, no atomics.
#include "kernels/gemm_tile.cuh"
#include "runtime/launch.cuh"
#include "kernels/window2d_args.h"
#include "wm/window2d.h"

namespace wm {
namespace {

using gemm::kBK;
using gemm::kBM;
using gemm::kBN;

template <typename I>
__global__ void __launch_bounds__(gemm::kThreads) conv2dInputGradKernel(const float* __restrict__ dy, const float* __restrict__ w,
                                                                        float* __restrict__ dx, Window2DOf<I> g, I outC, I dyH, I dyW) {
  __shared__ gemm::Tiles t;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const I m = g.batch * g.inH * g.inW, k = g.fH * g.fW * outC, inC = g.chans;
  const I row0 = static_cast<I>(blockIdx.x) * kBM, col0 = static_cast<I>(blockIdx.y) * kBN;
  // This thread loads k column kk of A rows r0 + 16s and of B columns r0 + 16s in every slice.
  const int kk = threadIdx.x % kBK, r0 = threadIdx.x / kBK;
  I base[4], ny[4], nx[4];
#pragma unroll
  for (int s = 0; s < 4; ++s) {
    const I gr = row0 + r0 + 16 * s;
    const I x = gr % g.inW, q = gr / g.inW;
    base[s] = gr < m ? q / g.inH * dyH * dyW * outC : -1;
    ny[s] = q % g.inH + g.top;
    nx[s] = x + g.left;
  }
  float acc[4][4];
  gemm::zero(acc);
  for (I k0 = 0; k0 < k; k0 += kBK) {
    const I gk = k0 + kk;
    const bool kin = gk < k;
    const I oc = gk % outC, ij = gk / outC, i = ij / g.fW, j = ij % g.fW;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const I ty_ = ny[s] - i * g.dH, tx_ = nx[s] - j * g.dW;
      float v = 0.f;
      if (kin && base[s] >= 0 && ty_ >= 0 && tx_ >= 0) {
        const I oy = ty_ / g.sH, ox = tx_ / g.sW;
        if (oy * g.sH == ty_ && ox * g.sW == tx_ && oy < g.outH && ox < g.outW) v = dy[base[s] + (oy * dyW + ox) * outC + oc];
      }
      t.a[kk][r0 + 16 * s] = v;
      // B[gk][c] = w[i, j, c, oc]: contiguous along k for a fixed c.
      const I gc = col0 + r0 + 16 * s;
      t.b[kk][r0 + 16 * s] = kin && gc < inC ? w[(ij * inC + gc) * outC + oc] : 0.f;
    }
    __syncthreads();
    gemm::multiply(t, acc, tx, ty);
    __syncthreads();
  }
  gemm::store(acc, dx, nullptr, 0, m, inC, row0, col0, tx, ty, 0.f);
}

}  // namespace

void conv2dInputGrad(uint64_t dy, uint64_t w, uint64_t dx, const Window2D& g, int64_t outC, int64_t dyH, int64_t dyW) {
  const int64_t m = g.batch * g.inH * g.inW;
  if (m * g.chans == 0) return;
  const int64_t tilesM = (m + kBM - 1) / kBM, tilesN = (g.chans + kBN - 1) / kBN;
  WM_REQUIRE(tilesM <= INT32_MAX && tilesN <= 65535, "conv2dInputGrad: the input is too large for one launch");
  dim3 grid(static_cast<unsigned>(tilesM), static_cast<unsigned>(tilesN));
  if (windowNarrow(g, 1, g.batch * dyH * dyW * outC + g.fH * g.fW * g.chans * outC)) {
    conv2dInputGradKernel<int><<<grid, gemm::kThreads, 0, stream()>>>(as<float>(dy), as<float>(w), as<float>(dx), g.as<int>(),
                                                                      static_cast<int>(outC), static_cast<int>(dyH), static_cast<int>(dyW));
  } else {
    conv2dInputGradKernel<int64_t><<<grid, gemm::kThreads, 0, stream()>>>(as<float>(dy), as<float>(w), as<float>(dx), g, outC, dyH, dyW);
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// conv2dInputGrad(dy, w, dx, geometry, outC, dyH, dyW): GPU only.
WM_OP(conv2dInputGrad, Device, a) {
  const wm::Window2D g = a.window(3, "geometry");
  const int64_t dyH = a.count(5, "dyH"), dyW = a.count(6, "dyW");
  wm::dyCoversOutput(a, g, dyH, dyW);
  wm::conv2dInputGrad(a.address(0, "dy"), a.address(1, "w"), a.address(2, "dx"), g, a.count(4, "outC"), dyH, dyW);
}
