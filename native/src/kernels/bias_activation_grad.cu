// The gradient of y = act(x + bias): dz = dy * act'(y) and the bias gradient
// (column sums of dz) in one read of dy and y. Column sums in two fixed-order
// stages (row chunks, then the chunks), so every run gives the same bits.
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

constexpr int kCols = 32;     // column groups per block (one warp wide)
constexpr int kRowLanes = 8;  // rows walked in parallel per block
constexpr int64_t kRowsPerChunk = 512;

// Block (x: column tile, y: row chunk): dz for its rows, and the chunk's column sums into partial[chunk, col].
// Each thread owns VEC adjacent columns (VEC = 4: 16-byte loads and stores where the width allows), and the
// rows' loads of a pass are issued before their sums, so a warp has several rows' bytes in flight.
template <int VEC>
__global__ void dzAndPartials(const float* dy, const float* y, int64_t rows, int64_t cols, bool relu, float* dz, float* partial) {
  __shared__ float sums[kRowLanes][kCols * VEC];
  const int64_t col = (static_cast<int64_t>(blockIdx.x) * kCols + threadIdx.x) * VEC;
  const int64_t first = static_cast<int64_t>(blockIdx.y) * kRowsPerChunk;
  const int64_t last = min(rows, first + kRowsPerChunk);
  float s[VEC];
#pragma unroll
  for (int c = 0; c < VEC; ++c) s[c] = 0.f;
  if (col < cols) {
#pragma unroll 4
    for (int64_t r = first + threadIdx.y; r < last; r += kRowLanes) {
      const int64_t i = r * cols + col;
      float g[VEC], v[VEC];
      if constexpr (VEC == 4) {
        const float4 a = *reinterpret_cast<const float4*>(dy + i), b = *reinterpret_cast<const float4*>(y + i);
        g[0] = a.x, g[1] = a.y, g[2] = a.z, g[3] = a.w, v[0] = b.x, v[1] = b.y, v[2] = b.z, v[3] = b.w;
      } else {
        g[0] = dy[i], v[0] = y[i];
      }
#pragma unroll
      for (int c = 0; c < VEC; ++c) {
        if (relu && !(v[c] > 0.f)) g[c] = 0.f;
        s[c] += g[c];
      }
      if constexpr (VEC == 4)
        *reinterpret_cast<float4*>(dz + i) = make_float4(g[0], g[1], g[2], g[3]);
      else
        dz[i] = g[0];
    }
  }
#pragma unroll
  for (int c = 0; c < VEC; ++c) sums[threadIdx.y][threadIdx.x * VEC + c] = s[c];
  __syncthreads();
  if (threadIdx.y == 0 && col < cols) {
#pragma unroll
    for (int c = 0; c < VEC; ++c) {
      float t = 0.f;
      for (int k = 0; k < kRowLanes; ++k) t += sums[k][threadIdx.x * VEC + c];
      partial[blockIdx.y * cols + col + c] = t;
    }
  }
}

__global__ void sumChunks(const float* partial, int64_t chunks, int64_t cols, float* dBias) {
  WM_GRID_STRIDE(c, cols) {
    float t = 0.f;
    for (int64_t k = 0; k < chunks; ++k) t += partial[k * cols + c];
    dBias[c] = t;
  }
}

}  // namespace

void biasActivationGrad(uint64_t dy, uint64_t y, int64_t rows, int64_t cols, bool relu, uint64_t dz, uint64_t dBias) {
  if (cols == 0) return;
  if (rows == 0) {
    WM_CUDA(cudaMemsetAsync(reinterpret_cast<void*>(dBias), 0, cols * sizeof(float), stream()));
    return;
  }
  const int64_t chunks = (rows + kRowsPerChunk - 1) / kRowsPerChunk;
  WM_REQUIRE(chunks <= 65535, "biasActivationGrad: too many rows");
  Scratch s;
  float* partial = s.get<float>(chunks * cols);
  const bool wide = cols % 4 == 0 && dy % 16 == 0 && y % 16 == 0 && dz % 16 == 0;
  const int vec = wide ? 4 : 1;
  dim3 grid(static_cast<unsigned>((cols + kCols * vec - 1) / (kCols * vec)), static_cast<unsigned>(chunks));
  if (wide)
    dzAndPartials<4><<<grid, dim3(kCols, kRowLanes), 0, stream()>>>(as<float>(dy), as<float>(y), rows, cols, relu, as<float>(dz), partial);
  else
    dzAndPartials<1><<<grid, dim3(kCols, kRowLanes), 0, stream()>>>(as<float>(dy), as<float>(y), rows, cols, relu, as<float>(dz), partial);
  WM_CUDA_LAUNCHED();
  sumChunks<<<gridFor(cols), kThreads, 0, stream()>>>(partial, chunks, cols, as<float>(dBias));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// biasActivationGrad(dy, y, rows, cols, relu, dz, dBias)
WM_OP(biasActivationGrad, Device, a) {
  wm::biasActivationGrad(a.address(0, "dy"), a.address(1, "y"), a.count(2, "rows"), a.count(3, "cols"), a.flag(4, "relu"),
                         a.address(5, "dz"), a.address(6, "dBias"));
}
