// The addon's one argument reader: wm::OpArgs over a call's N-API values, so
// registered ops and the hand-written bindings (objects, handles) check their
// arguments the same way and fail with the same words. Core errors become
// JavaScript Errors carrying the core's message.
#pragma once
#include <napi.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "wm/op_registry.h"

namespace wmnapi {

inline uint8_t* typedBytes(const Napi::TypedArray& t) { return static_cast<uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset(); }

// Runs f; a wm::Error (or any std::exception) becomes a JavaScript Error.
template <typename F>
auto guarded(const Napi::Env& env, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Napi::Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, e.what());
  }
}

class Args : public wm::OpArgs {
 public:
  Args(const Napi::CallbackInfo& info, const char* op) : wm::OpArgs(op), info_(info) {}

  const Napi::CallbackInfo& info() const { return info_; }
  Napi::Value operator[](size_t i) const { return info_[i]; }

  size_t size() const override { return info_.Length(); }

  Kind kind(size_t i) const override {
    if (i >= info_.Length()) return Kind::Missing;
    const Napi::Value v = info_[i];
    switch (v.Type()) {
      case napi_undefined:
        return Kind::Missing;
      case napi_null:
        return Kind::Null;
      case napi_number:
        return Kind::Number;
      case napi_boolean:
        return Kind::Boolean;
      default:
        break;
    }
    if (v.IsTypedArray()) return Kind::Typed;
    if (v.IsArray()) return Kind::Array;
    return Kind::Other;
  }

  double rawNumber(size_t i) const override { return info_[i].As<Napi::Number>().DoubleValue(); }
  bool rawTruthy(size_t i) const override { return info_[i].ToBoolean().Value(); }

  std::vector<double> rawArray(size_t i) const override {
    auto a = info_[i].As<Napi::Array>();
    std::vector<double> out(a.Length());
    for (uint32_t k = 0; k < a.Length(); ++k) {
      const Napi::Value v = a.Get(k);
      out[k] = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : 0.5;  // 0.5: "not an integer"
    }
    return out;
  }

  Typed rawTyped(size_t i) const override {
    auto t = info_[i].As<Napi::TypedArray>();
    Element e = Element::Other;
    switch (t.TypedArrayType()) {
      case napi_int8_array:
        e = Element::Int8;
        break;
      case napi_uint8_array:
      case napi_uint8_clamped_array:
        e = Element::Uint8;
        break;
      case napi_int32_array:
        e = Element::Int32;
        break;
      case napi_float32_array:
        e = Element::Float32;
        break;
      case napi_float64_array:
        e = Element::Float64;
        break;
      default:
        break;
    }
    return Typed{typedBytes(t), static_cast<int64_t>(t.ElementLength()), e};
  }

  // Whether any argument is a typed array: the call's data lives on the host.
  bool onHost() const {
    for (size_t i = 0; i < info_.Length(); ++i)
      if (info_[i].IsTypedArray()) return true;
    return false;
  }

  // The N-API-only shapes: strings, objects, any typed array (its bytes).
  std::string string(size_t i, const char* name) const {
    if (!info_[i].IsString()) reject(i, name, "must be a string");
    return info_[i].As<Napi::String>().Utf8Value();
  }
  Napi::Object object(size_t i, const char* name) const {
    if (!info_[i].IsObject()) reject(i, name, "must be an object");
    return info_[i].As<Napi::Object>();
  }
  Napi::TypedArray typed(size_t i, const char* name) const {
    if (!info_[i].IsTypedArray()) reject(i, name, "must be a typed array");
    return info_[i].As<Napi::TypedArray>();
  }

 private:
  const Napi::CallbackInfo& info_;
};

}  // namespace wmnapi
