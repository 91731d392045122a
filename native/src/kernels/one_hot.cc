// OneHot on the CPU core: out[i, d] = indices[i] == d ? on : off (an index
// outside [0, depth) gives a row of off, as tfjs-backend-cpu and the CUDA
// kernel do).
#include <cstdint>

#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "kernels/host_ops.h"

namespace wm {
namespace host {
namespace {

template <typename T>
void fillRows(const int32_t* idx, T* y, int64_t n, int64_t depth, T on, T off) {
  parallelFor(n, 4096 / (depth > 0 ? depth : 1) + 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      T* row = y + i * depth;
      for (int64_t d = 0; d < depth; ++d) row[d] = off;
      if (idx[i] >= 0 && idx[i] < depth) row[idx[i]] = on;
    }
  });
}

}  // namespace

void oneHot(DType t, const int32_t* indices, void* y, int64_t n, int64_t depth, double onValue, double offValue) {
  switch (t) {
    case DType::F32:
      fillRows(indices, static_cast<float*>(y), n, depth, static_cast<float>(onValue), static_cast<float>(offValue));
      break;
    case DType::I32:
      fillRows(indices, static_cast<int32_t*>(y), n, depth, static_cast<int32_t>(onValue), static_cast<int32_t>(offValue));
      break;
    case DType::Bool:
      fillRows(indices, static_cast<uint8_t*>(y), n, depth, static_cast<uint8_t>(onValue != 0), static_cast<uint8_t>(offValue != 0));
      break;
  }
}

}  // namespace host
}  // namespace wm

// oneHot(dtype, indices, y, n, depth, onValue, offValue)
WM_OP(oneHot, Host, a) {
  const wm::DType dt = a.dtype(0, "dtype");
  const int64_t n = a.count(3, "n"), depth = a.count(4, "depth");
  wm::host::oneHot(dt, a.ints(1, "indices", n), a.tensor(2, "y", dt, n * depth), n, depth, a.number(5, "onValue"), a.number(6, "offValue"));
}
