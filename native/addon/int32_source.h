// The graph samplers' arrays: Int32Arrays, or continuous int32 host
// WholeMemory (a graph every process of a host shares) read in place.
#pragma once
#include <napi.h>

#include <cstdint>

struct Int32Source {
  const int32_t* data;
  int64_t length;
};
// Argument i as an Int32Source; name is the argument's name for the error.
Int32Source int32Source(const Napi::CallbackInfo& info, size_t i, const char* name);  // comm_bindings.cc
