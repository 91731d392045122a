// What the tfjs kernels' CUDA and C++ bodies share beyond elementwise.h: the reduce op codes (the same
// order as src/kernel_utils/op_codes.ts) and the most dimensions a collapsed shape keeps. Each kernel's
// entry point lives in its own file, beside the WM_OP registration that calls it; its signature for
// JavaScript is in src/native/ops.ts.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/elementwise.h"
#include "wm/dtype.h"
#include "wm/window2d.h"

namespace wm {

constexpr int kMaxRank = 8;

enum class ReduceOp : int { Sum = 0, Prod, Max, Min, Mean, All, Any, ArgMax, ArgMin };

}  // namespace wm
