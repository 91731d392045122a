// N-API bindings of the fused dense optimizer steps (wm/dense_optimizer.h).
// A step's tensors come as one flat list, seven buffers per tensor in the
// order param, grad, m, v, outParam, outM, outV: device addresses on the
// GPU, Float32Arrays on the host.
#include <napi.h>

#include <string>

#include "napi_args.h"
#include "wm/dense_optimizer.h"

namespace {

using wmnapi::guarded;

constexpr uint32_t kBuffers = 7;

wm::AdamScalars scalarsFrom(const Napi::CallbackInfo& info, int first) {
  float v[8];
  for (int k = 0; k < 8; ++k) {
    if (!info[first + k].IsNumber())
      throw Napi::TypeError::New(info.Env(), "denseAdam: scalar argument " + std::to_string(k) + " must be a number");
    v[k] = static_cast<float>(info[first + k].As<Napi::Number>().DoubleValue());
  }
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
}

Napi::Array listArg(const Napi::CallbackInfo& info, int i) {
  if (!info[i].IsArray() || info[i].As<Napi::Array>().Length() % kBuffers != 0)
    throw Napi::TypeError::New(info.Env(), "denseAdam: buffers must be an array of 7 entries per tensor");
  return info[i].As<Napi::Array>();
}

// denseAdam(buffers[7k], sizes[k], lr, beta1, beta2, epsilon, 1 - beta1, 1 - beta2, 1 - beta1^t, 1 - beta2^t):
// buffers are device addresses, or Float32Arrays (the CPU core) holding at least their tensor's size.
Napi::Value DenseAdam(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    auto list = listArg(info, 0);
    if (!info[1].IsArray() || info[1].As<Napi::Array>().Length() * kBuffers != list.Length())
      throw Napi::TypeError::New(info.Env(), "denseAdam: sizes must hold one entry per tensor");
    auto sizes = info[1].As<Napi::Array>();
    const bool host = list.Length() > 0 && list.Get(0u).IsTypedArray();
    std::vector<wm::AdamTensor<uint64_t>> device(host ? 0 : sizes.Length());
    std::vector<wm::AdamTensor<float*>> onHost(host ? sizes.Length() : 0);
    for (uint32_t t = 0; t < sizes.Length(); ++t) {
      const int64_t n = sizes.Get(t).As<Napi::Number>().Int64Value();
      uint64_t p[kBuffers];
      float* h[kBuffers];
      for (uint32_t k = 0; k < kBuffers; ++k) {
        Napi::Value v = list.Get(t * kBuffers + k);
        if (!host) {
          if (!v.IsNumber())
            throw Napi::TypeError::New(info.Env(), "denseAdam: tensor " + std::to_string(t) + " buffer " + std::to_string(k) +
                                                       " must be a device address like the first");
          p[k] = static_cast<uint64_t>(v.As<Napi::Number>().DoubleValue());
          continue;
        }
        if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
          throw Napi::TypeError::New(info.Env(), "denseAdam: tensor " + std::to_string(t) + " buffer " + std::to_string(k) +
                                                     " must be a Float32Array like the first");
        auto a = v.As<Napi::Float32Array>();
        if (static_cast<int64_t>(a.ElementLength()) < n)
          throw Napi::RangeError::New(
              info.Env(), "denseAdam: tensor " + std::to_string(t) + " buffer " + std::to_string(k) + " holds fewer than its size");
        h[k] = a.Data();
      }
      if (host)
        onHost[t] = {h[0], h[1], h[2], h[3], h[4], h[5], h[6], n};
      else
        device[t] = {p[0], p[1], p[2], p[3], p[4], p[5], p[6], n};
    }
    if (host)
      wm::host::denseAdam(onHost, scalarsFrom(info, 2));
    else
      wm::denseAdam(device, scalarsFrom(info, 2));
    return info.Env().Undefined();
  });
}

}  // namespace

void InitOptimizers(Napi::Env env, Napi::Object exports) { exports.Set("denseAdam", Napi::Function::New(env, DenseAdam, "denseAdam")); }
