#include "wm/slice_layout.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "wm/bootstrap.h"
#include "wm/status.h"

namespace wm {

SliceLayout sliceLayout(int64_t rows, int64_t rowBytes, int64_t granularityRows, int64_t parts, int64_t unitBytes,
                        const std::string& what) {
  WM_REQUIRE(rows >= 0, what + ": rows must not be negative");
  WM_REQUIRE(rowBytes > 0, what + ": a row must have at least one byte");
  WM_REQUIRE(granularityRows >= 1, what + ": minGranularity must be at least one row");
  WM_REQUIRE(parts >= 1, what + ": needs at least one part");
  WM_REQUIRE(unitBytes >= 1, what + ": the allocation unit must be at least one byte");
  // The fewest rows whose bytes are whole units, then a multiple of both that and granularityRows.
  const int64_t unitRows = unitBytes / std::gcd(unitBytes, rowBytes);
  const int64_t step = granularityRows / std::gcd(granularityRows, unitRows) * unitRows;
  const int64_t perPart = (rows + parts - 1) / parts;
  SliceLayout l;
  l.rowsPerPart = std::max<int64_t>(step, (perPart + step - 1) / step * step);
  WM_REQUIRE(l.rowsPerPart <= INT64_MAX / rowBytes, what + ": a slice of " + std::to_string(l.rowsPerPart) + " rows of " +
                                                        std::to_string(rowBytes) + " bytes does not fit 64-bit sizes");
  l.sliceBytes = l.rowsPerPart * rowBytes;
  return l;
}

void agreeOnLayout(Bootstrap& comm, const std::string& what, MemoryType type, int64_t rows, int64_t rowBytes, const SliceLayout& layout) {
  const std::string mine = std::to_string(static_cast<int>(type)) + " " + std::to_string(rows) + " " + std::to_string(rowBytes) + " " +
                           std::to_string(layout.rowsPerPart);
  const std::vector<std::string> all = comm.allgather(mine, what);
  for (int r = 0; r < comm.size(); ++r)
    WM_REQUIRE(all[r] == mine, what + ": rank " + std::to_string(r) + " asked for (type rows rowBytes rowsPerPart) " + all[r] +
                                   " but rank " + std::to_string(comm.rank()) + " for " + mine);
}

}  // namespace wm
