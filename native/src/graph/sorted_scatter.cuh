// The transposed product of a list of entries, as a gather: dx[i] = the sum, over the entries e that name row i,
// of coef(e) x dy[row(e)]. The entries are sorted by the row they add into (stable: each row's adds in entry order),
// and a thread per 16-byte vector of dx sums its row's share in that order and writes it once: no zeroing pass, no
// atomics, the same bits every run, and dy (a layer's few output rows) read from cache, where adds scattered by
// atomics would each go to memory. What the fixed fan-out mean's gradient (neighbor_mean_grad.cu) and a CSR block's
// transposed product (csr_spmm_scatter.cu) share; a Source gives an entry's dy row and coefficient.
#pragma once
#include <algorithm>

#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "runtime/vec4.cuh"
#include "wm/runtime.h"

namespace wm {
namespace {

// start[i] = the first sorted position whose row is at least i (a binary search in sortedRow), for i <= rows.
__global__ void sortedRowStartsKernel(const int32_t* sortedRow, int64_t entries, int64_t rows, int32_t* start) {
  WM_GRID_STRIDE(i, rows + 1) {
    int64_t lo = 0, hi = entries;
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      if (sortedRow[mid] < i)
        lo = mid + 1;
      else
        hi = mid;
    }
    start[i] = static_cast<int32_t>(lo);
  }
}

template <int VEC, typename Source>
__global__ void sortedSumRowsKernel(const int32_t* start, const int32_t* sortedEntry, int64_t rows, Source src, const float* dy,
                                    int64_t dim, float* dx) {
  const int64_t perRow = dim / VEC;
  WM_GRID_STRIDE(t, rows * perRow) {
    const int64_t i = t / perRow, j = (t - i * perRow) * VEC;
    float acc[VEC];
#pragma unroll
    for (int c = 0; c < VEC; ++c) acc[c] = 0.f;
    for (int32_t p = start[i]; p < start[i + 1]; ++p) {
      const int32_t e = sortedEntry[p];
      const float coef = src.coef(e);
      const float* from = dy + src.row(e) * dim + j;
      if constexpr (VEC == 4) {
        const float4 v = *reinterpret_cast<const float4*>(from);
        acc[0] += v.x * coef, acc[1] += v.y * coef, acc[2] += v.z * coef, acc[3] += v.w * coef;
      } else {
        acc[0] += from[0] * coef;
      }
    }
    float* to = dx + i * dim + j;
    if constexpr (VEC == 4)
      *reinterpret_cast<float4*>(to) = make_float4(acc[0], acc[1], acc[2], acc[3]);
    else
      to[0] = acc[0];
  }
}

// dx [outRows, dim] written whole from dy through `entries` entries, entry e adding into row targets[e] (each below
// outRows < 2^31; entries < 2^31, the sort's count).
template <typename Source>
void scatterSorted(const int32_t* targets, int64_t entries, int64_t outRows, Source src, const float* dy, int64_t dim, float* dx) {
  if (outRows * dim == 0) return;
  cudaStream_t st = stream();
  Scratch s;
  auto* sortedRow = s.get<int32_t>(entries);
  auto* sortedEntry = s.get<int32_t>(entries);
  auto* start = s.get<int32_t>(outRows + 1);
  if (entries > 0) {
    auto* entry = s.get<int32_t>(entries);
    iota(entry, entries);
    radixSortPairs(s, targets, sortedRow, entry, sortedEntry, entries, bitsBelow(std::max<int64_t>(outRows, 2)));
  }
  sortedRowStartsKernel<<<gridFor(outRows + 1), kThreads, 0, st>>>(sortedRow, entries, outRows, start);
  WM_CUDA_LAUNCHED();
  const uint64_t dyAt = reinterpret_cast<uint64_t>(dy), dxAt = reinterpret_cast<uint64_t>(dx);
  if (dim % 4 == 0 && aligned16({dyAt, dxAt}))
    sortedSumRowsKernel<4, Source><<<gridFor(outRows * dim / 4), kThreads, 0, st>>>(start, sortedEntry, outRows, src, dy, dim, dx);
  else
    sortedSumRowsKernel<1, Source><<<gridFor(outRows * dim), kThreads, 0, st>>>(start, sortedEntry, outRows, src, dy, dim, dx);
  WM_CUDA_LAUNCHED();
}

}  // namespace
}  // namespace wm
