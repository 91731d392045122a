// Host embedding kernels: the same gather / write / sparse-optimizer step as
// the CUDA ones, over the same PtrGen address generators and the same
// per-element rules (wm/embedding_math.h).
#include <algorithm>
#include <atomic>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/host_vectors.h"
#include "runtime/huge_pages.h"
#include "runtime/parallel.h"
#include "runtime/prefetch.h"
#include "wm/embedding.h"
#include "wm/embedding_math.h"
#include "wm/op_registry.h"
#include "wm/status.h"

namespace wm {
namespace host {
namespace {

template <typename T>
struct Rows {
  const TableRef& t;
  T* row(int64_t r) const {
    if (t.cached()) {
      const int32_t s = reinterpret_cast<const int32_t*>(t.cache.slotOf)[r];
      if (s >= 0) return reinterpret_cast<T*>(t.cache.hot) + s * t.dim;
    }
    return t.chunked ? PtrGen<const ChunkedHandle, T>(*t.chunked).At(r * t.dim) : PtrGen<T*, T>(reinterpret_cast<T*>(t.ptr)).At(r * t.dim);
  }
};

template <typename F>
void withStorage(const TableRef& t, F&& f) {
  switch (t.storage) {
    case StorageType::F32:
      f(Rows<float>{t});
      break;
    case StorageType::F16:
      f(Rows<Half16>{t});
      break;
    case StorageType::BF16:
      f(Rows<BFloat16>{t});
      break;
  }
}

int64_t indexAt(const void* idx, IndexType it, int64_t i) {
  return it == IndexType::I32 ? static_cast<const int32_t*>(idx)[i] : static_cast<const int64_t*>(idx)[i];
}

// Position of the first index outside [0, rows), or -1.
int64_t firstBad(const void* idx, IndexType it, int64_t n, int64_t rows) {
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = indexAt(idx, it, i);
    if (r < 0 || r >= rows) return i;
  }
  return -1;
}

}  // namespace

int64_t embeddingGather(const TableRef& t, const void* idx, IndexType it, int64_t n, float* out) {
  int64_t bad = firstBad(idx, it, n, t.rows);
  if (bad >= 0) return bad;
  preferHugePages(out, static_cast<size_t>(n * t.dim) * sizeof(float));
  withStorage(t, [&](auto rows) {
    using T = std::remove_pointer_t<decltype(rows.row(0))>;
    constexpr int64_t kAhead = 8;
    const int64_t rowBytes = t.dim * static_cast<int64_t>(sizeof(T));
    parallelFor(n, std::max<int64_t>(1, 4096 / std::max<int64_t>(t.dim, 1)), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        if (i + kAhead < e) prefetchRow(rows.row(indexAt(idx, it, i + kAhead)), rowBytes);
        auto* src = rows.row(indexAt(idx, it, i));
        float* o = out + i * t.dim;
        for (int64_t j = 0; j < t.dim; ++j) o[j] = toFloat(src[j]);
      }
    });
  });
  return -1;
}

void embeddingInit(const TableRef& t, int64_t first, int64_t count, uint64_t seed, int kind, float scale) {
  WM_REQUIRE(first >= 0 && count >= 0 && first + count <= t.rows, "embedding init: rows out of range");
  withStorage(t, [&](auto rows) {
    using T = std::remove_pointer_t<decltype(rows.row(0))>;
    parallelFor(count, std::max<int64_t>(1, 8192 / std::max<int64_t>(t.dim, 1)), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        int64_t r = first + i;
        T* w = rows.row(r);
        for (int64_t j = 0; j < t.dim; ++j)
          w[j] = fromFloat<T>(initialValue(seed, static_cast<uint64_t>((t.rowBase + r) * t.dim + j), kind, scale));
      }
    });
  });
}

int64_t embeddingWriteRows(const TableRef& t, const void* idx, IndexType it, int64_t n, const float* values) {
  int64_t bad = firstBad(idx, it, n, t.rows);
  if (bad >= 0) return bad;
  withStorage(t, [&](auto rows) {
    using T = std::remove_pointer_t<decltype(rows.row(0))>;
    for (int64_t i = 0; i < n; ++i) {
      T* dst = rows.row(indexAt(idx, it, i));
      for (int64_t j = 0; j < t.dim; ++j) dst[j] = fromFloat<T>(values[i * t.dim + j]);
    }
  });
  return -1;
}

namespace {

// Calls f(std::integral_constant<SparseOptimizer, opt>) so the per-element rule
// is compiled once per optimizer, without a switch inside the row loops.
template <typename F>
void withRule(SparseOptimizer opt, F&& f) {
  switch (opt) {
    case SparseOptimizer::SGD:
      f(std::integral_constant<SparseOptimizer, SparseOptimizer::SGD>{});
      break;
    case SparseOptimizer::Adam:
      f(std::integral_constant<SparseOptimizer, SparseOptimizer::Adam>{});
      break;
    case SparseOptimizer::AdaGrad:
      f(std::integral_constant<SparseOptimizer, SparseOptimizer::AdaGrad>{});
      break;
    case SparseOptimizer::RMSProp:
      f(std::integral_constant<SparseOptimizer, SparseOptimizer::RMSProp>{});
      break;
    case SparseOptimizer::RowAdaGrad:
      f(std::integral_constant<SparseOptimizer, SparseOptimizer::RowAdaGrad>{});
      break;
  }
}

// (row, position) pairs sorted by row then position. Rows and positions below
// 2^32 pack into one 64-bit key (row << 32 | position), sorted by a stable
// radix sort on the row's bits only, 8 per pass: positions start in order and
// stay in order within a row (200K keys on the CPU box: 2 ms; std::sort 14).
std::vector<std::pair<int64_t, int64_t>> sortedPairs(const void* idx, IndexType it, int64_t n, int64_t rows) {
  std::vector<std::pair<int64_t, int64_t>> order(n);
  if (rows <= (int64_t{1} << 32) && n <= (int64_t{1} << 32)) {
    std::vector<uint64_t> keys(n), spare(n);
    for (int64_t i = 0; i < n; ++i) keys[i] = (static_cast<uint64_t>(indexAt(idx, it, i)) << 32) | static_cast<uint64_t>(i);
    int bits = 1;
    while (bits < 32 && (int64_t{1} << bits) < rows) ++bits;
    for (int shift = 32; shift < 32 + bits; shift += 8) {
      int64_t start[257] = {};
      for (uint64_t k : keys) ++start[((k >> shift) & 255) + 1];
      for (int d = 0; d < 256; ++d) start[d + 1] += start[d];
      for (uint64_t k : keys) spare[start[(k >> shift) & 255]++] = k;
      keys.swap(spare);
    }
    for (int64_t i = 0; i < n; ++i) order[i] = {static_cast<int64_t>(keys[i] >> 32), static_cast<int64_t>(keys[i] & 0xffffffffu)};
    return order;
  }
  for (int64_t i = 0; i < n; ++i) order[i] = {indexAt(idx, it, i), i};
  std::sort(order.begin(), order.end());
  return order;
}

// One row's step from its summed gradient g (the rule per element, wm/embedding_math.h); returns the elements
// skipped (a non-finite gradient). The rule's state held in locals and every store made whole, so the loops
// are vector loops, run with the widest vectors this CPU has (runtime/host_vectors.h).
template <SparseOptimizer O, typename T>
__attribute__((always_inline)) inline int64_t stepRow(const OptimizerParams& p, T* __restrict__ w, float* __restrict__ s0,
                                                      float* __restrict__ s1, const float* __restrict__ g, int64_t dim) {
  constexpr bool first = O != SparseOptimizer::SGD, second = O == SparseOptimizer::Adam;
  int64_t skipped = 0;
  if constexpr (O == SparseOptimizer::RowAdaGrad) {
    const float squares = laneSum(dim, [&](int64_t j) { return rowAdaGradSquare(p, toFloat(w[j]), g[j]); });
    const float state = *s0 + (dim > 0 ? squares / static_cast<float>(dim) : 0.f);
    *s0 = state;
    for (int64_t e = 0; e < dim; ++e) {
      float x = toFloat(w[e]);
      const bool ok = rowAdaGradStep(p, x, g[e], state);
      w[e] = ok ? fromFloat<T>(x) : w[e];
      skipped += ok ? 0 : 1;
    }
    return skipped;
  } else {
    for (int64_t j = 0; j < dim; ++j) {
      float x = toFloat(w[j]), a = first ? s0[j] : 0.f, c = second ? s1[j] : 0.f;
      const bool ok = applyRule(O, p, x, &a, &c, g[j]);
      if (first) s0[j] = a;
      if (second) s1[j] = c;
      w[j] = ok ? fromFloat<T>(x) : w[j];
      skipped += ok ? 0 : 1;
    }
    return skipped;
  }
}

}  // namespace

int64_t embeddingApply(const TableRef& t, float* s0, float* s1, const void* idx, IndexType it, int64_t n, const float* grads,
                       SparseOptimizer opt, const OptimizerParams& p) {
  int64_t bad = firstBad(idx, it, n, t.rows);
  if (bad >= 0)
    fail("embedding apply: index " + std::to_string(indexAt(idx, it, bad)) + " at position " + std::to_string(bad) +
         " is outside the table's " + std::to_string(t.rows) + " rows");
  if (opt == SparseOptimizer::RowAdaGrad && s0 == nullptr) fail("embedding apply: row-wise adagrad needs state0 (one float per row)");
  // Group duplicate indices: sort (row, position) pairs; each run is one row.
  const auto order = sortedPairs(idx, it, n, t.rows);
  std::vector<int64_t> heads;
  for (int64_t i = 0; i < n; ++i)
    if (i == 0 || order[i].first != order[i - 1].first) heads.push_back(i);
  // Each head is a distinct row, so rows update in parallel without races.
  std::atomic<int64_t> skipped{0};
  withStorage(t, [&](auto rows) {
    using T = std::remove_pointer_t<decltype(rows.row(0))>;
    const int64_t groups = static_cast<int64_t>(heads.size());
    withRule(opt, [&](auto rule) {
      parallelFor(groups, std::max<int64_t>(1, 8192 / std::max<int64_t>(t.dim, 1)), [&](int64_t ub, int64_t ue) {
        std::vector<float> g(t.dim);
        int64_t mine = 0;
        // Rows and their state, a few groups ahead; the gradient rows (scattered: positions in row order), a few
        // positions ahead (see prefetchRow).
        constexpr int64_t kAhead = 4, kGradsAhead = 8;
        const int64_t width = stateWidth(opt, t.dim);
        const int64_t rowBytes = t.dim * static_cast<int64_t>(sizeof(T)), stateBytes = width * 4, gradBytes = t.dim * 4;
        const int64_t last = ue < groups ? heads[ue] : n;  // the end of this part's positions
        for (int64_t q = heads[ub]; q < std::min(heads[ub] + kGradsAhead, last); ++q)
          prefetchRow(grads + order[q].second * t.dim, gradBytes);
        for (int64_t u = ub; u < ue; ++u) {
          if (u + kAhead < ue) {
            const int64_t next = order[heads[u + kAhead]].first;
            prefetchRow<true>(rows.row(next), rowBytes);
            for (float* s : {s0, s1})
              if (s) prefetchRow<true>(s + next * width, stateBytes);
          }
          int64_t begin = heads[u], end = u + 1 < groups ? heads[u + 1] : n;
          int64_t r = order[begin].first;
          std::fill(g.begin(), g.end(), 0.f);
          for (int64_t q = begin; q < end; ++q) {
            if (q + kGradsAhead < last) prefetchRow(grads + order[q + kGradsAhead].second * t.dim, gradBytes);
            const float* gr = grads + order[q].second * t.dim;
            for (int64_t j = 0; j < t.dim; ++j) g[j] += gr[j];
          }
          mine += widest<stepRow<decltype(rule)::value, T>>(p, rows.row(r), s0 ? s0 + r * width : nullptr, s1 ? s1 + r * width : nullptr,
                                                            g.data(), t.dim);
        }
        skipped += mine;
      });
    });
  });
  return skipped.load();
}

}  // namespace host

}  // namespace wm

// The host bodies return the first bad index position (-1: none) for gather and write, and the
// skipped gradient elements for the optimizer step (a bad index throws before any write).
WM_OP(embeddingGather, Host, a) {
  const wm::TableRef t = a.table(0, "table");
  const wm::IndexType type = a.indexType(2, "indexType");
  const int64_t n = a.count(3, "n");
  a.returns(static_cast<double>(wm::host::embeddingGather(t, a.indices(1, "indices", type, n), type, n, a.floats(4, "out", n * t.dim))));
}

WM_OP(embeddingWriteRows, Host, a) {
  const wm::TableRef t = a.table(0, "table");
  const wm::IndexType type = a.indexType(2, "indexType");
  const int64_t n = a.count(3, "n");
  a.returns(
      static_cast<double>(wm::host::embeddingWriteRows(t, a.indices(1, "indices", type, n), type, n, a.floats(4, "values", n * t.dim))));
}

WM_OP(embeddingApply, Host, a) {
  const wm::TableRef t = a.table(0, "table");
  const wm::IndexType type = a.indexType(4, "indexType");
  const int64_t n = a.count(5, "n");
  const wm::SparseOptimizer opt = a.optimizer(7, "opt");
  const int64_t cells = t.rows * wm::stateWidth(opt, t.dim);
  a.returns(static_cast<double>(wm::host::embeddingApply(t, a.state(1, "state0", cells), a.state(2, "state1", cells),
                                                         a.indices(3, "indices", type, n), type, n, a.floats(6, "grads", n * t.dim), opt,
                                                         a.optimizerParams(8, "params"))));
}
