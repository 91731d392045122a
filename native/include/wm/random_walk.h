// Random walks over a CSR graph for node embeddings: DeepWalk's uniform walks
// and node2vec's second-order walks (return parameter p, in-out parameter q),
// the same on the GPU and the CPU. Every draw comes from a counter-based hash
// of (seed, walk, step, try), so a call is reproducible and both devices walk
// the same vertices.
#pragma once
#include <cstdint>

#include "wm/graph_ops.h"

namespace wm {

// node2vec's weights relative to the largest of (1/p, 1, 1/q), so a
// rejection try compares a uniform draw with a weight and does no arithmetic
// (the GPU and the CPU cannot round differently). Uniform walks: all ones.
struct WalkBias {
  float back;    // the vertex the walk came from: (1/p) / max
  float near;    // a neighbour of it: 1 / max
  float far;     // any other: (1/q) / max
  bool uniform;  // p = q = 1: first-order walks, no adjacency tests
};

// Rejection tries before the exact draw; either way the step follows
// node2vec's distribution exactly (the exact draw only runs after every try
// failed, which is independent of what it then draws).
constexpr int kWalkTries = 64;

// Uniform in [0, 1) with 24 random bits: exact in float on both sides.
WM_EHD float hashUnit(uint64_t h) { return static_cast<float>(h >> 40) * (1.0f / 16777216.0f); }

WM_EHD uint64_t walkHash(uint64_t seed, int64_t walk, int step, int k) {
  return sampleHash(seed ^ 0x77616c6bull, static_cast<uint64_t>(walk), (static_cast<uint64_t>(step) << 8) | static_cast<uint64_t>(k));
}

template <typename Off>
WM_EHD float walkWeight(const Off* rowPtr, const int32_t* colIdx, int32_t prev, int32_t x, const WalkBias& b) {
  if (x == prev) return b.back;
  return csrHasEdge(rowPtr, colIdx, prev, x) ? b.near : b.far;
}

// The vertex after cur (reached from prev; prev < 0 at the first step).
// A vertex without neighbours keeps the walk where it is.
template <typename Off>
WM_EHD int32_t walkStep(const Off* rowPtr, const int32_t* colIdx, int32_t prev, int32_t cur, uint64_t seed, int64_t walk, int step,
                        const WalkBias& b) {
  int64_t start = rowPtr[cur], deg = rowPtr[cur + 1] - start;
  if (deg == 0) return cur;
  if (b.uniform || prev < 0) return colIdx[start + hashBelow(walkHash(seed, walk, step, 0), deg)];
  // The edge test (a bisection of prev's row) decides only draws between
  // the near and far weights; the rest are settled without it.
  float lo = b.near < b.far ? b.near : b.far, hi = b.near < b.far ? b.far : b.near;
  for (int t = 0; t < kWalkTries; ++t) {
    int32_t x = colIdx[start + hashBelow(walkHash(seed, walk, step, 2 * t), deg)];
    float u = hashUnit(walkHash(seed, walk, step, 2 * t + 1));
    bool accept = x == prev ? u < b.back : u < lo ? true : u >= hi ? false : u < (csrHasEdge(rowPtr, colIdx, prev, x) ? b.near : b.far);
    if (accept) return x;
  }
  // Exact: a weighted choice over the row, the same double additions in the
  // same order on both sides (the product rounded on its own: no FMA).
  double total = 0;
  for (int64_t e = start; e < start + deg; ++e) total += walkWeight(rowPtr, colIdx, prev, colIdx[e], b);
  double u = static_cast<double>(hashUnit(walkHash(seed, walk, step, 2 * kWalkTries)));
#ifdef __CUDA_ARCH__
  double r = __dmul_rn(u, total);
#else
  double r = u * total;
#endif
  for (int64_t e = start; e < start + deg; ++e) {
    r -= walkWeight(rowPtr, colIdx, prev, colIdx[e], b);
    if (r < 0) return colIdx[e];
  }
  return colIdx[start + deg - 1];
}

// Walk `walk` from v: out[0] = v, out[1 .. length) the vertices after it.
template <typename Off>
WM_EHD void walkOne(const Off* rowPtr, const int32_t* colIdx, int32_t v, int64_t walk, int length, uint64_t seed, const WalkBias& b,
                    int32_t* out) {
  int32_t prev = -1, cur = v;
  if (length > 0) out[0] = v;
  for (int s = 1; s < length; ++s) {
    int32_t next = walkStep(rowPtr, colIdx, prev, cur, seed, walk, s, b);
    out[s] = next;
    prev = cur;
    cur = next;
  }
}

// Draw i of a uniform vertex id in [0, numVertices) (skip-gram negatives).
WM_EHD int32_t randomVertex(uint64_t seed, int64_t i, int64_t numVertices) {
  return static_cast<int32_t>(hashBelow(sampleHash(seed ^ 0x6e656773ull, static_cast<uint64_t>(i), 0), numVertices));
}

// Skip-gram pair p of walks [n, length] within `window`, in walkPairs' order:
// for each offset d = 1..min(window, length - 1) a block of n (length - d)
// pairs (walk[s], walk[s + d]) row by row, then the same pairs swapped.
WM_EHD void walkPair(const int32_t* walks, int64_t n, int length, int window, int64_t p, int32_t* center, int32_t* context) {
  int64_t q = p;
  for (int d = 1; d <= window && d < length; ++d) {
    const int64_t block = n * (length - d);
    if (q < 2 * block) {
      const bool swapped = q >= block;
      const int64_t r = swapped ? q - block : q;
      const int64_t w = r / (length - d), s = r % (length - d);
      const int32_t left = walks[w * length + s], right = walks[w * length + s + d];
      *center = swapped ? right : left;
      *context = swapped ? left : right;
      return;
    }
    q -= 2 * block;
  }
}

// Pairs of walks [n, length] within window: 2 sum over d of n (length - d).
WM_EHD int64_t walkPairCount(int64_t n, int length, int window) {
  int64_t total = 0;
  for (int d = 1; d <= window && d < length; ++d) total += 2 * n * (length - d);
  return total;
}

// Device: center/context [walkPairCount] from walks (int32).
void walkPairs(uint64_t walks, int64_t n, int length, int window, uint64_t center, uint64_t context);

// Device: out [n, length] (int32) = walks from starts[i]. Returns nothing; a
// start outside [0, numVertices) sets errorFlag (when given) to the lowest
// such position and its walk to zeros.
// wideOffsets: rowPtr holds int64 offsets (else int32).
void randomWalks(uint64_t rowPtr, uint64_t colIdx, int64_t numVertices, uint64_t starts, int64_t n, int length, uint64_t seed,
                 WalkBias bias, uint64_t out, uint64_t errorFlag, bool wideOffsets);

// Device: out[i] = randomVertex(seed, i, numVertices) for i < count (int32).
void randomVertices(int64_t count, int64_t numVertices, uint64_t seed, uint64_t out);

namespace host {
void walkPairs(const int32_t* walks, int64_t n, int length, int window, int32_t* center, int32_t* context);
void randomVertices(int64_t count, int64_t numVertices, uint64_t seed, int32_t* out);
// Returns the first start outside [0, numVertices) (nothing written) or -1.
template <typename Off>
int64_t randomWalks(const Off* rowPtr, const int32_t* colIdx, int64_t nnz, int64_t numVertices, const int32_t* starts, int64_t n,
                    int length, uint64_t seed, WalkBias bias, int32_t* out);
}  // namespace host

}  // namespace wm
