// A CSR's entries placed from an edge list, given the rows' offsets `st` [n + 1]: row u gets v for each
// edge (u, v), and u for (v, u) too when `symmetric`, in the edges' order. For graphs of billions of
// entries; NativeGraph's builder calls it between counting the rows and sorting them.
#pragma once
#include <cstdint>

namespace wm {
namespace host {

// chunkEntries: the entries bucketed at a time (the buffer holds 8 bytes each); minPerPart: the least
// work a thread is given; blockEntries: the entries of a block of rows on average (1M: 4 MiB of columns
// written by one thread). All three small in tests, to reach every path on small graphs.
void placeEntries(int64_t n, const int32_t* src, const int32_t* dst, int64_t m, bool symmetric, const int64_t* st, int32_t* c,
                  int64_t chunkEntries = int64_t{32} << 20, int64_t minPerPart = int64_t{1} << 16, int64_t blockEntries = int64_t{1} << 20);

}  // namespace host
}  // namespace wm
