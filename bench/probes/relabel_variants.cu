// Unique-and-relabel of one sampling hop through a vertex map, four ways, on a hop shaped like the low-skew
// papers100M benchmark's last (376K distinct dst, 30 draws each over a 111M-vertex map, ~7M distinct):
//   A: an int32 map put back after each call; flags stored by a pass of their own and scanned, each neighbour
//      reading its vertex's first position and that position's sum; A's launches also timed one by one;
//   B: as A, the flags read from the map inside the scan (a transform iterator), winners' numbers written into the map;
//   C: as A, winners' numbers written into the map, read by each neighbour, the map put back from the distinct ones;
//   D: a uint64 map of (stamp, position), each call's stamp below the last's, never put back (relabel_vertices.cu);
//      D2: D with each entry read before its atomic.
// Each checked against A (values, neighbours, count; A to C the map put back); best of 20 runs each.
// Build and run on a GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/relabel_variants bench/probes/relabel_variants.cu && /tmp/relabel_variants
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include "probe_check.cuh"
#define GS(i, n) for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < (n); i += (long)blockDim.x * gridDim.x)

struct Cand {
  const int* dst; long nDst; const int* ids;
  __device__ int operator()(long i) const { return i < nDst ? dst[i] : ids[i - nDst]; }
};
__global__ void claim(Cand c, long n, int* map) { GS(i, n) atomicMin(map + c(i), (int)i); }
__global__ void mark(Cand c, long n, const int* map, int* head) { GS(i, n) head[i] = map[c(i)] == (int)i; }
__global__ void writeA(Cand c, long n, const int* map, const int* head, const int* scan, int* values, int* nb) {
  GS(i, n) { int v = c(i); if (head[i]) values[scan[i] - 1] = v; if (i >= c.nDst) nb[i - c.nDst] = scan[map[v]] - 1; }
}
__global__ void restoreA(Cand c, long n, const int* head, int* map) { GS(i, n) if (head[i]) map[c(i)] = INT_MAX; }
struct IsFirst { Cand c; const int* map; __device__ int operator()(long i) const { return map[c(i)] == (int)i; } };
__global__ void number(Cand c, long n, const int* __restrict__ scan, int* __restrict__ values, int* map) {
  GS(i, n) { int s = scan[i]; if (s != (i > 0 ? scan[i - 1] : 0)) { int v = c(i); values[s - 1] = v; map[v] = -s; } }
}
__global__ void readN(const int* __restrict__ ids, long m, const int* __restrict__ map, int* __restrict__ nb) { GS(j, m) nb[j] = -map[ids[j]] - 1; }
__global__ void restoreB(const int* __restrict__ values, const int* __restrict__ count, int* map) { long n = *count; GS(i, n) map[values[i]] = INT_MAX; }

// D: a map of 64-bit entries (a stamp that falls by one each call, then the position): a newer call's claim wins
// over any older entry, so the map needs no putting back.
__device__ __forceinline__ unsigned long long keyOf(unsigned stamp, long i) { return (unsigned long long)stamp << 32 | (unsigned)i; }
__global__ void claimD(Cand c, long n, unsigned stamp, unsigned long long* map) { GS(i, n) atomicMin(map + c(i), keyOf(stamp, i)); }
__global__ void claimD2(Cand c, long n, unsigned stamp, unsigned long long* map) {
  GS(i, n) { const int v = c(i); const unsigned long long k = keyOf(stamp, i); if (map[v] > k) atomicMin(map + v, k); }
}
__global__ void markD(Cand c, long n, unsigned stamp, const unsigned long long* map, int* head) { GS(i, n) head[i] = map[c(i)] == keyOf(stamp, i); }
__global__ void writeD(Cand c, long n, const unsigned long long* map, const int* head, const int* scan, int* values, int* nb) {
  GS(i, n) { int v = c(i); if (head[i]) values[scan[i] - 1] = v; if (i >= c.nDst) nb[i - c.nDst] = scan[(unsigned)map[v]] - 1; }
}

int main() {
  const long V = 111059956, nDst = 376229, fan = 30, m = nDst * fan, n = nDst + m, pool = 12000000;
  std::mt19937_64 g(7);
  auto spread = [&](long u) { return (int)((unsigned long long)u * 2654435761ull % V); };
  std::vector<int> hDst(nDst), hIds(m);
  for (long i = 0; i < nDst; ++i) hDst[i] = spread(i * 31 + 5);  // distinct for small i ranges (checked by the count below)
  for (long j = 0; j < m; ++j) hIds[j] = spread(g() % pool);
  int *dst, *ids, *map, *head, *scan, *values, *nb, *values0, *nb0;
  CK(cudaMalloc(&dst, nDst * 4)); CK(cudaMalloc(&ids, m * 4)); CK(cudaMalloc(&map, V * 4));
  CK(cudaMalloc(&head, n * 4)); CK(cudaMalloc(&scan, n * 4)); CK(cudaMalloc(&values, n * 4)); CK(cudaMalloc(&nb, m * 4));
  CK(cudaMalloc(&values0, n * 4)); CK(cudaMalloc(&nb0, m * 4));
  CK(cudaMemcpy(dst, hDst.data(), nDst * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(ids, hIds.data(), m * 4, cudaMemcpyHostToDevice));
  thrust::counting_iterator<long> zero(0);
  // INT_MAX everywhere.
  std::vector<int> big(1 << 20, INT_MAX);
  for (long o = 0; o < V; o += big.size()) CK(cudaMemcpy(map + o, big.data(), std::min<long>(big.size(), V - o) * 4, cudaMemcpyHostToDevice));
  const Cand c{dst, nDst, ids};
  const unsigned grid = 8192, block = 256;
  void* temp = nullptr; size_t tempBytes = 0, t2 = 0;
  cub::DeviceScan::InclusiveSum(nullptr, tempBytes, head, scan, (int)n);
  auto flags = thrust::make_transform_iterator(zero, IsFirst{c, map});
  cub::DeviceScan::InclusiveSum(nullptr, t2, flags, scan, (int)n);
  CK(cudaMalloc(&temp, std::max(tempBytes, t2)));
  tempBytes = std::max(tempBytes, t2);
  auto runA = [&] {
    claim<<<grid, block>>>(c, n, map); mark<<<grid, block>>>(c, n, map, head);
    cub::DeviceScan::InclusiveSum(temp, tempBytes, head, scan, (int)n);
    writeA<<<grid, block>>>(c, n, map, head, scan, values, nb); restoreA<<<grid, block>>>(c, n, head, map);
  };
  auto runB = [&] {
    claim<<<grid, block>>>(c, n, map);
    cub::DeviceScan::InclusiveSum(temp, tempBytes, flags, scan, (int)n);
    number<<<grid, block>>>(c, n, scan, values, map); readN<<<grid, block>>>(ids, m, map, nb); restoreB<<<grid, block>>>(values, scan + n - 1, map);
  };
  auto runC = [&] {
    claim<<<grid, block>>>(c, n, map); mark<<<grid, block>>>(c, n, map, head);
    cub::DeviceScan::InclusiveSum(temp, tempBytes, head, scan, (int)n);
    number<<<grid, block>>>(c, n, scan, values, map); readN<<<grid, block>>>(ids, m, map, nb); restoreB<<<grid, block>>>(values, scan + n - 1, map);
  };
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  int count0 = 0;
  runA(); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(&count0, scan + n - 1, 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(values0, values, n * 4, cudaMemcpyDeviceToDevice)); CK(cudaMemcpy(nb0, nb, m * 4, cudaMemcpyDeviceToDevice));
  std::vector<int> v0(count0), n0(m), v1(count0), n1(m);
  CK(cudaMemcpy(v0.data(), values0, count0 * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(n0.data(), nb0, m * 4, cudaMemcpyDeviceToHost));
  printf("candidates %ld, distinct %d (dst %ld)\n", n, count0, nDst);
  const char* names[] = {"A stored flags, sums read per neighbour", "B flags read in the scan, numbers in the map", "C stored flags, numbers in the map"};
  for (int k = 0; k < 3; ++k) {
    auto run = [&] { if (k == 0) runA(); else if (k == 1) runB(); else runC(); };
    float best = 1e9;
    for (int r = 0; r < 20; ++r) {
      CK(cudaEventRecord(a)); run(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
      float ms; CK(cudaEventElapsedTime(&ms, a, b)); best = std::min(best, ms);
    }
    CK(cudaGetLastError());
    int count = 0; CK(cudaMemcpy(&count, scan + n - 1, 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(v1.data(), values, count0 * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(n1.data(), nb, m * 4, cudaMemcpyDeviceToHost));
    // The map put back: every candidate's entry INT_MAX again.
    bool restored = true;
    for (int s = 0; s < 1024; ++s) { int entry; CK(cudaMemcpy(&entry, map + hIds[(long)s * (m / 1024)], 4, cudaMemcpyDeviceToHost)); restored &= entry == INT_MAX; }
    printf("%-48s %.3f ms  %s\n", names[k], best, count == count0 && v1 == v0 && n1 == n0 && restored ? "same result" : "DIFFERENT");
  }
  {
    unsigned long long* map64;
    CK(cudaMalloc(&map64, V * 8));
    CK(cudaMemset(map64, 0xff, V * 8));
    unsigned stamp = 0xfffffffeu;
    for (int pre = 0; pre < 2; ++pre) {
      float best = 1e9;
      for (int r = 0; r < 20; ++r) {
        CK(cudaEventRecord(a));
        if (pre) claimD2<<<grid, block>>>(c, n, stamp, map64); else claimD<<<grid, block>>>(c, n, stamp, map64);
        markD<<<grid, block>>>(c, n, stamp, map64, head);
        cub::DeviceScan::InclusiveSum(temp, tempBytes, head, scan, (int)n);
        writeD<<<grid, block>>>(c, n, map64, head, scan, values, nb);
        CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
        float ms; CK(cudaEventElapsedTime(&ms, a, b)); best = std::min(best, ms);
        --stamp;
      }
      CK(cudaGetLastError());
      int count = 0; CK(cudaMemcpy(&count, scan + n - 1, 4, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(v1.data(), values, count0 * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(n1.data(), nb, m * 4, cudaMemcpyDeviceToHost));
      printf("%-48s %.3f ms  %s\n", pre ? "D2 as D, the entry read before its atomic" : "D 64-bit stamped map, nothing put back", best,
             count == count0 && v1 == v0 && n1 == n0 ? "same result" : "DIFFERENT");
    }
    CK(cudaFree(map64));
  }
  // A's launches one by one (best of 20 each), with 8,192 blocks and with a thread per candidate.
  const char* parts[] = {"claim (atomicMin per candidate)", "mark (the map read per candidate)", "scan", "write (map and sum read per neighbour)", "restore"};
  cudaEvent_t ev[6];
  for (auto& evt : ev) CK(cudaEventCreate(&evt));
  const unsigned full = (unsigned)((n + block - 1) / block);
  for (const unsigned blocks : {grid, full}) {
    float bestPart[5] = {1e9, 1e9, 1e9, 1e9, 1e9}, sum = 0;
    for (int r = 0; r < 20; ++r) {
      CK(cudaEventRecord(ev[0])); claim<<<blocks, block>>>(c, n, map);
      CK(cudaEventRecord(ev[1])); mark<<<blocks, block>>>(c, n, map, head);
      CK(cudaEventRecord(ev[2])); cub::DeviceScan::InclusiveSum(temp, tempBytes, head, scan, (int)n);
      CK(cudaEventRecord(ev[3])); writeA<<<blocks, block>>>(c, n, map, head, scan, values, nb);
      CK(cudaEventRecord(ev[4])); restoreA<<<blocks, block>>>(c, n, head, map);
      CK(cudaEventRecord(ev[5])); CK(cudaEventSynchronize(ev[5]));
      for (int k = 0; k < 5; ++k) { float ms; CK(cudaEventElapsedTime(&ms, ev[k], ev[k + 1])); bestPart[k] = std::min(bestPart[k], ms); }
    }
    const char* how = blocks == grid ? "A" : "A, a thread per candidate";
    for (int k = 0; k < 5; ++k) { printf("  %s: %-40s %.3f ms\n", how, parts[k], bestPart[k]); sum += bestPart[k]; }
    printf("  %s: total %.3f ms\n", how, sum);
  }
  return 0;
}
