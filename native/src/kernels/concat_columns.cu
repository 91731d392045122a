// Concat on the GPU in one launch per eight inputs: input i, [outer, inner_i], goes into columns
// [column_i, column_i + inner_i) of the [outer, outInner] output, a thread per output element (the writes
// coalesced, each element's input found among at most eight column ranges).
#include <algorithm>
#include <string>
#include <vector>

#include "runtime/launch.cuh"
#include "wm/op_registry.h"
#include "wm/status.h"

namespace wm {
namespace {

constexpr int kMaxInputs = 8;

struct Inputs {
  uint64_t src[kMaxInputs];
  int64_t column[kMaxInputs + 1];  // input i's first output column; column[n] ends the last
  int n;
};

// The output's columns [in.column[0], in.column[in.n]) of every row, from the inputs holding them.
template <typename T>
__global__ void concatColumnsKernel(Inputs in, T* dst, int64_t outer, int64_t outInner) {
  const int64_t first = in.column[0], width = in.column[in.n] - first;
  WM_GRID_STRIDE(e, outer * width) {
    const int64_t row = e / width, c = first + e % width;
    int i = 0;
    while (i + 1 < in.n && c >= in.column[i + 1]) ++i;
    const int64_t inner = in.column[i + 1] - in.column[i];
    dst[row * outInner + c] = as<const T>(in.src[i])[row * inner + (c - in.column[i])];
  }
}

template <typename T>
void launch(const std::vector<int64_t>& srcs, const std::vector<int64_t>& inners, uint64_t dst, int64_t outer, int64_t outInner) {
  int64_t column = 0;
  for (size_t b = 0; b < srcs.size(); b += kMaxInputs) {
    Inputs in{};
    in.n = static_cast<int>(std::min<size_t>(kMaxInputs, srcs.size() - b));
    in.column[0] = column;
    for (int i = 0; i < in.n; ++i) {
      in.src[i] = static_cast<uint64_t>(srcs[b + i]);
      column += inners[b + i];
      in.column[i + 1] = column;
    }
    const int64_t n = outer * (column - in.column[0]);
    if (n == 0) continue;
    concatColumnsKernel<T><<<gridFor(n), kThreads, 0, stream()>>>(in, as<T>(dst), outer, outInner);
    WM_CUDA_LAUNCHED();
  }
}

}  // namespace
}  // namespace wm

// concatColumns(elemSize, srcs, inners, dst, outer, outInner): srcs the inputs' device addresses, inners their
// columns (summing to outInner).
WM_OP(concatColumns, Device, a) {
  const int64_t elemSize = a.count(0, "elemSize");
  const std::vector<int64_t> srcs = a.dims(1, "srcs"), inners = a.dims(2, "inners");
  const uint64_t dst = a.address(3, "dst");
  const int64_t outer = a.count(4, "outer"), outInner = a.count(5, "outInner");
  if (srcs.size() != inners.size()) a.reject(2, "inners", "must have an entry per input (" + std::to_string(srcs.size()) + ")");
  int64_t total = 0;
  for (size_t i = 0; i < srcs.size(); ++i) {
    if (srcs[i] <= 0) a.reject(1, "srcs", "must hold device addresses; entry " + std::to_string(i) + " is not one");
    if (inners[i] < 0) a.reject(2, "inners", "must not be negative");
    total += inners[i];
  }
  if (total != outInner) a.reject(5, "outInner", "must be the inputs' columns summed (" + std::to_string(total) + ")");
  switch (elemSize) {
    case 1:
      return wm::launch<uint8_t>(srcs, inners, dst, outer, outInner);
    case 4:
      return wm::launch<uint32_t>(srcs, inners, dst, outer, outInner);
    case 8:
      return wm::launch<uint64_t>(srcs, inners, dst, outer, outInner);
    default:
      a.reject(0, "elemSize", "must be 1, 4 or 8");
  }
}
