// What the CSR builds share (native_graph.cc, relation_graph.cc): counting a row's entries from many threads,
// and the running sum that turns the counts into offsets.
#pragma once
#include <cstdint>

namespace wm {
namespace host {

// out[i] = in[0] + ... + in[i], in per-thread blocks (two passes); in may be out (each index reads and writes
// only itself).
void inclusiveScan(const int64_t* in, int64_t* out, int64_t n);

inline int64_t fetchAdd(int64_t* p, int64_t v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }

}  // namespace host
}  // namespace wm
