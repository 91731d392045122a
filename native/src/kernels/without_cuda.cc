// Built when CMake finds no CUDA compiler: cuBLAS is absent and the device bodies the bindings call directly refuse with a clear error.
#include "wm/dense_optimizer.h"
#include "wm/runtime.h"
#include "runtime/no_cuda.h"

namespace wm {

bool cublasAvailable() { return false; }
void denseAdam(const std::vector<AdamTensor<uint64_t>>&, const AdamScalars&) { noCuda("denseAdam"); }

}  // namespace wm
