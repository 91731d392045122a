// Marks the float functions glibc's libmvec has had since 2.22 (and 2.35) as callable
// four (SSE) or eight (AVX2) at a time, so that g++ vectorises host loops that
// call them (glibc only declares this under -ffast-math, which we do not use:
// it would change results elsewhere). Include in host sources only, after
// <cmath>; CMake defines WM_HOST_LIBMVEC where the library links.
#pragma once
#include <cmath>

#if defined(WM_HOST_LIBMVEC) && !defined(__CUDACC__)
extern "C" {
__attribute__((simd("notinbranch"))) float expf(float) noexcept;
__attribute__((simd("notinbranch"))) float logf(float) noexcept;
__attribute__((simd("notinbranch"))) float sinf(float) noexcept;
__attribute__((simd("notinbranch"))) float cosf(float) noexcept;
#if defined(WM_HOST_LIBMVEC_2_35)
__attribute__((simd("notinbranch"))) float tanhf(float) noexcept;
__attribute__((simd("notinbranch"))) float expm1f(float) noexcept;
__attribute__((simd("notinbranch"))) float log1pf(float) noexcept;
#endif
}
#endif
