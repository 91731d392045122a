// WholeMemory in GPU memory, one slice per part (see host_whole_memory.h for
// the layout, which is the same):
//   continuous:  each slice from cuMemCreate, mapped by every rank into one
//                virtual range (slices of other processes arrive as POSIX
//                file descriptors over the bootstrap's Unix socket);
//   chunked:     one cudaMalloc chunk per slice, shared by CUDA IPC handles,
//                addressed through a ChunkedHandle;
//   distributed: each rank's slice in its own GPU memory, never mapped by the
//                others; rows move through NCCL (distributed.h).
// Many processes: part q is rank q's, on rank q's GPU. One process: `devices`
// lists the GPUs, part i on devices[i], all of them owned by this process.
// Continuous and chunked need peer access between every pair of GPUs
// (NVLink); that is checked first.
#pragma once
#include <cstdint>
#include <vector>

#include "wm/bootstrap.h"
#include "wm/distributed.h"
#include "wm/embedding.h"
#include "wm/host_whole_memory.h"

namespace wm {

class DeviceWholeMemory {
 public:
  DeviceWholeMemory(Bootstrap& comm, MemoryType type, int64_t rows, int64_t rowBytes, int64_t granularityRows,
                    const std::vector<int>& devices = {});
  ~DeviceWholeMemory();
  DeviceWholeMemory(const DeviceWholeMemory&) = delete;
  DeviceWholeMemory& operator=(const DeviceWholeMemory&) = delete;

  MemoryType type() const { return type_; }
  int64_t rowsPerRank() const { return rowsPerRank_; }
  int ranks() const { return parts_; }
  int64_t rowBytes() const { return rowBytes_; }
  int64_t localFirstRow() const;
  int64_t localRowCount() const;
  // The kernels' view (continuous and chunked): elements of 4 bytes, rowBytes / 4 per row.
  TableRef table() const;
  DistributedLayout distributedLayout() const;
  // This process's first slice (continuous: its slices are one range).
  uint64_t localSlice() const;
  // Copies between host memory and this process's rows (bytes from the start of its rows).
  void readLocal(void* dst, size_t bytes) const;
  void writeLocal(const void* src, size_t bytes);
  void release();

 private:
  void live() const;
  uint8_t* ownPart(int i) const;
  // Runs f for each owned slice overlapping the first `bytes` bytes of this process's rows.
  template <typename F>
  void eachLocalSpan(size_t bytes, F&& f) const;

  MemoryType type_;
  int64_t rows_, rowBytes_, rowsPerRank_ = 0, sliceBytes_ = 0;
  int parts_ = 1, ownFirst_ = 0, ownCount_ = 1;
  std::vector<int> devices_;  // the GPU of each part
  int device_ = 0;            // this process's GPU
  // continuous
  uint64_t va_ = 0;
  size_t vaBytes_ = 0;
  std::vector<unsigned long long> handles_;
  // chunked and distributed
  ChunkedHandle chunks_{};
  bool released_ = false;
};

}  // namespace wm
