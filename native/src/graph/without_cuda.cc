// Built when CMake finds no CUDA compiler: GPU sampling and random walks refuse with a clear error.
#include "wm/random_walk.h"
#include "wm/sampling.h"
#include "runtime/no_cuda.h"

namespace wm {

void sampleWithReplacement(uint64_t, uint64_t, int64_t, uint64_t, int64_t, int, uint64_t, uint64_t, uint64_t, bool, bool) {
  noCuda("sampleWithReplacement");
}
void sampleWithoutReplacement(uint64_t, uint64_t, int64_t, uint64_t, int64_t, int, uint64_t, uint64_t, uint64_t, uint64_t, bool, bool) {
  noCuda("sampleWithoutReplacement");
}
void randomWalks(uint64_t, uint64_t, int64_t, uint64_t, int64_t, int, uint64_t, WalkBias, uint64_t, uint64_t, bool) {
  noCuda("randomWalks");
}

}  // namespace wm
