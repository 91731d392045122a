// tf.conv2d as one implicit GEMM: y [pixels, outC] = windows [pixels,
// fH*fW*inC] x filter [fH*fW*inC, outC], the windows read from the image in
// place by the tile loads (padding as zeros) instead of copied out first.
// (A pad, a window copy and a matmul take three launches and 2.6x cuDNN's
// time on an H100 for a small layer.)
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
__global__ void __launch_bounds__(gemm::kThreads)
    conv2dForwardKernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, Window2DOf<I> g, I outC) {
  __shared__ gemm::Tiles t;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const I m = g.batch * g.outH * g.outW, k = g.fH * g.fW * g.chans;
  const I row0 = static_cast<I>(blockIdx.x) * kBM, col0 = static_cast<I>(blockIdx.y) * kBN;
  // This thread loads window column kk of rows r0 + 16s (s < 4) in every slice: their pixels once.
  const int kk = threadIdx.x % kBK, r0 = threadIdx.x / kBK;
  I base[4], iy0[4], ix0[4];
#pragma unroll
  for (int s = 0; s < 4; ++s) {
    const I gr = row0 + r0 + 16 * s;
    const I ox = gr % g.outW, q = gr / g.outW;
    base[s] = gr < m ? q / g.outH * g.inH * g.inW * g.chans : -1;
    iy0[s] = q % g.outH * g.sH - g.top;
    ix0[s] = ox * g.sW - g.left;
  }
  float acc[4][4];
  gemm::zero(acc);
  for (I k0 = 0; k0 < k; k0 += kBK) {
    const I gk = k0 + kk;
    const I c = gk % g.chans, ij = gk / g.chans, i = ij / g.fW, j = ij % g.fW;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const I iy = iy0[s] + i * g.dH, ix = ix0[s] + j * g.dW;
      const bool in = gk < k && base[s] >= 0 && iy >= 0 && iy < g.inH && ix >= 0 && ix < g.inW;
      t.a[kk][r0 + 16 * s] = in ? x[base[s] + (iy * g.inW + ix) * g.chans + c] : 0.f;
    }
    gemm::loadRowMajorB(t, w, outC, col0, k0, k);
    __syncthreads();
    gemm::multiply(t, acc, tx, ty);
    __syncthreads();
  }
  gemm::store(acc, y, nullptr, 0, m, outC, row0, col0, tx, ty, 0.f);
}

}  // namespace

void conv2dForward(uint64_t x, uint64_t w, uint64_t y, const Window2D& g, int64_t outC) {
  const int64_t m = g.batch * g.outH * g.outW;
  if (m * outC == 0) return;
  const int64_t tilesM = (m + kBM - 1) / kBM, tilesN = (outC + kBN - 1) / kBN;
  WM_REQUIRE(tilesM <= INT32_MAX && tilesN <= 65535, "conv2dForward: the output is too large for one launch");
  dim3 grid(static_cast<unsigned>(tilesM), static_cast<unsigned>(tilesN));
  // Every tensor below 2^31 elements: 32-bit index arithmetic (outC scales the output and filter).
  if (windowNarrow(g, 1, m * outC + g.fH * g.fW * g.chans * outC)) {
    conv2dForwardKernel<int>
        <<<grid, gemm::kThreads, 0, stream()>>>(as<float>(x), as<float>(w), as<float>(y), g.as<int>(), static_cast<int>(outC));
  } else {
    conv2dForwardKernel<int64_t><<<grid, gemm::kThreads, 0, stream()>>>(as<float>(x), as<float>(w), as<float>(y), g, outC);
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// conv2dForward(x, w, y, geometry, outC): GPU only (the CPU core multiplies window copies instead).
WM_OP(conv2dForward, Device, a) {
  wm::conv2dForward(a.address(0, "x"), a.address(1, "w"), a.address(2, "y"), a.window(3, "geometry"), a.count(4, "outC"));
}
