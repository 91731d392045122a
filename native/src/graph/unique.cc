// Distinct int32 values in order of first occurrence and each element's number among them, through an
// open-addressing table of (value, number) slots, a power of two at least twice the element count: one short
// linear probe per element and no allocation per value.
#include <cstdint>
#include <vector>

#include "wm/op_registry.h"
#include "wm/graph_ops.h"

namespace wm {
namespace host {

int64_t uniqueInt32(const int32_t* x, int64_t n, int32_t* values, int32_t* inverse) {
  if (n <= 0) return 0;
  int bits = 4;
  while ((int64_t{1} << bits) < 2 * n) ++bits;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  std::vector<int32_t> keys(mask + 1);
  std::vector<int32_t> numbers(mask + 1, -1);  // -1: an empty slot
  int32_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t v = x[i];
    uint64_t s = (static_cast<uint64_t>(static_cast<uint32_t>(v)) * 0x9E3779B97F4A7C15ull) >> (64 - bits);
    while (numbers[s] >= 0 && keys[s] != v) s = (s + 1) & mask;
    if (numbers[s] < 0) {
      keys[s] = v;
      numbers[s] = count;
      values[count++] = v;
    }
    inverse[i] = numbers[s];
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
