#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "wm/shared_buffer.h"
#include "wm/status.h"

namespace wm {

HostSegment sharedHostCreate(size_t bytes) {
  int fd = memfd_create("tfjs-wm-shared", MFD_CLOEXEC);
  if (fd < 0) fail(std::string("share: memfd_create: ") + std::strerror(errno));
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    fail("share: cannot size a shared segment of " + std::to_string(bytes) + " bytes: " + why);
  }
  struct stat st;
  fstat(fd, &st);
  return HostSegment{fd, static_cast<uint64_t>(st.st_ino)};
}

int sharedHostOpen(const std::string& path, uint64_t inode, bool writable) {
  int fd = ::open(path.c_str(), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) fail("open: the shared object at " + path + " is gone (deleted, or its owner exited)");
    fail("open: " + path + ": " + std::strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_ino) != inode) {
    ::close(fd);
    fail("open: the shared object at " + path + " is gone (deleted, or its owner exited); the descriptor number now names something else");
  }
  return fd;
}

void* sharedHostMap(int fd, size_t bytes, bool shared) {
  if (bytes == 0) return nullptr;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) fail(std::string("open: mmap of a shared segment: ") + std::strerror(errno));
  return p;
}

void sharedHostUnmap(void* p, size_t bytes) {
  if (p && bytes) ::munmap(p, bytes);
}

}  // namespace wm
