// The k largest entries per row (tfjs' TopK) by sorting every row in
// descending order with CUB's radix sort, which is stable: equal values keep
// their order of position, as tfjs' comparison breaks ties. -0 is sorted as
// +0 (tfjs compares them equal), NaN first; the values returned are read from x.
// A few rows (a query against a million scores): one device-wide sort per
// row; many: one segmented sort over all rows.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <math_constants.h>

#include <type_traits>

#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "wm/op_registry.h"
#include "kernels/ops.h"
#include "wm/runtime.h"

namespace wm {
namespace {

template <typename T>
__global__ void prepare(const T* x, T* keys, int32_t* positions, int64_t total, int64_t n) {
  WM_GRID_STRIDE(i, total) {
    const T v = x[i];
    // -0 sorts as +0, and every NaN as the positive quiet NaN (first, as on the CPU core):
    // radix order would put a NaN with its sign bit set last.
    if constexpr (std::is_floating_point_v<T>)
      keys[i] = v != v ? CUDART_NAN_F : v == 0.f ? 0.f : v;
    else
      keys[i] = v;
    positions[i] = static_cast<int32_t>(i % n);
  }
}

__global__ void rowStarts(int32_t* offsets, int64_t rows, int64_t n) {
  WM_GRID_STRIDE(r, rows + 1) offsets[r] = static_cast<int32_t>(r * n);
}

template <typename T>
__global__ void takeFirst(const T* x, const int32_t* sorted, T* values, int32_t* indices, int64_t rows, int64_t n, int64_t k) {
  WM_GRID_STRIDE(i, rows * k) {
    const int64_t r = i / k, j = i - r * k;
    const int32_t at = sorted[r * n + j];
    indices[i] = at;
    values[i] = x[r * n + at];
  }
}

template <typename T>
void run(const T* x, T* values, int32_t* indices, int64_t rows, int64_t n, int64_t k) {
  const int64_t total = rows * n;
  WM_REQUIRE(total < (int64_t{1} << 31), "topK: at most 2^31 - 1 entries");
  cudaStream_t s = stream();
  Scratch sc;
  T* keys = sc.get<T>(total);
  T* keysOut = sc.get<T>(total);
  int32_t* pos = sc.get<int32_t>(total);
  int32_t* posOut = sc.get<int32_t>(total);
  prepare<T><<<gridFor(total), kThreads, 0, s>>>(x, keys, pos, total, n);
  WM_CUDA_LAUNCHED();
  size_t temp = 0;
  if (rows <= 16) {
    WM_CUDA(cub::DeviceRadixSort::SortPairsDescending(nullptr, temp, keys, keysOut, pos, posOut, static_cast<int>(n), 0, 8 * sizeof(T), s));
    void* t = sc.get<uint8_t>(static_cast<int64_t>(temp));
    for (int64_t r = 0; r < rows; ++r) {
      WM_CUDA(cub::DeviceRadixSort::SortPairsDescending(t, temp, keys + r * n, keysOut + r * n, pos + r * n, posOut + r * n,
                                                        static_cast<int>(n), 0, 8 * sizeof(T), s));
    }
  } else {
    int32_t* offsets = sc.get<int32_t>(rows + 1);
    rowStarts<<<gridFor(rows + 1), kThreads, 0, s>>>(offsets, rows, n);
    WM_CUDA_LAUNCHED();
    WM_CUDA(cub::DeviceSegmentedRadixSort::SortPairsDescending(nullptr, temp, keys, keysOut, pos, posOut, static_cast<int>(total),
                                                               static_cast<int>(rows), offsets, offsets + 1, 0, 8 * sizeof(T), s));
    void* t = sc.get<uint8_t>(static_cast<int64_t>(temp));
    WM_CUDA(cub::DeviceSegmentedRadixSort::SortPairsDescending(t, temp, keys, keysOut, pos, posOut, static_cast<int>(total),
                                                               static_cast<int>(rows), offsets, offsets + 1, 0, 8 * sizeof(T), s));
  }
  takeFirst<T><<<gridFor(rows * k), kThreads, 0, s>>>(x, posOut, values, indices, rows, n, k);
  WM_CUDA_LAUNCHED();
}

}  // namespace

void topK(DType dt, uint64_t x, uint64_t values, uint64_t indices, int64_t rows, int64_t n, int64_t k) {
  WM_REQUIRE(k >= 0 && k <= n, "topK: k must be in [0, n]");
  if (rows * k == 0) return;
  switch (dt) {
    case DType::F32:
      run(as<float>(x), as<float>(values), as<int32_t>(indices), rows, n, k);
      break;
    case DType::I32:
      run(as<int32_t>(x), as<int32_t>(values), as<int32_t>(indices), rows, n, k);
      break;
    default:
      fail("topK: float32 or int32 only");
  }
}

}  // namespace wm

// topK(dtype, x, values, indices, rows, n, k)
WM_OP(topK, Device, a) {
  wm::topK(a.dtype(0, "dtype"), a.address(1, "x"), a.address(2, "values"), a.address(3, "indices"), a.count(4, "rows"), a.count(5, "n"),
           a.count(6, "k"));
}
