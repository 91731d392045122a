// Argument rules the 2-D window ops share (their device and host bodies).
#pragma once
#include "wm/op_registry.h"
#include "wm/window2d.h"

namespace wm {

inline int64_t windowInSize(const Window2D& g) { return g.batch * g.inH * g.inW * g.chans; }
inline int64_t windowOutSize(const Window2D& g) { return g.batch * g.outH * g.outW * g.chans; }

inline PoolOp poolOpArg(const OpArgs& a, size_t i) {
  const int64_t op = a.count(i, "op");
  if (op > static_cast<int64_t>(PoolOp::Avg)) a.reject(i, "op", "must be 0 (max), 1 (argmax) or 2 (avg)");
  return static_cast<PoolOp>(op);
}

// An input gradient's dy [batch, dyH, dyW, ...] must cover the output's pixels.
inline void dyCoversOutput(const OpArgs& a, const Window2D& g, int64_t dyH, int64_t dyW) {
  if (dyH < g.outH || dyW < g.outW)
    fail(std::string(a.op()) + ": dy (" + std::to_string(dyH) + " x " + std::to_string(dyW) + ") must cover the output (" +
         std::to_string(g.outH) + " x " + std::to_string(g.outW) + ")");
}

}  // namespace wm
