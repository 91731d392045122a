// Random rows defeat the hardware prefetcher: host loops over rows at scattered addresses ask for the rows they will
// touch a few steps ahead (their first KiB). Write: for rows about to be updated. Host code only.
#pragma once
#include <algorithm>
#include <cstdint>

namespace wm {
namespace host {

template <bool Write = false>
inline void prefetchRow(const void* row, int64_t bytes) {
  const char* c = static_cast<const char*>(row);
  for (int64_t l = 0; l < std::min<int64_t>(bytes, 1024); l += 64) __builtin_prefetch(c + l, Write ? 1 : 0);
}

}  // namespace host
}  // namespace wm
