// What a build without CUDA answers where a GPU is asked for (each domain's without_cuda.cc).
#pragma once
#include <string>

#include "wm/status.h"

namespace wm {

[[noreturn]] inline void noCuda(const char* what) {
  fail(std::string(what) +
       ": this build of tfjs-backend-wholememory has no CUDA support "
       "(nvcc was not found when it was built)");
}

}  // namespace wm
