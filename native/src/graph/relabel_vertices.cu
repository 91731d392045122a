// Unique-and-relabel of one sampling hop through a vertex-indexed map instead
// of sorting: each vertex's first position wins an atomicMin, the scan over
// "is this position its vertex's first" numbers the winners (the flags read
// from the map inside the scan, never stored), each winner writes its number
// into the map, every neighbour reads its vertex's number, and the winners
// put the map back. O(n) work in five launches; three passes touch the map
// at random for every candidate, two for the distinct vertices only.
// First-occurrence order makes dst (distinct) the prefix.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <climits>

#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "wm/op_registry.h"
#include "wm/graph_ops.h"
#include "wm/runtime.h"

namespace wm {
namespace {

struct Candidates {
  const int32_t* dst;
  int64_t nDst;
  const int32_t* ids;
  __device__ __forceinline__ int32_t operator()(int64_t i) const { return i < nDst ? dst[i] : ids[i - nDst]; }
};

__device__ __forceinline__ bool inRange(int32_t v, int64_t numVertices) { return v >= 0 && v < numVertices; }

__global__ void claimFirst(Candidates c, int64_t n, int64_t numVertices, int32_t* map) {
  WM_GRID_STRIDE(i, n) {
    const int32_t v = c(i);
    if (inRange(v, numVertices)) atomicMin(map + v, static_cast<int32_t>(i));
  }
}

// 1 where position i is its vertex's first (claimFirst's winner), else 0: the scan's input.
struct IsFirst {
  Candidates c;
  int64_t numVertices;
  const int32_t* map;
  __device__ __forceinline__ int32_t operator()(int64_t i) const {
    const int32_t v = c(i);
    return inRange(v, numVertices) && map[v] == static_cast<int32_t>(i);
  }
};

// scan is the inclusive sum of the flags: a first occurrence i is number scan[i] - 1. Its map entry becomes
// -(number + 1), negative where positions are not, so no winner's entry is read for a position later.
__global__ void numberFirst(Candidates c, int64_t n, const int32_t* __restrict__ scan, int32_t* __restrict__ values, int32_t* map) {
  WM_GRID_STRIDE(i, n) {
    const int32_t s = scan[i];
    if (s != (i > 0 ? scan[i - 1] : 0)) {
      const int32_t v = c(i);
      values[s - 1] = v;
      map[v] = -s;
    }
  }
}

__global__ void readNumbers(const int32_t* __restrict__ ids, int64_t nIds, int64_t numVertices, const int32_t* __restrict__ map,
                            int32_t* __restrict__ neighbors) {
  WM_GRID_STRIDE(j, nIds) {
    const int32_t v = ids[j];
    neighbors[j] = inRange(v, numVertices) ? -map[v] - 1 : 0;
  }
}

// The distinct vertices' entries back to INT_MAX; their count is the scan's last sum, read on the device.
__global__ void restoreMap(const int32_t* __restrict__ values, const int32_t* __restrict__ count, int32_t* map) {
  const int64_t n = *count;
  WM_GRID_STRIDE(i, n) map[values[i]] = INT_MAX;
}

}  // namespace

int64_t relabelVertices(uint64_t dst, int64_t nDst, uint64_t ids, int64_t nIds, int64_t numVertices, uint64_t map, uint64_t values,
                        uint64_t neighbors) {
  const int64_t n = nDst + nIds;
  WM_REQUIRE(nDst >= 0 && nIds >= 0 && n < (int64_t{1} << 31), "relabelVertices: at most 2^31 - 1 candidates");
  if (n == 0) return 0;
  Scratch s;
  cudaStream_t st = stream();
  const Candidates c{as<int32_t>(dst), nDst, as<int32_t>(ids)};
  int32_t* m = as<int32_t>(map);
  int32_t* out = as<int32_t>(values);
  auto* scan = s.get<int32_t>(n);
  claimFirst<<<gridFor(n), kThreads, 0, st>>>(c, n, numVertices, m);
  WM_CUDA_LAUNCHED();
  const auto flags = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), IsFirst{c, numVertices, m});
  size_t temp = 0;
  WM_CUDA(cub::DeviceScan::InclusiveSum(nullptr, temp, flags, scan, static_cast<int>(n), st));
  void* t = s.get<uint8_t>(static_cast<int64_t>(temp));
  WM_CUDA(cub::DeviceScan::InclusiveSum(t, temp, flags, scan, static_cast<int>(n), st));
  numberFirst<<<gridFor(n), kThreads, 0, st>>>(c, n, scan, out, m);
  WM_CUDA_LAUNCHED();
  if (nIds > 0) {
    readNumbers<<<gridFor(nIds), kThreads, 0, st>>>(c.ids, nIds, numVertices, m, as<int32_t>(neighbors));
    WM_CUDA_LAUNCHED();
  }
  restoreMap<<<gridFor(n), kThreads, 0, st>>>(out, scan + n - 1, m);
  WM_CUDA_LAUNCHED();
  int32_t count = 0;
  copyDeviceToHost(&count, reinterpret_cast<uint64_t>(scan + n - 1), sizeof count);
  return count;
}

}  // namespace wm

// relabelVertices(dst, nDst, ids, nIds, numVertices, map, values, neighbors) -> count
WM_OP(relabelVertices, Device, a) {
  a.returns(static_cast<double>(wm::relabelVertices(a.address(0, "dst"), a.count(1, "nDst"), a.address(2, "ids"), a.count(3, "nIds"),
                                                    a.count(4, "numVertices"), a.address(5, "map"), a.address(6, "values"),
                                                    a.address(7, "neighbors"))));
}
