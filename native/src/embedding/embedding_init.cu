// Random (or zero) initial rows, computed on the device from a counter-based
// hash: no host data to upload for tables of any size.
#include "embedding/embedding_common.cuh"

namespace wm {
namespace {

template <typename Table>
__global__ void initKernel(Table table, int64_t first, int64_t count, int64_t dim, int64_t rowBase, uint64_t seed, int kind, float scale) {
  using T = typename StorageOf<Table>::type;
  WM_GRID_STRIDE(t, count * dim) {
    int64_t r = first + t / dim, j = t % dim;
    table.row(r, dim)[j] = fromFloat<T>(initialValue(seed, static_cast<uint64_t>((rowBase + r) * dim + j), kind, scale));
  }
}

struct Launch {
  int64_t first, count, dim, rowBase;
  uint64_t seed;
  int kind;
  float scale;
  template <typename Table, typename IdxT>
  void run(Table table) {
    initKernel<Table><<<gridFor(count * dim), kThreads, 0, stream()>>>(table, first, count, dim, rowBase, seed, kind, scale);
  }
};

}  // namespace

void embeddingInit(const TableRef& table, int64_t firstRow, int64_t count, uint64_t seed, int kind, float scale) {
  WM_REQUIRE(firstRow >= 0 && count >= 0 && firstRow + count <= table.rows, "embedding init: rows out of range");
  if (count == 0 || table.dim == 0) return;
  dispatchTable(table, IndexType::I32, Launch{firstRow, count, table.dim, table.rowBase, seed, kind, scale});
  WM_CUDA_LAUNCHED();
}

}  // namespace wm
