// Complex rows rotated by their phases on the CPU, and the backward pass, rows split over the thread pool.
#include "embedding/complex_rotation.h"

#include <algorithm>

#include "runtime/parallel.h"
#include "wm/op_registry.h"

namespace wm {
namespace host {

namespace {
int64_t grain(int64_t half) { return std::max<int64_t>(1, 8192 / std::max<int64_t>(half, 1)); }
}  // namespace

void complexRotation(int64_t rows, int64_t half, float scale, bool conj, const float* x, const float* phase, float* out) {
  parallelFor(rows, grain(half), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float *xr = x + r * 2 * half, *p = phase + r * half;
      float* o = out + r * 2 * half;
      for (int64_t c = 0; c < half; ++c) rotate(xr[c], xr[half + c], scale * p[c], conj, &o[c], &o[half + c]);
    }
  });
}

void complexRotationGrad(int64_t rows, int64_t half, float scale, bool conj, const float* x, const float* phase, const float* g, float* dx,
                         float* dPhase) {
  parallelFor(rows, grain(half), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t row = r * 2 * half;
      const float* p = phase + r * half;
      for (int64_t c = 0; c < half; ++c)
        rotateGrad(x[row + c], x[row + half + c], scale * p[c], conj, scale, g[row + c], g[row + half + c], &dx[row + c],
                   &dx[row + half + c], &dPhase[r * half + c]);
    }
  });
}

}  // namespace host
}  // namespace wm

// complexRotation(rows, half, scale, conj, x, phase, out)
WM_OP(complexRotation, Host, a) {
  const int64_t rows = a.count(0, "rows"), half = a.count(1, "half");
  wm::host::complexRotation(rows, half, static_cast<float>(a.number(2, "scale")), a.flag(3, "conj"), a.floats(4, "x", rows * 2 * half),
                            a.floats(5, "phase", rows * half), a.floats(6, "out", rows * 2 * half));
}

// complexRotationGrad(rows, half, scale, conj, x, phase, g, dx, dPhase)
WM_OP(complexRotationGrad, Host, a) {
  const int64_t rows = a.count(0, "rows"), half = a.count(1, "half");
  wm::host::complexRotationGrad(rows, half, static_cast<float>(a.number(2, "scale")), a.flag(3, "conj"), a.floats(4, "x", rows * 2 * half),
                                a.floats(5, "phase", rows * half), a.floats(6, "g", rows * 2 * half), a.floats(7, "dx", rows * 2 * half),
                                a.floats(8, "dPhase", rows * half));
}
