// Argument access for bindings whose buffers are device addresses (numbers:
// CUDA) or typed arrays (the CPU core): each read names the function, the
// argument's position and name, and the rule it broke.
#pragma once
#include <napi.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "napi_util.h"

namespace wmnapi {

struct Args {
  const Napi::CallbackInfo& info;
  const char* fn;
  bool device;

  Args(const Napi::CallbackInfo& i, const char* f) : info(i), fn(f), device(i[0].IsNumber()) {}

  std::string where(size_t i, const char* name) const { return std::string(fn) + ": argument " + std::to_string(i) + " (" + name + ")"; }

  int64_t integer(size_t i, const char* name) const {
    if (!info[i].IsNumber()) throw Napi::TypeError::New(info.Env(), where(i, name) + " must be a number");
    const double v = info[i].As<Napi::Number>().DoubleValue();
    if (!(v >= 0) || v != static_cast<double>(static_cast<int64_t>(v)))
      throw Napi::RangeError::New(info.Env(), where(i, name) + " must be a non-negative integer");
    return static_cast<int64_t>(v);
  }

  float number(size_t i, const char* name) const {
    if (!info[i].IsNumber()) throw Napi::TypeError::New(info.Env(), where(i, name) + " must be a number");
    return static_cast<float>(info[i].As<Napi::Number>().DoubleValue());
  }

  uint64_t ptr(size_t i, const char* name) const {
    if (!info[i].IsNumber()) throw Napi::TypeError::New(info.Env(), where(i, name) + " must be a device address like the others");
    return static_cast<uint64_t>(info[i].As<Napi::Number>().Int64Value());
  }

  // A typed array of 4-byte elements (int32 when `ints`) holding at least `need`.
  template <typename T>
  T* host(size_t i, const char* name, int64_t need) const {
    const bool ints = std::is_same<T, int32_t>::value;
    if (!info[i].IsTypedArray() || info[i].As<Napi::TypedArray>().TypedArrayType() != (ints ? napi_int32_array : napi_float32_array))
      throw Napi::TypeError::New(info.Env(), where(i, name) + (ints ? " must be an Int32Array" : " must be a Float32Array") + " like the others");
    auto t = info[i].As<Napi::TypedArray>();
    if (static_cast<int64_t>(t.ElementLength()) < need)
      throw Napi::RangeError::New(info.Env(), where(i, name) + " holds " + std::to_string(t.ElementLength()) + " elements, needs " +
                                                  std::to_string(need));
    return reinterpret_cast<T*>(wmnapi::typedBytes(t));
  }

  // A host CSR: rowPtr [rows + 1] from 0, non-decreasing; colIdx entries in [0, cols). Returns nnz.
  int64_t csr(const int32_t* rowPtr, const int32_t* colIdx, size_t colArg, int64_t rows, int64_t cols) const {
    if (rowPtr[0] != 0) throw Napi::RangeError::New(info.Env(), std::string(fn) + ": rowPtr must start at 0");
    for (int64_t r = 0; r < rows; ++r) {
      if (rowPtr[r + 1] < rowPtr[r]) throw Napi::RangeError::New(info.Env(), std::string(fn) + ": rowPtr decreases at row " + std::to_string(r));
    }
    const int64_t nnz = rowPtr[rows];
    host<int32_t>(colArg, "colIdx", nnz);
    for (int64_t e = 0; e < nnz; ++e) {
      if (colIdx[e] < 0 || colIdx[e] >= cols)
        throw Napi::RangeError::New(info.Env(), std::string(fn) + ": colIdx[" + std::to_string(e) + "] = " + std::to_string(colIdx[e]) +
                                                    " is outside [0, " + std::to_string(cols) + ")");
    }
    return nnz;
  }
};

}  // namespace wmnapi
