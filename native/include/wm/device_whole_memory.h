// WholeMemory in GPU memory, one slice per rank (see host_whole_memory.h for
// the layout, which is the same):
//   continuous: each rank's slice from cuMemCreate, exported as a POSIX file
//               descriptor, passed over the bootstrap's Unix socket, imported
//               and mapped by every rank into one virtual range;
//   chunked:    one cudaMalloc chunk per rank shared by CUDA IPC handles,
//               addressed through a ChunkedHandle.
// Every GPU pair must have peer access (NVLink); that is checked first.
#pragma once
#include <cstdint>
#include <vector>

#include "wm/bootstrap.h"
#include "wm/embedding.h"
#include "wm/host_whole_memory.h"

namespace wm {

class DeviceWholeMemory {
 public:
  DeviceWholeMemory(Bootstrap& comm, MemoryType type, int64_t rows, int64_t rowBytes, int64_t granularityRows);
  ~DeviceWholeMemory();
  DeviceWholeMemory(const DeviceWholeMemory&) = delete;
  DeviceWholeMemory& operator=(const DeviceWholeMemory&) = delete;

  int64_t rowsPerRank() const { return rowsPerRank_; }
  int ranks() const { return ranks_; }
  int64_t rowBytes() const { return rowBytes_; }
  int64_t localFirstRow() const;
  int64_t localRowCount() const;
  // The kernels' view: elements of 4 bytes, rowBytes / 4 per row.
  TableRef table() const;
  uint64_t localSlice() const;
  void release();

 private:
  MemoryType type_;
  int64_t rows_, rowBytes_, rowsPerRank_ = 0, sliceBytes_ = 0;
  int rank_, ranks_;
  int device_ = 0;
  // continuous
  uint64_t va_ = 0;
  size_t vaBytes_ = 0;
  std::vector<unsigned long long> handles_;
  // chunked
  ChunkedHandle chunks_{};
  bool released_ = false;
};

}  // namespace wm
