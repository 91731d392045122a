// Which GPU each rank of a group drives, and whether ranks share one. WM_SHARE_GPU=1 lets them, for
// running multi-rank code on a machine with fewer GPUs than ranks (the GPU test suite does). CUDA IPC,
// VMM descriptors and the peer all-reduce work between processes of one GPU; NCCL refuses two ranks on
// one GPU, so its paths stay one GPU per rank.
#pragma once
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wm/bootstrap.h"
#include "wm/runtime.h"

namespace wm {

inline bool gpuSharingAllowed() {
  const char* v = std::getenv("WM_SHARE_GPU");
  return v != nullptr && v[0] == '1' && v[1] == '\0';
}

// Collective: the GPU of every rank, in rank order (this rank's is the current device).
inline std::vector<int> groupDevices(Bootstrap& boot, const std::string& what) {
  std::vector<int> devices;
  for (const auto& s : boot.allgather(std::to_string(currentDevice()), what)) devices.push_back(std::stoi(s));
  return devices;
}

// The first ranks p < q (in that order) that drive the same GPU; none when every rank has its own.
// Every rank finds the same pair, so all fail together and name the same ranks.
inline std::optional<std::pair<int, int>> sharedGpuRanks(const std::vector<int>& devices) {
  for (int p = 0; p < static_cast<int>(devices.size()); ++p)
    for (int q = p + 1; q < static_cast<int>(devices.size()); ++q)
      if (devices[p] == devices[q]) return std::make_pair(p, q);
  return std::nullopt;
}

}  // namespace wm
