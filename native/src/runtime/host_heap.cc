// Host kernel outputs are typed arrays from malloc, not zeroed (the kernel writes them whole). glibc serves
// a block past its mmap threshold with fresh pages, each faulted in on first write, and gives the heap's
// free top back to the system past its trim threshold; both start at 128 KiB. An activation of a few MB
// then costs as much in page faults as the kernel that writes it, every step. With the threshold at its
// largest (32 MiB) and the heap kept up to 1 GiB, the next step's arrays reuse the last step's pages, as
// NumPy's do. WM_HOST_HEAP=system leaves malloc's settings as they are.
#include "wm/host_heap.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace wm {
namespace host {

bool keepBlocksInHeap() {
  const char* v = std::getenv("WM_HOST_HEAP");
  if (v != nullptr && *v != '\0' && std::strcmp(v, "reuse") != 0) {
    if (std::strcmp(v, "system") == 0) return false;
    throw std::invalid_argument(std::string("environment: WM_HOST_HEAP must be 'reuse' or 'system', got '") + v + "'");
  }
#if defined(__GLIBC__)
  return mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 && mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
#else
  return false;
#endif
}

}  // namespace host
}  // namespace wm
