// PageArray and digest (wm/page_array.h).
#include "wm/page_array.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "runtime/parallel.h"
#include "wm/status.h"

namespace wm {
namespace host {

namespace {
size_t pageSize() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }
size_t roundToPages(size_t bytes) { return (bytes + pageSize() - 1) / pageSize() * pageSize(); }

// Huge pages asked for over the whole mapping, never a part of it: advice on a part splits the mapping
// in two, and mremap refuses (EFAULT) to move a range that spans more than one.
void adviseHugePages(void* m, size_t bytes) {
  if (bytes >= (size_t{8} << 20)) madvise(m, roundToPages(bytes), MADV_HUGEPAGE);
}
}  // namespace

PageArray PageArray::allocate(size_t bytes, const std::string& what) {
  PageArray p;
  if (bytes == 0) return p;
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) fail(what + ": cannot allocate " + std::to_string(bytes) + " bytes of host memory (" + std::strerror(errno) + ")");
  adviseHugePages(m, bytes);
  p.map_ = p.data_ = m;
  p.mapBytes_ = p.bytes_ = bytes;
  return p;
}

PageArray PageArray::mapFile(int fd, size_t offset, size_t bytes, const std::string& path) {
  PageArray p;
  if (bytes == 0) return p;
  const size_t start = offset / pageSize() * pageSize();
  // Private and writable: a typed array over these pages may be written by its holder; the writes
  // stay in this process (copy-on-write) and the file is never changed.
  void* m = mmap(nullptr, bytes + (offset - start), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, static_cast<off_t>(start));
  if (m == MAP_FAILED) fail(path + ": cannot map " + std::to_string(bytes) + " bytes (" + std::strerror(errno) + ")");
  p.map_ = m;
  p.mapBytes_ = bytes + (offset - start);
  p.data_ = static_cast<uint8_t*>(m) + (offset - start);
  p.bytes_ = bytes;
  return p;
}

// O_NONBLOCK: opening a FIFO planted in a file's place returns at once (and is refused below) instead of waiting for a writer.
ReadOnlyFile::ReadOnlyFile(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)) {
  if (fd_ < 0) fail(path + ": cannot open (" + std::strerror(errno) + ")");
  struct stat sb {};
  if (fstat(fd_, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd_);
    fail(path + ": not a regular file");
  }
  size_ = static_cast<size_t>(sb.st_size);
}

ReadOnlyFile::~ReadOnlyFile() { close(fd_); }

PageArray PageArray::mapPath(const std::string& path, size_t offset, size_t bytes) {
  const ReadOnlyFile file(path);
  if (static_cast<uint64_t>(offset) + bytes > file.size())
    fail(path + ": " + std::to_string(file.size()) + " bytes, too short for " + std::to_string(bytes) + " bytes at " +
         std::to_string(offset) + " (truncated)");
  return mapFile(file.fd(), offset, bytes, path);  // the mapping outlives the descriptor
}

PageArray::PageArray(PageArray&& o) noexcept { *this = std::move(o); }

PageArray& PageArray::operator=(PageArray&& o) noexcept {
  if (this != &o) {
    release();
    std::swap(map_, o.map_);
    std::swap(mapBytes_, o.mapBytes_);
    std::swap(data_, o.data_);
    std::swap(bytes_, o.bytes_);
  }
  return *this;
}

PageArray::~PageArray() { release(); }

void PageArray::release() {
  if (map_) munmap(map_, mapBytes_);
  map_ = data_ = nullptr;
  mapBytes_ = bytes_ = 0;
}

void PageArray::shrink(size_t bytes) {
  if (bytes >= bytes_ || map_ != data_) return;
  const size_t keep = roundToPages(bytes);
  if (keep < mapBytes_) {
    munmap(static_cast<uint8_t*>(map_) + keep, mapBytes_ - keep);
    mapBytes_ = keep;
  }
  bytes_ = bytes;
  if (bytes_ == 0) release();
}

void PageArray::reserve(size_t bytes, const std::string& what) {
  if (bytes <= capacity()) return;
  WM_REQUIRE(map_ == data_, what + ": a mapped file cannot grow");
  const size_t want = roundToPages(bytes);
  if (!map_) {
    const size_t keep = bytes_;
    *this = allocate(want, what);
    bytes_ = keep;
    return;
  }
  void* m = mremap(map_, mapBytes_, want, MREMAP_MAYMOVE);
  if (m == MAP_FAILED) fail(what + ": cannot grow to " + std::to_string(want) + " bytes of host memory (" + std::strerror(errno) + ")");
  adviseHugePages(m, want);
  map_ = data_ = m;
  mapBytes_ = want;
}

void PageArray::resize(size_t bytes) {
  WM_REQUIRE(bytes <= capacity() && map_ == data_, "PageArray.resize: past the reserved bytes");
  bytes_ = bytes;
}

// Four lanes of multiply-xorshift over 8-byte words per 1 MiB block (each step a bijection of its lane, so
// any change to one word changes the digest; the block's last words zero-padded); the block digests mixed in order.
uint64_t mixDigest(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

uint64_t digest(const void* data, size_t bytes, uint64_t seed) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  constexpr size_t kBlock = size_t{1} << 20;
  const int64_t blocks = static_cast<int64_t>((bytes + kBlock - 1) / kBlock);
  std::vector<uint64_t> h(static_cast<size_t>(blocks));
  parallelFor(blocks, 4, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const uint8_t* q = p + static_cast<size_t>(k) * kBlock;
      const size_t len = std::min(kBlock, bytes - static_cast<size_t>(k) * kBlock);
      uint64_t lane[4] = {seed + 1, seed + 2, seed + 3, seed + 4};
      size_t i = 0;
      for (; i + 32 <= len; i += 32)
        for (int l = 0; l < 4; ++l) {
          uint64_t w;
          std::memcpy(&w, q + i + 8 * l, 8);
          lane[l] = (lane[l] ^ w) * 0x9e3779b97f4a7c15ull;
          lane[l] ^= lane[l] >> 29;
        }
      if (i < len) {  // the last words, zero-padded to a whole round (the length, mixed in below, tells them apart)
        uint8_t last[32] = {};
        std::memcpy(last, q + i, len - i);
        for (int l = 0; l < 4; ++l) {
          uint64_t w;
          std::memcpy(&w, last + 8 * l, 8);
          lane[l] = (lane[l] ^ w) * 0x9e3779b97f4a7c15ull;
          lane[l] ^= lane[l] >> 29;
        }
      }
      h[static_cast<size_t>(k)] = mixDigest(lane[0] ^ mixDigest(lane[1] ^ mixDigest(lane[2] ^ mixDigest(lane[3] ^ len))));
    }
  });
  uint64_t out = mixDigest(seed ^ bytes);
  for (uint64_t x : h) out = mixDigest(out ^ x);
  return out;
}

}  // namespace host
}  // namespace wm
