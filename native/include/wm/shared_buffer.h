// Buffers other processes can map: GPU memory shared by CUDA IPC handles,
// host memory as memfd segments (never named in /dev/shm, so nothing is left
// behind when every holder is gone, crashes included).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace wm {

constexpr int kIpcHandleBytes = 64;

// GPU: a whole cudaMalloc allocation (IPC cannot export pieces of the
// stream-ordered pool), its handle as 64 bytes.
uint64_t sharedDeviceAlloc(size_t bytes, std::string* handle);
void sharedDeviceFree(uint64_t ptr);
// Maps another process's allocation; throws a clear error when it is gone.
uint64_t sharedDeviceOpen(const std::string& handle);
void sharedDeviceClose(uint64_t ptr);

struct HostSegment {
  int fd = -1;
  uint64_t inode = 0;
};
// A memfd of `bytes` whose size is sealed: no holder can shrink it under
// another's mapping (SIGBUS) or grow it.
HostSegment sharedHostCreate(size_t bytes);
// Opens a segment by a /proc/<pid>/fd/<n> path, checking it is still the
// segment with that inode (descriptor numbers are reused). Read-only: holders
// write with sharedHostWrite, so no writable mapping ever blocks a seal.
int sharedHostOpen(const std::string& path, uint64_t inode, bool forWrite = false);
struct SegmentState {
  uint64_t bytes = 0;
  bool writeSealed = false;  // its owner made it read-only, for good
};
SegmentState sharedHostState(int fd);
// Seals the segment against writes (F_SEAL_WRITE): the owner's word that the
// object is read-only, which no descriptor can undo.
void sharedHostSealWrites(int fd);
// Writes bytes at offset (pwrite through a read-write descriptor of the
// segment); refused on a sealed segment, or past its end.
void sharedHostWrite(int fd, uint64_t offset, const void* data, size_t bytes);
// Maps bytes of the segment copy-on-write: the holder sees every write made
// through sharedHostWrite, its own stores stay private. Refused when the
// segment is shorter than bytes (a forged descriptor), before any access.
void* sharedHostMap(int fd, size_t bytes);
void sharedHostUnmap(void* p, size_t bytes);

}  // namespace wm
