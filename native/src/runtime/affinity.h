// How many CPUs this process may run on: its affinity mask (containers and
// taskset narrow it; hardware_concurrency does not see that).
#pragma once
#include <atomic>

#include "wm/cpu_binding.h"

namespace wm {

inline int affinityCpus() { return static_cast<int>(allowedCpus().size()); }

// Whether this process was bound to a share of the host's cores of its own (WM_CPU_BIND=cores): its
// affinity mask is then already its part, not one to divide among the host's ranks.
inline std::atomic<bool>& boundToCoreShare() {
  static std::atomic<bool> bound{false};
  return bound;
}

}  // namespace wm
