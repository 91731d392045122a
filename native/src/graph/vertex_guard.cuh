// The guard every per-start-vertex graph kernel (walks, sampling) runs first.
#pragma once
#include <cstdint>

namespace wm {

// Whether start i's vertex v lies in the graph. If not, its output row
// (width entries at out + i * width) is zeroed, so nothing reads stale
// memory, and the lowest such i goes to err (when the caller asked for the
// check: the host names that start in its error).
__device__ __forceinline__ bool startInGraph(int32_t v, int64_t numVertices, int64_t i, unsigned long long* err, int32_t* out,
                                             int64_t width) {
  if (v >= 0 && v < numVertices) return true;
  if (err) atomicMin(err, static_cast<unsigned long long>(i));
  for (int64_t k = 0; k < width; ++k) out[i * width + k] = 0;
  return false;
}

}  // namespace wm
