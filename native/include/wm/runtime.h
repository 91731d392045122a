// The device runtime: which GPU this process uses, its stream, and whether a
// GPU is usable at all. On a machine with no driver (or a build without CUDA)
// deviceCount() is 0 and unavailableReason() says why; nothing throws.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace wm {

bool builtWithCuda();
int deviceCount();
std::string unavailableReason();
// Selects the GPU used by this process (default: $WM_DEVICE, else LOCAL_RANK,
// else 0). Must be called before the first allocation to take effect.
void selectDevice(int device);
int currentDevice();
// The current device's streaming multiprocessors.
int multiprocessorCount();
std::string deviceName();
// Waits for all work queued on this process's streams.
void synchronize();

// A second stream for work that must not queue behind the main stream
// (sampling the next batch while the GPU trains on this one; a host read of
// a count then waits for the sampling only). While on, kernels, copies and
// allocations go to the side stream. mainWaitsForSide() makes the main
// stream's later work wait for what the side stream has queued (no host
// wait); sideWaitsForMain() the reverse, for inputs the main stream makes.
// Frees while on: a block the main stream allocated is held until
// mainWaitsForSide and freed on the main stream; a block the side stream
// allocated goes straight back to the side stream's cache, so it must not
// have been used by main-stream work since (side-stream intermediates; what
// the side stream hands over is freed later, on the main stream).
void useSideStream(bool on);
void mainWaitsForSide();
void sideWaitsForMain();

struct DeviceMemoryInfo {
  size_t bytesInUse;     // bytes handed out by the caching allocator
  size_t bytesReserved;  // bytes the pool holds from the driver
  size_t peakBytesInUse;
  size_t allocations;  // number of live allocations
  size_t freeBytes;    // free device memory (cudaMemGetInfo)
  size_t totalBytes;
};
DeviceMemoryInfo deviceMemoryInfo();

// Stream-ordered caching allocator over the device's memory pool. A size of
// zero returns 0 and frees nothing.
uint64_t deviceAlloc(size_t bytes);
void deviceFree(uint64_t ptr);
// Returns the pool's unused cached memory to the driver.
void emptyCache();

void copyHostToDevice(uint64_t dst, const void* src, size_t bytes);
// Pins host memory and maps it for every GPU (kernels read it over the bus);
// returns the device address. hostUnregister undoes it before the memory goes.
uint64_t hostRegister(void* p, size_t bytes);
void hostUnregister(void* p);
// Blocks until the bytes are in dst.
void copyDeviceToHost(void* dst, uint64_t src, size_t bytes);
void copyDeviceToDevice(uint64_t dst, uint64_t src, size_t bytes);

// Asynchronous read: queues the copy into pinned staging memory now (so a
// later free of src cannot race it) and returns a ticket; finishRead() waits
// for it (call off the main thread) and copies into dst.
struct PendingRead;
PendingRead* beginRead(uint64_t src, size_t bytes);
void finishRead(PendingRead* r, void* dst);  // also releases r
void cancelRead(PendingRead* r);

// Whether cuBLAS was found at run time (false without CUDA).
bool cublasAvailable();

namespace host {
// Threads the C++ CPU kernels use (the pool's workers and the caller).
int threads();
}  // namespace host

}  // namespace wm
