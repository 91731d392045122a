// Uniform neighbour sampling on the CPU: the same per-seed rules (and hash)
// as the CUDA kernels, so both pick the same neighbours.
#include "graph/csr_guard.h"
#include "runtime/parallel.h"
#include "graph/sampling_rules.h"

namespace wm {
namespace host {
namespace {
int64_t firstBadSeed(const int32_t* rowPtr, int64_t nnz, const int32_t* seeds, int64_t n, int64_t nv) {
  CsrGuard g{rowPtr, nv, nnz};
  for (int64_t i = 0; i < n; ++i) {
    if (seeds[i] < 0 || seeds[i] >= nv) return i;
    if (!g.rowOk(seeds[i])) CsrGuard::changed("sampleNeighbors");
  }
  return -1;
}
}  // namespace

int64_t sampleWithReplacement(const int32_t* rowPtr, const int32_t* colIdx, int64_t nnz, int64_t nv, const int32_t* seeds, int64_t n,
                              int fanout, uint64_t seed, int32_t* out, bool keyByVertex) {
  int64_t bad = firstBadSeed(rowPtr, nnz, seeds, n, nv);
  if (bad >= 0) return bad;
  parallelFor(n, 2048, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      sampleOneWithReplacement(rowPtr, colIdx, seeds[i], keyByVertex ? seeds[i] : i, fanout, seed, out + i * fanout);
  });
  return -1;
}

int64_t sampleWithoutReplacement(const int32_t* rowPtr, const int32_t* colIdx, int64_t nnz, int64_t nv, const int32_t* seeds, int64_t n,
                                 int fanout, uint64_t seed, int32_t* offsets, int32_t* out, bool keyByVertex) {
  int64_t bad = firstBadSeed(rowPtr, nnz, seeds, n, nv);
  if (bad >= 0) return bad;
  offsets[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    int32_t d = rowPtr[seeds[i] + 1] - rowPtr[seeds[i]];
    offsets[i + 1] = offsets[i] + (d < fanout ? d : fanout);
  }
  if (!out) return -1;
  parallelFor(n, 2048, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      sampleOneWithoutReplacement(rowPtr, colIdx, seeds[i], keyByVertex ? seeds[i] : i, fanout, seed, out + offsets[i]);
  });
  return -1;
}

}  // namespace host
}  // namespace wm
