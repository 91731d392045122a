// Large fresh output buffers (a gather of 100 MB into a new Float32Array)
// otherwise fault in one 4 KiB page at a time while the kernel writes them;
// where transparent huge pages are in "madvise" mode, asking for them turns
// ~25,000 faults into ~50.
#pragma once
#include <cstddef>
#include <cstdint>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace wm {
namespace host {

inline void preferHugePages(void* p, size_t bytes) {
#ifdef __linux__
  constexpr uintptr_t k2M = uintptr_t{2} << 20;
  if (bytes < 4 * k2M) return;
  const uintptr_t a = (reinterpret_cast<uintptr_t>(p) + k2M - 1) & ~(k2M - 1);
  const uintptr_t e = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(k2M - 1);
  // Advice only: where it is refused nothing changes.
  if (e > a) madvise(reinterpret_cast<void*>(a), e - a, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace host
}  // namespace wm
