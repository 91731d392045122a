// N-API bindings of graph attention's three passes (wm/graph_ops.h). Buffers
// are device addresses (numbers: CUDA) or typed arrays (the CPU core, whose
// sizes and entries are checked here first: a wrong one is an error, not a
// stray read). The CSR arrays of a CsrBlock were checked when it was made.
#include <napi.h>

#include <string>
#include <type_traits>

#include "checked_args.h"
#include "napi_util.h"
#include "wm/graph_ops.h"

namespace {

using wmnapi::Args;
using wmnapi::guarded;

// The inputs the forward and the row pass share, as host arrays checked
// against the block: arguments 0-1 (the CSR) and 4-6 (feat, src, dst).
struct HostRowInputs {
  const int32_t* rowPtr;
  const int32_t* colIdx;
  int64_t nnz;
  const float* feat;
  const float* src;
  const float* dst;

  HostRowInputs(const Args& a, int64_t rows, int64_t cols, int64_t heads, int64_t dim)
      : rowPtr(a.host<int32_t>(0, "rowPtr", rows + 1)),
        colIdx(a.host<int32_t>(1, "colIdx", 0)),
        nnz(a.csr(rowPtr, colIdx, 1, rows, cols)),
        feat(a.host<float>(4, "feat", cols * heads * dim)),
        src(a.host<float>(5, "src", cols * heads)),
        dst(a.host<float>(6, "dst", rows * heads)) {}
};

// gatForward(rowPtr, colIdx, numRows, numCols, feat, src, dst, heads, dim, slope, out, alpha)
Napi::Value GatForward(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&] {
    Args a(info, "gatForward");
    const int64_t rows = a.integer(2, "numRows"), cols = a.integer(3, "numCols"), heads = a.integer(7, "heads"), dim = a.integer(8, "dim");
    const float slope = a.number(9, "slope");
    if (a.device) {
      wm::gatForward(a.ptr(0, "rowPtr"), a.ptr(1, "colIdx"), rows, a.ptr(4, "feat"), a.ptr(5, "src"), a.ptr(6, "dst"), heads, dim, slope,
                     a.ptr(10, "out"), a.ptr(11, "alpha"));
    } else {
      const HostRowInputs in(a, rows, cols, heads, dim);
      auto* out = a.host<float>(10, "out", rows * heads * dim);
      auto* alpha = a.host<float>(11, "alpha", in.nnz * heads);
      wm::host::gatForward(in.rowPtr, in.colIdx, rows, in.feat, in.src, in.dst, heads, dim, slope, out, alpha);
    }
    return info.Env().Undefined();
  });
}

// gatBackwardRows(rowPtr, colIdx, numRows, numCols, feat, src, dst, heads, dim, slope, alpha, dOut, dz, dDst)
Napi::Value GatBackwardRows(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&] {
    Args a(info, "gatBackwardRows");
    const int64_t rows = a.integer(2, "numRows"), cols = a.integer(3, "numCols"), heads = a.integer(7, "heads"), dim = a.integer(8, "dim");
    const float slope = a.number(9, "slope");
    if (a.device) {
      wm::gatBackwardRows(a.ptr(0, "rowPtr"), a.ptr(1, "colIdx"), rows, a.ptr(4, "feat"), a.ptr(5, "src"), a.ptr(6, "dst"), heads, dim,
                          slope, a.ptr(10, "alpha"), a.ptr(11, "dOut"), a.ptr(12, "dz"), a.ptr(13, "dDst"));
    } else {
      const HostRowInputs in(a, rows, cols, heads, dim);
      auto* alpha = a.host<float>(10, "alpha", in.nnz * heads);
      auto* dOut = a.host<float>(11, "dOut", rows * heads * dim);
      auto* dz = a.host<float>(12, "dz", in.nnz * heads);
      auto* dDst = a.host<float>(13, "dDst", rows * heads);
      wm::host::gatBackwardRows(in.rowPtr, in.colIdx, rows, in.feat, in.src, in.dst, heads, dim, slope, alpha, dOut, dz, dDst);
    }
    return info.Env().Undefined();
  });
}

// gatBackwardCols(rowPtrT, colIdxT, edgeT, numCols, numRows, alpha, dz, dOut, heads, dim, dFeat, dSrc)
Napi::Value GatBackwardCols(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&] {
    Args a(info, "gatBackwardCols");
    const int64_t cols = a.integer(3, "numCols"), rows = a.integer(4, "numRows"), heads = a.integer(8, "heads"), dim = a.integer(9, "dim");
    if (a.device) {
      wm::gatBackwardCols(a.ptr(0, "rowPtrT"), a.ptr(1, "colIdxT"), a.ptr(2, "edgeT"), cols, a.ptr(5, "alpha"), a.ptr(6, "dz"),
                          a.ptr(7, "dOut"), heads, dim, a.ptr(10, "dFeat"), a.ptr(11, "dSrc"));
    } else {
      auto* rowPtrT = a.host<int32_t>(0, "rowPtrT", cols + 1);
      auto* colIdxT = a.host<int32_t>(1, "colIdxT", 0);
      const int64_t nnz = a.csr(rowPtrT, colIdxT, 1, cols, rows);
      auto* edgeT = a.host<int32_t>(2, "edgeT", nnz);
      for (int64_t e = 0; e < nnz; ++e) {
        if (edgeT[e] < 0 || edgeT[e] >= nnz)
          throw Napi::RangeError::New(info.Env(), "gatBackwardCols: edgeT[" + std::to_string(e) + "] is outside [0, " + std::to_string(nnz) + ")");
      }
      auto* alpha = a.host<float>(5, "alpha", nnz * heads);
      auto* dz = a.host<float>(6, "dz", nnz * heads);
      auto* dOut = a.host<float>(7, "dOut", rows * heads * dim);
      auto* dFeat = a.host<float>(10, "dFeat", cols * heads * dim);
      auto* dSrc = a.host<float>(11, "dSrc", cols * heads);
      wm::host::gatBackwardCols(rowPtrT, colIdxT, edgeT, cols, alpha, dz, dOut, heads, dim, dFeat, dSrc);
    }
    return info.Env().Undefined();
  });
}

}  // namespace

void InitGat(Napi::Env env, Napi::Object exports) {
  exports.Set("gatForward", Napi::Function::New(env, GatForward, "gatForward"));
  exports.Set("gatBackwardRows", Napi::Function::New(env, GatBackwardRows, "gatBackwardRows"));
  exports.Set("gatBackwardCols", Napi::Function::New(env, GatBackwardCols, "gatBackwardCols"));
}
