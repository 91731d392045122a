// How many CPUs this process may run on: its affinity mask (containers and
// taskset narrow it; hardware_concurrency does not see that).
#pragma once
#include <algorithm>
#include <atomic>
#include <thread>

#ifdef __linux__
#include <sched.h>
#endif

namespace wm {

inline int affinityCpus() {
  int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cpus = std::max(1, CPU_COUNT(&set));
#endif
  return cpus;
}

// Whether this process was bound to a share of the host's cores of its own (WM_CPU_BIND=cores): its
// affinity mask is then already its part, not one to divide among the host's ranks.
inline std::atomic<bool>& boundToCoreShare() {
  static std::atomic<bool> bound{false};
  return bound;
}

}  // namespace wm
