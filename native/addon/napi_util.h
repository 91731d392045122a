// Helpers every binding file uses: core errors become JavaScript errors, and
// typed arrays are read without copies.
#pragma once
#include <napi.h>

#include <cstdint>
#include <exception>

namespace wmnapi {

// Runs f; a wm::Error (or any std::exception) becomes a JavaScript Error
// carrying the core's message.
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

inline uint8_t* typedBytes(const Napi::TypedArray& t) {
  return static_cast<uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset();
}

}  // namespace wmnapi
