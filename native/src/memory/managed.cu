#include <map>
#include <mutex>

#include "runtime/check.h"
#include "wm/managed.h"
#include "wm/runtime.h"

namespace wm {
namespace {

struct ManagedCache {
  std::mutex mu;
  std::multimap<size_t, uint64_t> free;  // class size -> block
  std::map<uint64_t, size_t> live;       // block -> class size
  size_t inUse = 0, cached = 0, hits = 0, misses = 0;
};

ManagedCache& cache() {
  static ManagedCache* c = new ManagedCache();
  return *c;
}

cudaMemLocation location(int where) {
  cudaMemLocation l{};
  if (where < 0) {
    l.type = cudaMemLocationTypeHost;
    l.id = 0;
  } else {
    l.type = cudaMemLocationTypeDevice;
    l.id = where;
  }
  return l;
}

}  // namespace

size_t managedSizeClass(size_t bytes) {
  const size_t kSmall = 4096, k2M = 2u << 20, k20M = 20u << 20;
  if (bytes <= kSmall) return kSmall;
  if (bytes <= k2M) {
    size_t s = kSmall;
    while (s < bytes) s <<= 1;
    return s;
  }
  if (bytes <= k20M) return (bytes + k2M - 1) / k2M * k2M;
  return (bytes + k20M - 1) / k20M * k20M;
}

uint64_t managedAlloc(size_t bytes) {
  if (bytes == 0) return 0;
  size_t cls = managedSizeClass(bytes);
  ManagedCache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.free.find(cls);
    if (it != c.free.end()) {
      uint64_t p = it->second;
      c.free.erase(it);
      c.cached -= cls;
      c.live[p] = cls;
      c.inUse += cls;
      ++c.hits;
      return p;
    }
  }
  currentDevice();  // binds the process to its GPU
  size_t freeB = 0, totalB = 0;
  WM_CUDA(cudaMemGetInfo(&freeB, &totalB));
  if (cls > freeB) {
    // Cached blocks count against the GPU too: give them back and look again.
    managedEmptyCache();
    WM_CUDA(cudaMemGetInfo(&freeB, &totalB));
  }
  if (cls > freeB) {
    fail("managed allocation of " + std::to_string(bytes) + " bytes refused: only " + std::to_string(freeB) +
         " bytes of GPU memory are free, and managed memory must never exceed that (it can stall a shared GPU)");
  }
  void* p = nullptr;
  WM_CUDA(cudaMallocManaged(&p, cls, cudaMemAttachGlobal));
  std::lock_guard<std::mutex> lock(c.mu);
  c.live[reinterpret_cast<uint64_t>(p)] = cls;
  c.inUse += cls;
  ++c.misses;
  return reinterpret_cast<uint64_t>(p);
}

void managedFree(uint64_t ptr) {
  if (ptr == 0) return;
  ManagedCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  auto it = c.live.find(ptr);
  WM_REQUIRE(it != c.live.end(), "managedFree: not a live managed block (freed twice?)");
  // Stream-ordered reuse: every user of this block is on our one stream, so
  // a later allocation's work runs after the earlier work on it.
  c.free.emplace(it->second, ptr);
  c.cached += it->second;
  c.inUse -= it->second;
  c.live.erase(it);
}

void managedEmptyCache() {
  synchronize();
  ManagedCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  for (auto& kv : c.free) WM_CUDA(cudaFree(reinterpret_cast<void*>(kv.second)));
  c.free.clear();
  c.cached = 0;
}

ManagedInfo managedInfo() {
  ManagedCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return {c.inUse, c.cached, c.live.size(), c.hits, c.misses};
}

void managedAdvise(uint64_t ptr, size_t bytes, int preferred, int accessedBy) {
  if (ptr == 0 || bytes == 0) return;
  void* p = reinterpret_cast<void*>(ptr);
  WM_CUDA(cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, location(preferred)));
  if (accessedBy >= 0) WM_CUDA(cudaMemAdvise(p, bytes, cudaMemAdviseSetAccessedBy, location(accessedBy)));
}

void managedPrefetch(uint64_t ptr, size_t bytes, int where) {
  if (ptr == 0 || bytes == 0) return;
  WM_CUDA(cudaMemPrefetchAsync(reinterpret_cast<void*>(ptr), bytes, location(where), 0, stream()));
}

uint64_t pinnedHostAlloc(size_t bytes) {
  if (bytes == 0) return 0;
  currentDevice();
  void* p = nullptr;
  WM_CUDA(cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
  void* d = nullptr;
  WM_CUDA(cudaHostGetDevicePointer(&d, p, 0));
  WM_REQUIRE(d == p, "pinned host memory: device and host addresses differ (no unified addressing?)");
  return reinterpret_cast<uint64_t>(p);
}

void pinnedHostFree(uint64_t ptr) {
  if (ptr == 0) return;
  synchronize();
  WM_CUDA(cudaFreeHost(reinterpret_cast<void*>(ptr)));
}

}  // namespace wm
