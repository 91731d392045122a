// Pages for graph-sized host arrays: anonymous memory (huge pages advised,
// grown in place by remapping), or a private mapping of a file (pages shared
// with the page cache until written; a write stays in this process). Move-only;
// unmapped when destroyed. Also the 64-bit digest that graph and dataset files
// record of their arrays.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace wm {
namespace host {

class PageArray {
 public:
  PageArray() = default;
  // Zero-filled, faulted in as written. Throws naming `what` when the memory cannot be had.
  static PageArray allocate(size_t bytes, const std::string& what);
  // bytes of `path` from `offset` (any alignment) on, copy-on-write: readable and writable here,
  // the file unchanged.
  static PageArray mapFile(int fd, size_t offset, size_t bytes, const std::string& path);
  // The same by name: the file must be a regular file holding offset + bytes (else "truncated").
  static PageArray mapPath(const std::string& path, size_t offset, size_t bytes);
  PageArray(PageArray&& o) noexcept;
  PageArray& operator=(PageArray&& o) noexcept;
  PageArray(const PageArray&) = delete;
  PageArray& operator=(const PageArray&) = delete;
  ~PageArray();

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  // Returns the pages past `bytes` to the system (anonymous memory only).
  void shrink(size_t bytes);
  // Room for at least `bytes` (anonymous memory): the pages are remapped, not copied, so the
  // address may change. Contents are kept; new bytes read as zero.
  void reserve(size_t bytes, const std::string& what);
  // Bytes usable without remapping.
  size_t capacity() const { return map_ == data_ ? mapBytes_ : bytes_; }
  // Sets bytes() within capacity() (anonymous memory only).
  void resize(size_t bytes);

 private:
  void release();
  void* map_ = nullptr;  // what munmap takes
  size_t mapBytes_ = 0;
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

// A regular file opened read-only, closed when destroyed; throws naming it when it is not one.
class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const std::string& path);
  ~ReadOnlyFile();
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  int fd() const { return fd_; }
  size_t size() const { return size_; }

 private:
  int fd_;
  size_t size_ = 0;
};

// A 64-bit digest of `bytes` at p (1 MiB blocks hashed in parallel, combined in order). Not
// cryptographic: it catches truncation and corruption; loaders check structure regardless.
uint64_t digest(const void* p, size_t bytes, uint64_t seed);
// The digests' final mixer (splitmix64's), for combining several into one.
uint64_t mixDigest(uint64_t h);

}  // namespace host
}  // namespace wm
