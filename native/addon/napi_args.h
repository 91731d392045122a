// The addon's one argument reader: wm::OpArgs over a call's N-API values, so
// registered ops and the hand-written bindings (objects, handles) check their
// arguments the same way and fail with the same words. Core errors become
// JavaScript Errors carrying the core's message.
#pragma once
#include <napi.h>

#include <cmath>
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
  // Each argument's kind is read once here (one napi_typeof each; typed arrays and arrays one more
  // call): the readers and onHost() then ask no more of N-API than the value itself.
  Args(const Napi::CallbackInfo& info, const char* op) : wm::OpArgs(op), info_(info) {
    const size_t n = info.Length() < kCached ? info.Length() : kCached;
    for (size_t i = 0; i < n; ++i) {
      kinds_[i] = classify(info[i]);
      onHost_ = onHost_ || kinds_[i] == Kind::Typed;
    }
  }

  const Napi::CallbackInfo& info() const { return info_; }
  Napi::Value operator[](size_t i) const { return info_[i]; }

  size_t size() const override { return info_.Length(); }

  Kind kind(size_t i) const override {
    if (i >= info_.Length()) return Kind::Missing;
    return i < kCached ? kinds_[i] : classify(info_[i]);
  }

  // Whether any argument is a typed array: the call's data lives on the host.
  bool onHost() const { return onHost_; }

  double rawNumber(size_t i) const override { return info_[i].As<Napi::Number>().DoubleValue(); }
  bool rawTruthy(size_t i) const override { return info_[i].ToBoolean().Value(); }

  // Two N-API calls per entry; an entry that is not a number reads as 0.5 ("not an integer").
  std::vector<double> rawArray(size_t i) const override {
    const napi_env env = info_.Env();
    const napi_value arr = info_[i];
    uint32_t n = 0;
    napi_get_array_length(env, arr, &n);
    std::vector<double> out(n);
    for (uint32_t k = 0; k < n; ++k) {
      napi_value v;
      if (napi_get_element(env, arr, k, &v) != napi_ok || napi_get_value_double(env, v, &out[k]) != napi_ok) out[k] = 0.5;
    }
    return out;
  }

  // One napi_get_typedarray_info: its data pointer already counts the byte offset.
  Typed rawTyped(size_t i) const override {
    napi_typedarray_type type;
    size_t length = 0;
    void* data = nullptr;
    if (napi_get_typedarray_info(info_.Env(), info_[i], &type, &length, &data, nullptr, nullptr) != napi_ok)
      reject(i, "buffer", "is not a readable typed array");
    Element e = Element::Other;
    switch (type) {
      case napi_int8_array:
        e = Element::Int8;
        break;
      case napi_uint8_array:
      case napi_uint8_clamped_array:
        e = Element::Uint8;
        break;
      case napi_uint16_array:
        e = Element::Uint16;
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
      case napi_bigint64_array:
        e = Element::BigInt64;
        break;
      default:
        break;
    }
    return Typed{data, static_cast<int64_t>(length), e};
  }

  double rawField(size_t i, const char* key) const override {
    if (!info_[i].IsObject()) return NAN;
    const Napi::Value v = info_[i].As<Napi::Object>().Get(key);
    return v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
  }
  // Defined beside the handles they unwrap (embedding_bindings.cc).
  wm::TableRef rawTable(size_t i, const char* name) const override;
  void* rawHostMemory(size_t i, const char* name, int64_t* bytes) const override;
  // native_graph_bindings.cc
  const wm::host::NativeGraph* rawGraph(size_t i, const char* name) const override;

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
  static constexpr size_t kCached = 16;

  static Kind classify(const Napi::Value& v) {
    switch (v.Type()) {
      case napi_undefined:
        return Kind::Missing;
      case napi_null:
        return Kind::Null;
      case napi_number:
        return Kind::Number;
      case napi_boolean:
        return Kind::Boolean;
      case napi_object:
        if (v.IsTypedArray()) return Kind::Typed;
        return v.IsArray() ? Kind::Array : Kind::Other;
      default:
        return Kind::Other;
    }
  }

  const Napi::CallbackInfo& info_;
  Kind kinds_[kCached] = {};
  bool onHost_ = false;
};

}  // namespace wmnapi
