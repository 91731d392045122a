// Dot products of each row of a [n, d] with the matching row of every block
// of b [m, n, d] — out[j, i] = a[i] . b[j, i] — and their gradient, as one
// native op each way (skip-gram scores: centers against their positive and
// negative contexts). float32; sums in float, in a fixed order per side.
#pragma once
#include <cstdint>

namespace wm {

// Device: out [m, n].
void rowDots(uint64_t a, uint64_t b, int64_t n, int64_t m, int64_t d, uint64_t out);
// Device: dA[i] = sum over j of g[j, i] b[j, i] (j in order), dB[j, i] = g[j, i] a[i].
void rowDotsGrad(uint64_t a, uint64_t b, uint64_t g, int64_t n, int64_t m, int64_t d, uint64_t dA, uint64_t dB);

namespace host {
void rowDots(const float* a, const float* b, int64_t n, int64_t m, int64_t d, float* out);
void rowDotsGrad(const float* a, const float* b, const float* g, int64_t n, int64_t m, int64_t d, float* dA, float* dB);
}  // namespace host

}  // namespace wm
