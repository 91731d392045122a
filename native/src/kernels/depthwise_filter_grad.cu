// The filter gradient of tf.depthwiseConv2d: dw[i, j, c, m] sums x times dy
// over every output pixel (batch * outH * outW of them, a few hundred
// filter elements). A block takes one window offset, 32 output channels and
// a fixed chunk of pixels, so x and dy are read along the channels; the
// chunks' partial sums are added in order by a second pass. Chunks have a
// fixed size, so the sum's order, and the result, do not depend on the GPU.
#include <algorithm>

#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "kernels/window2d_args.h"
#include "wm/window2d.h"

namespace wm {
namespace {

constexpr int kLanes = 32;  // output channels per block
constexpr int kRows = 8;    // pixel stripes per block
constexpr int64_t kChunkPixels = 512;

template <typename I>
__global__ void depthwiseFilterPartialKernel(const float* __restrict__ x, const float* __restrict__ dy, float* __restrict__ partial,
                                             Window2DOf<I> g, I mult, I pixels) {
  const I ij = static_cast<I>(blockIdx.x), i = ij / g.fW, j = ij % g.fW;
  const I cms = g.chans * mult;
  const I cm = static_cast<I>(blockIdx.y) * kLanes + static_cast<I>(threadIdx.x);
  const I p0 = static_cast<I>(blockIdx.z) * static_cast<I>(kChunkPixels);
  const I p1 = p0 + static_cast<I>(kChunkPixels) < pixels ? p0 + static_cast<I>(kChunkPixels) : pixels;
  float acc = 0.f;
  if (cm < cms) {
    const I c = cm / mult;
    for (I p = p0 + static_cast<I>(threadIdx.y); p < p1; p += kRows) {
      const I ox = p % g.outW, q = p / g.outW, oy = q % g.outH, n = q / g.outH;
      const I iy = oy * g.sH - g.top + i * g.dH, ix = ox * g.sW - g.left + j * g.dW;
      if (iy >= 0 && iy < g.inH && ix >= 0 && ix < g.inW) {
        acc += x[((n * g.inH + iy) * g.inW + ix) * g.chans + c] * dy[p * cms + cm];
      }
    }
  }
  __shared__ float rows[kRows][kLanes];
  rows[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && cm < cms) {
    float s = 0.f;
#pragma unroll
    for (int r = 0; r < kRows; ++r) s += rows[r][threadIdx.x];
    partial[(static_cast<int64_t>(blockIdx.z) * g.fH * g.fW + ij) * cms + cm] = s;
  }
}

__global__ void sumChunksKernel(const float* __restrict__ partial, float* __restrict__ dw, int64_t perChunk, int64_t chunks) {
  WM_GRID_STRIDE(t, perChunk) {
    float s = 0.f;
    for (int64_t k = 0; k < chunks; ++k) s += partial[k * perChunk + t];
    dw[t] = s;
  }
}

}  // namespace

void depthwiseConv2dFilterGrad(uint64_t x, uint64_t dy, uint64_t dw, const Window2D& g, int64_t mult) {
  const int64_t cms = g.chans * mult, perChunk = g.fH * g.fW * cms;
  if (perChunk == 0) return;
  const int64_t pixels = g.batch * g.outH * g.outW;
  const int64_t chunks = std::max<int64_t>(1, (pixels + kChunkPixels - 1) / kChunkPixels);
  WM_REQUIRE(chunks <= 65535 && g.fH * g.fW <= INT32_MAX,
             "depthwiseConv2dFilterGrad: too many output pixels (" + std::to_string(pixels) + ") for one call");
  Scratch scratch;
  float* partial = scratch.get<float>(chunks * perChunk);
  dim3 grid(static_cast<unsigned>(g.fH * g.fW), static_cast<unsigned>((cms + kLanes - 1) / kLanes), static_cast<unsigned>(chunks));
  dim3 block(kLanes, kRows);
  auto s = stream();
  if (windowNarrow(g, mult, chunks * perChunk)) {
    depthwiseFilterPartialKernel<int>
        <<<grid, block, 0, s>>>(as<float>(x), as<float>(dy), partial, g.as<int>(), static_cast<int>(mult), static_cast<int>(pixels));
  } else {
    depthwiseFilterPartialKernel<int64_t><<<grid, block, 0, s>>>(as<float>(x), as<float>(dy), partial, g, mult, pixels);
  }
  WM_CUDA_LAUNCHED();
  sumChunksKernel<<<gridFor(perChunk), kThreads, 0, s>>>(partial, as<float>(dw), perChunk, chunks);
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// depthwiseConv2dFilterGrad(x, dy, dw, geometry, mult)
WM_OP(depthwiseConv2dFilterGrad, Device, a) {
  wm::depthwiseConv2dFilterGrad(a.address(0, "x"), a.address(1, "dy"), a.address(2, "dw"), a.window(3, "geometry"), a.count(4, "mult"));
}
