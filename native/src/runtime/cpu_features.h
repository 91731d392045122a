// Run-time CPU features for the host kernels that have AVX2 (and AVX-512) variants
// (the build targets baseline x86-64). WM_HOST_AVX2=0 forces the plain loops (to
// test them on a machine that has AVX2).
#pragma once
#include <cstdlib>
#include <string>

#if defined(__x86_64__) && defined(__GNUC__)
#define WM_HOST_AVX2 1
#endif

namespace wm {
namespace host {

#ifdef WM_HOST_AVX2
inline bool hasAvx2Fma() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                          !(std::getenv("WM_HOST_AVX2") && std::string(std::getenv("WM_HOST_AVX2")) == "0");
  return yes;
}

// AVX-512 (F) for the matrix product's wider tiles; WM_HOST_AVX512=0 (or WM_HOST_AVX2=0) turns it off.
inline bool hasAvx512() {
  static const bool yes = hasAvx2Fma() && __builtin_cpu_supports("avx512f") &&
                          !(std::getenv("WM_HOST_AVX512") && std::string(std::getenv("WM_HOST_AVX512")) == "0");
  return yes;
}
#endif

}  // namespace host
}  // namespace wm
