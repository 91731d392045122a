// NVLink ceilings between GPUs 0 and 1 (one process, peer access on), one
// direction and both at once: SM reads of the peer, SM writes to the peer,
// copy-engine copies. Build and run on a GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/nvlink_p2p bench/probes/nvlink_p2p.cu && /tmp/nvlink_p2p
// 2 x H200 figures: bench/results/nvlink-2xh200-2026-11-23-p2p-probe.txt.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "probe_check.cuh"

template <int U>
__global__ void readK(const uint4* __restrict__ src, uint4* __restrict__ dst, long n) {
  long stride = (long)gridDim.x * blockDim.x * U;
  for (long i = (long)blockIdx.x * blockDim.x * U + threadIdx.x; i < n; i += stride) {
    uint4 r[U];
#pragma unroll
    for (int u = 0; u < U; ++u) { long j = i + u * blockDim.x; if (j < n) r[u] = __ldcg(src + j); }
#pragma unroll
    for (int u = 0; u < U; ++u) { long j = i + u * blockDim.x; if (j < n) dst[j] = r[u]; }
  }
}
int main() {
  int n = 0; CK(cudaGetDeviceCount(&n)); if (n < 2) { printf("need 2 GPUs\n"); return 0; }
  const long bytes = 64l << 20, nv = bytes / 16;
  uint4 *buf[2], *loc[2]; cudaStream_t s[2]; cudaEvent_t a[2], b[2];
  for (int d = 0; d < 2; ++d) {
    CK(cudaSetDevice(d)); CK(cudaDeviceEnablePeerAccess(1 - d, 0));
    CK(cudaMalloc(&buf[d], bytes)); CK(cudaMalloc(&loc[d], bytes)); CK(cudaMemset(buf[d], d + 1, bytes));
    CK(cudaStreamCreateWithFlags(&s[d], cudaStreamNonBlocking)); CK(cudaEventCreate(&a[d])); CK(cudaEventCreate(&b[d]));
  }
  auto run = [&](const char* name, auto fn, bool both) {
    float best = 1e9;
    for (int rep = 0; rep < 6; ++rep) {
      for (int d = 0; d < 2; ++d) { CK(cudaSetDevice(d)); CK(cudaDeviceSynchronize()); }
      for (int d = 0; d < (both ? 2 : 1); ++d) { CK(cudaSetDevice(d)); CK(cudaEventRecord(a[d], s[d])); fn(d); CK(cudaGetLastError()); CK(cudaEventRecord(b[d], s[d])); }
      for (int d = 0; d < (both ? 2 : 1); ++d) { CK(cudaSetDevice(d)); CK(cudaEventSynchronize(b[d])); float ms; CK(cudaEventElapsedTime(&ms, a[d], b[d])); if (rep > 0 && ms < best) best = ms; }
    }
    printf("%-44s %s %7.1f GB/s per direction (%.1f us for 64 MiB)\n", name, both ? "both" : "one ", bytes / (best * 1e-3) / 1e9, best * 1e3);
  };
  for (int both = 0; both < 2; ++both) {
    run("copy engine (cudaMemcpyPeerAsync)", [&](int d) { CK(cudaMemcpyPeerAsync(loc[d], d, buf[1 - d], 1 - d, bytes, s[d])); }, both);
    for (int blocks : {132, 264, 528}) for (int t : {512, 1024}) {
      char nm[80];
      snprintf(nm, 80, "SM read  %d x %d, U=4", blocks, t);
      run(nm, [&](int d) { readK<4><<<blocks, t, 0, s[d]>>>(buf[1 - d], loc[d], nv); }, both);
      snprintf(nm, 80, "SM write %d x %d, U=4", blocks, t);
      run(nm, [&](int d) { readK<4><<<blocks, t, 0, s[d]>>>(loc[d], buf[1 - d], nv); }, both);
    }
    run("SM read 132 x 512 U=1", [&](int d) { readK<1><<<132, 512, 0, s[d]>>>(buf[1 - d], loc[d], nv); }, both);
    run("SM read 132 x 512 U=8", [&](int d) { readK<8><<<132, 512, 0, s[d]>>>(buf[1 - d], loc[d], nv); }, both);
    run("local copy 132 x 1024 U=4", [&](int d) { readK<4><<<132, 1024, 0, s[d]>>>(buf[d], loc[d], nv); }, both);
  }
  return 0;
}
