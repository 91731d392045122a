// How many CPUs this process may run on: its affinity mask (containers and
// taskset narrow it; hardware_concurrency does not see that).
#pragma once
#include <algorithm>
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

}  // namespace wm
