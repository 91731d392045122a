#include <unordered_map>

#include "wm/op_registry.h"
#include "wm/graph_ops.h"

namespace wm {
namespace host {

int64_t uniqueInt32(const int32_t* x, int64_t n, int32_t* values, int32_t* inverse) {
  std::unordered_map<int32_t, int32_t> seen;
  seen.reserve(static_cast<size_t>(n));
  int32_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    auto [it, fresh] = seen.try_emplace(x[i], count);
    if (fresh) values[count++] = x[i];
    inverse[i] = it->second;
  }
  return count;
}

}  // namespace host
}  // namespace wm

// uniqueInt32(x, n, values, inverse) -> the number of distinct values
WM_OP(uniqueInt32, Host, a) {
  const int64_t n = a.count(1, "n");
  a.returns(static_cast<double>(wm::host::uniqueInt32(a.ints(0, "x", n), n, a.ints(2, "values", n), a.ints(3, "inverse", n))));
}
