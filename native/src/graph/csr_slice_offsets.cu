// The offsets of a run of rows of a graph on the GPU, from 0: the block of rows [first, first + count)
// that layer-wise inference aggregates reads its columns in place (the graph's columns from
// rowPtr[first]) and these int32 offsets, whatever the width of the graph's own.
#include "runtime/check.h"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"
#include "wm/runtime.h"

namespace wm {
namespace {

template <typename Off>
__global__ void sliceOffsets(const Off* rowPtr, int64_t first, int64_t count, int32_t* out) {
  const Off base = rowPtr[first];
  WM_GRID_STRIDE(r, count + 1) { out[r] = static_cast<int32_t>(rowPtr[first + r] - base); }
}

}  // namespace
}  // namespace wm

// csrSliceOffsets(rowPtr, first, count, out, wideOffsets?): out [count + 1] int32. The caller keeps the
// rows' entries below 2^31 (it reads them from the graph's host offsets first).
WM_OP(csrSliceOffsets, Device, a) {
  const int64_t first = a.count(1, "first"), count = a.count(2, "count");
  const uint64_t rowPtr = a.address(0, "rowPtr"), out = a.address(3, "out");
  auto launch = [&](auto offsets) {
    wm::sliceOffsets<<<wm::gridFor(count + 1), wm::kThreads, 0, wm::stream()>>>(offsets, first, count, wm::as<int32_t>(out));
  };
  if (a.flag(4, "wideOffsets", false))
    launch(wm::as<int64_t>(rowPtr));
  else
    launch(wm::as<int32_t>(rowPtr));
  WM_CUDA_LAUNCHED();
}
