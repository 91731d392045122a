#include "graph/place_entries.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "runtime/parallel.h"
#include "wm/page_array.h"

namespace wm {
namespace host {

// Entries land at random over the columns, and a store that misses the caches (and, in a virtual
// machine, the TLB) costs hundreds of cycles; an atomic cursor per entry (a locked instruction on x86)
// would also wait out each miss before the next. So the edges go a chunk at a time through a bounded
// buffer, bucketed by blocks of rows (each thread its own positions: no atomics); then each block's
// entries are placed by one thread, its writes confined to the block's few MiB of columns.
void placeEntries(int64_t n, const int32_t* src, const int32_t* dst, int64_t m, bool symmetric, const int64_t* st, int32_t* c,
                  int64_t chunkEntries, int64_t minPerPart, int64_t blockEntries) {
  if (m == 0) return;
  const int64_t total = st[n];
  // Blocks of 2^shift rows, about blockEntries entries each on average.
  int shift = 0;
  while (shift < 31 && std::ldexp(static_cast<double>(total), shift) < static_cast<double>(n) * static_cast<double>(blockEntries)) ++shift;
  const int64_t blocks = ((n - 1) >> shift) + 1;
  const int64_t perEdge = symmetric ? 2 : 1;
  const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(m, chunkEntries / perEdge));
  PageArray bufferPages = PageArray::allocate(static_cast<size_t>(chunk * perEdge) * 8, "NativeGraph placement buffer");
  auto* buf = static_cast<int32_t*>(bufferPages.data());  // (row, column) pairs
  PageArray cursorPages = PageArray::allocate(static_cast<size_t>(n) * 8, "NativeGraph");
  auto* cur = static_cast<int64_t*>(cursorPages.data());
  std::memcpy(cur, st, static_cast<size_t>(n) * 8);
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(ThreadPool::get().workers() + 1, chunk / std::max<int64_t>(1, minPerPart)));
  std::vector<int64_t> counts(static_cast<size_t>(parts * blocks)), blockStart(static_cast<size_t>(blocks) + 1);
  for (int64_t e0 = 0; e0 < m; e0 += chunk) {
    const int64_t len = std::min(chunk, m - e0), per = (len + parts - 1) / parts;
    std::fill(counts.begin(), counts.end(), 0);
    ThreadPool::get().run(parts, [&](int64_t t) {
      int64_t* cnt = counts.data() + t * blocks;
      for (int64_t i = e0 + t * per, e = std::min(e0 + len, i + per); i < e; ++i) {
        ++cnt[src[i] >> shift];
        if (symmetric) ++cnt[dst[i] >> shift];
      }
    });
    // Each part's first position in each block's run of the buffer.
    int64_t at = 0;
    for (int64_t b = 0; b < blocks; ++b) {
      blockStart[static_cast<size_t>(b)] = at;
      for (int64_t t = 0; t < parts; ++t) {
        const int64_t k = counts[static_cast<size_t>(t * blocks + b)];
        counts[static_cast<size_t>(t * blocks + b)] = at;
        at += k;
      }
    }
    blockStart[static_cast<size_t>(blocks)] = at;
    ThreadPool::get().run(parts, [&](int64_t t) {
      int64_t* pos = counts.data() + t * blocks;
      for (int64_t i = e0 + t * per, e = std::min(e0 + len, i + per); i < e; ++i) {
        const int32_t u = src[i], v = dst[i];
        int64_t& p = pos[u >> shift];
        buf[2 * p] = u;
        buf[2 * p + 1] = v;
        ++p;
        if (symmetric) {
          int64_t& q = pos[v >> shift];
          buf[2 * q] = v;
          buf[2 * q + 1] = u;
          ++q;
        }
      }
    });
    parallelForByCost(
        blocks, minPerPart, [&](int64_t b) { return blockStart[static_cast<size_t>(b)]; },
        [&](int64_t b0, int64_t b1) {
          for (int64_t k = blockStart[static_cast<size_t>(b0)], e = blockStart[static_cast<size_t>(b1)]; k < e; ++k)
            c[cur[buf[2 * k]]++] = buf[2 * k + 1];
        });
  }
}

}  // namespace host
}  // namespace wm
