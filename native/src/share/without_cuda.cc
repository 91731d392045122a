// Built when CMake finds no CUDA compiler: sharing GPU memory between processes refuses with a clear error.
#include "wm/shared_buffer.h"
#include "runtime/no_cuda.h"

namespace wm {

uint64_t sharedDeviceAlloc(size_t, std::string*) { noCuda("sharing GPU memory"); }
void sharedDeviceFree(uint64_t) { noCuda("sharing GPU memory"); }
uint64_t sharedDeviceOpen(const std::string&) { noCuda("opening shared GPU memory"); }
void sharedDeviceClose(uint64_t) {}

}  // namespace wm
