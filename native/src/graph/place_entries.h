// A CSR's entries placed from edges, given the rows' offsets `st` [n + 1]: row u gets v for each edge
// (u, v), and u for (v, u) too when `symmetric`, in the edges' order. For graphs of billions of entries;
// NativeGraph's builders use it between counting the rows and sorting them.
#pragma once
#include <cstdint>
#include <vector>

#include "wm/page_array.h"

namespace wm {
namespace host {

struct PlacementOptions {
  int64_t chunkEntries = int64_t{32} << 20;  // entries bucketed at a time (the buffer holds 8 bytes each)
  int64_t minPerPart = int64_t{1} << 16;     // the least work a thread is given
  int64_t blockEntries = int64_t{1} << 20;   // a block of rows' entries on average (4 MiB of columns, one thread's)
  // All three small in tests, to reach every path on small graphs.
};

class EntryPlacer {
 public:
  // edges: how many edges all calls of place() will pass at most (sizes the buffer for small graphs).
  EntryPlacer(int64_t n, const int64_t* st, int32_t* c, bool symmetric, int64_t edges, const PlacementOptions& o = {});
  // Places m more edges after those placed before; an edge whose src is negative is no edge. src and dst
  // may be reused once it returns.
  void place(const int32_t* src, const int32_t* dst, int64_t m);
  // The edges one bucketing pass takes (a caller that makes its edges makes this many at a time).
  int64_t chunkEdges() const { return chunk_; }

 private:
  int32_t* c_;
  bool symmetric_;
  int64_t minPerPart_, shift_ = 0, blocks_ = 1, chunk_ = 1, parts_ = 1;
  PageArray buffer_, cursors_;
  std::vector<int64_t> counts_, blockStart_;
};

// EntryPlacer over one edge list.
void placeEntries(int64_t n, const int32_t* src, const int32_t* dst, int64_t m, bool symmetric, const int64_t* st, int32_t* c,
                  const PlacementOptions& o = {});

}  // namespace host
}  // namespace wm
