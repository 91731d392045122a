// WholeMemory over host memory, for machines without GPUs (and the 'host'
// location): a tensor of `rows` rows partitioned over the ranks of a
// communicator, rowsPerRank rows each (the last ranks may hold fewer).
//   continuous: every rank maps every slice into one virtual range, so one
//               pointer addresses the whole tensor;
//   chunked:    every rank maps every slice separately (a ChunkedHandle);
//   distributed: each rank maps only its own slice; other rows travel
//               through the communicator.
// Slices are memfd segments passed between ranks as descriptors, so nothing
// is ever named in /dev/shm and a killed process leaks nothing.
#pragma once
#include <string>
#include <cstdint>
#include <memory>
#include <vector>

#include "wm/bootstrap.h"
#include "wm/embedding.h"
#include "wm/ptr_gen.h"
#include "wm/slice_layout.h"

namespace wm {

class HostWholeMemory {
 public:
  // Collective over `comm`. granularityRows: rowsPerRank is a multiple of it
  // (and of the page size in bytes, so continuous slices abut exactly).
  // `what` names the collective in errors and in the order check (a library
  // buffer says what it is for, so a rank that calls malloc meanwhile is named as such).
  HostWholeMemory(Bootstrap& comm, MemoryType type, int64_t rows, int64_t rowBytes, int64_t granularityRows,
                  const std::string& what = "malloc");
  ~HostWholeMemory();
  HostWholeMemory(const HostWholeMemory&) = delete;
  HostWholeMemory& operator=(const HostWholeMemory&) = delete;

  MemoryType type() const { return type_; }
  int64_t rows() const { return rows_; }
  int64_t rowBytes() const { return rowBytes_; }
  int64_t rowsPerRank() const { return rowsPerRank_; }
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  // Rows [first, first + count) are this rank's.
  int64_t localFirstRow() const;
  int64_t localRowCount() const;
  uint8_t* localSlice() const;
  // Copies between memory and this rank's rows (bytes from the start of its rows).
  void readLocal(void* dst, size_t bytes) const;
  void writeLocal(const void* src, size_t bytes);
  // This rank's rows from byte `at` on, checked to hold `bytes` more.
  uint8_t* localAt(size_t at, size_t bytes) const;
  // Whether row r is addressable from this process (always, except remote
  // rows of distributed memory).
  bool addressable(int64_t row) const;

  // Copies rows out / in. Every index must be addressable; returns the
  // position of the first index outside [0, rows), or -1 (nothing copied then).
  int64_t gatherRows(const int32_t* indices, int64_t n, uint8_t* out) const;
  int64_t scatterRows(const int32_t* indices, int64_t n, const uint8_t* in);

  // Addressing for kernels: the continuous base (or null) and the chunk handle.
  uint8_t* continuousBase() const { return range_; }
  const ChunkedHandle& chunkedHandle() const { return handle_; }

  // The GPU's view of the memory (pinned and mapped on first use): float32
  // elements, rowBytes / 4 per row. Not for distributed memory, whose remote
  // rows are not mapped here.
  TableRef deviceTable();

  // Unmaps everything (also done by the destructor).
  void release();

 private:
  template <typename Gen>
  void copyRows(const Gen& gen, const int32_t* idx, int64_t n, uint8_t* out) const;
  MemoryType type_;
  int64_t rows_, rowBytes_, rowsPerRank_, sliceBytes_;
  int rank_, ranks_;
  uint8_t* range_ = nullptr;  // continuous: the reserved range
  size_t rangeBytes_ = 0;
  ChunkedHandle handle_{};  // chunked/distributed: each mapped slice
  std::vector<size_t> mapped_;
  bool registered_ = false;
  ChunkedHandle deviceHandle_{};  // each slice's device address
  uint64_t deviceBase_ = 0;       // continuous, when the slices' device addresses abut
};

namespace host {
// out = scale * (slice 0 + slice 1 + ...), slices strideElems floats apart (continuous memory, rank order).
void sumSlices(const float* base, int slices, int64_t strideElems, int64_t n, float scale, float* out);
// out = in rounded to wire 0 (float32), 1 (float16) or 2 (bfloat16), kept as float32.
void roundToWire(const float* in, float* out, int64_t n, int wire);
}  // namespace host

}  // namespace wm
