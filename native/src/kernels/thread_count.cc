#include "runtime/parallel.h"
#include "kernels/host_ops.h"

namespace wm {
namespace host {

int threads() { return static_cast<int>(ThreadPool::get().workers()) + 1; }

}  // namespace host
}  // namespace wm
