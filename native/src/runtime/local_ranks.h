// Where a launcher put this process among the ranks of its host: ours and torchrun's LOCAL_RANK /
// LOCAL_WORLD_SIZE, Open MPI's OMPI_COMM_WORLD_LOCAL_RANK / _SIZE. Read by the GPU choice, the CPU
// binding and the CPU thread pool.
#pragma once
#include <algorithm>
#include <cstdlib>
#include <optional>

namespace wm {

// The first of the variables that is set, as an integer.
inline std::optional<long> launcherVariable(const char* ours, const char* openMpi) {
  for (const char* name : {ours, openMpi}) {
    const char* v = std::getenv(name);
    if (v && *v) return std::strtol(v, nullptr, 10);
  }
  return std::nullopt;
}

// This process's rank among its host's, where a launcher said.
inline std::optional<long> localRank() { return launcherVariable("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"); }

// How many ranks a launcher started on this host (1 without one).
inline long localWorldSize() { return std::max(1L, launcherVariable("LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE").value_or(1)); }

}  // namespace wm
