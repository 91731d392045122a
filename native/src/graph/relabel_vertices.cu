// Unique-and-relabel of one sampling hop through a vertex-indexed map instead
// of sorting: each vertex's first position wins an atomicMin, the winners are
// numbered by a scan, and every candidate reads its vertex's number. Map
// entries carry the call's stamp above the position, and each call's stamp is
// below the last's: a claim wins over whatever an earlier call left, so the
// map is never put back (a random write per distinct vertex saved). Five
// launches where the sort-based unique takes about twenty, and O(n) work.
// First-occurrence order makes dst (distinct) the prefix.
#include <cub/device/device_scan.cuh>

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

// Position i's claim in this call: the stamp, then the position (below 2^31).
__device__ __forceinline__ unsigned long long claimOf(uint32_t stamp, int64_t i) {
  return static_cast<unsigned long long>(stamp) << 32 | static_cast<uint32_t>(i);
}

__global__ void claimFirst(Candidates c, int64_t n, int64_t numVertices, uint32_t stamp, unsigned long long* map) {
  WM_GRID_STRIDE(i, n) {
    const int32_t v = c(i);
    if (inRange(v, numVertices)) atomicMin(map + v, claimOf(stamp, i));
  }
}

__global__ void markFirst(Candidates c, int64_t n, int64_t numVertices, uint32_t stamp, const unsigned long long* map, int32_t* head) {
  WM_GRID_STRIDE(i, n) {
    const int32_t v = c(i);
    head[i] = inRange(v, numVertices) && map[v] == claimOf(stamp, i);
  }
}

// scan is the inclusive sum of head: a first occurrence p is number scan[p] - 1 (p the low half of its vertex's entry).
__global__ void writeNumbers(Candidates c, int64_t n, int64_t numVertices, const unsigned long long* map, const int32_t* head,
                             const int32_t* scan, int32_t* values, int32_t* neighbors) {
  WM_GRID_STRIDE(i, n) {
    const int32_t v = c(i);
    if (head[i]) values[scan[i] - 1] = v;
    if (i >= c.nDst) neighbors[i - c.nDst] = inRange(v, numVertices) ? scan[static_cast<uint32_t>(map[v])] - 1 : 0;
  }
}

}  // namespace

int64_t relabelVertices(uint64_t dst, int64_t nDst, uint64_t ids, int64_t nIds, int64_t numVertices, uint64_t map, int64_t stamp,
                        uint64_t values, uint64_t neighbors) {
  const int64_t n = nDst + nIds;
  WM_REQUIRE(nDst >= 0 && nIds >= 0 && n < (int64_t{1} << 31), "relabelVertices: at most 2^31 - 1 candidates");
  WM_REQUIRE(stamp >= 0 && stamp < 0xffffffffll, "relabelVertices: stamp must be in [0, 2^32 - 1) (a new map holds all ones)");
  if (n == 0) return 0;
  Scratch s;
  cudaStream_t st = stream();
  const Candidates c{as<int32_t>(dst), nDst, as<int32_t>(ids)};
  auto* m = as<unsigned long long>(map);
  auto* head = s.get<int32_t>(n);
  auto* scan = s.get<int32_t>(n);
  claimFirst<<<gridFor(n), kThreads, 0, st>>>(c, n, numVertices, static_cast<uint32_t>(stamp), m);
  WM_CUDA_LAUNCHED();
  markFirst<<<gridFor(n), kThreads, 0, st>>>(c, n, numVertices, static_cast<uint32_t>(stamp), m, head);
  WM_CUDA_LAUNCHED();
  size_t temp = 0;
  WM_CUDA(cub::DeviceScan::InclusiveSum(nullptr, temp, head, scan, static_cast<int>(n), st));
  void* t = s.get<uint8_t>(static_cast<int64_t>(temp));
  WM_CUDA(cub::DeviceScan::InclusiveSum(t, temp, head, scan, static_cast<int>(n), st));
  writeNumbers<<<gridFor(n), kThreads, 0, st>>>(c, n, numVertices, m, head, scan, as<int32_t>(values), as<int32_t>(neighbors));
  WM_CUDA_LAUNCHED();
  int32_t count = 0;
  copyDeviceToHost(&count, reinterpret_cast<uint64_t>(scan + n - 1), sizeof count);
  return count;
}

}  // namespace wm

// relabelVertices(dst, nDst, ids, nIds, numVertices, map, stamp, values, neighbors) -> count
WM_OP(relabelVertices, Device, a) {
  a.returns(static_cast<double>(wm::relabelVertices(a.address(0, "dst"), a.count(1, "nDst"), a.address(2, "ids"), a.count(3, "nIds"),
                                                    a.count(4, "numVertices"), a.address(5, "map"), a.count(6, "stamp"),
                                                    a.address(7, "values"), a.address(8, "neighbors"))));
}
