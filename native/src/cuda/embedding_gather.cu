// Embedding lookup: each thread moves one 16-byte vector of a row (4 float32
// or 8 half/bfloat16 elements) when the row width allows, so rows are read
// with full-width loads whatever the storage type.
#include "embedding_common.cuh"

namespace wm {
namespace {

template <typename T, int VEC>
struct Vec {
  T v[VEC];
};

template <typename Table, typename IdxT, int VEC>
__global__ void gatherKernel(Table table, const IdxT* idx, int64_t n, int64_t dim, int64_t rows, float* out,
                             unsigned long long* errorFlag) {
  using T = typename StorageOf<Table>::type;
  int64_t perRow = dim / VEC;
  WM_GRID_STRIDE(t, n * perRow) {
    int64_t i = t / perRow, k = t - i * perRow;
    int64_t r = static_cast<int64_t>(idx[i]);
    float* o = out + i * dim + k * VEC;
    if (r < 0 || r >= rows) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) o[e] = 0.f;
      if (errorFlag && k == 0) atomicMin(errorFlag, static_cast<unsigned long long>(i));
      continue;
    }
    Vec<T, VEC> v = *reinterpret_cast<const Vec<T, VEC>*>(table.row(r, dim) + k * VEC);
    if constexpr (VEC % 4 == 0) {
#pragma unroll
      for (int e = 0; e < VEC; e += 4) {
        *reinterpret_cast<float4*>(o + e) =
            make_float4(toFloat(v.v[e]), toFloat(v.v[e + 1]), toFloat(v.v[e + 2]), toFloat(v.v[e + 3]));
      }
    } else {
#pragma unroll
      for (int e = 0; e < VEC; ++e) o[e] = toFloat(v.v[e]);
    }
  }
}

struct Launch {
  const TableRef& t;
  uint64_t idx, out, flag;
  int64_t n;
  template <typename Table, typename IdxT>
  void run(Table table) {
    using T = typename StorageOf<Table>::type;
    constexpr int kVec = 16 / sizeof(T);
    auto* f = reinterpret_cast<unsigned long long*>(flag);
    // Wide vectors need rows of whole vectors and aligned bases.
    bool wide = t.dim % kVec == 0 && out % 16 == 0 && (t.chunked || t.ptr % 16 == 0) &&
                (!t.chunked || t.chunked->chunkBytes % 16 == 0);
    if (wide) {
      gatherKernel<Table, IdxT, kVec><<<gridFor(n * (t.dim / kVec)), kThreads, 0, stream()>>>(
          table, as<IdxT>(idx), n, t.dim, t.rows, as<float>(out), f);
    } else {
      gatherKernel<Table, IdxT, 1><<<gridFor(n * t.dim), kThreads, 0, stream()>>>(table, as<IdxT>(idx), n, t.dim,
                                                                                  t.rows, as<float>(out), f);
    }
  }
};

}  // namespace

void embeddingGather(const TableRef& table, uint64_t indices, IndexType it, int64_t n, uint64_t out,
                     uint64_t errorFlag) {
  if (n == 0 || table.dim == 0) return;
  dispatchTable(table, it, Launch{table, indices, out, errorFlag, n});
  WM_CUDA_LAUNCHED();
}

}  // namespace wm
