// Errors of the core library. Every failing call throws wm::Error carrying the
// call that failed and why; the addon turns it into a JavaScript Error.
#pragma once
#include <stdexcept>
#include <string>

namespace wm {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

[[noreturn]] inline void fail(const std::string& what) { throw Error(what); }

}  // namespace wm

#define WM_REQUIRE(cond, msg)                  \
  do {                                         \
    if (!(cond)) ::wm::fail(std::string(msg)); \
  } while (0)
