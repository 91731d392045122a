// CUDA managed (unified) memory, after PyTorch's "Unified Memory for
// PyTorch" RFC: a caching allocator with size classes, advice (preferred
// location, accessed-by) and prefetch. It never asks for more managed memory
// than the GPU has free: on shared machines oversubscription can stall the
// GPU for everyone, so such a request is refused with an error instead.
#pragma once
#include <cstddef>
#include <cstdint>

namespace wm {

struct ManagedInfo {
  size_t bytesInUse;    // handed out
  size_t bytesCached;   // freed, kept for reuse
  size_t allocations;   // live blocks
  size_t hits, misses;  // cache outcomes of managedAlloc
};

// Rounds the size to its class: powers of two from 4 KiB to 2 MiB, then
// multiples of 2 MiB up to 20 MiB, then multiples of 20 MiB.
size_t managedSizeClass(size_t bytes);
uint64_t managedAlloc(size_t bytes);
void managedFree(uint64_t ptr);
void managedEmptyCache();
ManagedInfo managedInfo();

// Location: -1 is the host (CPU), d >= 0 is GPU d.
void managedAdvise(uint64_t ptr, size_t bytes, int preferredLocation, int accessedBy);
void managedPrefetch(uint64_t ptr, size_t bytes, int location);

// Pinned host memory mapped into the GPU's address space (zero-copy reads
// over the bus).
uint64_t pinnedHostAlloc(size_t bytes);
void pinnedHostFree(uint64_t ptr);

}  // namespace wm
