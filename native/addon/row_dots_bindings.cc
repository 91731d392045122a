// N-API bindings of row dots (wm/row_dots.h): device addresses or, for the
// CPU core, Float32Arrays checked against the shapes first.
#include <napi.h>

#include "checked_args.h"
#include "napi_util.h"
#include "wm/row_dots.h"

namespace {

using wmnapi::Args;
using wmnapi::guarded;

// rowDots(a, b, n, m, d, out)
Napi::Value RowDots(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args x(info, "rowDots");
    const int64_t n = x.integer(2, "n"), m = x.integer(3, "m"), d = x.integer(4, "d");
    if (x.device) {
      wm::rowDots(x.ptr(0, "a"), x.ptr(1, "b"), n, m, d, x.ptr(5, "out"));
    } else {
      wm::host::rowDots(x.host<float>(0, "a", n * d), x.host<float>(1, "b", m * n * d), n, m, d, x.host<float>(5, "out", m * n));
    }
    return info.Env().Undefined();
  });
}

// rowDotsGrad(a, b, g, n, m, d, dA, dB)
Napi::Value RowDotsGrad(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args x(info, "rowDotsGrad");
    const int64_t n = x.integer(3, "n"), m = x.integer(4, "m"), d = x.integer(5, "d");
    if (x.device) {
      wm::rowDotsGrad(x.ptr(0, "a"), x.ptr(1, "b"), x.ptr(2, "g"), n, m, d, x.ptr(6, "dA"), x.ptr(7, "dB"));
    } else {
      wm::host::rowDotsGrad(x.host<float>(0, "a", n * d), x.host<float>(1, "b", m * n * d), x.host<float>(2, "g", m * n), n, m, d,
                            x.host<float>(6, "dA", n * d), x.host<float>(7, "dB", m * n * d));
    }
    return info.Env().Undefined();
  });
}

}  // namespace

void InitRowDots(Napi::Env env, Napi::Object exports) {
  exports.Set("rowDots", Napi::Function::New(env, RowDots, "rowDots"));
  exports.Set("rowDotsGrad", Napi::Function::New(env, RowDotsGrad, "rowDotsGrad"));
}
