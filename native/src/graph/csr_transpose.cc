// A host CSR block transposed (the backward direction of a sampled block's product): entry e of row r
// becomes row colIdx[e]'s entry naming r, with its forward position e and, where weights are given,
// entryWeight[e] x rowWeight[r]. A counting sort: rows split into parts by entries, each part counting
// its columns and then placing its entries after the earlier parts' ones, so the entries of a
// transposed row keep the order of the forward rows: what one pass in order makes.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/parallel.h"
#include "wm/op_registry.h"

namespace wm {
namespace host {

void csrTranspose(const int32_t* rowPtr, const int32_t* colIdx, int64_t numRows, int64_t numCols, const float* entryWeight,
                  const float* rowWeight, int32_t* outPtr, int32_t* outCol, int32_t* outEdge, float* outWeight) {
  const int64_t m = rowPtr[numRows];
  // Parts of about equal entries; one part's counts are numCols words, so parts only where entries outnumber them.
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(ThreadPool::get().workers() + 1, m / std::max<int64_t>(numCols, 65536)));
  std::vector<int64_t> firstRow(parts + 1, numRows);
  firstRow[0] = 0;
  for (int64_t p = 1; p < parts; ++p)
    firstRow[p] = std::upper_bound(rowPtr, rowPtr + numRows + 1, static_cast<int32_t>(m * p / parts)) - rowPtr - 1;
  std::vector<std::vector<int32_t>> at(parts, std::vector<int32_t>(numCols, 0));
  ThreadPool::get().run(parts, [&](int64_t p) {
    int32_t* count = at[p].data();
    for (int64_t e = rowPtr[firstRow[p]]; e < rowPtr[firstRow[p + 1]]; ++e) ++count[colIdx[e]];
  });
  // Each part's first slot per column: the columns in order, within a column the parts in order.
  int64_t next = 0;
  for (int64_t c = 0; c < numCols; ++c) {
    outPtr[c] = static_cast<int32_t>(next);
    for (int64_t p = 0; p < parts; ++p) {
      const int64_t n = at[p][c];
      at[p][c] = static_cast<int32_t>(next);
      next += n;
    }
  }
  outPtr[numCols] = static_cast<int32_t>(next);
  ThreadPool::get().run(parts, [&](int64_t p) {
    int32_t* slot = at[p].data();
    for (int64_t r = firstRow[p]; r < firstRow[p + 1]; ++r) {
      const float rw = rowWeight ? rowWeight[r] : 1.f;
      for (int64_t e = rowPtr[r]; e < rowPtr[r + 1]; ++e) {
        const int32_t to = slot[colIdx[e]]++;
        outCol[to] = static_cast<int32_t>(r);
        outEdge[to] = static_cast<int32_t>(e);
        if (outWeight) outWeight[to] = (entryWeight ? entryWeight[e] : 1.f) * rw;
      }
    }
  });
}

}  // namespace host
}  // namespace wm

// csrTranspose(rowPtr, colIdx, numRows, numCols, entryWeight, rowWeight, outRowPtr, outColIdx, outEdge, outWeight): the
// weights null where absent; outWeight given exactly when a weight is.
WM_OP(csrTranspose, Host, a) {
  const int64_t rows = a.count(2, "numRows"), cols = a.count(3, "numCols");
  const int64_t m = a.csr(0, 1, rows, cols);
  const float* entryWeight = a.floatsOrNull(4, "entryWeight", m);
  const float* rowWeight = a.floatsOrNull(5, "rowWeight", rows);
  float* outWeight = a.floatsOrNull(9, "outWeight", m);
  if ((outWeight != nullptr) != (entryWeight != nullptr || rowWeight != nullptr))
    a.reject(9, "outWeight", "must be given exactly when entryWeight or rowWeight is");
  wm::host::csrTranspose(a.ints(0, "rowPtr", rows + 1), a.ints(1, "colIdx", m), rows, cols, entryWeight, rowWeight,
                         a.ints(6, "outRowPtr", cols + 1), a.ints(7, "outColIdx", m), a.ints(8, "outEdge", m), outWeight);
}
