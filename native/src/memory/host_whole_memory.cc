#include "wm/host_whole_memory.h"

#include "wm/runtime.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "wm/status.h"

namespace wm {
namespace {

int64_t pageSize() { return static_cast<int64_t>(::sysconf(_SC_PAGESIZE)); }

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

HostWholeMemory::HostWholeMemory(Bootstrap& comm, MemoryType type, int64_t rows, int64_t rowBytes, int64_t granularityRows,
                                 const std::string& what)
    : type_(type), rows_(rows), rowBytes_(rowBytes), rank_(comm.rank()), ranks_(comm.size()) {
  WM_REQUIRE(ranks_ <= kMaxChunks, what + ": at most " + std::to_string(kMaxChunks) + " ranks");
  // Slices are whole pages so continuous slices abut exactly.
  const SliceLayout layout = sliceLayout(rows, rowBytes, granularityRows, ranks_, pageSize(), what);
  rowsPerRank_ = layout.rowsPerPart;
  sliceBytes_ = layout.sliceBytes;
  agreeOnLayout(comm, what, type, rows, rowBytes, layout);
  Fd own;
  own.fd = ::memfd_create("tfjs-wm-slice", MFD_CLOEXEC);
  if (own.fd < 0) fail(std::string("memfd_create: ") + std::strerror(errno));
  if (::ftruncate(own.fd, sliceBytes_) != 0) fail(std::string("ftruncate: ") + std::strerror(errno));
  std::vector<int> fds;
  if (type == MemoryType::Distributed || ranks_ == 1) {
    comm.barrier(what + " slices");
    fds.assign(ranks_, -1);
    fds[rank_] = ::dup(own.fd);
  } else {
    fds = comm.allgatherFds(own.fd, what + " slices");
  }
  struct CloseAll {
    std::vector<int>& f;
    ~CloseAll() {
      for (int x : f)
        if (x >= 0) ::close(x);
    }
  } closeAll{fds};
  handle_.chunkBytes = sliceBytes_;
  handle_.count = ranks_;
  if (type == MemoryType::Continuous) {
    rangeBytes_ = static_cast<size_t>(sliceBytes_) * ranks_;
    void* r = ::mmap(nullptr, rangeBytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) fail(std::string("mmap (reserve): ") + std::strerror(errno));
    range_ = static_cast<uint8_t*>(r);
    for (int q = 0; q < ranks_; ++q) {
      void* at = range_ + static_cast<size_t>(q) * sliceBytes_;
      if (::mmap(at, sliceBytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fds[q], 0) == MAP_FAILED) {
        std::string why = std::strerror(errno);
        release();
        fail("mmap (slice of rank " + std::to_string(q) + "): " + why);
      }
      handle_.chunks[q] = static_cast<uint8_t*>(at);
    }
  } else {
    for (int q = 0; q < ranks_; ++q) {
      if (fds[q] < 0) continue;
      void* at = ::mmap(nullptr, sliceBytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fds[q], 0);
      if (at == MAP_FAILED) {
        std::string why = std::strerror(errno);
        release();
        fail("mmap (slice of rank " + std::to_string(q) + "): " + why);
      }
      handle_.chunks[q] = static_cast<uint8_t*>(at);
    }
  }
  // Nobody writes before every rank has mapped everything.
  comm.barrier("malloc mapped");
}

HostWholeMemory::~HostWholeMemory() { release(); }

TableRef HostWholeMemory::deviceTable() {
  WM_REQUIRE(handle_.count > 0, "the WholeMemory tensor was freed");
  WM_REQUIRE(type_ != MemoryType::Distributed, "distributed host memory maps only this rank's rows; its gathers are collectives");
  if (!registered_) {
    deviceHandle_ = handle_;
    int done = 0;
    try {
      for (; done < handle_.count; ++done)
        deviceHandle_.chunks[done] = reinterpret_cast<uint8_t*>(hostRegister(handle_.chunks[done], sliceBytes_));
    } catch (...) {
      for (int q = 0; q < done; ++q) hostUnregister(handle_.chunks[q]);
      throw;
    }
    registered_ = true;
    bool abut = range_ != nullptr;
    for (int q = 1; q < handle_.count && abut; ++q) abut = deviceHandle_.chunks[q] == deviceHandle_.chunks[0] + q * sliceBytes_;
    deviceBase_ = abut ? reinterpret_cast<uint64_t>(deviceHandle_.chunks[0]) : 0;
  }
  TableRef t;
  t.rows = rows_;
  t.dim = rowBytes_ / 4;
  t.storage = StorageType::F32;
  if (deviceBase_)
    t.ptr = deviceBase_;
  else
    t.chunked = &deviceHandle_;
  return t;
}

void HostWholeMemory::release() {
  if (registered_) {
    for (int q = 0; q < handle_.count; ++q) hostUnregister(handle_.chunks[q]);
    registered_ = false;
  }
  if (range_) {
    ::munmap(range_, rangeBytes_);
    range_ = nullptr;
  } else {
    for (int q = 0; q < handle_.count; ++q)
      if (handle_.chunks[q]) ::munmap(handle_.chunks[q], sliceBytes_);
  }
  for (int q = 0; q < kMaxChunks; ++q) handle_.chunks[q] = nullptr;
  handle_.count = 0;
}

int64_t HostWholeMemory::localFirstRow() const { return std::min(rows_, rank_ * rowsPerRank_); }
int64_t HostWholeMemory::localRowCount() const {
  return std::max<int64_t>(0, std::min(rows_, (rank_ + 1) * rowsPerRank_) - localFirstRow());
}
uint8_t* HostWholeMemory::localSlice() const { return handle_.chunks[rank_]; }

void HostWholeMemory::readLocal(void* dst, size_t bytes) const {
  WM_REQUIRE(static_cast<int64_t>(bytes) <= localRowCount() * rowBytes_, "readLocal: more bytes than the local slice holds");
  if (bytes) std::memcpy(dst, localSlice(), bytes);
}

void HostWholeMemory::writeLocal(const void* src, size_t bytes) {
  uint8_t* dst = localAt(0, bytes);
  if (bytes) std::memcpy(dst, src, bytes);
}

uint8_t* HostWholeMemory::localAt(size_t at, size_t bytes) const {
  WM_REQUIRE(static_cast<int64_t>(at + bytes) <= localRowCount() * rowBytes_, "writeLocal: more bytes than the local slice holds");
  return localSlice() + at;
}

bool HostWholeMemory::addressable(int64_t row) const { return type_ != MemoryType::Distributed || row / rowsPerRank_ == rank_; }

template <typename Gen>
void HostWholeMemory::copyRows(const Gen& gen, const int32_t* idx, int64_t n, uint8_t* out) const {
  for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * rowBytes_, gen.At(static_cast<int64_t>(idx[i]) * rowBytes_), rowBytes_);
}

int64_t HostWholeMemory::gatherRows(const int32_t* idx, int64_t n, uint8_t* out) const {
  WM_REQUIRE(handle_.count > 0, "gather: the WholeMemory tensor was freed");
  for (int64_t i = 0; i < n; ++i) {
    if (idx[i] < 0 || idx[i] >= rows_) return i;
    WM_REQUIRE(addressable(idx[i]), "gather: row " + std::to_string(idx[i]) + " is not local to rank " + std::to_string(rank_));
  }
  // The same copy loop over either address generator.
  if (range_)
    copyRows(PtrGen<uint8_t*, uint8_t>(range_), idx, n, out);
  else
    copyRows(PtrGen<const ChunkedHandle, uint8_t>(handle_), idx, n, out);
  return -1;
}

int64_t HostWholeMemory::scatterRows(const int32_t* idx, int64_t n, const uint8_t* in) {
  WM_REQUIRE(handle_.count > 0, "scatter: the WholeMemory tensor was freed");
  for (int64_t i = 0; i < n; ++i) {
    if (idx[i] < 0 || idx[i] >= rows_) return i;
    WM_REQUIRE(addressable(idx[i]), "scatter: row " + std::to_string(idx[i]) + " is not local to rank " + std::to_string(rank_));
  }
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = static_cast<int64_t>(idx[i]) * rowBytes_;
    uint8_t* dst = range_ ? PtrGen<uint8_t*, uint8_t>(range_).At(off) : PtrGen<const ChunkedHandle, uint8_t>(handle_).At(off);
    std::memcpy(dst, in + i * rowBytes_, rowBytes_);
  }
  return -1;
}

}  // namespace wm
