// How fast the GPU gathers random rows from pinned host memory, against the
// link's copy-engine rate (cudaMemcpy host to device of the same bytes):
// rows of 256 bytes (128 float16), ids random over a table of 10M rows, and the
// same ids sorted, or confined to a small window (how much is address
// translation), for loads of 16 bytes per thread with 1, 2, 4 or 8 in flight.
// Build and run on a GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/host_gather bench/probes/host_gather.cu && /tmp/host_gather
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include <cuda_runtime.h>
#include "probe_check.cuh"

// Thread per 16-byte vector; U vectors a grid apart loaded before any store.
template <int U>
__global__ void gatherK(const uint4* __restrict__ table, const int* __restrict__ idx, long n, int perRow, uint4* __restrict__ out) {
  const long total = n * perRow, stride = (long)gridDim.x * blockDim.x;
  for (long t0 = (long)blockIdx.x * blockDim.x + threadIdx.x; t0 < total; t0 += stride * U) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      long t = t0 + u * stride;
      if (t < total) { long i = t / perRow, k = t - i * perRow; v[u] = table[(long)idx[i] * perRow + k]; }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) { long t = t0 + u * stride; if (t < total) out[t] = v[u]; }
  }
}

int main() {
  const long rows = 10'000'000, rowBytes = 256, perRow = rowBytes / 16, n = 1'000'000;
  uint4* table; CK(cudaHostAlloc(&table, rows * rowBytes, cudaHostAllocMapped));
  for (long i = 0; i < rows * perRow; i += 4096) table[i] = make_uint4(i, 1, 2, 3);
  uint4 *dev, *out; int* idx;
  CK(cudaMalloc(&dev, n * rowBytes)); CK(cudaMalloc(&out, n * rowBytes)); CK(cudaMalloc(&idx, n * 4));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  auto time = [&](auto fn) {
    float best = 1e9;
    for (int rep = 0; rep < 6; ++rep) {
      CK(cudaEventRecord(a)); fn(); CK(cudaGetLastError()); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
      float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (rep > 0 && ms < best) best = ms;
    }
    return best;
  };
  const double bytes = double(n) * rowBytes;
  const float copyMs = time([&] { CK(cudaMemcpyAsync(dev, table, n * rowBytes, cudaMemcpyHostToDevice)); });
  const double copy = bytes / (copyMs * 1e-3) / 1e9;
  printf("copy engine, host to device, %.0f MB: %.1f GB/s\n", bytes / 1e6, copy);
  std::mt19937_64 g(7);
  std::vector<int> ids(n);
  auto gen = [&](long window) { for (auto& x : ids) x = int(g() % window); };
  const char* names[] = {"random over 10M rows", "sorted", "within 64 MB (256K rows)"};
  for (int m = 0; m < 3; ++m) {
    gen(m == 2 ? 262144 : rows);
    if (m == 1) std::sort(ids.begin(), ids.end());
    CK(cudaMemcpy(idx, ids.data(), n * 4, cudaMemcpyHostToDevice));
    const uint4* t; CK(cudaHostGetDevicePointer((void**)&t, table, 0));
    auto run = [&](auto k, int u, int blocksPerSm) {
      int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
      const unsigned grid = std::min<long>(sms * blocksPerSm, (n * perRow / u + 255) / 256);
      float ms = time([&] { k<<<grid, 256>>>(t, idx, n, int(perRow), out); });
      printf("  %-26s U=%d blocks/SM=%2d: %6.1f GB/s (%4.0f%% of the copy)\n", names[m], u, blocksPerSm, bytes / (ms * 1e-3) / 1e9,
             100 * bytes / (ms * 1e-3) / 1e9 / copy);
    };
    for (int bps : {8, 32}) {
      run(gatherK<1>, 1, bps);
      run(gatherK<2>, 2, bps);
      run(gatherK<4>, 4, bps);
      run(gatherK<8>, 8, bps);
    }
  }
  return 0;
}
