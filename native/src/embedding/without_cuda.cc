// Built when CMake finds no CUDA compiler: initialising an embedding table on the GPU refuses with a clear error.
#include "wm/embedding.h"
#include "runtime/no_cuda.h"

namespace wm {

void embeddingInit(const TableRef&, int64_t, int64_t, uint64_t, int, float) { noCuda("embeddingInit"); }

}  // namespace wm
