// The gradient of y = act(x + bias): dz = dy * act'(y) and the bias gradient
// (column sums of dz) in one read of dy. Column sums in two fixed-order
// stages (row chunks, then the chunks), so every run gives the same bits.
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

constexpr int kCols = 32;     // columns per block (one warp wide)
constexpr int kRowLanes = 8;  // rows walked in parallel per block
constexpr int64_t kRowsPerChunk = 512;

// Block (x: column tile, y: row chunk): dz for its rows, and the chunk's column sums into partial[chunk, col].
__global__ void dzAndPartials(const float* dy, const float* y, int64_t rows, int64_t cols, bool relu, float* dz, float* partial) {
  __shared__ float sums[kRowLanes][kCols];
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kCols + threadIdx.x;
  const int64_t first = static_cast<int64_t>(blockIdx.y) * kRowsPerChunk;
  const int64_t last = min(rows, first + kRowsPerChunk);
  float s = 0.f;
  if (col < cols) {
    for (int64_t r = first + threadIdx.y; r < last; r += kRowLanes) {
      const int64_t i = r * cols + col;
      const float g = relu && !(y[i] > 0.f) ? 0.f : dy[i];
      dz[i] = g;
      s += g;
    }
  }
  sums[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && col < cols) {
    float t = 0.f;
    for (int k = 0; k < kRowLanes; ++k) t += sums[k][threadIdx.x];
    partial[blockIdx.y * cols + col] = t;
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
  dim3 grid(static_cast<unsigned>((cols + kCols - 1) / kCols), static_cast<unsigned>(chunks));
  dzAndPartials<<<grid, dim3(kCols, kRowLanes), 0, stream()>>>(as<float>(dy), as<float>(y), rows, cols, relu, as<float>(dz), partial);
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
