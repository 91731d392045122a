// Random 256-byte rows read by GPU 0 from a table of growing size: in its own memory, in GPU 1's memory through
// peer access (cudaMalloc on GPU 1, cudaDeviceEnablePeerAccess: what 'chunked' tables read), and in GPU 1's memory
// mapped by the virtual memory API (cuMemCreate on GPU 1, cuMemMap with access for both: what 'continuous' tables
// read). Each case gathers 4M rows chosen uniformly over the whole table into GPU 0's memory; GB/s of rows read,
// the best of 5. Whether a remote row costs more as the table grows (address translation for a large peer range)
// shows as a falling rate down a column. Build and run on a machine with 2 GPUs:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/peer_rows bench/probes/peer_rows_by_size.cu -lcuda && /tmp/peer_rows
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>
#include "probe_check.cuh"

constexpr int kRowBytes = 256, kVec = kRowBytes / 16;
constexpr long kReads = 4l << 20;

// Row ids from a 64-bit hash of the read's index: uniform over the table, the same for every case of one size.
__global__ void idsKernel(long* ids, long reads, long rows) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < reads; i += (long)gridDim.x * blockDim.x) {
    unsigned long long x = i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    x ^= x >> 31, x *= 0xbf58476d1ce4e5b9ull, x ^= x >> 29;
    ids[i] = static_cast<long>(x % static_cast<unsigned long long>(rows));
  }
}

// A thread per 16-byte vector of a row, as the embedding gathers read.
__global__ void gatherKernel(const uint4* table, const long* ids, uint4* out, long reads) {
  for (long t = blockIdx.x * (long)blockDim.x + threadIdx.x; t < reads * kVec; t += (long)gridDim.x * blockDim.x) {
    const long r = t / kVec, k = t % kVec;
    out[t] = table[ids[r] * kVec + k];
  }
}

int main() {
  int n = 0;
  CK(cudaGetDeviceCount(&n));
  if (n < 2) {
    printf("needs 2 GPUs, found %d\n", n);
    return 0;
  }
  CU(cuInit(0));
  CK(cudaSetDevice(1));
  CK(cudaDeviceEnablePeerAccess(0, 0));
  CK(cudaSetDevice(0));
  CK(cudaDeviceEnablePeerAccess(1, 0));
  long* ids;
  uint4* out;
  CK(cudaMalloc(&ids, kReads * sizeof(long)));
  CK(cudaMalloc(&out, kReads * kRowBytes));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  auto rate = [&](const uint4* table, long rows) {
    idsKernel<<<1024, 256>>>(ids, kReads, rows);
    CK(cudaGetLastError());
    float best = 1e9f;
    for (int rep = 0; rep < 6; ++rep) {
      CK(cudaEventRecord(a));
      gatherKernel<<<132 * 8, 256>>>(table, ids, out, kReads);
      CK(cudaGetLastError());
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float ms;
      CK(cudaEventElapsedTime(&ms, a, b));
      if (rep > 0 && ms < best) best = ms;
    }
    return kReads * (double)kRowBytes / (best * 1e-3) / 1e9;
  };
  // The granularity the virtual memory API maps GPU 1's memory in.
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 1;
  size_t gran = 0;
  CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  printf("virtual memory granularity (recommended) %zu bytes\n", gran);
  printf("%-10s %14s %14s %14s\n", "table", "own GB/s", "peer GB/s", "peer VMM GB/s");
  for (double gib : {1.0, 4.0, 8.0, 14.0, 28.0}) {
    const size_t bytes = static_cast<size_t>(gib * (1ull << 30)) / gran * gran;
    const long rows = static_cast<long>(bytes / kRowBytes);
    void* own = nullptr;
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&own, bytes));
    CK(cudaMemset(own, 1, bytes));
    const double ownRate = rate(static_cast<const uint4*>(own), rows);
    CK(cudaFree(own));
    void* peer = nullptr;
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&peer, bytes));
    CK(cudaMemset(peer, 2, bytes));
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(0));
    const double peerRate = rate(static_cast<const uint4*>(peer), rows);
    CK(cudaSetDevice(1));
    CK(cudaFree(peer));
    CUmemGenericAllocationHandle h;
    CU(cuMemCreate(&h, bytes, &prop, 0));
    CUdeviceptr va;
    CU(cuMemAddressReserve(&va, bytes, gran, 0, 0));
    CU(cuMemMap(va, bytes, 0, h, 0));
    CUmemAccessDesc access[2] = {};
    for (int d = 0; d < 2; ++d) {
      access[d].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
      access[d].location.id = d;
      access[d].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }
    CU(cuMemSetAccess(va, bytes, access, 2));
    CK(cudaMemset(reinterpret_cast<void*>(va), 3, bytes));
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(0));
    const double vmmRate = rate(reinterpret_cast<const uint4*>(va), rows);
    CU(cuMemUnmap(va, bytes));
    CU(cuMemAddressFree(va, bytes));
    CU(cuMemRelease(h));
    printf("%6.0f GiB %14.1f %14.1f %14.1f\n", gib, ownRate, peerRate, vmmRate);
  }
  CK(cudaFree(ids));
  CK(cudaFree(out));
  return 0;
}
