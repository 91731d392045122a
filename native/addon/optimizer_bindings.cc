// Bindings of the fused dense optimizer steps (wm/dense_optimizer.h). A
// step's tensors come as one flat list, seven buffers per tensor in the
// order param, grad, m, v, outParam, outM, outV: device addresses on the
// GPU, Float32Arrays on the host.
#include <napi.h>

#include <string>
#include <vector>

#include "napi_args.h"
#include "wm/dense_optimizer.h"
#include "wm/op_timing.h"

namespace {

using wmnapi::Args;
using wmnapi::guarded;

constexpr uint32_t kBuffers = 7;

wm::AdamScalars scalarsFrom(const Args& a, size_t first) {
  static const char* const names[8] = {"lr", "beta1", "beta2", "epsilon", "1 - beta1", "1 - beta2", "1 - beta1^t", "1 - beta2^t"};
  float v[8];
  for (size_t k = 0; k < 8; ++k) v[k] = static_cast<float>(a.number(first + k, names[k]));
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
}

// denseAdam(buffers[7k], sizes[k], lr, beta1, beta2, epsilon, 1 - beta1, 1 - beta2, 1 - beta1^t, 1 - beta2^t):
// buffers are device addresses, or Float32Arrays (the CPU core) holding at least their tensor's size.
Napi::Value DenseAdam(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "denseAdam");
    if (!info[0].IsArray()) a.reject(0, "buffers", "must be an array of 7 buffers per tensor");
    auto list = info[0].As<Napi::Array>();
    const std::vector<int64_t> sizes = a.dims(1, "sizes");
    if (list.Length() != sizes.size() * kBuffers) a.reject(0, "buffers", "must hold 7 buffers per entry of sizes");
    const wm::AdamScalars scalars = scalarsFrom(a, 2);
    const bool host = list.Length() > 0 && list.Get(0u).IsTypedArray();
    std::vector<wm::AdamTensor<uint64_t>> device(host ? 0 : sizes.size());
    std::vector<wm::AdamTensor<float*>> onHost(host ? sizes.size() : 0);
    for (uint32_t t = 0; t < sizes.size(); ++t) {
      const int64_t n = sizes[t];
      if (n < 0) a.reject(1, "sizes", "must not hold negative sizes");
      uint64_t p[kBuffers];
      float* h[kBuffers];
      for (uint32_t k = 0; k < kBuffers; ++k) {
        const Napi::Value v = list.Get(t * kBuffers + k);
        const std::string which = "tensor " + std::to_string(t) + " buffer " + std::to_string(k);
        if (!host) {
          if (!v.IsNumber() || !(v.As<Napi::Number>().DoubleValue() >= 0))
            a.reject(0, "buffers", which + " must be a device address like the first");
          p[k] = static_cast<uint64_t>(v.As<Napi::Number>().DoubleValue());
          continue;
        }
        if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
          a.reject(0, "buffers", which + " must be a Float32Array like the first");
        auto arr = v.As<Napi::Float32Array>();
        if (static_cast<int64_t>(arr.ElementLength()) < n) a.reject(0, "buffers", which + " holds fewer than its size");
        h[k] = arr.Data();
      }
      if (host)
        onHost[t] = {h[0], h[1], h[2], h[3], h[4], h[5], h[6], n};
      else
        device[t] = {p[0], p[1], p[2], p[3], p[4], p[5], p[6], n};
    }
    const wm::OpTimer timer("denseAdam", !host);
    if (host)
      wm::host::denseAdam(onHost, scalars);
    else
      wm::denseAdam(device, scalars);
    return info.Env().Undefined();
  });
}

}  // namespace

void InitOptimizers(Napi::Env env, Napi::Object exports) { exports.Set("denseAdam", Napi::Function::New(env, DenseAdam, "denseAdam")); }
