// Rows of complex numbers [real parts | imaginary parts] (half numbers a row) each rotated by its own
// phases: out = x * u with u = (cos p, sin p), or its conjugate, for p = scale * phase (RotatE's query:
// a head rotated by the relation, or a tail rotated back). Its backward pass gives the gradients of x and
// of the stored phases from the output's, in the same launch: no unit vectors held between them.
#pragma once
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define WM_ROT_HD __host__ __device__ __forceinline__
#else
#define WM_ROT_HD inline
#endif

namespace wm {

// One coordinate: (xr, xi) rotated by angle a (-a when conj).
WM_ROT_HD void rotate(float xr, float xi, float a, bool conj, float* re, float* im) {
  const float c = cosf(a), s = conj ? -sinf(a) : sinf(a);
  *re = xr * c - xi * s;
  *im = xr * s + xi * c;
}

// Its gradients given the output's (gr, gi): d x = g * conj(u), d phase = scale * g . d out / d a.
WM_ROT_HD void rotateGrad(float xr, float xi, float a, bool conj, float scale, float gr, float gi, float* dr, float* di, float* dPhase) {
  const float c = cosf(a), s = conj ? -sinf(a) : sinf(a);
  *dr = gr * c + gi * s;
  *di = gi * c - gr * s;
  // d u / d a = (-s', c') with s' = sin a: for the conjugate u = (c, -s'), d u / d a = (-s', -c).
  const float dc = conj ? s : -s, ds = conj ? -c : c;  // d cos-part / d a, d sin-part / d a
  *dPhase = scale * (gr * (xr * dc - xi * ds) + gi * (xr * ds + xi * dc));
}

// Device: x, out [rows, 2 half]; phase [rows, half].
void complexRotation(int64_t rows, int64_t half, float scale, bool conj, uint64_t x, uint64_t phase, uint64_t out);
// Device: x, g, dx [rows, 2 half]; phase, dPhase [rows, half].
void complexRotationGrad(int64_t rows, int64_t half, float scale, bool conj, uint64_t x, uint64_t phase, uint64_t g, uint64_t dx,
                         uint64_t dPhase);

namespace host {
void complexRotation(int64_t rows, int64_t half, float scale, bool conj, const float* x, const float* phase, float* out);
void complexRotationGrad(int64_t rows, int64_t half, float scale, bool conj, const float* x, const float* phase, const float* g, float* dx,
                         float* dPhase);
}  // namespace host

}  // namespace wm
