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

// A rank's GPU: the device it drives and the host that device is on.
struct RankGpu {
  int device;
  std::string host;
};

// Collective: every rank's GPU with its host, in rank order (groups over several hosts: each host numbers its GPUs
// from 0).
inline std::vector<RankGpu> groupGpus(Bootstrap& boot, const std::string& what) {
  std::vector<RankGpu> gpus;
  for (const auto& s : boot.allgather(std::to_string(currentDevice()) + " " + boot.host(), what)) {
    const size_t cut = s.find(' ');
    gpus.push_back({std::stoi(s.substr(0, cut)), cut == std::string::npos ? std::string() : s.substr(cut + 1)});
  }
  return gpus;
}

// The first ranks p < q (in that order) that drive the same GPU (the same device of the same host); none when every
// rank has its own. Every rank finds the same pair, so all fail together and name the same ranks.
inline std::optional<std::pair<int, int>> sharedGpuRanks(const std::vector<RankGpu>& gpus) {
  for (int p = 0; p < static_cast<int>(gpus.size()); ++p)
    for (int q = p + 1; q < static_cast<int>(gpus.size()); ++q)
      if (gpus[p].device == gpus[q].device && gpus[p].host == gpus[q].host) return std::make_pair(p, q);
  return std::nullopt;
}

}  // namespace wm
