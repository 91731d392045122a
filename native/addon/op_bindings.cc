// Every op of the core's table (wm/op_registry.h) as one function of the
// addon: typed-array arguments run its host body, device addresses its
// device body.
#include <napi.h>

#include <string>

#include "napi_args.h"
#include "wm/op_timing.h"
#include "wm/runtime.h"

namespace {

Napi::Value CallOp(const Napi::CallbackInfo& info) {
  const auto* op = static_cast<const wm::OpEntry*>(info.Data());
  return wmnapi::guarded(info.Env(), [&]() -> Napi::Value {
    wmnapi::Args a(info, op->name.c_str());
    const bool host = a.onHost();
    const wm::OpBody body = host ? op->host : op->device;
    if (body == nullptr) {
      if (host) wm::fail(op->name + " runs on the GPU only: pass device addresses, not typed arrays");
      if (!wm::builtWithCuda())
        wm::fail(op->name + ": this build has no CUDA (nvcc was not found when it was built); pass typed arrays to run it on the CPU");
      wm::fail(op->name + " runs on the CPU only: pass typed arrays, not device addresses");
    }
    const wm::OpTimer timer(op->name.c_str(), !host);
    body(a);
    return a.hasResult() ? Napi::Value(Napi::Number::New(info.Env(), a.result())) : info.Env().Undefined();
  });
}

}  // namespace

void InitOps(Napi::Env env, Napi::Object exports) {
  for (const wm::OpEntry& op : wm::registeredOps())
    exports.Set(op.name, Napi::Function::New(env, CallOp, op.name, const_cast<wm::OpEntry*>(&op)));
}
