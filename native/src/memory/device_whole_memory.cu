#include "wm/device_whole_memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "runtime/check.h"
#include "runtime/gpu_sharing.h"
#include "runtime/driver_api.h"
#include "wm/runtime.h"

namespace wm {
namespace {

std::string gpu(int d) { return "GPU " + std::to_string(d); }

void requirePeer(int from, int to) {
  int can = 0;
  WM_CUDA(cudaDeviceCanAccessPeer(&can, from, to));
  if (!can)
    fail("malloc: " + gpu(from) + " cannot access " + gpu(to) + " directly (no peer access); use type 'distributed' or location 'host'");
}

// Every rank says which GPU it drives (its current device); the GPU of each part.
// Ranks on several hosts (their GPUs told apart by host) hold only their own parts: needPeers (every rank maps every
// part) takes one host.
std::vector<int> rankDevices(Bootstrap& comm, bool needPeers) {
  const std::vector<RankGpu> gpus = groupGpus(comm, "malloc (devices)");
  if (needPeers && !comm.sameHost())
    fail(
        "malloc: continuous and chunked GPU memory map every rank's part, so their ranks must share a host; this group spans "
        "hosts (use type 'distributed', or 'hierarchical' tables: chunked within a host, split between hosts)");
  const auto shared = gpuSharingAllowed() ? std::nullopt : sharedGpuRanks(gpus);
  if (shared)
    fail("malloc: ranks " + std::to_string(shared->first) + " and " + std::to_string(shared->second) + " use the same " +
         gpu(gpus[shared->second].device) + " (WM_SHARE_GPU=1 lets ranks share a GPU, for tests on fewer GPUs than ranks)");
  std::vector<int> devices;
  for (const RankGpu& g : gpus) devices.push_back(g.device);
  const int mine = devices[comm.rank()];
  if (needPeers)
    for (int other : devices)
      if (other != mine) requirePeer(mine, other);
  return devices;
}

// RAII switch of the current device (allocations on another GPU of this process).
struct OnDevice {
  int saved;
  explicit OnDevice(int d) : saved(currentDevice()) { WM_CUDA(cudaSetDevice(d)); }
  ~OnDevice() { cudaSetDevice(saved); }
};

}  // namespace

DeviceWholeMemory::DeviceWholeMemory(Bootstrap& comm, MemoryType type, int64_t rows, int64_t rowBytes, int64_t granularityRows,
                                     const std::vector<int>& devices)
    : type_(type), rows_(rows), rowBytes_(rowBytes) {
  WM_REQUIRE(rows >= 0 && rowBytes > 0 && granularityRows >= 1, "malloc: bad rows, row size or granularity");
  device_ = currentDevice();
  const bool single = !devices.empty();
  if (single) {
    WM_REQUIRE(comm.size() == 1, "malloc: devices can be listed only for a single-process tensor");
    WM_REQUIRE(type != MemoryType::Distributed, "malloc: type 'distributed' spans processes; in one process use 'continuous' or 'chunked'");
    int count = deviceCount();
    for (size_t i = 0; i < devices.size(); ++i) {
      WM_REQUIRE(devices[i] >= 0 && devices[i] < count, "malloc: devices[" + std::to_string(i) + "] = " + std::to_string(devices[i]) +
                                                            " is not a GPU here (" + std::to_string(count) + " visible)");
      for (size_t j = 0; j < i; ++j) WM_REQUIRE(devices[j] != devices[i], "malloc: devices lists " + gpu(devices[i]) + " twice");
    }
    for (int d : devices)
      for (int e : devices)
        if (d != e) requirePeer(d, e);
    for (int d : devices)
      if (d != device_) requirePeer(device_, d);
    devices_ = devices;
    parts_ = static_cast<int>(devices.size());
    ownFirst_ = 0;
    ownCount_ = parts_;
  } else {
    devices_ = rankDevices(comm, type != MemoryType::Distributed);
    parts_ = comm.size();
    ownFirst_ = comm.rank();
    ownCount_ = 1;
  }
  WM_REQUIRE(parts_ <= kMaxChunks, "malloc: at most " + std::to_string(kMaxChunks) + " parts");
  size_t gran = 256;
  auto propFor = [](int d) {
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = d;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    return prop;
  };
  if (type == MemoryType::Continuous) {
    for (int d : devices_) {
      size_t g = 0;
      CUmemAllocationProp prop = propFor(d);
      WM_CU(driver().granularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
      gran = std::max(gran, g);
    }
  }
  // Slices are whole granules so continuous slices abut exactly.
  const SliceLayout layout = sliceLayout(rows, rowBytes, granularityRows, parts_, static_cast<int64_t>(gran), "malloc");
  rowsPerRank_ = layout.rowsPerPart;
  sliceBytes_ = layout.sliceBytes;
  agreeOnLayout(comm, "malloc", type, rows, rowBytes, layout);
  try {
    if (type == MemoryType::Continuous) {
      handles_.assign(parts_, 0);
      for (int i = ownFirst_; i < ownFirst_ + ownCount_; ++i) {
        CUmemAllocationProp prop = propFor(devices_[i]);
        WM_CU(driver().memCreate(&handles_[i], sliceBytes_, &prop, 0));
      }
      if (!single) {
        int fd = -1;
        WM_CU(driver().memExport(&fd, handles_[ownFirst_], CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
        std::vector<int> fds;
        try {
          fds = comm.allgatherFds(fd, "malloc (slices)");
        } catch (...) {
          ::close(fd);
          throw;
        }
        ::close(fd);
        try {
          for (int q = 0; q < parts_; ++q) {
            if (q == ownFirst_) continue;
            WM_CU(driver().memImport(&handles_[q], reinterpret_cast<void*>(static_cast<uintptr_t>(fds[q])),
                                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
          }
        } catch (...) {
          for (int x : fds)
            if (x >= 0) ::close(x);
          throw;
        }
        for (int x : fds)
          if (x >= 0) ::close(x);
      }
      vaBytes_ = static_cast<size_t>(sliceBytes_) * parts_;
      CUdeviceptr va = 0;
      WM_CU(driver().addressReserve(&va, vaBytes_, gran, 0, 0));
      va_ = va;
      for (int q = 0; q < parts_; ++q) WM_CU(driver().memMap(va + static_cast<size_t>(q) * sliceBytes_, sliceBytes_, 0, handles_[q], 0));
      // This process's GPU reads everything; in one process, so does every listed GPU.
      std::vector<int> readers{device_};
      if (single)
        for (int d : devices_)
          if (d != device_) readers.push_back(d);
      std::vector<CUmemAccessDesc> access(readers.size());
      for (size_t k = 0; k < readers.size(); ++k) {
        access[k].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access[k].location.id = readers[k];
        access[k].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      }
      WM_CU(driver().setAccess(va, vaBytes_, access.data(), access.size()));
    } else {
      chunks_.count = parts_;
      chunks_.chunkBytes = sliceBytes_;
      for (int i = ownFirst_; i < ownFirst_ + ownCount_; ++i) {
        void* p = nullptr;
        if (devices_[i] == device_) {
          WM_CUDA(cudaMalloc(&p, sliceBytes_));
        } else {
          OnDevice on(devices_[i]);
          WM_CUDA(cudaMalloc(&p, sliceBytes_));
        }
        chunks_.chunks[i] = static_cast<uint8_t*>(p);
        if (devices_[i] != device_) {
          cudaError_t e = cudaDeviceEnablePeerAccess(devices_[i], 0);
          if (e == cudaErrorPeerAccessAlreadyEnabled)
            cudaGetLastError();
          else
            WM_CUDA(e);
        }
      }
      if (type == MemoryType::Chunked && !single) {
        cudaIpcMemHandle_t h;
        WM_CUDA(cudaIpcGetMemHandle(&h, chunks_.chunks[ownFirst_]));
        auto all = comm.allgather(std::string(reinterpret_cast<const char*>(&h), sizeof h), "malloc (ipc handles)");
        for (int q = 0; q < parts_; ++q) {
          if (q == ownFirst_) continue;
          cudaIpcMemHandle_t hq;
          std::memcpy(&hq, all[q].data(), sizeof hq);
          void* p = nullptr;
          WM_CUDA(cudaIpcOpenMemHandle(&p, hq, cudaIpcMemLazyEnablePeerAccess));
          chunks_.chunks[q] = static_cast<uint8_t*>(p);
        }
      }
    }
    synchronize();
  } catch (...) {
    release();
    throw;
  }
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
      if (q >= ownFirst_ && q < ownFirst_ + ownCount_)
        cudaFree(chunks_.chunks[q]);
      else
        cudaIpcCloseMemHandle(chunks_.chunks[q]);
      chunks_.chunks[q] = nullptr;
    }
    chunks_.count = 0;
  }
}

void DeviceWholeMemory::live() const { WM_REQUIRE(!released_, "the WholeMemory tensor was freed"); }

int64_t DeviceWholeMemory::localFirstRow() const { return std::min(rows_, ownFirst_ * rowsPerRank_); }
int64_t DeviceWholeMemory::localRowCount() const {
  return std::max<int64_t>(0, std::min(rows_, (ownFirst_ + ownCount_) * rowsPerRank_) - localFirstRow());
}

uint8_t* DeviceWholeMemory::ownPart(int i) const {
  return type_ == MemoryType::Continuous ? reinterpret_cast<uint8_t*>(va_) + static_cast<size_t>(i) * sliceBytes_ : chunks_.chunks[i];
}

uint64_t DeviceWholeMemory::localSlice() const {
  live();
  return reinterpret_cast<uint64_t>(ownPart(ownFirst_));
}

template <typename F>
void DeviceWholeMemory::eachLocalSpan(size_t bytes, F&& f) const {
  live();
  WM_REQUIRE(static_cast<int64_t>(bytes) <= localRowCount() * rowBytes_, "readLocal / writeLocal: more bytes than the local slice holds");
  size_t done = 0;
  for (int i = ownFirst_; i < ownFirst_ + ownCount_ && done < bytes; ++i) {
    size_t n = std::min(bytes - done, static_cast<size_t>(sliceBytes_));
    f(reinterpret_cast<uint64_t>(ownPart(i)), done, n);
    done += n;
  }
}

void DeviceWholeMemory::readLocal(void* dst, size_t bytes) const {
  eachLocalSpan(bytes, [&](uint64_t part, size_t at, size_t n) { copyDeviceToHost(static_cast<uint8_t*>(dst) + at, part, n); });
}

void DeviceWholeMemory::writeLocal(const void* src, size_t bytes) {
  eachLocalSpan(bytes, [&](uint64_t part, size_t at, size_t n) { copyHostToDevice(part, static_cast<const uint8_t*>(src) + at, n); });
  synchronize();
}

TableRef DeviceWholeMemory::table() const {
  live();
  WM_REQUIRE(type_ != MemoryType::Distributed, "distributed memory is not addressable as one table; its rows move by collectives");
  TableRef t;
  t.rows = rows_;
  t.dim = rowBytes_ / 4;
  t.storage = StorageType::F32;
  if (type_ == MemoryType::Continuous)
    t.ptr = va_;
  else
    t.chunked = &chunks_;
  return t;
}

DistributedLayout DeviceWholeMemory::distributedLayout() const {
  live();
  DistributedLayout l;
  l.rows = rows_;
  l.rowsPerRank = rowsPerRank_;
  l.rowBytes = rowBytes_;
  l.localSlice = localSlice();
  l.localRows = localRowCount();
  return l;
}

}  // namespace wm
