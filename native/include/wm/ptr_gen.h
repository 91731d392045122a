// PtrGen: the address generator every WholeMemory kernel is written against
// (as in WholeMemory's documents). PtrGen<T*, T> addresses plain contiguous
// memory; PtrGen<const ChunkedHandle, T> addresses memory made of equal
// chunks, one per rank. At(offset) gives the element's address; offsets are
// 64-bit, so tables past 2^31 elements work.
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define WM_PTRGEN_HD __host__ __device__ __forceinline__
#else
#define WM_PTRGEN_HD inline
#endif

namespace wm {

// Up to this many chunks (ranks) in one chunked handle.
constexpr int kMaxChunks = 64;

struct ChunkedHandle {
  uint8_t* chunks[kMaxChunks];
  int64_t chunkBytes;  // every chunk but possibly the last holds exactly this many bytes
  int count;
};

template <typename Handle, typename T>
struct PtrGen;

template <typename T>
struct PtrGen<T*, T> {
  T* base;
  WM_PTRGEN_HD explicit PtrGen(T* p) : base(p) {}
  WM_PTRGEN_HD T* At(int64_t offset) const { return base + offset; }
};

template <typename T>
struct PtrGen<const ChunkedHandle, T> {
  const ChunkedHandle& h;
  WM_PTRGEN_HD explicit PtrGen(const ChunkedHandle& handle) : h(handle) {}
  WM_PTRGEN_HD T* At(int64_t offset) const {
    int64_t byte = offset * static_cast<int64_t>(sizeof(T));
    int64_t chunk = byte / h.chunkBytes;
    return reinterpret_cast<T*>(h.chunks[chunk] + (byte - chunk * h.chunkBytes));
  }
};

}  // namespace wm
