// The elementwise product of rows of complex numbers stored as [real parts | imaginary parts] (half
// numbers a row), either factor conjugated first: out = a' * b', a' = conj(a) when conjA, b' likewise.
// The complex KGE models compose their queries with it (complEx: h * r and conj(r) * t; rotatE: a
// rotation); its gradients are products of the same kind, so one op serves both directions.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define WM_CPX_HD __host__ __device__ __forceinline__
#else
#define WM_CPX_HD inline
#endif

namespace wm {

// One coordinate: (ar, ai) * (br, bi) with the signs of the conjugations.
WM_CPX_HD void complexTimes(float ar, float ai, float br, float bi, bool conjA, bool conjB, float* re, float* im) {
  if (conjA) ai = -ai;
  if (conjB) bi = -bi;
  *re = ar * br - ai * bi;
  *im = ar * bi + ai * br;
}

// Device: a, b, out [rows, 2 half].
void complexProduct(int64_t rows, int64_t half, bool conjA, bool conjB, uint64_t a, uint64_t b, uint64_t out);

namespace host {
void complexProduct(int64_t rows, int64_t half, bool conjA, bool conjB, const float* a, const float* b, float* out);
}  // namespace host

}  // namespace wm
