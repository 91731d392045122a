// Unique values in order of first occurrence, by sorting: sort (value,
// position) pairs, mark where runs of equal values start, number the runs,
// then order the runs by their first position.
#include <cub/device/device_scan.cuh>

#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "wm/op_registry.h"
#include "wm/graph_ops.h"
#include "wm/runtime.h"

namespace wm {
namespace {

__global__ void runHeads(const int32_t* sorted, int64_t n, int32_t* head) {
  WM_GRID_STRIDE(i, n) head[i] = i == 0 || sorted[i] != sorted[i - 1];
}

// runId = inclusive scan of heads - 1; each run's first position (the
// smallest, since the sort is stable) and value.
__global__ void runStarts(const int32_t* sorted, const int32_t* pos, const int32_t* head, const int32_t* scan, int64_t n, int32_t* runFirst,
                          int32_t* runValue) {
  WM_GRID_STRIDE(i, n) {
    if (!head[i]) continue;
    int32_t r = scan[i] - 1;
    runFirst[r] = pos[i];
    runValue[r] = sorted[i];
  }
}

__global__ void rankRuns(const int32_t* orderedRuns, const int32_t* runValue, int64_t runs, int32_t* rankOfRun, int32_t* values) {
  WM_GRID_STRIDE(k, runs) {
    int32_t r = orderedRuns[k];
    rankOfRun[r] = static_cast<int32_t>(k);
    values[k] = runValue[r];
  }
}

__global__ void scatterInverse(const int32_t* pos, const int32_t* scan, const int32_t* rankOfRun, int64_t n, int32_t* inverse) {
  WM_GRID_STRIDE(i, n) inverse[pos[i]] = rankOfRun[scan[i] - 1];
}

}  // namespace

int64_t uniqueInt32(uint64_t x, int64_t n, uint64_t values, uint64_t inverse) {
  if (n == 0) return 0;
  WM_REQUIRE(n < (int64_t{1} << 31), "unique: at most 2^31 - 1 elements");
  Scratch s;
  cudaStream_t st = stream();
  auto* pos = s.get<int32_t>(n);
  auto* sorted = s.get<int32_t>(n);
  auto* sortedPos = s.get<int32_t>(n);
  iota(pos, n);
  radixSortPairs(s, reinterpret_cast<const int32_t*>(x), sorted, pos, sortedPos, n, 32);
  auto* head = s.get<int32_t>(n);
  auto* scan = s.get<int32_t>(n);
  runHeads<<<gridFor(n), kThreads, 0, st>>>(sorted, n, head);
  size_t temp = 0;
  WM_CUDA(cub::DeviceScan::InclusiveSum(nullptr, temp, head, scan, static_cast<int>(n), st));
  void* t = s.get<uint8_t>(static_cast<int64_t>(temp));
  WM_CUDA(cub::DeviceScan::InclusiveSum(t, temp, head, scan, static_cast<int>(n), st));
  int32_t runs = 0;
  copyDeviceToHost(&runs, reinterpret_cast<uint64_t>(scan + n - 1), sizeof runs);
  auto* runFirst = s.get<int32_t>(runs);
  auto* runValue = s.get<int32_t>(runs);
  runStarts<<<gridFor(n), kThreads, 0, st>>>(sorted, sortedPos, head, scan, n, runFirst, runValue);
  auto* runIdx = s.get<int32_t>(runs);
  auto* firstSorted = s.get<int32_t>(runs);
  auto* orderedRuns = s.get<int32_t>(runs);
  iota(runIdx, runs);
  radixSortPairs(s, runFirst, firstSorted, runIdx, orderedRuns, runs, bitsBelow(n));
  auto* rankOfRun = s.get<int32_t>(runs);
  rankRuns<<<gridFor(runs), kThreads, 0, st>>>(orderedRuns, runValue, runs, rankOfRun, reinterpret_cast<int32_t*>(values));
  scatterInverse<<<gridFor(n), kThreads, 0, st>>>(sortedPos, scan, rankOfRun, n, reinterpret_cast<int32_t*>(inverse));
  WM_CUDA_LAUNCHED();
  return runs;
}

}  // namespace wm

// uniqueInt32(x, n, values, inverse) -> the number of distinct values
WM_OP(uniqueInt32, Device, a) {
  a.returns(static_cast<double>(wm::uniqueInt32(a.address(0, "x"), a.count(1, "n"), a.address(2, "values"), a.address(3, "inverse"))));
}
