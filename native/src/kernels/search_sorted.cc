// SearchSorted on the CPU core: values split over the threads (kernels/sorted_search.h).
#include <climits>
#include <cstdint>

#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "kernels/sorted_search.h"

namespace {

template <typename T>
void search(const T* sorted, const T* values, int32_t* out, int64_t batch, int64_t seqLen, int64_t numValues, bool right) {
  wm::host::parallelFor(batch * numValues, 2048, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      out[i] = static_cast<int32_t>(wm::sortedPosition(sorted + (i / numValues) * seqLen, seqLen, values[i], right));
    }
  });
}

}  // namespace

// searchSorted(dtype, sorted, values, out, batch, seqLen, numValues, right)
WM_OP(searchSorted, Host, a) {
  const wm::DType dt = a.dtype(0, "dtype");
  const int64_t batch = a.count(4, "batch"), seqLen = a.count(5, "seqLen"), numValues = a.count(6, "numValues");
  const bool right = a.flag(7, "right");
  if (dt != wm::DType::F32 && dt != wm::DType::I32) a.reject(0, "dtype", "must be float32 or int32");
  if (seqLen > INT32_MAX) a.reject(5, "seqLen", "must fit int32 (the positions are int32)");
  const void* sorted = a.tensor(1, "sorted", dt, batch * seqLen);
  const void* values = a.tensor(2, "values", dt, batch * numValues);
  int32_t* out = a.ints(3, "out", batch * numValues);
  if (dt == wm::DType::F32)
    search(static_cast<const float*>(sorted), static_cast<const float*>(values), out, batch, seqLen, numValues, right);
  else
    search(static_cast<const int32_t*>(sorted), static_cast<const int32_t*>(values), out, batch, seqLen, numValues, right);
}
