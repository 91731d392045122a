// relation_columns.h's blocks as a kernel argument, a launch's share of them: up to kBlockRelations relations from r0
// and up to kBlockRoots root copies, passed by value (no upload); more take more launches.
#pragma once

#include <algorithm>
#include <cstdint>

#include "graph/relation_columns.h"

namespace wm {

constexpr int kBlockRelations = 64, kBlockRoots = 16;

struct LaunchBlocks {
  int32_t start[kBlockRelations][3];
  int32_t root[kBlockRoots];
  int64_t r0;
  int nRel, nRoot;
  bool firstRoots;  // the launch holding root copies 0..: it writes dRoot, later ones add to it
};

// Calls f(LaunchBlocks) for each launch's share (at least one launch).
template <typename F>
void forEachLaunch(const RelationBlocks& b, F&& f) {
  const int64_t relations = static_cast<int64_t>(b.start.size() / 3), roots = static_cast<int64_t>(b.roots.size());
  int64_t r = 0, q = 0;
  do {
    LaunchBlocks l{};
    l.r0 = r;
    l.nRel = static_cast<int>(std::min<int64_t>(kBlockRelations, relations - r));
    for (int k = 0; k < l.nRel; ++k)
      for (int j = 0; j < 3; ++j) l.start[k][j] = b.start[3 * (r + k) + j];
    l.firstRoots = q == 0;
    l.nRoot = static_cast<int>(std::min<int64_t>(kBlockRoots, roots - q));
    for (int k = 0; k < l.nRoot; ++k) l.root[k] = b.roots[q + k];
    f(l);
    r += l.nRel;
    q += l.nRoot;
  } while (r < relations || q < roots);
}

}  // namespace wm
