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
HostSegment sharedHostCreate(size_t bytes);
// Opens a segment by a /proc/<pid>/fd/<n> path, checking it is still the
// segment with that inode (descriptor numbers are reused).
int sharedHostOpen(const std::string& path, uint64_t inode, bool writable);
// shared = false maps it copy-on-write: writes stay private to this process.
void* sharedHostMap(int fd, size_t bytes, bool shared);
void sharedHostUnmap(void* p, size_t bytes);

}  // namespace wm
