// Dispatch over storage type x index type x address generator, shared by the
// embedding kernels. A kernel is written once as a template over
// (Gen = PtrGen<T*, T> or PtrGen<const ChunkedHandle, T>, IdxT).
#pragma once
#include "runtime/launch.cuh"
#include "wm/embedding.h"
#include "wm/embedding_math.h"

namespace wm {

// VEC elements of a row moved by one load (16 bytes: 4 float32 or 8 half/bfloat16 elements).
template <typename T, int VEC>
struct Vec {
  T v[VEC];
};

// The chunked handle travels to the kernel by value.
template <typename T>
struct ContiguousTable {
  T* base;
  __device__ __forceinline__ T* row(int64_t r, int64_t dim) const { return PtrGen<T*, T>(base).At(r * dim); }
};
template <typename T>
struct ChunkedTable {
  ChunkedHandle h;
  __device__ __forceinline__ T* row(int64_t r, int64_t dim) const { return PtrGen<const ChunkedHandle, T>(h).At(r * dim); }
};

// A contiguous table with a row cache (wm::RowCache): a cached row is read and
// written in its slot, every other row in the table.
template <typename T>
struct CachedTable {
  T* base;
  T* hot;
  const int32_t* slotOf;
  __device__ __forceinline__ T* row(int64_t r, int64_t dim) const {
    const int32_t s = slotOf[r];
    return s >= 0 ? hot + static_cast<int64_t>(s) * dim : base + r * dim;
  }
};

// The same table read through values resolved once per id (rowCacheResolve): v >= 0 is the slot
// holding the row, ~v the row itself. Kernels that read an id's row many times (a neighbour mean reads
// each input id's row about fan-out times) look the row map up once per id instead of once per read.
template <typename T>
struct ResolvedCachedTable {
  T* base;
  T* hot;
  __device__ __forceinline__ T* row(int64_t v, int64_t dim) const { return v >= 0 ? hot + v * dim : base + static_cast<int64_t>(~v) * dim; }
};

// f(tag), tag a value of the storage type `s` names (float, Half16 or BFloat16).
template <typename F>
void withStorageType(StorageType s, F&& f) {
  switch (s) {
    case StorageType::F32:
      f(float{});
      break;
    case StorageType::F16:
      f(Half16{});
      break;
    case StorageType::BF16:
      f(BFloat16{});
      break;
  }
}

// Calls f.template operator()<Table, IdxT>(table) for the right instantiation.
template <typename F>
void dispatchTable(const TableRef& t, IndexType it, F&& f) {
  auto withIdx = [&](auto table) {
    if (it == IndexType::I32)
      f.template run<decltype(table), int32_t>(table);
    else
      f.template run<decltype(table), int64_t>(table);
  };
  auto withStorage = [&](auto tag) {
    using T = decltype(tag);
    if (t.chunked)
      withIdx(ChunkedTable<T>{*t.chunked});
    else if (t.cached())
      withIdx(
          CachedTable<T>{reinterpret_cast<T*>(t.ptr), reinterpret_cast<T*>(t.cache.hot), reinterpret_cast<const int32_t*>(t.cache.slotOf)});
    else
      withIdx(ContiguousTable<T>{reinterpret_cast<T*>(t.ptr)});
  };
  withStorageType(t.storage, withStorage);
}

template <typename Table>
struct StorageOf;
template <typename T>
struct StorageOf<ContiguousTable<T>> {
  using type = T;
};
template <typename T>
struct StorageOf<ChunkedTable<T>> {
  using type = T;
};
template <typename T>
struct StorageOf<CachedTable<T>> {
  using type = T;
};
template <typename T>
struct StorageOf<ResolvedCachedTable<T>> {
  using type = T;
};

}  // namespace wm
