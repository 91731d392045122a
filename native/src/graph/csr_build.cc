// CSR from an edge list on the CPU: a counting sort by source, then each
// row sorted with duplicates and self loops dropped (rows in parallel), then
// the rows compacted. The same result as the TypeScript builder, faster.
#include <algorithm>
#include <vector>

#include "runtime/parallel.h"
#include "wm/graph_ops.h"
#include "wm/status.h"

namespace wm {
namespace host {

CsrArrays buildCsr(int64_t numVertices, const int32_t* src, const int32_t* dst, int64_t m, bool symmetric) {
  const int64_t total = symmetric ? 2 * m : m;
  std::vector<int64_t> start(static_cast<size_t>(numVertices) + 1, 0);
  for (int64_t i = 0; i < m; ++i) {
    WM_REQUIRE(src[i] >= 0 && src[i] < numVertices && dst[i] >= 0 && dst[i] < numVertices,
               "fromEdges: edge " + std::to_string(i) + " (" + std::to_string(src[i]) + ", " + std::to_string(dst[i]) +
                   ") names a vertex outside [0, " + std::to_string(numVertices) + ")");
    ++start[src[i] + 1];
    if (symmetric) ++start[dst[i] + 1];
  }
  for (int64_t v = 0; v < numVertices; ++v) start[v + 1] += start[v];
  std::vector<int32_t> col(static_cast<size_t>(total));
  std::vector<int64_t> fill(start.begin(), start.end() - 1);
  for (int64_t i = 0; i < m; ++i) {
    col[fill[src[i]]++] = dst[i];
    if (symmetric) col[fill[dst[i]]++] = src[i];
  }
  // Sort and deduplicate each row in place; kept[v] = entries row v keeps.
  std::vector<int64_t> kept(static_cast<size_t>(numVertices), 0);
  parallelFor(numVertices, 1024, [&](int64_t b, int64_t e) {
    for (int64_t v = b; v < e; ++v) {
      int32_t* row = col.data() + start[v];
      int64_t len = start[v + 1] - start[v];
      std::sort(row, row + len);
      int64_t k = 0;
      for (int64_t j = 0; j < len; ++j) {
        if (row[j] == v || (k > 0 && row[k - 1] == row[j])) continue;
        row[k++] = row[j];
      }
      kept[v] = k;
    }
  });
  CsrArrays out;
  out.rowPtr.assign(static_cast<size_t>(numVertices) + 1, 0);
  for (int64_t v = 0; v < numVertices; ++v) out.rowPtr[v + 1] = out.rowPtr[v] + kept[v];
  WM_REQUIRE(out.rowPtr[numVertices] <= INT32_MAX, "fromEdges: more than 2^31 - 1 CSR entries need 64-bit offsets");
  out.colIdx.resize(static_cast<size_t>(out.rowPtr[numVertices]));
  parallelFor(numVertices, 4096, [&](int64_t b, int64_t e) {
    for (int64_t v = b; v < e; ++v) std::copy(col.data() + start[v], col.data() + start[v] + kept[v], out.colIdx.data() + out.rowPtr[v]);
  });
  return out;
}

}  // namespace host
}  // namespace wm
