// N-API bindings of the fused dense optimizer steps (wm/dense_optimizer.h).
// A step's tensors come as one flat list, seven buffers per tensor in the
// order param, grad, m, v, outParam, outM, outV: device addresses on the
// GPU, Float32Arrays on the host.
#include <napi.h>

#include <string>

#include "napi_util.h"
#include "wm/dense_optimizer.h"

namespace {

using wmnapi::guarded;

constexpr uint32_t kBuffers = 7;

wm::AdamScalars scalarsFrom(const Napi::CallbackInfo& info, int first) {
  float v[8];
  for (int k = 0; k < 8; ++k) {
    if (!info[first + k].IsNumber()) throw Napi::TypeError::New(info.Env(), "denseAdam: scalar argument " + std::to_string(k) + " must be a number");
    v[k] = static_cast<float>(info[first + k].As<Napi::Number>().DoubleValue());
  }
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
}

Napi::Array listArg(const Napi::CallbackInfo& info, int i) {
  if (!info[i].IsArray() || info[i].As<Napi::Array>().Length() % kBuffers != 0)
    throw Napi::TypeError::New(info.Env(), "denseAdam: buffers must be an array of 7 entries per tensor");
  return info[i].As<Napi::Array>();
}

// denseAdam(addresses[7k], sizes[k], lr, beta1, beta2, epsilon, 1 - beta1, 1 - beta2, 1 - beta1^t, 1 - beta2^t)
Napi::Value DenseAdam(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    auto list = listArg(info, 0);
    if (!info[1].IsArray() || info[1].As<Napi::Array>().Length() * kBuffers != list.Length())
      throw Napi::TypeError::New(info.Env(), "denseAdam: sizes must hold one entry per tensor");
    auto sizes = info[1].As<Napi::Array>();
    std::vector<wm::AdamTensor<uint64_t>> tensors(sizes.Length());
    for (uint32_t t = 0; t < sizes.Length(); ++t) {
      uint64_t p[kBuffers];
      for (uint32_t k = 0; k < kBuffers; ++k) p[k] = static_cast<uint64_t>(list.Get(t * kBuffers + k).As<Napi::Number>().DoubleValue());
      tensors[t] = {p[0], p[1], p[2], p[3], p[4], p[5], p[6], sizes.Get(t).As<Napi::Number>().Int64Value()};
    }
    wm::denseAdam(tensors, scalarsFrom(info, 2));
    return info.Env().Undefined();
  });
}

// hostDenseAdam(arrays[7k], the same eight scalars): every array of a tensor has its length.
Napi::Value HostDenseAdam(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    auto list = listArg(info, 0);
    std::vector<wm::AdamTensor<float*>> tensors(list.Length() / kBuffers);
    for (uint32_t t = 0; t < tensors.size(); ++t) {
      float* p[kBuffers];
      size_t n = 0;
      for (uint32_t k = 0; k < kBuffers; ++k) {
        Napi::Value v = list.Get(t * kBuffers + k);
        if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
          throw Napi::TypeError::New(info.Env(), "hostDenseAdam: tensor " + std::to_string(t) + " buffer " + std::to_string(k) + " must be a Float32Array");
        auto a = v.As<Napi::Float32Array>();
        if (k == 0) n = a.ElementLength();
        if (a.ElementLength() != n)
          throw Napi::RangeError::New(info.Env(), "hostDenseAdam: tensor " + std::to_string(t) + "'s buffers differ in length");
        p[k] = a.Data();
      }
      tensors[t] = {p[0], p[1], p[2], p[3], p[4], p[5], p[6], static_cast<int64_t>(n)};
    }
    wm::host::denseAdam(tensors, scalarsFrom(info, 1));
    return info.Env().Undefined();
  });
}

}  // namespace

void InitOptimizers(Napi::Env env, Napi::Object exports) {
  exports.Set("denseAdam", Napi::Function::New(env, DenseAdam, "denseAdam"));
  exports.Set("hostDenseAdam", Napi::Function::New(env, HostDenseAdam, "hostDenseAdam"));
}
