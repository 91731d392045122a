// Distinct ids in order of first appearance and each id's new one, through a mark per vertex of the
// id space (its first position, or -1; every mark -1 again on return): what one pass in order makes,
// in parallel parts (one part: that pass, the mark holding the new id). 1. each position claims its id's mark with the smallest position (a
// compare and swap); 2. the first appearances are counted per part and numbered in order; 3. every position reads its id's number through
// the mark; 4. the marks are cleared.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/parallel.h"
#include "wm/op_registry.h"

namespace wm {
namespace host {

int64_t relabelByMarks(const int32_t* all, int64_t n, int32_t* marks, int32_t* unique, int32_t* inverse) {
  static_assert(sizeof(std::atomic<int32_t>) == sizeof(int32_t), "marks are claimed in place");
  auto* claim = reinterpret_cast<std::atomic<int32_t>*>(marks);
  constexpr int64_t kPerPart = 1 << 16;
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(ThreadPool::get().workers() + 1, n / kPerPart));
  if (parts == 1) {  // one pass in order
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) {
      int32_t& m = marks[all[i]];
      if (m < 0) {
        m = static_cast<int32_t>(count);
        unique[count++] = all[i];
      }
      inverse[i] = m;
    }
    for (int64_t j = 0; j < count; ++j) marks[unique[j]] = -1;
    return count;
  }
  auto range = [&](int64_t p) { return std::make_pair(n * p / parts, n * (p + 1) / parts); };
  ThreadPool::get().run(parts, [&](int64_t p) {
    auto [b, e] = range(p);
    for (int64_t i = b; i < e; ++i) {
      std::atomic<int32_t>& m = claim[all[i]];
      int32_t cur = m.load(std::memory_order_relaxed);
      while ((cur < 0 || cur > i) && !m.compare_exchange_weak(cur, static_cast<int32_t>(i), std::memory_order_relaxed)) {
      }
    }
  });
  // inverse holds, at a first appearance, its number (the other positions are written in step 3).
  std::vector<int64_t> firsts(parts + 1, 0);
  ThreadPool::get().run(parts, [&](int64_t p) {
    auto [b, e] = range(p);
    int64_t c = 0;
    for (int64_t i = b; i < e; ++i) c += claim[all[i]].load(std::memory_order_relaxed) == i;
    firsts[p + 1] = c;
  });
  for (int64_t p = 0; p < parts; ++p) firsts[p + 1] += firsts[p];
  ThreadPool::get().run(parts, [&](int64_t p) {
    auto [b, e] = range(p);
    int64_t next = firsts[p];
    for (int64_t i = b; i < e; ++i)
      if (claim[all[i]].load(std::memory_order_relaxed) == i) {
        unique[next] = all[i];
        inverse[i] = static_cast<int32_t>(next++);
      }
  });
  ThreadPool::get().run(parts, [&](int64_t p) {
    auto [b, e] = range(p);
    for (int64_t i = b; i < e; ++i) {
      const int32_t first = claim[all[i]].load(std::memory_order_relaxed);
      if (first != i) inverse[i] = inverse[first];
    }
  });
  const int64_t count = firsts[parts];
  ThreadPool::get().run(parts, [&](int64_t p) {
    for (int64_t j = count * p / parts; j < count * (p + 1) / parts; ++j) claim[unique[j]].store(-1, std::memory_order_relaxed);
  });
  return count;
}

}  // namespace host
}  // namespace wm

// relabelByMarks(all, n, marks, numMarks, unique, inverse) -> the number of distinct ids. Every mark must be -1, and is again
// on return; every id in [0, numMarks).
WM_OP(relabelByMarks, Host, a) {
  const int64_t n = a.count(1, "n"), numMarks = a.count(3, "numMarks");
  if (n > 2147483647) a.reject(1, "n", "must be below 2^31, got " + std::to_string(n));
  const int32_t* all = a.ints(0, "all", n);
  int32_t* marks = a.ints(2, "marks", numMarks);
  for (int64_t i = 0; i < n; ++i)
    if (all[i] < 0 || all[i] >= numMarks)
      a.reject(0, "all",
               "entry " + std::to_string(i) + " = " + std::to_string(all[i]) + " is outside [0, " + std::to_string(numMarks) + ")");
  a.returns(static_cast<double>(wm::host::relabelByMarks(all, n, marks, a.ints(4, "unique", n), a.ints(5, "inverse", n))));
}
