#include "wm/device_whole_memory.h"

#include <unistd.h>

#include <cstring>
#include <numeric>

#include "check.h"
#include "driver_api.h"
#include "wm/runtime.h"

namespace wm {
namespace {

void checkPeers(Bootstrap& comm, int device) {
  // Every rank says which GPU it drives; each checks it can reach all others.
  auto all = comm.allgather(std::to_string(device), "malloc (devices)");
  for (int q = 0; q < comm.size(); ++q) {
    int other = std::stoi(all[q]);
    if (other == device) {
      if (q != comm.rank()) fail("malloc: ranks " + std::to_string(q) + " and " + std::to_string(comm.rank()) + " use the same GPU " + std::to_string(device));
      continue;
    }
    int can = 0;
    WM_CUDA(cudaDeviceCanAccessPeer(&can, device, other));
    if (!can) fail("malloc: GPU " + std::to_string(device) + " cannot access GPU " + std::to_string(other) + " directly (no peer access); use type 'distributed' or location 'host'");
  }
}

}  // namespace

DeviceWholeMemory::DeviceWholeMemory(Bootstrap& comm, MemoryType type, int64_t rows, int64_t rowBytes, int64_t granularityRows)
    : type_(type), rows_(rows), rowBytes_(rowBytes), rank_(comm.rank()), ranks_(comm.size()) {
  WM_REQUIRE(type != MemoryType::Distributed, "malloc: distributed device memory (NCCL) is not built yet");
  WM_REQUIRE(rows >= 0 && rowBytes > 0 && granularityRows >= 1, "malloc: bad rows, row size or granularity");
  WM_REQUIRE(ranks_ <= kMaxChunks, "malloc: at most " + std::to_string(kMaxChunks) + " ranks");
  device_ = currentDevice();
  checkPeers(comm, device_);
  size_t gran = 256;
  CUmemAllocationProp prop{};
  if (type == MemoryType::Continuous) {
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device_;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    WM_CU(driver().granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  }
  // Slices are whole granules so continuous slices abut exactly.
  int64_t g = static_cast<int64_t>(gran);
  int64_t granRows = g / std::gcd(g, rowBytes);
  int64_t unit = granularityRows / std::gcd(granularityRows, granRows) * granRows;
  int64_t perRank = (rows + ranks_ - 1) / ranks_;
  rowsPerRank_ = std::max<int64_t>(unit, (perRank + unit - 1) / unit * unit);
  sliceBytes_ = rowsPerRank_ * rowBytes_;
  std::string mine = std::to_string(static_cast<int>(type)) + " " + std::to_string(rows) + " " + std::to_string(rowBytes) + " " + std::to_string(rowsPerRank_);
  auto layouts = comm.allgather(mine, "malloc");
  for (int q = 0; q < ranks_; ++q)
    WM_REQUIRE(layouts[q] == mine, "malloc: rank " + std::to_string(q) + " asked for " + layouts[q] + " but rank " + std::to_string(rank_) + " for " + mine);
  if (type == MemoryType::Continuous) {
    unsigned long long own = 0;
    WM_CU(driver().memCreate(&own, sliceBytes_, &prop, 0));
    int fd = -1;
    try {
      WM_CU(driver().memExport(&fd, own, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    } catch (...) {
      driver().memRelease(own);
      throw;
    }
    std::vector<int> fds;
    try {
      fds = comm.allgatherFds(fd, "malloc (slices)");
    } catch (...) {
      ::close(fd);
      driver().memRelease(own);
      throw;
    }
    ::close(fd);
    handles_.assign(ranks_, 0);
    handles_[rank_] = own;
    try {
      for (int q = 0; q < ranks_; ++q) {
        if (q == rank_) continue;
        WM_CU(driver().memImport(&handles_[q], reinterpret_cast<void*>(static_cast<uintptr_t>(fds[q])), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
      }
      for (int x : fds)
        if (x >= 0) ::close(x);
      fds.clear();
      vaBytes_ = static_cast<size_t>(sliceBytes_) * ranks_;
      CUdeviceptr va = 0;
      WM_CU(driver().addressReserve(&va, vaBytes_, gran, 0, 0));
      va_ = va;
      for (int q = 0; q < ranks_; ++q) WM_CU(driver().memMap(va + static_cast<size_t>(q) * sliceBytes_, sliceBytes_, 0, handles_[q], 0));
      CUmemAccessDesc access{};
      access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
      access.location.id = device_;
      access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      WM_CU(driver().setAccess(va, vaBytes_, &access, 1));
    } catch (...) {
      for (int x : fds)
        if (x >= 0) ::close(x);
      release();
      throw;
    }
  } else {
    void* own = nullptr;
    WM_CUDA(cudaMalloc(&own, sliceBytes_));
    cudaIpcMemHandle_t h;
    WM_CUDA(cudaIpcGetMemHandle(&h, own));
    std::vector<std::string> all;
    try {
      all = comm.allgather(std::string(reinterpret_cast<const char*>(&h), sizeof h), "malloc (ipc handles)");
    } catch (...) {
      cudaFree(own);
      throw;
    }
    chunks_.count = ranks_;
    chunks_.chunkBytes = sliceBytes_;
    chunks_.chunks[rank_] = static_cast<uint8_t*>(own);
    try {
      for (int q = 0; q < ranks_; ++q) {
        if (q == rank_) continue;
        cudaIpcMemHandle_t hq;
        std::memcpy(&hq, all[q].data(), sizeof hq);
        void* p = nullptr;
        WM_CUDA(cudaIpcOpenMemHandle(&p, hq, cudaIpcMemLazyEnablePeerAccess));
        chunks_.chunks[q] = static_cast<uint8_t*>(p);
      }
    } catch (...) {
      release();
      throw;
    }
  }
  synchronize();
  comm.barrier("malloc mapped");
}

DeviceWholeMemory::~DeviceWholeMemory() {
  try {
    release();
  } catch (...) {
  }
}

void DeviceWholeMemory::release() {
  if (released_) return;
  released_ = true;
  cudaStreamSynchronize(stream());
  if (type_ == MemoryType::Continuous) {
    if (va_) {
      driver().memUnmap(va_, vaBytes_);
      driver().addressFree(va_, vaBytes_);
      va_ = 0;
    }
    for (auto h : handles_)
      if (h) driver().memRelease(h);
    handles_.clear();
  } else {
    for (int q = 0; q < chunks_.count; ++q) {
      if (!chunks_.chunks[q]) continue;
      if (q == rank_) cudaFree(chunks_.chunks[q]);
      else cudaIpcCloseMemHandle(chunks_.chunks[q]);
      chunks_.chunks[q] = nullptr;
    }
    chunks_.count = 0;
  }
}

int64_t DeviceWholeMemory::localFirstRow() const { return std::min(rows_, rank_ * rowsPerRank_); }
int64_t DeviceWholeMemory::localRowCount() const {
  return std::max<int64_t>(0, std::min(rows_, (rank_ + 1) * rowsPerRank_) - localFirstRow());
}

uint64_t DeviceWholeMemory::localSlice() const {
  WM_REQUIRE(!released_, "the WholeMemory tensor was freed");
  return type_ == MemoryType::Continuous ? va_ + static_cast<uint64_t>(rank_) * sliceBytes_
                                         : reinterpret_cast<uint64_t>(chunks_.chunks[rank_]);
}

TableRef DeviceWholeMemory::table() const {
  WM_REQUIRE(!released_, "the WholeMemory tensor was freed");
  TableRef t;
  t.rows = rows_;
  t.dim = rowBytes_ / 4;
  t.storage = StorageType::F32;
  if (type_ == MemoryType::Continuous) t.ptr = va_;
  else t.chunked = &chunks_;
  return t;
}

}  // namespace wm
