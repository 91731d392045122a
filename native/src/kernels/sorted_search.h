// The binary search of SearchSorted, for both compilers: the position of the
// first of row[0..n) not less than v (left) or greater than v (right), with
// tfjs-backend-cpu's comparisons, so NaNs land where they land there.
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define WM_SORTED_HD __host__ __device__
#else
#define WM_SORTED_HD
#endif

namespace wm {

template <typename T>
WM_SORTED_HD inline int64_t sortedPosition(const T* row, int64_t n, T v, bool right) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (right ? row[mid] <= v : row[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return hi;
}

}  // namespace wm
