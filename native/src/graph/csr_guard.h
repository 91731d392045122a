// Bounds of a host graph's arrays, checked where the samplers read them: the
// arrays belong to JavaScript, which may change them after the graph was
// validated, so every row is checked as it is visited (two compares) and a
// changed graph is an error, never a read past an array.
#pragma once
#include <cstdint>
#include <string>

#include "wm/status.h"

namespace wm {
namespace host {

template <typename Off>
struct CsrGuard {
  const Off* rowPtr;
  int64_t numVertices;
  int64_t nnz;  // colIdx's true length

  bool rowOk(int64_t v) const {
    if (v < 0 || v >= numVertices) return false;
    int64_t a = rowPtr[v], b = rowPtr[v + 1];
    return 0 <= a && a <= b && b <= nnz;
  }
  [[noreturn]] static void changed(const std::string& what) {
    fail(what +
         ": the graph's rowPtr / colIdx changed after the graph was checked (a row or column is out of range); "
         "build a new graph instead of editing its arrays");
  }
};

}  // namespace host
}  // namespace wm
