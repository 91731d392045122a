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
  int fd = memfd_create("tfjs-wm-shared", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0 && errno == EMFILE)
    fail(
        "share: this process has reached its limit of open descriptors (ulimit -n), and every shared object holds one: "
        "delete objects or raise the limit");
  if (fd < 0) fail(std::string("share: memfd_create: ") + std::strerror(errno));
  auto closeAndFail = [&](const std::string& what) {
    std::string why = std::strerror(errno);
    ::close(fd);
    fail(what + why);
  };
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0)
    closeAndFail("share: cannot size a shared segment of " + std::to_string(bytes) + " bytes: ");
  if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0) closeAndFail("share: cannot seal a shared segment's size: ");
  struct stat st;
  if (fstat(fd, &st) != 0) closeAndFail("share: fstat: ");
  return HostSegment{fd, static_cast<uint64_t>(st.st_ino)};
}

int sharedHostOpen(const std::string& path, uint64_t inode, bool forWrite) {
  int fd = ::open(path.c_str(), (forWrite ? O_RDWR : O_RDONLY) | O_CLOEXEC);
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

SegmentState sharedHostState(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) fail(std::string("open: fstat of a shared segment: ") + std::strerror(errno));
  int seals = fcntl(fd, F_GET_SEALS);
  return SegmentState{static_cast<uint64_t>(st.st_size), seals >= 0 && (seals & F_SEAL_WRITE) != 0};
}

void sharedHostSealWrites(int fd) {
  if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) != 0) {
    if (errno == EBUSY) fail("share: cannot make the object read-only while a holder maps it writable");
    fail(std::string("share: cannot seal the object read-only: ") + std::strerror(errno));
  }
}

void sharedHostWrite(int fd, uint64_t offset, const void* data, size_t bytes) {
  SegmentState s = sharedHostState(fd);
  if (s.writeSealed) fail("update: the shared object is read-only (its owner sealed it)");
  if (offset > s.bytes || bytes > s.bytes - offset)
    fail("update: " + std::to_string(bytes) + " bytes at " + std::to_string(offset) + " do not fit the segment's " +
         std::to_string(s.bytes));
  auto p = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t n = ::pwrite(fd, p, bytes, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(std::string("update: writing the shared object: ") + std::strerror(errno));
    }
    p += n, offset += static_cast<uint64_t>(n), bytes -= static_cast<size_t>(n);
  }
}

void* sharedHostMap(int fd, size_t bytes) {
  if (bytes == 0) return nullptr;
  uint64_t have = sharedHostState(fd).bytes;
  if (have < bytes)
    fail("open: the descriptor says " + std::to_string(bytes) + " bytes but the shared segment holds " + std::to_string(have) +
         " (a forged or mismatched descriptor)");
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) fail(std::string("open: mmap of a shared segment: ") + std::strerror(errno));
  return p;
}

void sharedHostUnmap(void* p, size_t bytes) {
  if (p && bytes) ::munmap(p, bytes);
}

}  // namespace wm
