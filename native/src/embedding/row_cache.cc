// The row cache's host side: the same fill, copy-back and hit count as
// row_cache.cu over typed arrays (a machine without a GPU runs the cache's
// logic on the CPU core, exact to the byte).
#include <cstring>
#include <string>

#include "runtime/parallel.h"
#include "wm/embedding.h"
#include "wm/op_registry.h"
#include "wm/status.h"

namespace wm {
namespace host {
namespace {

void checkIds(const TableRef& t, const int32_t* ids, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (ids[i] < 0 || ids[i] >= t.rows)
      fail("row cache: id " + std::to_string(ids[i]) + " at position " + std::to_string(i) + " is outside the table's " +
           std::to_string(t.rows) + " rows");
}

}  // namespace

void rowCacheLoad(const TableRef& t, const int32_t* ids, int64_t n, void* hot, int32_t* slotOf) {
  checkIds(t, ids, n);
  const int64_t rowBytes = t.dim * storageBytes(t.storage);
  char* table = reinterpret_cast<char*>(t.ptr);
  parallelFor(n, 1024, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      std::memcpy(static_cast<char*>(hot) + i * rowBytes, table + ids[i] * rowBytes, static_cast<size_t>(rowBytes));
      slotOf[ids[i]] = static_cast<int32_t>(i);
    }
  });
}

void rowCacheStore(const TableRef& t, const int32_t* ids, int64_t n, const void* hot) {
  checkIds(t, ids, n);
  const int64_t rowBytes = t.dim * storageBytes(t.storage);
  char* table = reinterpret_cast<char*>(t.ptr);
  parallelFor(n, 1024, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      std::memcpy(table + ids[i] * rowBytes, static_cast<const char*>(hot) + i * rowBytes, static_cast<size_t>(rowBytes));
  });
}

int64_t rowCacheHits(const int32_t* slotOf, int64_t rows, const void* idx, IndexType it, int64_t n) {
  int64_t hits = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = it == IndexType::I32 ? static_cast<const int32_t*>(idx)[i] : static_cast<const int64_t*>(idx)[i];
    if (r >= 0 && r < rows && slotOf[r] >= 0) ++hits;
  }
  return hits;
}

}  // namespace host
}  // namespace wm

WM_OP(rowCacheLoad, Host, a) {
  const wm::TableRef t = a.cacheBackingTable(0, "table");
  const int64_t n = a.count(2, "n");
  wm::host::rowCacheLoad(t, a.ints(1, "ids", n), n, a.bytes(3, "hot", n * t.dim, wm::storageBytes(t.storage)), a.ints(4, "slotOf", t.rows));
}

WM_OP(rowCacheStore, Host, a) {
  const wm::TableRef t = a.cacheBackingTable(0, "table");
  const int64_t n = a.count(2, "n");
  wm::host::rowCacheStore(t, a.ints(1, "ids", n), n, a.bytes(3, "hot", n * t.dim, wm::storageBytes(t.storage)));
}

// Returns the cached lookups (hits: null on the host).
WM_OP(rowCacheHits, Host, a) {
  const int64_t rows = a.count(1, "rows"), n = a.count(4, "n");
  const wm::IndexType type = a.indexType(3, "indexType");
  a.returns(static_cast<double>(wm::host::rowCacheHits(a.ints(0, "slotOf", rows), rows, a.indices(2, "indices", type, n), type, n)));
}
