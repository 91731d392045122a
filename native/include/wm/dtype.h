// Element types the native kernels store. Matches the order used by the
// TypeScript side (src/native/addon.ts).
#pragma once
#include <cstddef>
#include <cstdint>

namespace wm {

enum class DType : int { F32 = 0, I32 = 1, Bool = 2 };

inline size_t dtypeSize(DType t) { return t == DType::Bool ? 1 : 4; }

}  // namespace wm
