// Built when CMake finds no CUDA compiler: WholeMemory in GPU memory, managed and pinned memory refuse with a clear error.
#include "wm/device_whole_memory.h"
#include "wm/managed.h"
#include "runtime/no_cuda.h"

namespace wm {

DeviceWholeMemory::DeviceWholeMemory(Bootstrap&, MemoryType, int64_t, int64_t, int64_t, const std::vector<int>&) {
  noCuda("WholeMemory in device memory");
}
DeviceWholeMemory::~DeviceWholeMemory() = default;
int64_t DeviceWholeMemory::localFirstRow() const { return 0; }
int64_t DeviceWholeMemory::localRowCount() const { return 0; }
uint64_t DeviceWholeMemory::localSlice() const { return 0; }
void DeviceWholeMemory::readLocal(void*, size_t) const { noCuda("readLocal"); }
void DeviceWholeMemory::writeLocal(const void*, size_t) { noCuda("writeLocal"); }
TableRef DeviceWholeMemory::table() const { return TableRef{}; }
DistributedLayout DeviceWholeMemory::distributedLayout() const { return DistributedLayout{}; }
void DeviceWholeMemory::release() {}
size_t managedSizeClass(size_t bytes) { return bytes; }
uint64_t managedAlloc(size_t) { noCuda("managedAlloc"); }
void managedFree(uint64_t) { noCuda("managedFree"); }
void managedEmptyCache() {}
ManagedInfo managedInfo() { return ManagedInfo{}; }
void managedAdvise(uint64_t, size_t, int, int) { noCuda("managedAdvise"); }
void managedPrefetch(uint64_t, size_t, int) { noCuda("managedPrefetch"); }
uint64_t pinnedHostAlloc(size_t) { noCuda("pinnedHostAlloc"); }
void pinnedHostFree(uint64_t) { noCuda("pinnedHostFree"); }

}  // namespace wm
