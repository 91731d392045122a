// Uniform neighbour sampling on the CPU: the same per-seed rules (and hash)
// as the CUDA kernels, so both pick the same neighbours.
#include "graph/csr_guard.h"
#include "runtime/parallel.h"
#include "graph/sampling_rules.h"

namespace wm {
namespace host {
namespace {
template <typename Off>
int64_t firstBadSeed(const Off* rowPtr, int64_t nnz, const int32_t* seeds, int64_t n, int64_t nv) {
  CsrGuard<Off> g{rowPtr, nv, nnz};
  for (int64_t i = 0; i < n; ++i) {
    if (seeds[i] < 0 || seeds[i] >= nv) return i;
    if (!g.rowOk(seeds[i])) CsrGuard<Off>::changed("sampleNeighbors");
  }
  return -1;
}
}  // namespace

template <typename Off>
int64_t sampleWithReplacement(const Off* rowPtr, const int32_t* colIdx, int64_t nnz, int64_t nv, const int32_t* seeds, int64_t n,
                              int fanout, uint64_t seed, int32_t* out, bool keyByVertex) {
  int64_t bad = firstBadSeed(rowPtr, nnz, seeds, n, nv);
  if (bad >= 0) return bad;
  parallelFor(n, 2048, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      sampleOneWithReplacement(rowPtr, colIdx, seeds[i], keyByVertex ? seeds[i] : i, fanout, seed, out + i * fanout);
  });
  return -1;
}

template <typename Off>
int64_t sampleWithoutReplacement(const Off* rowPtr, const int32_t* colIdx, int64_t nnz, int64_t nv, const int32_t* seeds, int64_t n,
                                 int fanout, uint64_t seed, int32_t* offsets, int32_t* out, bool keyByVertex) {
  int64_t bad = firstBadSeed(rowPtr, nnz, seeds, n, nv);
  if (bad >= 0) return bad;
  offsets[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = rowPtr[seeds[i] + 1] - rowPtr[seeds[i]];
    offsets[i + 1] = offsets[i] + static_cast<int32_t>(d < fanout ? d : fanout);
  }
  if (!out) return -1;
  parallelFor(n, 2048, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      sampleOneWithoutReplacement(rowPtr, colIdx, seeds[i], keyByVertex ? seeds[i] : i, fanout, seed, out + offsets[i]);
  });
  return -1;
}

#define WM_SAMPLERS(Off)                                                                                                               \
  template int64_t sampleWithReplacement<Off>(const Off*, const int32_t*, int64_t, int64_t, const int32_t*, int64_t, int, uint64_t,    \
                                              int32_t*, bool);                                                                         \
  template int64_t sampleWithoutReplacement<Off>(const Off*, const int32_t*, int64_t, int64_t, const int32_t*, int64_t, int, uint64_t, \
                                                 int32_t*, int32_t*, bool);
WM_SAMPLERS(int32_t)
WM_SAMPLERS(int64_t)
#undef WM_SAMPLERS

}  // namespace host
}  // namespace wm
