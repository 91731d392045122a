// How a WholeMemory tensor of `rows` rows is cut into one slice per part
// (rank or GPU): the same rule for host memory (pages) and device memory
// (CUDA VMM granules), so continuous slices abut exactly in one range.
#pragma once
#include <cstdint>
#include <string>

namespace wm {

class Bootstrap;

enum class MemoryType : int { Continuous = 0, Chunked = 1, Distributed = 2 };

struct SliceLayout {
  int64_t rowsPerPart;  // every part but the last ones holds this many rows
  int64_t sliceBytes;   // rowsPerPart * rowBytes: a whole number of units
};

// rowsPerPart: at least ceil(rows / parts), a multiple of granularityRows, and a whole number of
// unitBytes (page or granule) in bytes. Refuses non-positive rowBytes, granularityRows, parts or unitBytes
// and negative rows, naming `what`.
SliceLayout sliceLayout(int64_t rows, int64_t rowBytes, int64_t granularityRows, int64_t parts, int64_t unitBytes, const std::string& what);

// Collective: every rank of comm must have computed the same layout (a mismatch means the ranks asked
// for different tensors); the error names the rank that differs and both requests.
void agreeOnLayout(Bootstrap& comm, const std::string& what, MemoryType type, int64_t rows, int64_t rowBytes, const SliceLayout& layout);

}  // namespace wm
