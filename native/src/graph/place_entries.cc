#include "graph/place_entries.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "runtime/parallel.h"

namespace wm {
namespace host {

// Entries land at random over the columns, and a store that misses the caches (and, in a virtual
// machine, the TLB) costs hundreds of cycles; an atomic cursor per entry (a locked instruction on x86)
// would also wait out each miss before the next. So the edges go a chunk at a time through a bounded
// buffer, bucketed by blocks of rows (each thread its own positions: no atomics); then each block's
// entries are placed by one thread, its writes confined to the block's few MiB of columns.
EntryPlacer::EntryPlacer(int64_t n, const int64_t* st, int32_t* c, bool symmetric, int64_t edges, const PlacementOptions& o)
    : c_(c), symmetric_(symmetric), minPerPart_(std::max<int64_t>(1, o.minPerPart)) {
  if (n <= 0) return;
  const int64_t total = st[n];
  // Blocks of 2^shift rows, about blockEntries entries each on average.
  while (shift_ < 31 &&
         std::ldexp(static_cast<double>(total), static_cast<int>(shift_)) < static_cast<double>(n) * static_cast<double>(o.blockEntries))
    ++shift_;
  blocks_ = ((n - 1) >> shift_) + 1;
  const int64_t perEdge = symmetric ? 2 : 1;
  // By the edges, not the entries: R-MAT with few vertices kept draws many edges for few entries.
  chunk_ = std::max<int64_t>(1, std::min<int64_t>(edges, o.chunkEntries / perEdge));
  buffer_ = PageArray::allocate(static_cast<size_t>(chunk_ * perEdge) * 8, "NativeGraph placement buffer");
  cursors_ = PageArray::allocate(static_cast<size_t>(n) * 8, "NativeGraph placement cursors");
  std::memcpy(cursors_.data(), st, static_cast<size_t>(n) * 8);
  parts_ = std::max<int64_t>(1, std::min<int64_t>(ThreadPool::get().workers() + 1, chunk_ / minPerPart_));
  counts_.resize(static_cast<size_t>(parts_ * blocks_));
  blockStart_.resize(static_cast<size_t>(blocks_) + 1);
}

void EntryPlacer::place(const int32_t* src, const int32_t* dst, int64_t m) {
  auto* buf = static_cast<int32_t*>(buffer_.data());  // (row, column) pairs
  auto* cur = static_cast<int64_t*>(cursors_.data());
  const int64_t shift = shift_, blocks = blocks_, parts = parts_;
  const bool symmetric = symmetric_;
  for (int64_t e0 = 0; e0 < m; e0 += chunk_) {
    const int64_t len = std::min(chunk_, m - e0), per = (len + parts - 1) / parts;
    std::fill(counts_.begin(), counts_.end(), 0);
    // f(u, v) for each entry (row u, column v) of part t's edges of this chunk (non-edges skipped).
    auto eachEntry = [&](int64_t t, auto&& f) {
      for (int64_t i = e0 + t * per, e = std::min(e0 + len, i + per); i < e; ++i) {
        if (src[i] < 0) continue;
        f(src[i], dst[i]);
        if (symmetric) f(dst[i], src[i]);
      }
    };
    ThreadPool::get().run(parts, [&](int64_t t) {
      int64_t* cnt = counts_.data() + t * blocks;
      eachEntry(t, [&](int32_t u, int32_t) { ++cnt[u >> shift]; });
    });
    // Each part's first position in each block's run of the buffer.
    int64_t at = 0;
    for (int64_t b = 0; b < blocks; ++b) {
      blockStart_[static_cast<size_t>(b)] = at;
      for (int64_t t = 0; t < parts; ++t) {
        const int64_t k = counts_[static_cast<size_t>(t * blocks + b)];
        counts_[static_cast<size_t>(t * blocks + b)] = at;
        at += k;
      }
    }
    blockStart_[static_cast<size_t>(blocks)] = at;
    ThreadPool::get().run(parts, [&](int64_t t) {
      int64_t* pos = counts_.data() + t * blocks;
      eachEntry(t, [&](int32_t u, int32_t v) {
        const int64_t q = pos[u >> shift]++;
        buf[2 * q] = u;
        buf[2 * q + 1] = v;
      });
    });
    int32_t* c = c_;
    parallelForByCost(
        blocks, minPerPart_, [&](int64_t b) { return blockStart_[static_cast<size_t>(b)]; },
        [&](int64_t b0, int64_t b1) {
          for (int64_t k = blockStart_[static_cast<size_t>(b0)], e = blockStart_[static_cast<size_t>(b1)]; k < e; ++k)
            c[cur[buf[2 * k]]++] = buf[2 * k + 1];
        });
  }
}

void placeEntries(int64_t n, const int32_t* src, const int32_t* dst, int64_t m, bool symmetric, const int64_t* st, int32_t* c,
                  const PlacementOptions& o) {
  if (m == 0) return;
  EntryPlacer(n, st, c, symmetric, m, o).place(src, dst, m);
}

}  // namespace host
}  // namespace wm
