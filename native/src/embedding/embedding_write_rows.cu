// Writes float32 rows into a table of any storage type (initialisation,
// checkpoint loads, user writes).
#include "embedding/embedding_common.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

template <typename Table, typename IdxT>
__global__ void writeKernel(Table table, const IdxT* idx, int64_t n, int64_t dim, int64_t rows, const float* in,
                            unsigned long long* errorFlag) {
  using T = typename StorageOf<Table>::type;
  WM_GRID_STRIDE(t, n * dim) {
    int64_t i = t / dim, j = t - i * dim;
    int64_t r = static_cast<int64_t>(idx[i]);
    if (r < 0 || r >= rows) {
      if (errorFlag && j == 0) atomicMin(errorFlag, static_cast<unsigned long long>(i));
      continue;
    }
    table.row(r, dim)[j] = fromFloat<T>(in[t]);
  }
}

struct Launch {
  const TableRef& t;
  uint64_t idx, in, flag;
  int64_t n;
  template <typename Table, typename IdxT>
  void run(Table table) {
    writeKernel<Table, IdxT><<<gridFor(n * t.dim), kThreads, 0, stream()>>>(table, as<IdxT>(idx), n, t.dim, t.rows, as<float>(in),
                                                                            reinterpret_cast<unsigned long long*>(flag));
  }
};

}  // namespace

void embeddingWriteRows(const TableRef& table, uint64_t indices, IndexType it, int64_t n, uint64_t values, uint64_t errorFlag) {
  if (n == 0 || table.dim == 0) return;
  dispatchTable(table, it, Launch{table, indices, values, errorFlag, n});
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// embeddingWriteRows(table, indices, indexType, n, values, errorFlag)
WM_OP(embeddingWriteRows, Device, a) {
  const wm::TableRef t = a.table(0, "table");
  wm::embeddingWriteRows(t, a.address(1, "indices"), a.indexType(2, "indexType"), a.count(3, "n"), a.address(4, "values"),
                         a.address(5, "errorFlag"));
}
