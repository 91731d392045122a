// Built when CMake finds no CUDA compiler: the runtime reports no GPU and its device entry points (allocations, copies, streams, timing
// events) refuse with a clear error. Ops of the op table need nothing
// here: without their .cu files they have no device body.
#include "wm/cpu_binding.h"
#include "wm/cuda_setup.h"
#include "wm/op_timing.h"
#include "wm/runtime.h"
#include "runtime/no_cuda.h"

namespace wm {

bool builtWithCuda() { return false; }
int deviceCount() { return 0; }
std::string unavailableReason() { return "built without CUDA"; }
CudaSetup cudaSetup() { return CudaSetup{}; }
KernelImage kernelImage() { noCuda("kernelImage"); }
std::string cublasLocation() { return ""; }
void selectDevice(int) { noCuda("selectDevice"); }
int currentDevice() { noCuda("currentDevice"); }
std::string deviceName() { noCuda("deviceName"); }
std::string cpuBinding() { return "not bound (no GPU)"; }
void synchronize() {}
void* recordTimingEvent() { noCuda("recordTimingEvent"); }
bool timingEventDone(void*) { noCuda("timingEventDone"); }
float timingEventMs(void*, void*) { noCuda("timingEventMs"); }
void releaseTimingEvent(void*) {}
void useSideStream(bool) {}
void mainWaitsForSide() {}
void sideWaitsForMain() {}
DeviceMemoryInfo deviceMemoryInfo() { return DeviceMemoryInfo{}; }
uint64_t deviceAlloc(size_t bytes) {
  if (bytes == 0) return 0;
  noCuda("deviceAlloc");
}
void deviceFree(uint64_t ptr) {
  if (ptr != 0) noCuda("deviceFree");
}
void emptyCache() {}
void copyHostToDevice(uint64_t, const void*, size_t) { noCuda("copyHostToDevice"); }
void copyDeviceToHost(void*, uint64_t, size_t) { noCuda("copyDeviceToHost"); }
uint64_t hostRegister(void*, size_t) { noCuda("hostRegister"); }
void hostUnregister(void*) {}
void copyDeviceToDevice(uint64_t, uint64_t, size_t) { noCuda("copyDeviceToDevice"); }
struct PendingRead {};
PendingRead* beginRead(uint64_t, size_t) { noCuda("beginRead"); }
void finishRead(PendingRead*, void*) { noCuda("finishRead"); }
void cancelRead(PendingRead*) {}

}  // namespace wm
