#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <unordered_map>
#include <vector>
#include <mutex>

#include "runtime/affinity.h"
#include "runtime/check.h"
#include "runtime/local_ranks.h"
#include "wm/cpu_binding.h"
#include "wm/op_timing.h"
#include "wm/runtime.h"

namespace wm {
namespace {

struct Runtime {
  std::mutex mu;
  bool probed = false;
  int count = 0;
  std::string reason;
  int device = -1;
  int multiprocessors = 0;           // the device's, read once with its stream
  bool deviceFromLocalRank = false;  // chosen by LOCAL_RANK, as every rank of the launch chooses
  std::string cpuBinding;            // planCpuBinding's words, once the process binds to its GPU
  cudaStream_t stream = nullptr;
  // The side stream (sampling): work that must not wait behind the main
  // stream's queue. `onSide` selects where kernels, copies and allocations go.
  cudaStream_t side = nullptr;
  cudaEvent_t sideDone = nullptr, mainDone = nullptr;
  bool onSide = false;
  cudaMemPool_t pool = nullptr;
  struct Block {
    size_t bytes;
    bool side;  // allocated while on the side stream
  };
  std::unordered_map<uint64_t, Block> live;
  // Main-stream blocks freed while on the side stream: their last use may be
  // on either stream, so they are freed on the main stream once it waits for
  // the side stream (mainWaitsForSide).
  std::vector<uint64_t> deferred;
  // Small blocks are kept by size class and reused without a driver call:
  // per-op tensors in training loops are small and their sizes repeat.
  // One list per stream: a block freed on one stream may still be in use by
  // work queued there, so only that stream may reuse it at once.
  std::unordered_map<size_t, std::vector<uint64_t>> smallFree[2];
  size_t smallCached = 0;
  size_t inUse = 0, peak = 0;
  std::multimap<size_t, void*> pinnedFree;  // cached staging buffers
  size_t pinnedCached = 0;
};

Runtime& rt() {
  static Runtime* r = new Runtime();  // never destroyed: exit-time order is unknowable
  return *r;
}

void probeLocked(Runtime& r) {
  if (r.probed) return;
  r.probed = true;
  cudaError_t e = cudaGetDeviceCount(&r.count);
  if (e != cudaSuccess) {
    r.count = 0;
    r.reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    cudaGetLastError();  // clear the sticky-free error state
  } else if (r.count == 0) {
    r.reason = "no CUDA device";
  }
}

int defaultDevice(int count, bool* fromLocalRank) {
  *fromLocalRank = false;
  if (const char* v = std::getenv("WM_DEVICE"); v && *v) return std::atoi(v) % count;
  if (const auto q = localRank()) {
    *fromLocalRank = true;
    return static_cast<int>(*q % count);
  }
  return 0;
}

std::string pciBusId(int device) {
  char id[32] = {0};
  return cudaDeviceGetPCIBusId(id, sizeof(id), device) == cudaSuccess ? std::string(id) : std::string();
}

// WM_CPU_BIND (cpu_binding.h), once, as the process binds to its GPU. Where every local rank chose
// its GPU from LOCAL_RANK, this rank knows the others' GPUs and splits the cores it shares with
// them; a GPU chosen otherwise (WM_DEVICE, selectDevice) is planned for as if alone.
void bindCpusLocked(Runtime& r) {
  const CpuBindMode mode = cpuBindModeFromEnv();
  std::vector<std::string> buses;  // none without a binding: the plan then only says so
  const int mine = r.deviceFromLocalRank ? static_cast<int>(*localRank()) : 0;
  if (mode != CpuBindMode::None) {
    if (r.deviceFromLocalRank) {
      for (long q = 0; q < std::max(localWorldSize(), mine + 1L); ++q) buses.push_back(pciBusId(static_cast<int>(q % r.count)));
    } else {
      buses.push_back(pciBusId(r.device));
    }
  }
  const CpuPlan plan = planCpuBinding(mode, allowedCpus(), buses, mine, "/sys");
  applyCpuBinding(plan.cpus);
  boundToCoreShare() = mode == CpuBindMode::Cores && !plan.cpus.empty();
  r.cpuBinding = plan.describe;
}

// Lazily binds the process to its device: stream and pool.
Runtime& ready() {
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.mu);
  probeLocked(r);
  if (r.count == 0) fail("no usable GPU: " + r.reason);
  if (r.device < 0) r.device = defaultDevice(r.count, &r.deviceFromLocalRank);
  if (r.stream == nullptr) {
    bindCpusLocked(r);
    WM_CUDA(cudaSetDevice(r.device));
    WM_CUDA(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking));
    WM_CUDA(cudaDeviceGetAttribute(&r.multiprocessors, cudaDevAttrMultiProcessorCount, r.device));
    WM_CUDA(cudaDeviceGetDefaultMemPool(&r.pool, r.device));
    // Keep freed blocks cached in the pool instead of returning them to the
    // driver at every synchronisation: this is what makes it a caching allocator.
    uint64_t threshold = UINT64_MAX;
    WM_CUDA(cudaMemPoolSetAttribute(r.pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    // A block freed on one stream is reused on the other only once its free has run (opportunistic reuse), never
    // by making the allocating stream wait for the freeing one: the sampler's side stream would otherwise wait for
    // the training a batch's tensors were freed behind, and its read-backs hold the host with it. Where memory runs
    // short, deviceAlloc synchronises and every such block is free again.
    int internalDependencies = 0;
    WM_CUDA(cudaMemPoolSetAttribute(r.pool, cudaMemPoolReuseAllowInternalDependencies, &internalDependencies));
  }
  return r;
}

size_t roundPinned(size_t bytes) {
  size_t s = 64 * 1024;
  while (s < bytes) s <<= 1;
  return s;
}

cudaStream_t current(Runtime& r) { return r.onSide ? r.side : r.stream; }

}  // namespace

cudaStream_t stream() {
  Runtime& r = ready();
  return current(r);
}

namespace {
void ensureSide(Runtime& r) {
  if (r.side != nullptr) return;
  WM_CUDA(cudaStreamCreateWithFlags(&r.side, cudaStreamNonBlocking));
  WM_CUDA(cudaEventCreateWithFlags(&r.sideDone, cudaEventDisableTiming));
  WM_CUDA(cudaEventCreateWithFlags(&r.mainDone, cudaEventDisableTiming));
}
}  // namespace

void useSideStream(bool on) {
  Runtime& r = ready();
  if (on) ensureSide(r);
  r.onSide = on;
}

void sideWaitsForMain() {
  Runtime& r = ready();
  ensureSide(r);
  WM_CUDA(cudaEventRecord(r.mainDone, r.stream));
  WM_CUDA(cudaStreamWaitEvent(r.side, r.mainDone, 0));
}

bool builtWithCuda() { return true; }

int deviceCount() {
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.mu);
  probeLocked(r);
  return r.count;
}

std::string unavailableReason() {
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.mu);
  probeLocked(r);
  return r.reason;
}

void selectDevice(int device) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.mu);
  probeLocked(r);
  WM_REQUIRE(device >= 0 && device < r.count, "device: " + std::to_string(device) + " is not in [0, " + std::to_string(r.count) + ")");
  WM_REQUIRE(r.stream == nullptr || r.device == device, "device: the process already uses device " + std::to_string(r.device));
  r.device = device;
}

int currentDevice() { return ready().device; }
int multiprocessorCount() { return ready().multiprocessors; }

std::string cpuBinding() {
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.cpuBinding;
}

std::string deviceName() {
  Runtime& r = ready();
  cudaDeviceProp p;
  WM_CUDA(cudaGetDeviceProperties(&p, r.device));
  return p.name;
}

void synchronize() {
  Runtime& r = ready();
  WM_CUDA(cudaStreamSynchronize(r.stream));
  if (r.side) WM_CUDA(cudaStreamSynchronize(r.side));
}

DeviceMemoryInfo deviceMemoryInfo() {
  Runtime& r = ready();
  DeviceMemoryInfo info{};
  uint64_t reserved = 0;
  WM_CUDA(cudaMemPoolGetAttribute(r.pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  WM_CUDA(cudaMemGetInfo(&info.freeBytes, &info.totalBytes));
  std::lock_guard<std::mutex> lock(r.mu);
  info.bytesInUse = r.inUse;
  info.peakBytesInUse = r.peak;
  info.allocations = r.live.size();
  info.bytesReserved = reserved;
  return info;
}

namespace {
constexpr size_t kSmallLimit = 1u << 20;
size_t smallClass(size_t bytes) {
  size_t c = 256;
  while (c < bytes) c <<= 1;
  return c;
}
}  // namespace

uint64_t deviceAlloc(size_t bytes) {
  if (bytes == 0) return 0;
  Runtime& r = ready();
  if (bytes <= kSmallLimit) {
    // Stream-ordered reuse: every user of a block runs on our one stream, so
    // work queued after this allocation runs after the block's last use.
    size_t cls = smallClass(bytes);
    {
      std::lock_guard<std::mutex> lock(r.mu);
      auto& list = r.smallFree[r.onSide];
      auto it = list.find(cls);
      if (it != list.end() && !it->second.empty()) {
        uint64_t p = it->second.back();
        it->second.pop_back();
        r.smallCached -= cls;
        r.live[p] = {cls, r.onSide};
        r.inUse += cls;
        if (r.inUse > r.peak) r.peak = r.inUse;
        return p;
      }
    }
    bytes = cls;
  }
  void* p = nullptr;
  cudaError_t e = cudaMallocAsync(&p, bytes, current(r));
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    // Cached blocks may be fragmented: give them back and try once more.
    synchronize();
    WM_CUDA(cudaMemPoolTrimTo(r.pool, 0));
    e = cudaMallocAsync(&p, bytes, current(r));
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    size_t freeB = 0, totalB = 0;
    cudaMemGetInfo(&freeB, &totalB);
    fail("out of GPU memory: asked for " + std::to_string(bytes) + " bytes, " + std::to_string(freeB) + " of " + std::to_string(totalB) +
         " free on device " + std::to_string(r.device) + " (" + cudaGetErrorString(e) + ")");
  }
  std::lock_guard<std::mutex> lock(r.mu);
  r.live[reinterpret_cast<uint64_t>(p)] = {bytes, r.onSide};
  r.inUse += bytes;
  if (r.inUse > r.peak) r.peak = r.inUse;
  return reinterpret_cast<uint64_t>(p);
}

namespace {
// Returns a block to the cache of the stream that may reuse it at once, or
// frees it on that stream. Called with r.mu held; `side` is where it goes.
void releaseLocked(Runtime& r, uint64_t ptr, size_t bytes, bool side) {
  r.inUse -= bytes;
  if (bytes <= kSmallLimit) {
    r.smallFree[side][bytes].push_back(ptr);
    r.smallCached += bytes;
    return;
  }
  WM_CUDA(cudaFreeAsync(reinterpret_cast<void*>(ptr), side ? r.side : r.stream));
}
}  // namespace

void deviceFree(uint64_t ptr) {
  if (ptr == 0) return;
  Runtime& r = ready();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.live.find(ptr);
  WM_REQUIRE(it != r.live.end(), "deviceFree: " + std::to_string(ptr) + " is not a live allocation (freed twice?)");
  if (r.onSide && !it->second.side) {
    r.deferred.push_back(ptr);  // stays live until mainWaitsForSide frees it
    return;
  }
  const size_t bytes = it->second.bytes;
  r.live.erase(it);
  releaseLocked(r, ptr, bytes, r.onSide);
}

void mainWaitsForSide() {
  Runtime& r = ready();
  if (r.side == nullptr) return;
  WM_CUDA(cudaEventRecord(r.sideDone, r.side));
  WM_CUDA(cudaStreamWaitEvent(r.stream, r.sideDone, 0));
  std::lock_guard<std::mutex> lock(r.mu);
  for (uint64_t p : r.deferred) {
    auto it = r.live.find(p);
    if (it == r.live.end()) continue;
    const size_t bytes = it->second.bytes;
    r.live.erase(it);
    releaseLocked(r, p, bytes, false);
  }
  r.deferred.clear();
}

void emptyCache() {
  Runtime& r = ready();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    for (int k = 0; k < 2; ++k) {
      for (auto& kv : r.smallFree[k])
        for (uint64_t p : kv.second) WM_CUDA(cudaFreeAsync(reinterpret_cast<void*>(p), k ? r.side : r.stream));
      r.smallFree[k].clear();
    }
    r.smallCached = 0;
  }
  synchronize();
  WM_CUDA(cudaMemPoolTrimTo(r.pool, 0));
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto& kv : r.pinnedFree) cudaFreeHost(kv.second);
  r.pinnedFree.clear();
  r.pinnedCached = 0;
}

void copyHostToDevice(uint64_t dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  // From pageable memory the runtime stages the bytes before returning, so
  // the caller may reuse src at once.
  WM_CUDA(cudaMemcpyAsync(reinterpret_cast<void*>(dst), src, bytes, cudaMemcpyHostToDevice, stream()));
}

uint64_t hostRegister(void* p, size_t bytes) {
  WM_CUDA(cudaHostRegister(p, bytes, cudaHostRegisterPortable | cudaHostRegisterMapped));
  void* d = nullptr;
  cudaError_t e = cudaHostGetDevicePointer(&d, p, 0);
  if (e != cudaSuccess) {
    cudaHostUnregister(p);
    WM_CUDA(e);
  }
  return reinterpret_cast<uint64_t>(d);
}

void hostUnregister(void* p) { cudaHostUnregister(p); }

void copyDeviceToHost(void* dst, uint64_t src, size_t bytes) {
  if (bytes == 0) return;
  cudaStream_t s = stream();
  WM_CUDA(cudaMemcpyAsync(dst, reinterpret_cast<void*>(src), bytes, cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaStreamSynchronize(s));
}

void copyDeviceToDevice(uint64_t dst, uint64_t src, size_t bytes) {
  if (bytes == 0) return;
  // Default: either side may be pinned host memory (one address space), e.g. a pinned table's rows.
  WM_CUDA(cudaMemcpyAsync(reinterpret_cast<void*>(dst), reinterpret_cast<void*>(src), bytes, cudaMemcpyDefault, stream()));
}

struct PendingRead {
  void* pinned = nullptr;
  size_t capacity = 0;
  size_t bytes = 0;
  cudaEvent_t done = nullptr;
};

namespace {
void releasePending(PendingRead* p) {
  Runtime& r = rt();
  if (p->done) cudaEventDestroy(p->done);
  if (p->pinned) {
    std::lock_guard<std::mutex> lock(r.mu);
    if (r.pinnedCached + p->capacity <= (256u << 20)) {
      r.pinnedFree.emplace(p->capacity, p->pinned);
      r.pinnedCached += p->capacity;
    } else {
      cudaFreeHost(p->pinned);
    }
  }
  delete p;
}
}  // namespace

PendingRead* beginRead(uint64_t src, size_t bytes) {
  Runtime& r = ready();
  auto* p = new PendingRead();
  p->bytes = bytes;
  try {
    if (bytes > 0) {
      p->capacity = roundPinned(bytes);
      {
        std::lock_guard<std::mutex> lock(r.mu);
        auto it = r.pinnedFree.lower_bound(p->capacity);
        if (it != r.pinnedFree.end() && it->first == p->capacity) {
          p->pinned = it->second;
          r.pinnedCached -= it->first;
          r.pinnedFree.erase(it);
        }
      }
      if (!p->pinned) WM_CUDA(cudaMallocHost(&p->pinned, p->capacity));
      WM_CUDA(cudaMemcpyAsync(p->pinned, reinterpret_cast<void*>(src), bytes, cudaMemcpyDeviceToHost, current(r)));
    }
    WM_CUDA(cudaEventCreateWithFlags(&p->done, cudaEventDisableTiming));
    WM_CUDA(cudaEventRecord(p->done, current(r)));
  } catch (...) {
    releasePending(p);
    throw;
  }
  return p;
}

void finishRead(PendingRead* p, void* dst) {
  struct Release {
    PendingRead* p;
    ~Release() { releasePending(p); }
  } release{p};
  WM_CUDA(cudaEventSynchronize(p->done));
  if (p->bytes) std::memcpy(dst, p->pinned, p->bytes);
}

void cancelRead(PendingRead* p) {
  // The copy may still be in flight into the staging buffer we are about to recycle.
  if (p->done) cudaEventSynchronize(p->done);
  releasePending(p);
}

// Events for wm/op_timing.h, kept for reuse: creating one per op would cost more than many ops.
namespace {
std::mutex timingMu;
std::vector<cudaEvent_t> timingPool;
}  // namespace

void* recordTimingEvent() {
  cudaEvent_t e = nullptr;
  {
    std::lock_guard<std::mutex> lock(timingMu);
    if (!timingPool.empty()) {
      e = timingPool.back();
      timingPool.pop_back();
    }
  }
  if (e == nullptr) WM_CUDA(cudaEventCreate(&e));
  try {
    WM_CUDA(cudaEventRecord(e, stream()));
  } catch (...) {
    releaseTimingEvent(e);
    throw;
  }
  return e;
}

bool timingEventDone(void* event) {
  const cudaError_t e = cudaEventQuery(static_cast<cudaEvent_t>(event));
  if (e == cudaErrorNotReady) return false;
  WM_CUDA(e);
  return true;
}

float timingEventMs(void* start, void* end) {
  float ms = 0;
  WM_CUDA(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)));
  return ms;
}

void releaseTimingEvent(void* event) {
  if (event == nullptr) return;
  std::lock_guard<std::mutex> lock(timingMu);
  timingPool.push_back(static_cast<cudaEvent_t>(event));
}

}  // namespace wm
