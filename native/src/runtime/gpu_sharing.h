// Whether ranks of one group may drive the same GPU: WM_SHARE_GPU=1, for running multi-rank code on a
// machine with fewer GPUs than ranks (the GPU test suite does). CUDA IPC, VMM descriptors and the peer
// all-reduce work between processes of one GPU; NCCL refuses two ranks on one GPU, so its paths stay
// one GPU per rank.
#pragma once
#include <cstdlib>

namespace wm {

inline bool gpuSharingAllowed() {
  const char* v = std::getenv("WM_SHARE_GPU");
  return v != nullptr && v[0] == '1' && v[1] == '\0';
}

}  // namespace wm
